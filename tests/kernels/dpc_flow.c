/* dpc_flow.c - the Atlas 350 operator kernel of test_dataplane_comm.c: a mesh AllGather built
 * exactly as docs/FLOW.md §3 and §7 describe (batch mode, host start wait on the main thread,
 * pre-sync of the slave threads, one thread per channel, post-sync, host done record), with
 * three exchange variants: write-with-notify, batch transfer, and read. Resources come from
 * the AICPU_TS engine context the host built with the real control plane. */
#include <stddef.h>
#include <string.h>

#include "hcomm/hcomm_primitives.h"
#include "dpc_params.h"

static void *P(uint64_t a)
{
    return (void *)(uintptr_t)a;
}

/* One channel's exchange on `th` (docs/FLOW.md §7.3); returns the number of failed calls. */
static int exchange(const struct dpc_param *p, const struct dpc_res *res, ThreadHandle th,
                    const struct dpc_chan *c)
{
    uint8_t *buf = P(res->hccl_buf);
    uint8_t *peer = P(c->peer_buf);
    uint64_t s = p->bytes;
    int bad = 0;

    bad += HcommChannelNotifyRecordOnThread(th, c->handle, DPC_ACK) != 0;
    bad += HcommChannelNotifyWaitOnThread(th, c->handle, DPC_ACK, DPC_WAIT_S) != 0;
    switch (p->variant) {
    case DPC_PUSH:
        bad += HcommWriteWithNotifyOnThread(th, c->handle, peer + p->rank * s, buf + p->rank * s,
                                            s, DPC_DATA) != 0;
        break;
    case DPC_BATCH: {
        HcommBatchTransferDesc d[2];
        memset(d, 0, sizeof(d));
        d[0].transType = HCOMM_TRANSFER_TYPE_WRITE;
        d[0].transferInfo.write.len = s;
        d[0].transferInfo.write.dst = peer + p->rank * s;
        d[0].transferInfo.write.src = buf + p->rank * s;
        d[1].transType = HCOMM_TRANSFER_TYPE_NOTIFY_RECORD;
        d[1].transferInfo.notifyRecord.notifyIdx = DPC_DATA;
        bad += HcommBatchTransferOnThread(th, c->handle, d, 2) != 0;
        break;
    }
    case DPC_READ:
        bad += HcommReadOnThread(th, c->handle, buf + c->peer_rank * s, peer + c->peer_rank * s,
                                 s) != 0;
        bad += HcommChannelNotifyRecordOnThread(th, c->handle, DPC_DATA) != 0;
        break;
    default:
        return 1;
    }
    bad += HcommChannelNotifyWaitOnThread(th, c->handle, DPC_DATA, DPC_WAIT_S) != 0;
    return bad;
}

uint32_t dpc_flow(void *argp)
{
    const struct dpc_param *p = argp;
    struct dpc_res res;
    int bad = 0;

    if (p->ctx_size != sizeof(res))
        return 1;
    memcpy(&res, P(p->ctx), sizeof(res));
    ThreadHandle main_th = res.threads[0];
    uint8_t *buf = P(res.hccl_buf);
    uint64_t s = p->bytes;

    bad += HcommBatchModeStart(p->tag) != 0;
    bad += HcommThreadNotifyWaitOnThread(main_th, p->start_idx, DPC_WAIT_S) != 0;
    bad += HcommLocalCopyOnThread(main_th, buf + p->rank * s, P(p->input), s) != 0;
    for (uint32_t i = 1; i < res.thread_num; i++)
        bad += HcommThreadNotifyRecordOnThread(main_th, res.threads[i], 0) != 0;
    for (uint32_t i = 0; i < res.thread_num; i++) {
        if (i > 0)
            bad += HcommThreadNotifyWaitOnThread(res.threads[i], 0, DPC_WAIT_S) != 0;
        bad += exchange(p, &res, res.threads[i], &res.chans[i]);
        if (i > 0)
            bad += HcommThreadNotifyRecordOnThread(res.threads[i], main_th, i - 1) != 0;
    }
    for (uint32_t i = 1; i < res.thread_num; i++)
        bad += HcommThreadNotifyWaitOnThread(main_th, i - 1, DPC_WAIT_S) != 0;
    for (uint32_t r = 0; r < p->rank_size; r++)
        bad += HcommLocalCopyOnThread(main_th, (uint8_t *)P(p->output) + r * s, buf + r * s, s) !=
               0;
    bad += HcommThreadNotifyRecordOnThread(main_th, p->host_thread, 0) != 0;
    bad += HcommBatchModeEnd(p->tag) != 0;
    return (uint32_t)bad;
}
