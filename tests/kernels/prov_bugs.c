/* prov_bugs.c - kernels of the provenance tests (tests/test_provenance.c), each a plain
 * gather or sum on the main thread alone, two with a planted bug:
 *   prov_gather_ok      every rank's input in rank order (an allgather)
 *   prov_wrong_slot     the same, but rank 1's block lands in slot 2 (slot 0 at two ranks)
 *                       and slot 1 is never written
 *   prov_reduce_ok      the sum of every rank's input (an allreduce)
 *   prov_double_reduce  the same, but the first half of the last rank's block is added twice
 * Each rank stages its input in its slot of every rank's HCCL buffer (peers in rank order:
 * pair (a, b) meets at a's b-th and b's a-th exchange, so no two ranks wait on each other),
 * then builds its output from the slots. Elements are 4 bytes. */
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

static int stage(const struct ex_op_param *p, const struct ex_res_ctx *res, uint64_t s)
{
    ThreadHandle t = res->threads[0];
    uint8_t *mine = (uint8_t *)res->hccl_buf + p->rank * s;

    TRY(HcommLocalCopyOnThread(t, mine, p->input, s));
    for (uint32_t i = 0; i < res->channel_num; i++) {
        const struct ex_channel_res *ch = &res->channels[i];
        TRY(HcommChannelNotifyRecordOnThread(t, ch->handle, ACK));
        TRY(HcommChannelNotifyWaitOnThread(t, ch->handle, ACK, EX_NOTIFY_TIMEOUT));
        TRY(HcommWriteOnThread(t, ch->handle, (uint8_t *)ch->peer_buf + p->rank * s, mine, s));
        TRY(HcommChannelNotifyRecordOnThread(t, ch->handle, DATA));
        TRY(HcommChannelNotifyWaitOnThread(t, ch->handle, DATA, EX_NOTIFY_TIMEOUT));
    }
    return 0;
}

static int gather(const struct ex_op_param *p, const struct ex_res_ctx *res, int bug)
{
    ThreadHandle t = res->threads[0];
    uint64_t s = p->count * 4;
    uint8_t *buf = res->hccl_buf, *out = p->output;
    uint32_t n = p->rank_size;

    TRY(stage(p, res, s));
    for (uint32_t r = 0; r < n; r++)
        if (!bug || r != 1)
            TRY(HcommLocalCopyOnThread(t, out + r * s, buf + r * s, s));
    if (bug) /* the planted bug: rank 1's block goes to the next slot */
        TRY(HcommLocalCopyOnThread(t, out + (2 % n) * s, buf + 1 * s, s));
    return 0;
}

static int sum(const struct ex_op_param *p, const struct ex_res_ctx *res, int bug)
{
    ThreadHandle t = res->threads[0];
    uint64_t s = p->count * 4;
    uint8_t *buf = res->hccl_buf;
    uint32_t n = p->rank_size;
    HcommDataType type = (HcommDataType)p->data_type;

    TRY(stage(p, res, s));
    TRY(HcommLocalCopyOnThread(t, p->output, buf, s));
    for (uint32_t r = 1; r < n; r++)
        TRY(HcommLocalReduceOnThread(t, p->output, buf + r * s, p->count, type, HCOMM_REDUCE_SUM));
    if (bug) /* the planted bug: half of the last block once more */
        TRY(HcommLocalReduceOnThread(t, p->output, buf + (n - 1) * s, p->count / 2, type,
                                     HCOMM_REDUCE_SUM));
    return 0;
}

static uint32_t run(void *args, int (*body)(const struct ex_op_param *, const struct ex_res_ctx *,
                                            int), int bug)
{
    const struct ex_op_param *p = args;
    struct ex_res_ctx res;

    if (p->ctx_size < sizeof(res) || p->rank_size < 2)
        return 1;
    memcpy(&res, p->ctx, sizeof(res));
    if (res.hccl_buf_size < p->rank_size * p->count * 4 || HcommBatchModeStart(p->tag) != 0)
        return 1;
    int bad = HcommThreadNotifyWaitOnThread(res.threads[0], p->start_idx, EX_NOTIFY_TIMEOUT) != 0 ||
              body(p, &res, bug) != 0 ||
              HcommThreadNotifyRecordOnThread(res.threads[0], p->host_thread, 0) != 0;
    bad |= HcommBatchModeEnd(p->tag) != 0;
    return bad ? 1 : 0;
}

uint32_t prov_gather_ok(void *args) { return run(args, gather, 0); }
uint32_t prov_wrong_slot(void *args) { return run(args, gather, 1); }
uint32_t prov_reduce_ok(void *args) { return run(args, sum, 0); }
uint32_t prov_double_reduce(void *args) { return run(args, sum, 1); }
