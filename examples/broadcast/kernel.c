/* broadcast/kernel.c - Broadcast from a root rank, mesh style (one thread per peer).
 *
 * The root stages each chunk of its input in its HCCL buffer and pushes it, with one
 * write-with-notify per peer, into every peer's HCCL buffer; each peer copies the chunk to
 * its output. Root: N-1 AICPU_TS threads, threads[i] drives the channel to its i-th peer,
 * joined to the main thread before and after each chunk as in the mesh AllGather. Peer: one
 * thread, one channel (to the root). Channel notifies: ACK (peer -> root: "my buffer is free
 * for the next chunk") and DATA (set by the root's write: "the chunk has landed").
 * Entry: broadcast_kernel(). */
#include <stdint.h>
#include <string.h>

#include <hccl/hcomm_primitives.h>

#include "op_args.h"

enum { ACK = 0, DATA = 1 };

#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((call) != 0)                                                                           \
            return 1;                                                                              \
    } while (0)

static int start_slaves(const struct ex_res_ctx *res)
{
    for (uint32_t i = 1; i < res->thread_num; i++) {
        TRY(HcommThreadNotifyRecordOnThread(res->threads[0], res->threads[i], 0));
        TRY(HcommThreadNotifyWaitOnThread(res->threads[i], 0, EX_NOTIFY_TIMEOUT));
    }
    return 0;
}

static int join_slaves(const struct ex_res_ctx *res)
{
    for (uint32_t i = 1; i < res->thread_num; i++) {
        TRY(HcommThreadNotifyRecordOnThread(res->threads[i], res->threads[0], i - 1));
        TRY(HcommThreadNotifyWaitOnThread(res->threads[0], i - 1, EX_NOTIFY_TIMEOUT));
    }
    return 0;
}

static int root_side(const struct ex_op_param *p, const struct ex_res_ctx *res)
{
    ThreadHandle main_thread = res->threads[0];
    uint64_t bytes = p->count * 4, chunk = res->hccl_buf_size;

    /* The root's own output needs no channel. */
    TRY(HcommLocalCopyOnThread(main_thread, p->output, p->input, bytes));
    for (uint64_t off = 0; off < bytes; off += chunk) {
        uint64_t len = bytes - off < chunk ? bytes - off : chunk;
        TRY(HcommLocalCopyOnThread(main_thread, res->hccl_buf, (uint8_t *)p->input + off, len));
        TRY(start_slaves(res));
        for (uint32_t i = 0; i < res->channel_num; i++) {
            const struct ex_channel_res *ch = &res->channels[i];
            TRY(HcommChannelNotifyWaitOnThread(res->threads[i], ch->handle, ACK,
                                               EX_NOTIFY_TIMEOUT));
            TRY(HcommWriteWithNotifyOnThread(res->threads[i], ch->handle, ch->peer_buf,
                                             res->hccl_buf, len, DATA));
        }
        /* Every write has finished before the next chunk overwrites the staging buffer. */
        TRY(join_slaves(res));
    }
    return 0;
}

static int peer_side(const struct ex_op_param *p, const struct ex_res_ctx *res)
{
    ThreadHandle t = res->threads[0];
    const struct ex_channel_res *ch = &res->channels[0];
    uint64_t bytes = p->count * 4, chunk = res->hccl_buf_size;

    for (uint64_t off = 0; off < bytes; off += chunk) {
        uint64_t len = bytes - off < chunk ? bytes - off : chunk;
        TRY(HcommChannelNotifyRecordOnThread(t, ch->handle, ACK));
        TRY(HcommChannelNotifyWaitOnThread(t, ch->handle, DATA, EX_NOTIFY_TIMEOUT));
        TRY(HcommLocalCopyOnThread(t, (uint8_t *)p->output + off, res->hccl_buf, len));
    }
    return 0;
}

uint32_t broadcast_kernel(void *args)
{
    const struct ex_op_param *p = args;
    struct ex_res_ctx res;

    if (p->ctx_size < sizeof(res))
        return 1;
    memcpy(&res, p->ctx, sizeof(res));
    ThreadHandle main_thread = res.threads[0];
    if (HcommBatchModeStart(p->tag) != 0)
        return 1;
    int bad = HcommThreadNotifyWaitOnThread(main_thread, p->start_idx, EX_NOTIFY_TIMEOUT) != 0 ||
              (p->rank == p->root ? root_side(p, &res) : peer_side(p, &res)) != 0 ||
              HcommThreadNotifyRecordOnThread(main_thread, p->host_thread, 0) != 0;
    bad |= HcommBatchModeEnd(p->tag) != 0;
    return bad ? 1 : 0;
}
