/* hccl_comm_args.h - checks and derivations of the communicator init calls (hccl_comm_args.c). */
#ifndef HCEMU_HOST_HCCL_COMM_ARGS_H
#define HCEMU_HOST_HCCL_COMM_ARGS_H

#include <stdint.h>

#include "common/contract/status.h"
#include "hccl_comm.h"

/* nRanks in [1, EMU_COMM_MAX_RANKS] and rank below it; one log line naming `fn` if not. */
emu_status emu_comm_args_check_ranks(uint32_t n, uint32_t rank, const char *fn) EMU_MUST_CHECK;
/* HcclCommInitAll's list: ndev opened devices, each once; one log line naming `fn` if not. */
emu_status emu_comm_args_check_devices(uint32_t ndev, const int32_t *devices,
                                       const char *fn) EMU_MUST_CHECK;
/* Sets a->nonce and a->rdv_dir for ranks that read the rank table whose bytes hash to `hash`. */
emu_status emu_comm_args_cluster_rdv(struct emu_comm_args *a, uint64_t hash) EMU_MUST_CHECK;

#endif
