/* alltoall/kernel.c - mesh AllToAll: block p of my input goes to rank p, and block p of my
 * output comes from rank p (blocks of `count` elements).
 *
 * Same discipline as the mesh AllGather (docs/FLOW.md §7): one AICPU_TS thread per peer,
 * threads[i] drives channels[i]; pre-sync, exchange, post-sync per loop. The HCCL buffer is
 * cut into 2N slots of one stride: send slots 0..N-1 (my data for rank p in slot p) and
 * receive slots N..2N-1 (rank p's data for me in slot N+p). Channel notifies: ACK ("my
 * receive slots are free"), DATA ("my block is in your buffer"), FIN reserved.
 * Entry: alltoall_kernel(). */
#include <stdint.h>
#include <string.h>

#include <hccl/hcomm_primitives.h>

#include "op_args.h"

enum { ACK = 0, DATA = 1, FIN = 2 /* reserved, unused */ };

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

/* Peer side of one loop on thread t: both ready, my block into my receive slot of the peer,
 * and wait for the peer's block to land in mine. */
static int exchange(ThreadHandle t, const struct ex_channel_res *ch, const uint8_t *send_slot,
                    uint64_t peer_recv_off, uint64_t len)
{
    TRY(HcommChannelNotifyRecordOnThread(t, ch->handle, ACK));
    TRY(HcommChannelNotifyWaitOnThread(t, ch->handle, ACK, EX_NOTIFY_TIMEOUT));
    TRY(HcommWriteOnThread(t, ch->handle, (uint8_t *)ch->peer_buf + peer_recv_off, send_slot, len));
    TRY(HcommChannelNotifyRecordOnThread(t, ch->handle, DATA));
    TRY(HcommChannelNotifyWaitOnThread(t, ch->handle, DATA, EX_NOTIFY_TIMEOUT));
    return 0;
}

static int mesh_alltoall(const struct ex_op_param *p, const struct ex_res_ctx *res)
{
    uint32_t n = p->rank_size, me = p->rank;
    uint8_t *buf = res->hccl_buf, *in = p->input, *out = p->output;
    ThreadHandle main_thread = res->threads[0];
    uint64_t stride = res->hccl_buf_size / (2ull * n) / 128 * 128, per_loop = stride / 4;
    uint64_t block_bytes = p->count * 4;

    if (per_loop == 0)
        return 1;
    for (uint64_t done = 0; done < p->count; done += per_loop) {
        uint64_t len = (p->count - done < per_loop ? p->count - done : per_loop) * 4;
        uint64_t off = done * 4;

        /* My own block needs no channel; the others are staged in their send slots. */
        TRY(HcommLocalCopyOnThread(main_thread, out + me * block_bytes + off,
                                   in + me * block_bytes + off, len));
        for (uint32_t i = 0; i < res->channel_num; i++) {
            uint32_t peer = res->channels[i].peer_rank;
            TRY(HcommLocalCopyOnThread(main_thread, buf + peer * stride,
                                       in + peer * block_bytes + off, len));
        }
        TRY(start_slaves(res));
        for (uint32_t i = 0; i < res->channel_num; i++) {
            uint32_t peer = res->channels[i].peer_rank;
            TRY(exchange(res->threads[i], &res->channels[i], buf + peer * stride, (n + me) * stride,
                         len));
        }
        TRY(join_slaves(res));
        for (uint32_t i = 0; i < res->channel_num; i++) {
            uint32_t peer = res->channels[i].peer_rank;
            TRY(HcommLocalCopyOnThread(main_thread, out + peer * block_bytes + off,
                                       buf + (n + peer) * stride, len));
        }
    }
    return 0;
}

uint32_t alltoall_kernel(void *args)
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
              mesh_alltoall(p, &res) != 0 ||
              HcommThreadNotifyRecordOnThread(main_thread, p->host_thread, 0) != 0;
    bad |= HcommBatchModeEnd(p->tag) != 0;
    return bad ? 1 : 0;
}
