/* api_hcemu.c - the device calls of hcemu's own, beside the vendor's Hcomm* functions: a read
 * and read-reduces (into the destination, or of a local buffer into it) whose source the peer
 * names when the task runs, not when it is queued,
 * a lazy "done" record, and a channel wait fused with the local copy or reduce behind it.
 *
 * The built-in collectives (collectives/coll_kernel.c, "Direct reads") use it to read a peer's
 * user buffer straight into their output: each side writes the address of the bytes it sends
 * into the other's mailbox, in stream order, and the reader's task takes it from there. That
 * moves each block once instead of through an HCCL buffer. No product has this call; a user's
 * kernel should not use it (the loader accepts it because hcemu's own image is loaded like any
 * other). The peer's address is checked when the task runs: memory of the peer's device and a
 * live allocation there, or the task fails with the reason in the hang and failure reports. */
#include <stdbool.h>
#include <stdint.h>

#include "collectives/hcemu_calls.h"
#include "common/contract/settings.h"
#include "device/kernel/kernel.h"
#include "dp.h"

/* What the three published calls share; `own` NULL but for the one reducing into a third
 * buffer. */
struct published {
    bool reduce;
    const void *own;
    bool own_first;
};

static int32_t published(struct emu_hcomm_call *c, ThreadHandle thread, ChannelHandle channel,
                         struct published how, void *dst, const void *mailbox, uint64_t off,
                         uint64_t n, int dtype, int op)
{
    struct emu_task *t = NULL;
    uint32_t slot, ch;
    emu_status st = emu_dp_check_thread_channel(c, thread, channel, &slot, &ch);

    if (st == EMU_OK)
        st = emu_dp_build_read_published(c, ch, how.reduce, dst, how.own, how.own_first, mailbox,
                                         off, n, dtype, op, &t);
    return emu_dp_submit_built(c, slot, st, t);
}

EMU_DP_API int32_t hcemu_read_published(ThreadHandle thread, ChannelHandle channel, void *dst,
                                        const void *mailbox, uint64_t off, uint64_t len)
{
    EMU_DP_CALL("hcemu_read_published");
    return published(&c, thread, channel, (struct published){.reduce = false}, dst, mailbox, off,
                     len, 0, 0);
}

EMU_DP_API int32_t hcemu_read_reduce_published(ThreadHandle thread, ChannelHandle channel,
                                               void *dst, const void *mailbox, uint64_t off,
                                               uint64_t count, HcommDataType dataType,
                                               HcommReduceOp reduceOp)
{
    EMU_DP_CALL("hcemu_read_reduce_published");
    return published(&c, thread, channel, (struct published){.reduce = true}, dst, mailbox, off,
                     count, (int)dataType, (int)reduceOp);
}

EMU_DP_API int32_t hcemu_read_reduce_published_into(ThreadHandle thread, ChannelHandle channel,
                                                    void *dst, const void *own, bool ownFirst,
                                                    const void *mailbox, uint64_t off,
                                                    uint64_t count, HcommDataType dataType,
                                                    HcommReduceOp reduceOp)
{
    EMU_DP_CALL("hcemu_read_reduce_published_into");
    emu_status st = emu_dp_check_ptr(&c, "own", own);
    if (st != EMU_OK)
        return emu_status_to_hccl(st);
    return published(&c, thread, channel,
                     (struct published){.reduce = true, .own = own, .own_first = ownFirst}, dst,
                     mailbox, off, count, (int)dataType, (int)reduceOp);
}

/* The write counterpart: `len` bytes of my memory into the peer's at `off` past the address it
 * published in my mailbox. The built-in collectives' recursive doubling pushes each step's
 * blocks straight into the partner's output with it (collectives/coll_kernel.c, "Pushed
 * steps"). */
EMU_DP_API int32_t hcemu_write_published(ThreadHandle thread, ChannelHandle channel,
                                         const void *mailbox, uint64_t off, const void *src,
                                         uint64_t len)
{
    EMU_DP_CALL("hcemu_write_published");
    struct emu_task *t = NULL;
    uint32_t slot, ch;
    emu_status st = emu_dp_check_thread_channel(&c, thread, channel, &slot, &ch);

    if (st == EMU_OK)
        st = emu_dp_build_write_published(&c, ch, mailbox, off, src, len, &t);
    return emu_dp_submit_built(&c, slot, st, t);
}

/* A spread allreduce's round in one task (collectives/coll_kernel.c, "spread"): my part and
 * every peer's reduced in rank order, a piece at a time (dp_task.c, spread_piece), and each
 * piece stored straight into every rank's output. Past the cache the stores stream, so the task
 * reads memory and writes it at once, as a copy does, where a reduction into a cached buffer and
 * then a copy from it per output read memory first and wrote it after; in a cached call it saves
 * the passes over my output and a task per peer. */
EMU_DP_API int32_t hcemu_reduce_spread_published(ThreadHandle thread, const ChannelHandle *chans,
                                                 uint32_t n, uint32_t me, const void *own,
                                                 void *mine, const void *mailbox, uint32_t stride,
                                                 uint64_t off, uint64_t count,
                                                 HcommDataType dataType, HcommReduceOp reduceOp)
{
    EMU_DP_CALL("hcemu_reduce_spread_published");
    struct emu_task *t = NULL;
    uint32_t slot;
    emu_status st = emu_dp_check_thread(&c, thread, &slot);

    if (st == EMU_OK)
        st = emu_dp_build_reduce_spread(&c, chans, n, me, own, mine, mailbox, stride, off, count,
                                        (int)dataType, (int)reduceOp, &t);
    return emu_dp_submit_built(&c, slot, st, t);
}

/* A thread notify record that wakes the destination's device only when nothing is queued
 * behind it on `thread` (dp_kinds.h, EMU_DPF_LAZY): the built-in collectives' "done" to the
 * host stream, while later calls already queued behind it on the same thread will record
 * their own (host/coll/coll_launch.c, "Overlapping calls"). */
EMU_DP_API int32_t hcemu_record_done(ThreadHandle thread, ThreadHandle dstThread,
                                     uint32_t dstNotifyIdx)
{
    EMU_DP_CALL("hcemu_record_done");
    return emu_dp_record_on_thread(&c, EMU_DP_DONE_RECORD, thread, dstThread, dstNotifyIdx);
}

/* A channel notify wait and the local copy or reduce that follows it on `thread`, as one
 * task (dp_kinds.h, WAIT_COPY and WAIT_REDUCE): what an eager exchange's receiving side
 * queues per peer (collectives/coll_kernel.c), the same checks as the two calls it stands
 * for, with one task to build, queue, publish and retire instead of two. */
static int32_t wait_move(struct emu_hcomm_call *c, ThreadHandle thread, ChannelHandle channel,
                         uint32_t idx, uint32_t timeout_s, bool reduce, void *dst, const void *src,
                         uint64_t n, int dtype, int op)
{
    struct emu_task *t = NULL;
    uint32_t slot, ch;
    emu_status st = emu_dp_check_thread_channel(c, thread, channel, &slot, &ch);

    if (st == EMU_OK)
        st = emu_dp_build_wait_move(c, ch, idx, timeout_s, reduce, dst, src, n, dtype, op, &t);
    return emu_dp_submit_built(c, slot, st, t);
}

EMU_DP_API int32_t hcemu_wait_copy(ThreadHandle thread, ChannelHandle channel,
                                   uint32_t localNotifyIdx, uint32_t timeOut, void *dst,
                                   const void *src, uint64_t len)
{
    EMU_DP_CALL("hcemu_wait_copy");
    return wait_move(&c, thread, channel, localNotifyIdx, timeOut, false, dst, src, len, 0, 0);
}

EMU_DP_API int32_t hcemu_wait_reduce(ThreadHandle thread, ChannelHandle channel,
                                     uint32_t localNotifyIdx, uint32_t timeOut, void *dst,
                                     const void *src, uint64_t count, HcommDataType dataType,
                                     HcommReduceOp reduceOp)
{
    EMU_DP_CALL("hcemu_wait_reduce");
    return wait_move(&c, thread, channel, localNotifyIdx, timeOut, true, dst, src, count,
                     (int)dataType, (int)reduceOp);
}

/* The built-in collectives' expansion of a launch, queued again when the same launch came
 * before (dp_cache.c, "Own expansions"): 0 when queued, 1 when the kernel must expand it, and
 * hcemu_cache_record_end() after that keeps what it queued. The key is the launch's bytes
 * (collectives/coll_key.h); the launch's copy mode, which its tasks carry, is compared too.
 * Only hcemu's own image may replay: a user kernel gets 1 and records nothing. */
EMU_DP_API int32_t hcemu_cache_replay(const void *key, uint64_t len)
{
    EMU_DP_CALL("hcemu_cache_replay");
    const struct emu_kernel_ctx *k = emu_kernel_current();

    if (k == NULL || !k->own || key == NULL || len == 0 || len > HCOLL_KEY_MAX ||
        !emu_settings_bool(EMU_SET_REPLAY))
        return 1;
    return emu_dp_cache_own_replay(&c, key, (uint32_t)len, k->copy_mode) ? 0 : 1;
}

EMU_DP_API int32_t hcemu_cache_record_end(void)
{
    emu_dp_cache_own_end();
    return 0;
}
