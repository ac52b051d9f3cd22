/* launch.c - the rank identity a launcher hands a process (see launch.h). hcemu-run is asked
 * first (it may itself run under mpirun or srun), then Open MPI, then Slurm. */
#include "launch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/platform/log.h"
#include "settings.h"

struct launcher {
    const char *name;
    enum emu_setting rank, size, local, job;
};

static const struct launcher launchers[] = {
    {"hcemu-run", EMU_SET_RANK, EMU_SET_RANK_SIZE, EMU_SET_LOCAL_RANK, EMU_SET_JOB_ID},
    {"mpirun", EMU_SET_OMPI_RANK, EMU_SET_OMPI_SIZE, EMU_SET_OMPI_LOCAL_RANK,
     EMU_SET_PMIX_NAMESPACE},
    {"srun", EMU_SET_SLURM_PROCID, EMU_SET_SLURM_NTASKS, EMU_SET_SLURM_LOCALID,
     EMU_SET_SLURM_JOB_ID},
};

static bool number(enum emu_setting id, uint32_t *out)
{
    const char *s = emu_settings_str(id);
    char *end;

    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (*s == '\0' || *s == '-' || *end != '\0' || errno != 0 || v > UINT32_MAX) {
        EMU_LOG_ERR("%s=%s is not a rank number", emu_settings_info(id)->name, s);
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

static bool from(const struct launcher *l, struct emu_launch_id *out)
{
    if (!number(l->rank, &out->rank) || !number(l->size, &out->size))
        return false;
    if (out->rank >= out->size) {
        EMU_LOG_ERR("%s: rank %u is not below the rank count %u", l->name, out->rank, out->size);
        return false;
    }
    /* hcemu-run before multi-host support gave no local index: rank = device then. */
    out->local = out->rank;
    if (emu_settings_is_set(l->local) && !number(l->local, &out->local))
        return false;
    out->via = l->name;
    out->job = emu_settings_str(l->job);
    return true;
}

bool emu_launch_identity(struct emu_launch_id *out)
{
    for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++) {
        const struct launcher *l = &launchers[i];
        if (emu_settings_is_set(l->rank) && emu_settings_is_set(l->size))
            return from(l, out);
    }
    return false;
}
