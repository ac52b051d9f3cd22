/* launch.h - who this process is in a job: its rank, the rank count, its index on its host
 * and the job's identity, as the launcher that started it said (hcemu-run, Open MPI's
 * mpirun, Slurm's srun), read through the settings table. */
#ifndef HCEMU_COMMON_LAUNCH_H
#define HCEMU_COMMON_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

struct emu_launch_id {
    uint32_t rank;       /* in [0, size) */
    uint32_t size;       /* ranks of the job */
    uint32_t local;      /* index on this host: the device this rank uses */
    const char *via;     /* "hcemu-run", "mpirun", "srun" */
    const char *job;     /* the job's identity, the same in every rank ("" when unknown) */
};

/* Fill `out` from the first launcher whose variables are all present and valid; false when
 * none started this process (a bad value logs one line naming the variable). */
bool emu_launch_identity(struct emu_launch_id *out);

#endif
