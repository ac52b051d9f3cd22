/* hccl_sym_win_xchg.h - the exchange behind a symmetric window's registration
 * (hccl_sym_win.c): every rank's window start and size, through the communicator's
 * rendezvous file. */
#ifndef HCEMU_HOST_HCCL_SYM_WIN_XCHG_H
#define HCEMU_HOST_HCCL_SYM_WIN_XCHG_H

#include <stdint.h>

#include "common/contract/status.h"
#include "hccl_comm.h"

/* Post this rank's window start and size and wait for every rank's; bases[r] = rank r's
 * start. All ranks reach the same verdict: EMU_EINVAL when their sizes differ,
 * EMU_ETIMEOUT/EMU_EREMOTE when one never posts or gave up, EMU_ENOTSUP when the ranks do not
 * share one host and job folder; each logged once. */
emu_status emu_symwin_xchg(struct emu_comm *c, uint64_t base, uint64_t size, uint64_t *bases,
                           const char *fn) EMU_MUST_CHECK;

#endif
