/* p2p/kernel.c - point-to-point send/receive between rank pairs (docs/FLOW.md §6).
 *
 * Even rank r sends to r+1, odd rank r receives from r-1; an even last rank without a partner
 * copies its input to its output. One AICPU_TS thread `t`, one channel to the partner with
 * two notifies: READY (sender -> receiver: data staged) and DONE (receiver -> sender: data
 * consumed, the staging buffer may be reused). Data larger than the HCCL buffer moves in
 * chunks, each protected by READY before and DONE after.
 *   read-based (variant 0): sender stages in its HCCL buffer L, receiver reads the peer's
 *                           buffer R straight into its output;
 *   push (variant 1):       sender stages in L and writes into the receiver's buffer R with
 *                           one write-with-notify, receiver copies from its own buffer.
 * Entry: p2p_kernel(), named in ex_p2p_kernel.json. */
#include <stdint.h>
#include <string.h>

#include <hccl/hcomm_primitives.h>

#include "op_args.h"

enum { READY = 0, DONE = 1 };

#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((call) != 0)                                                                           \
            return 1;                                                                              \
    } while (0)

static int send_chunk(ThreadHandle t, const struct ex_channel_res *ch, uint8_t *L,
                      const uint8_t *src, uint64_t len, int push)
{
    TRY(HcommLocalCopyOnThread(t, L, src, len));
    if (push)
        TRY(HcommWriteWithNotifyOnThread(t, ch->handle, ch->peer_buf, L, len, READY));
    else
        TRY(HcommChannelNotifyRecordOnThread(t, ch->handle, READY));
    /* Keep L untouched until the receiver has taken the chunk. */
    TRY(HcommChannelNotifyWaitOnThread(t, ch->handle, DONE, EX_NOTIFY_TIMEOUT));
    return 0;
}

static int recv_chunk(ThreadHandle t, const struct ex_channel_res *ch, uint8_t *L, uint8_t *dst,
                      uint64_t len, int push)
{
    TRY(HcommChannelNotifyWaitOnThread(t, ch->handle, READY, EX_NOTIFY_TIMEOUT));
    if (push)
        TRY(HcommLocalCopyOnThread(t, dst, L, len));
    else
        TRY(HcommReadOnThread(t, ch->handle, dst, ch->peer_buf, len));
    TRY(HcommChannelNotifyRecordOnThread(t, ch->handle, DONE));
    return 0;
}

static int orchestrate(const struct ex_op_param *p, const struct ex_res_ctx *res)
{
    ThreadHandle t = res->threads[0];
    uint64_t bytes = p->count * 4;

    if (res->channel_num == 0) /* no partner */
        return HcommLocalCopyOnThread(t, p->output, p->input, bytes) != 0;
    const struct ex_channel_res *ch = &res->channels[0];
    /* Both sides cut the same chunks: every rank's HCCL buffer has the same size. */
    uint64_t chunk =
        res->hccl_buf_size < ch->peer_buf_size ? res->hccl_buf_size : ch->peer_buf_size;
    int sender = p->rank % 2 == 0, push = p->variant == 1;
    for (uint64_t off = 0; off < bytes; off += chunk) {
        uint64_t len = bytes - off < chunk ? bytes - off : chunk;
        if (sender)
            TRY(send_chunk(t, ch, res->hccl_buf, (const uint8_t *)p->input + off, len, push));
        else
            TRY(recv_chunk(t, ch, res->hccl_buf, (uint8_t *)p->output + off, len, push));
    }
    return 0;
}

uint32_t p2p_kernel(void *args)
{
    const struct ex_op_param *p = args;
    struct ex_res_ctx res;

    /* FLOW.md §3.1: the host copied the resources to device memory with aclrtMemcpy (the P2P
     * sample's style); the kernel reads them from there. */
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
