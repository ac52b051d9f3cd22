/* coll_check.h - cross-rank checks of the collective operators (HCEMU_COLL_CHECK).
 *
 * Before a collective runs, each rank posts what it was called with (operator, data type,
 * counts, reduce op, root; for the V forms their count and displacement vectors) as its n-th
 * call on the communicator, and waits until every rank has posted its n-th call. Every rank
 * then compares the same records and reaches the same verdict: a mismatch fails the call on
 * every rank with one line naming each rank's call; a rank that does not arrive is named
 * after HCEMU_HANG_MS. A call that fails its local argument checks posts nothing: it fails on
 * its rank with the vendor's code, and the other ranks name that rank as missing. Point-to-point calls (Send, Recv, BatchSendRecv) involve two ranks, not
 * the communicator, and are not checked. The records live in the communicator's rendezvous
 * file (hccl_rdv.h), so ranks as threads and as processes of one host meet there; a
 * communicator spanning hosts is not checked. */
#ifndef HCEMU_HOST_COLL_COLL_CHECK_H
#define HCEMU_HOST_COLL_COLL_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "common/contract/status.h"

struct emu_comm;
struct emu_coll_op;

/* Post and compare rank c's next call, `o` once its arguments passed the local checks (the
 * V forms' vectors are read from o's pairs). EMU_OK when the check is off or not possible
 * (ranks on several hosts) or every rank made the same call; EMU_EINVAL on a mismatch,
 * EMU_ETIMEOUT or EMU_EREMOTE when a rank never arrives (each logged). */
emu_status emu_coll_check_op(struct emu_comm *c, const struct emu_coll_op *o) EMU_MUST_CHECK;

#endif
