/* allreduce/kernel.c - ring AllReduce (sum): a ring reduce-scatter with
 * HcommWriteReduceWithNotifyOnThread, then a ring allgather with HcommWriteWithNotifyOnThread.
 *
 * One AICPU_TS thread per rank and two channels: to the left neighbour (rank-1) and to the
 * right one (rank+1); with two ranks both are the same channel. Each loop takes a piece of
 * the input that fits the HCCL buffer, copies it there and cuts it into N blocks. In 2(N-1)
 * steps every rank pushes one block into the right neighbour's HCCL buffer: the first N-1
 * steps add it to what is there (rank r ends up owning the full sum of block r+1), the last
 * N-1 steps overwrite (the sums travel once around the ring). Channel notifies:
 *   ACK  (to the left): "you may write your next block into my buffer";
 *   DATA (to the right, set by the write itself): "your block has landed".
 * Every write waits for an ACK and every DATA is consumed before the next ACK, so a binary
 * notify is never recorded twice before it is waited for. Entry: allreduce_kernel(). */
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

struct ring {
    ThreadHandle t;
    const struct ex_channel_res *left, *right;
    uint32_t n, me;
    uint8_t *buf;   /* my HCCL buffer: the piece being reduced */
    uint64_t piece; /* elements in this loop's piece */
    uint64_t block; /* elements per block (the last blocks may be shorter or empty) */
    HcommDataType type;
};

static uint64_t block_len(const struct ring *g, uint32_t b)
{
    uint64_t start = (uint64_t)b * g->block;

    if (start >= g->piece)
        return 0;
    return g->piece - start < g->block ? g->piece - start : g->block;
}

/* Step j of 2(N-1): push one block right, take one from the left. */
static int ring_step(const struct ring *g, uint32_t j)
{
    uint32_t n = g->n;
    int reduce = j < n - 1;
    uint32_t s = reduce ? j : j - (n - 1);
    /* Reduce-scatter sends block me-s; allgather sends me+1-s, the one it owns in full. */
    uint32_t b = reduce ? (g->me + n - s) % n : (g->me + 1 + n - s) % n;
    uint64_t off = (uint64_t)b * g->block * 4, len = block_len(g, b);
    uint8_t *dst = (uint8_t *)g->right->peer_buf + off, *src = g->buf + off;

    TRY(HcommChannelNotifyWaitOnThread(g->t, g->right->handle, ACK, EX_NOTIFY_TIMEOUT));
    if (len == 0) /* an empty block still passes the token, to keep both sides in step */
        TRY(HcommChannelNotifyRecordOnThread(g->t, g->right->handle, DATA));
    else if (reduce)
        TRY(HcommWriteReduceWithNotifyOnThread(g->t, g->right->handle, dst, src, len, g->type,
                                               HCOMM_REDUCE_SUM, DATA));
    else
        TRY(HcommWriteWithNotifyOnThread(g->t, g->right->handle, dst, src, len * 4, DATA));
    TRY(HcommChannelNotifyWaitOnThread(g->t, g->left->handle, DATA, EX_NOTIFY_TIMEOUT));
    /* No ACK after the last step: the next loop's first ACK follows its copy-in. */
    if (j + 1 < 2 * (n - 1))
        TRY(HcommChannelNotifyRecordOnThread(g->t, g->left->handle, ACK));
    return 0;
}

static int ring_allreduce(const struct ex_op_param *p, const struct ex_res_ctx *res)
{
    struct ring g = {
        .t = res->threads[0],
        .n = p->rank_size,
        .me = p->rank,
        .buf = res->hccl_buf,
        .left = &res->channels[0],
        .right = &res->channels[res->channel_num - 1],
        .type = (HcommDataType)p->data_type,
    };
    uint64_t per_loop = res->hccl_buf_size / 4 / 128 * 128;

    if (per_loop == 0)
        return 1;
    for (uint64_t done = 0; done < p->count; done += per_loop) {
        g.piece = p->count - done < per_loop ? p->count - done : per_loop;
        g.block = (g.piece + g.n - 1) / g.n;
        TRY(HcommLocalCopyOnThread(g.t, g.buf, (uint8_t *)p->input + done * 4, g.piece * 4));
        TRY(HcommChannelNotifyRecordOnThread(g.t, g.left->handle, ACK));
        for (uint32_t j = 0; j < 2 * (g.n - 1); j++)
            TRY(ring_step(&g, j));
        TRY(HcommLocalCopyOnThread(g.t, (uint8_t *)p->output + done * 4, g.buf, g.piece * 4));
    }
    return 0;
}

static int orchestrate(const struct ex_op_param *p, const struct ex_res_ctx *res)
{
    if (p->rank_size == 1)
        return HcommLocalCopyOnThread(res->threads[0], p->output, p->input, p->count * 4) != 0;
    return ring_allreduce(p, res);
}

uint32_t allreduce_kernel(void *args)
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
