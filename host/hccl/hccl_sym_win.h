/* hccl_sym_win.h - symmetric windows of a communicator (HcclCommSymWinRegister and its
 * siblings, docs/CONTROL_PLANE.md §9): a user's device range that every rank registers with
 * the same size, described in the rank's device memory (common/contract/symwin.h) so that
 * its kernels can address the peers' copies and send transfers into them.
 *
 * Registration is collective and exchanges every rank's window start at once (the vendor's
 * 950 exchanges when the operators' channels are created; the observable result, a peer
 * pointer that works once channels exist, is the same). Windows live until deregistered or
 * until the communicator is destroyed; neither frees the user's memory. */
#ifndef HCEMU_HOST_HCCL_SYM_WIN_H
#define HCEMU_HOST_HCCL_SYM_WIN_H

#include <stdint.h>

#include "common/contract/status.h"
#include "hccl_comm.h"

/* Register [addr, addr+size) of c's device as a window, exchanging with every rank; *out is
 * the handle (the descriptor's device address). The range must lie in one live allocation
 * and overlap no window of c. EMU_EINVAL for a bad range or sizes that differ between ranks,
 * EMU_ENOTSUP across hosts, EMU_ETIMEOUT/EMU_EREMOTE for a rank that never comes, EMU_ENOMEM
 * for no room; each logged once. Takes c->lock itself: call without it. */
emu_status emu_symwin_register(struct emu_comm *c, uint64_t addr, uint64_t size, void **out,
                               const char *fn) EMU_MUST_CHECK;
/* Release the window behind handle h (any live communicator of this process): EMU_EINVAL,
 * logged, when h is no registered window. */
emu_status emu_symwin_deregister(const void *h, const char *fn) EMU_MUST_CHECK;
/* The window of c holding [ptr, ptr+size) and ptr's offset in it. EMU_ENOTFOUND without a
 * log line when none does: HCCL asks before every operator to choose its path. */
emu_status emu_symwin_find(struct emu_comm *c, uint64_t ptr, uint64_t size, void **out,
                           uint64_t *offset) EMU_MUST_CHECK;
/* Destroy: release every window still registered (call with c->lock held). */
void emu_symwin_release_all(struct emu_comm *c);

#endif
