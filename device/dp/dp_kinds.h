/* dp_kinds.h - the data plane's task kinds, one row each with every fact the executor keeps
 * about a kind: its name in reports and what it does (which ranges it reads and writes,
 * whether it reduces, records or waits for a notify, whether it goes through a channel).
 * dp.h makes the enum from it, dp_task.c runs and describes tasks from it, dp_build.c fills
 * payloads from it; nothing else repeats these facts.
 *
 * Adding a primitive touches at most four files:
 *   1. device/dp/dp_kinds.h       a row here (only if it is a new kind of task);
 *   2. device/dp/api_hcomm.c      the Hcomm* function kernels call: check the handles, call the
 *                              dp_build.c builder of its shape with the kind, queue the task;
 *   3. loader/device_api_names.h   the name, so the loader accepts kernels importing it;
 *   4. host/hccl/api/api_hcomm.c   the host library's answer (CPU_TS work, or "not supported");
 * plus its test in tests/test_dataplane.c. dp_build.c changes only for an argument shape no
 * builder has yet; dp_task.c only for a kind that does something no flag combination says. */
#ifndef HCEMU_DEVICE_DP_KINDS_H
#define HCEMU_DEVICE_DP_KINDS_H

#include <stdint.h>

/* Facts of a kind (flags). A task moves [src, +len) into [dst, +len) when MOVE is set. */
#define EMU_DPF_MOVE 0x01u       /* reads src, writes dst (len bytes) */
#define EMU_DPF_REDUCE 0x02u     /* the move reduces count elements of dtype with op into dst */
#define EMU_DPF_REMOTE_DST 0x04u /* dst is memory of the channel's peer (a write) */
#define EMU_DPF_REMOTE_SRC 0x08u /* src is memory of the channel's peer (a read) */
#define EMU_DPF_RECORD 0x10u     /* sets a notify (after the move, if any) */
#define EMU_DPF_WAIT 0x20u       /* consumes a notify, parking until it is set or times out;
                                  * with MOVE, the move follows the wait (a local src and dst:
                                  * hcemu's own collectives, one task where two were) */
#define EMU_DPF_CHANNEL 0x40u    /* goes through a channel (payload's channel is its slot) */
#define EMU_DPF_PUBLISHED 0x80u  /* the peer's end (src of a read, dst of a write) is not known
                                  * at the call: the peer writes its address into 8 bytes of
                                  * my memory (payload's mailbox) before the task runs, which
                                  * reads it then (hcemu's own collectives) */
#define EMU_DPF_LAZY 0x100u      /* a record that wakes its device only when nothing is queued
                                  * behind it on the recording thread, whose later record of
                                  * the same kind will (hcemu's own collectives' "done") */
#define EMU_DPF_SPREAD                                                                             \
    0x200u /* with MOVE and REDUCE: src (mine) and every peer's published                          \
            * part reduced, the result written to dst and every peer's                             \
            * published output; the peers' ends come from a row of                                 \
            * mailboxes when the task runs (hcemu's own collectives) */

#define EMU_DPF_WRITE (EMU_DPF_MOVE | EMU_DPF_REMOTE_DST | EMU_DPF_CHANNEL)
#define EMU_DPF_READ (EMU_DPF_MOVE | EMU_DPF_REMOTE_SRC | EMU_DPF_CHANNEL)

/* X(id, report name, flags) -> EMU_DP_<id>. Comments: the calls that make the kind. */
#define EMU_DP_KINDS(X)                                                                            \
    X(COPY, "local copy", EMU_DPF_MOVE)                      /* HcommLocalCopyOnThread */          \
    X(REDUCE, "local reduce", EMU_DPF_MOVE | EMU_DPF_REDUCE) /* HcommLocalReduceOnThread */        \
    X(WRITE, "channel write", EMU_DPF_WRITE)                 /* HcommWriteOnThread, batch WRITE */ \
    X(READ, "channel read", EMU_DPF_READ)                    /* HcommReadOnThread, batch READ */   \
    X(WRITE_REDUCE, "channel write-reduce", EMU_DPF_WRITE | EMU_DPF_REDUCE)                        \
    X(READ_REDUCE, "channel read-reduce", EMU_DPF_READ | EMU_DPF_REDUCE)                           \
    X(READ_PUBLISHED, "channel read of a published buffer",                                        \
      EMU_DPF_READ | EMU_DPF_PUBLISHED) /* hcemu_read_published */                                 \
    X(READ_REDUCE_PUBLISHED, "channel read-reduce of a published buffer",                          \
      EMU_DPF_READ | EMU_DPF_REDUCE | EMU_DPF_PUBLISHED) /* hcemu_read_reduce_published[_into] */  \
    X(WRITE_PUBLISHED, "channel write to a published buffer",                                      \
      EMU_DPF_WRITE | EMU_DPF_PUBLISHED) /* hcemu_write_published */                               \
    X(REDUCE_SPREAD_PUBLISHED, "reduce-spread of published buffers",                               \
      EMU_DPF_MOVE | EMU_DPF_REDUCE | EMU_DPF_SPREAD) /* hcemu_reduce_spread_published */          \
    X(WRITE_NOTIFY, "channel write with notify", EMU_DPF_WRITE | EMU_DPF_RECORD)                   \
    X(WRITE_REDUCE_NOTIFY, "channel write-reduce with notify",                                     \
      EMU_DPF_WRITE | EMU_DPF_REDUCE | EMU_DPF_RECORD)                                             \
    X(THREAD_RECORD, "thread notify record", EMU_DPF_RECORD)                                       \
    X(DONE_RECORD, "thread notify record (collective done)",                                       \
      EMU_DPF_RECORD | EMU_DPF_LAZY)                   /* hcemu_record_done */                     \
    X(THREAD_WAIT, "thread notify wait", EMU_DPF_WAIT) /* [WithDefaultTimeout] */                  \
    X(CHANNEL_RECORD, "channel notify record", EMU_DPF_RECORD | EMU_DPF_CHANNEL)                   \
    X(CHANNEL_WAIT, "channel notify wait", EMU_DPF_WAIT | EMU_DPF_CHANNEL)                         \
    X(WAIT_COPY, "channel notify wait, then local copy",                                           \
      EMU_DPF_WAIT | EMU_DPF_CHANNEL | EMU_DPF_MOVE) /* hcemu_wait_copy */                         \
    X(WAIT_REDUCE, "channel notify wait, then local reduce",                                       \
      EMU_DPF_WAIT | EMU_DPF_CHANNEL | EMU_DPF_MOVE | EMU_DPF_REDUCE) /* hcemu_wait_reduce */      \
    X(ACL_RECORD, "runtime notify record", EMU_DPF_RECORD) /* HcommAclrtNotify*, A2/A3 */          \
    X(ACL_WAIT, "runtime notify wait", EMU_DPF_WAIT)

/* Task kinds of the data plane (emu_task.kind), after the scheduler's own (below 64). */
enum emu_dp_kind {
    EMU_DP_KIND_BEFORE = 63,
#define EMU_DP_KIND_ENUM(id, name, flags) EMU_DP_##id,
    EMU_DP_KINDS(EMU_DP_KIND_ENUM)
#undef EMU_DP_KIND_ENUM
        EMU_DP_KIND_END
};

/* The EMU_DPF_* facts of `kind`; 0 for a kind not in the table. */
static inline uint32_t emu_dp_kinds_flags(uint32_t kind)
{
    switch (kind) {
#define EMU_DP_KIND_CASE(id, name, flags)                                                      \
    case EMU_DP_##id:                                                                          \
        return (flags);
        EMU_DP_KINDS(EMU_DP_KIND_CASE)
#undef EMU_DP_KIND_CASE
    default:
        return 0;
    }
}

#endif
