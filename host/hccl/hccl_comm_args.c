/* hccl_comm_args.c - what the communicator init calls check and derive before
 * emu_comm_create(): rank counts, HcclCommInitAll's device list, and where ranks reading one
 * rank table meet. The api_hccl_comm.c boundary only converts and forwards. */
#include "hccl_comm_args.h"

#include <stdio.h>
#include <unistd.h>

#include "common/contract/settings.h"
#include "hccl.h"
#include "host/hccl/rdv/hccl_rdv.h"
#include "host/acl/runtime.h"

emu_status emu_comm_args_check_ranks(uint32_t n, uint32_t rank, const char *fn)
{
    if (n == 0 || n > EMU_COMM_MAX_RANKS)
        return emu_hccl_bad(NULL, fn,
                            "nRanks %u is not in [1, %u] (hcemu emulates at most one "
                            "rank per device)",
                            n, EMU_COMM_MAX_RANKS);
    if (rank >= n)
        return emu_hccl_bad(NULL, fn, "rank %u is not below nRanks %u", rank, n);
    return EMU_OK;
}

emu_status emu_comm_args_check_devices(uint32_t ndev, const int32_t *devices, const char *fn)
{
    if (ndev == 0 || ndev > EMU_COMM_MAX_RANKS || ndev > emu_rt.ndev)
        return emu_hccl_bad(NULL, fn, "ndev %u is not in [1, %u] (HCEMU_DEVICES)", ndev,
                            emu_rt.ndev);
    for (uint32_t i = 0; i < ndev; i++) {
        if (devices[i] < 0 || (uint32_t)devices[i] >= emu_rt.ndev)
            return emu_hccl_bad(NULL, fn, "devices[%u] = %d is not a device (0..%u)", i, devices[i],
                                emu_rt.ndev - 1);
        for (uint32_t k = 0; k < i; k++)
            if (devices[k] == devices[i])
                return emu_hccl_bad(NULL, fn,
                                    "device %d is listed twice (devices[%u] and "
                                    "devices[%u])",
                                    devices[i], k, i);
    }
    return EMU_OK;
}

/* Ranks reading the same table meet in the shared job folder, or - separate processes with
 * their own job folders - in the folder of all job folders, under a name made from the
 * table's bytes and the user. */
emu_status emu_comm_args_cluster_rdv(struct emu_comm_args *a, uint64_t hash)
{
    const char *dir = emu_settings_str(EMU_SET_JOB_PATH);

    a->nonce = hash ^ ((uint64_t)geteuid() * 0x9e3779b97f4a7c15ull);
    if (*dir != '\0') { /* private, checked at aclInit */
        snprintf(a->rdv_dir, sizeof(a->rdv_dir), "%s", dir);
        return EMU_OK;
    }
    return emu_rdv_private_dir(emu_settings_str(EMU_SET_JOB_DIR), a->rdv_dir, sizeof(a->rdv_dir));
}
