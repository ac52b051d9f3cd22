/* ex_launch.h - how a host program learns its rank from the launcher that started it, as
 * real HCCL programs do: hcemu-run (HCEMU_RANK, HCEMU_RANK_SIZE, HCEMU_LOCAL_RANK), Open
 * MPI's mpirun (OMPI_COMM_WORLD_*) or Slurm's srun (SLURM_PROCID, SLURM_NTASKS,
 * SLURM_LOCALID). Shared by the examples and the hccl_test tools; header-only. */
#ifndef HCEMU_EX_LAUNCH_H
#define HCEMU_EX_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct ex_launch {
    uint32_t rank, size, local; /* local: index on this host = the device to use */
    const char *via;
};

static inline bool ex_launch_num(const char *s, uint32_t *out)
{
    char *end;

    if (s == NULL || *s == '\0' || *s == '-')
        return false;
    unsigned long v = strtoul(s, &end, 10);
    if (*end != '\0' || v > 1000000ul)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* 1: under a launcher, `l` filled; 0: not under one; -1: its variables are not valid. */
static inline int ex_launch_get(struct ex_launch *l)
{
    static const char *const vars[][4] = {
        {"hcemu-run", "HCEMU_RANK", "HCEMU_RANK_SIZE", "HCEMU_LOCAL_RANK"},
        {"mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
        {"srun", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
    };

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *r = getenv(vars[i][1]);
        if (r == NULL)
            continue;
        l->via = vars[i][0];
        if (!ex_launch_num(r, &l->rank) || !ex_launch_num(getenv(vars[i][2]), &l->size) ||
            l->rank >= l->size)
            return -1;
        if (!ex_launch_num(getenv(vars[i][3]), &l->local))
            l->local = l->rank;
        return 1;
    }
    return 0;
}

#endif
