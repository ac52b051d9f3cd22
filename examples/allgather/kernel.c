/* allgather/kernel.c - mesh AllGather on AICPU_TS threads, exactly as docs/FLOW.md §7.
 *
 * Every rank's `count` elements end up, in rank order, in every rank's output. One thread per
 * peer: threads[i] drives channels[i]. Each loop stages one slice of my input in my slot of
 * my HCCL buffer, pushes it into my slot of every peer's HCCL buffer, then copies all N slots
 * out. Channel notifies: ACK ("my slots are free, write"), DATA ("my slice is in your buffer").
 * Entry: allgather_kernel(), named in ex_allgather_kernel.json. */
#include <stdint.h>
#include <string.h>

#include <hccl/hcomm_primitives.h>

#include "op_args.h"

enum { ACK = 0, DATA = 1, FIN = 2 /* reserved, unused */ };

#define MAX_SLICE (256ull << 20)

/* Any failing Hcomm call fails the kernel task, which the host sees at synchronisation. */
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((call) != 0)                                                                           \
            return 1;                                                                              \
    } while (0)

/* Pre-sync (FLOW.md §7.2): the main thread releases every slave for this loop. */
static int start_slaves(const struct ex_res_ctx *res)
{
    for (uint32_t i = 1; i < res->thread_num; i++) {
        TRY(HcommThreadNotifyRecordOnThread(res->threads[0], res->threads[i], 0));
        TRY(HcommThreadNotifyWaitOnThread(res->threads[i], 0, EX_NOTIFY_TIMEOUT));
    }
    return 0;
}

/* Post-sync (FLOW.md §7.4): slave i reports to notify i-1 of the main thread. */
static int join_slaves(const struct ex_res_ctx *res)
{
    for (uint32_t i = 1; i < res->thread_num; i++) {
        TRY(HcommThreadNotifyRecordOnThread(res->threads[i], res->threads[0], i - 1));
        TRY(HcommThreadNotifyWaitOnThread(res->threads[0], i - 1, EX_NOTIFY_TIMEOUT));
    }
    return 0;
}

/* FLOW.md §7.3 for one peer: both sides ready, push my slice into my slot of the peer's buffer, and
 * wait until the peer's slice has landed in mine. */
static int exchange(ThreadHandle t, const struct ex_channel_res *ch, uint8_t *my_slot,
                    uint64_t slot_off, uint64_t s)
{
    uint8_t *peer_slot = (uint8_t *)ch->peer_buf + slot_off;

    TRY(HcommChannelNotifyRecordOnThread(t, ch->handle, ACK));
    TRY(HcommChannelNotifyWaitOnThread(t, ch->handle, ACK, EX_NOTIFY_TIMEOUT));
    TRY(HcommWriteOnThread(t, ch->handle, peer_slot, my_slot, s));
    TRY(HcommChannelNotifyRecordOnThread(t, ch->handle, DATA));
    TRY(HcommChannelNotifyWaitOnThread(t, ch->handle, DATA, EX_NOTIFY_TIMEOUT));
    return 0;
}

static int mesh_allgather(const struct ex_op_param *p, const struct ex_res_ctx *res)
{
    const uint64_t esz = 4; /* the examples move 4-byte elements */
    uint32_t n = p->rank_size, me = p->rank;
    uint8_t *buf = res->hccl_buf, *in = p->input, *out = p->output;
    ThreadHandle main_thread = res->threads[0];

    /* Slice per loop: the HCCL buffer holds one slot per rank, 128-byte aligned. */
    uint64_t slice = res->hccl_buf_size / n / 128 * 128;
    slice = slice < MAX_SLICE ? slice : MAX_SLICE;
    uint64_t per_loop = slice / esz;
    if (per_loop == 0)
        return 1;
    for (uint64_t done = 0; done < p->count; done += per_loop) {
        uint64_t elems = p->count - done < per_loop ? p->count - done : per_loop;
        uint64_t s = elems * esz, off = done * esz;

        TRY(HcommLocalCopyOnThread(main_thread, buf + me * s, in + off, s));
        TRY(start_slaves(res));
        for (uint32_t i = 0; i < res->channel_num; i++)
            TRY(exchange(res->threads[i], &res->channels[i], buf + me * s, me * s, s));
        TRY(join_slaves(res));
        for (uint32_t r = 0; r < n; r++)
            TRY(HcommLocalCopyOnThread(main_thread, out + r * p->count * esz + off, buf + r * s,
                                       s));
    }
    return 0;
}

/* docs/FLOW.md §3.5 for the whole operator: N = 1 is a single local copy. */
static int orchestrate(const struct ex_op_param *p, const struct ex_res_ctx *res)
{
    if (p->rank_size == 1)
        return HcommLocalCopyOnThread(res->threads[0], p->output, p->input, p->count * 4) != 0;
    return mesh_allgather(p, res);
}

uint32_t allgather_kernel(void *args)
{
    const struct ex_op_param *p = args;
    struct ex_res_ctx res;

    /* FLOW.md §3.1: the resources the host serialised into device memory. */
    if (p->ctx_size < sizeof(res))
        return 1;
    memcpy(&res, p->ctx, sizeof(res));
    ThreadHandle main_thread = res.threads[0];
    /* FLOW.md §3.3-3.7: queue everything in batch mode; End hands it all to the scheduler. */
    if (HcommBatchModeStart(p->tag) != 0)
        return 1;
    int bad = HcommThreadNotifyWaitOnThread(main_thread, p->start_idx, EX_NOTIFY_TIMEOUT) != 0 ||
              orchestrate(p, &res) != 0 ||
              HcommThreadNotifyRecordOnThread(main_thread, p->host_thread, 0) != 0;
    bad |= HcommBatchModeEnd(p->tag) != 0;
    return bad ? 1 : 0;
}
