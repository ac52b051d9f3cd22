/* hccl_exchange.h - exchange info (HcclCommAddExchangeInfo / GetExchangeInfo /
 * ResetExchangeInfo): a few bytes each rank attaches to its next channel set-up, which the
 * peers of those channels keep until they read them. HCCL's operators use it to compare
 * their parameters across ranks (HCCL_DFS_CONFIG inconsistent_check).
 *
 * When the data moves: during HcclChannelAcquire, inside the handshake of every channel the
 * call creates (hccl_link.c copies the bytes into the offer it posts in the rendezvous file,
 * and stores the peer's bytes when it consumes the peer's offer). A channel that already
 * exists carries nothing again; the peer then finds nothing to read, as hcomm's default
 * "check the first time" mode does. Functions here expect the comm's lock held unless said. */
#ifndef HCEMU_HOST_HCCL_EXCHANGE_H
#define HCEMU_HOST_HCCL_EXCHANGE_H

#include <stdint.h>

#include "common/contract/status.h"
#include "hccl_comm.h"
#include "host/hccl/rdv/hccl_rdv.h"

/* Keep a copy of data[0..len) for the next channel set-up, replacing an earlier one.
 * len 0 or over EMU_RDV_INFO_MAX: EMU_EINVAL. Takes the lock. */
emu_status emu_xinfo_add(struct emu_comm *c, const void *data, uint32_t len,
                         const char *fn) EMU_MUST_CHECK;
/* What `remote` sent, once: *actual = its length (0 when nothing waits, remote out of range
 * included); copied and forgotten when len == *actual, else EMU_EINVAL and kept. Takes the
 * lock. */
emu_status emu_xinfo_get(struct emu_comm *c, uint32_t remote, uint32_t len, void *data,
                         uint32_t *actual, const char *fn) EMU_MUST_CHECK;
/* Forget what was added (what peers sent stays). Takes the lock. */
void emu_xinfo_reset(struct emu_comm *c);

/* hccl_link.c: put what was added into an offer being posted. */
void emu_xinfo_post(const struct emu_comm *c, struct emu_rdv_offer *o);
/* hccl_link.c: keep what `peer` attached to its offer (nothing when it attached nothing). */
emu_status emu_xinfo_store(struct emu_comm *c, uint32_t peer,
                           const struct emu_rdv_offer *o) EMU_MUST_CHECK;
/* hccl_link.c: a channel set-up that sent the bytes used them up. */
void emu_xinfo_sent(struct emu_comm *c);
/* At destroy (no lock needed: nobody else uses the comm). */
void emu_xinfo_free(struct emu_comm *c);

#endif
