/* reduce_scatter/kernel.c - ring ReduceScatter (sum) with HcommWriteReduceWithNotifyOnThread.
 *
 * Every rank's input holds N blocks of `count` elements; rank r's output receives the sum of
 * block r over all ranks. One AICPU_TS thread, channels to the left and right neighbours (one
 * channel when N = 2). Each loop copies a slice of every block into the HCCL buffer (slot b
 * for block b), then in N-1 steps pushes slot me-s-1 into the right neighbour's same slot,
 * adding to it: after the last step slot `me` holds the full sum, which is copied out.
 * Notifies as in the allreduce example: ACK (to the left, "write your next block") and DATA
 * (set by the write-reduce itself, "your block has landed"). Entry: reduce_scatter_kernel(). */
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

static int ring_reduce_scatter(const struct ex_op_param *p, const struct ex_res_ctx *res)
{
    ThreadHandle t = res->threads[0];
    const struct ex_channel_res *left = &res->channels[0];
    const struct ex_channel_res *right = &res->channels[res->channel_num - 1];
    uint32_t n = p->rank_size, me = p->rank;
    uint8_t *buf = res->hccl_buf, *in = p->input, *out = p->output;
    HcommDataType type = (HcommDataType)p->data_type;
    /* N slots of the same stride on every rank, 128-byte aligned. */
    uint64_t stride = res->hccl_buf_size / n / 128 * 128, per_loop = stride / 4;

    if (per_loop == 0)
        return 1;
    for (uint64_t done = 0; done < p->count; done += per_loop) {
        uint64_t m = p->count - done < per_loop ? p->count - done : per_loop;
        for (uint32_t b = 0; b < n; b++)
            TRY(HcommLocalCopyOnThread(t, buf + b * stride, in + (b * p->count + done) * 4, m * 4));
        TRY(HcommChannelNotifyRecordOnThread(t, left->handle, ACK));
        for (uint32_t s = 0; s + 1 < n; s++) {
            uint64_t off = (uint64_t)((me + 2 * n - s - 1) % n) * stride;
            TRY(HcommChannelNotifyWaitOnThread(t, right->handle, ACK, EX_NOTIFY_TIMEOUT));
            TRY(HcommWriteReduceWithNotifyOnThread(t, right->handle,
                                                   (uint8_t *)right->peer_buf + off, buf + off, m,
                                                   type, HCOMM_REDUCE_SUM, DATA));
            TRY(HcommChannelNotifyWaitOnThread(t, left->handle, DATA, EX_NOTIFY_TIMEOUT));
            if (s + 2 < n) /* the next loop's first ACK follows its copy-in */
                TRY(HcommChannelNotifyRecordOnThread(t, left->handle, ACK));
        }
        TRY(HcommLocalCopyOnThread(t, out + done * 4, buf + me * stride, m * 4));
    }
    return 0;
}

static int orchestrate(const struct ex_op_param *p, const struct ex_res_ctx *res)
{
    if (p->rank_size == 1)
        return HcommLocalCopyOnThread(res->threads[0], p->output, p->input, p->count * 4) != 0;
    return ring_reduce_scatter(p, res);
}

uint32_t reduce_scatter_kernel(void *args)
{
    const struct ex_op_param *p = args;
    struct ex_res_ctx res;

    if (p->ctx_size < sizeof(res))
        return 1;
    memcpy(&res, p->ctx, sizeof(res));
    ThreadHandle t = res.threads[0];
    if (HcommBatchModeStart(p->tag) != 0)
        return 1;
    int bad = HcommThreadNotifyWaitOnThread(t, p->start_idx, EX_NOTIFY_TIMEOUT) != 0 ||
              orchestrate(p, &res) != 0 ||
              HcommThreadNotifyRecordOnThread(t, p->host_thread, 0) != 0;
    bad |= HcommBatchModeEnd(p->tag) != 0;
    return bad ? 1 : 0;
}
