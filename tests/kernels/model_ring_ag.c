/* model_ring_ag.c - a held-out kernel for the modelled clock (tests/test_model_time.c): a
 * ring AllGather written as a user would, on one AICPU_TS thread. My block goes into my slot
 * of my HCCL buffer; then n - 1 steps pass one block to the right neighbour: "ready" (ACK) to
 * the left, wait for the right's ACK, write the block with notify (DATA), wait for the left's
 * DATA. Afterwards every HCCL buffer holds all n blocks in rank order. */
#include <stdint.h>

#include <hcomm/hcomm_primitives.h>

#include "model_ring_ag.h"

#define TIMEOUT_S 60

#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((call) != 0)                                                                           \
            return 1;                                                                              \
    } while (0)

static uint8_t *at(uint64_t base, uint64_t off)
{
    return (uint8_t *)(uintptr_t)(base + off);
}

static int ring(const struct mra_args *a)
{
    uint32_t n = a->n, me = a->rank;

    TRY(HcommLocalCopyOnThread(a->main, at(a->buf, me * a->len), at(a->in, 0), a->len));
    for (uint32_t s = 0; s + 1 < n; s++) {
        uint64_t off = ((me + n - s) % n) * a->len; /* the block I pass on this step */
        TRY(HcommChannelNotifyRecordOnThread(a->main, a->left, MRA_ACK));
        TRY(HcommChannelNotifyWaitOnThread(a->main, a->right, MRA_ACK, TIMEOUT_S));
        TRY(HcommWriteWithNotifyOnThread(a->main, a->right, at(a->right_buf, off), at(a->buf, off),
                                         a->len, MRA_DATA));
        TRY(HcommChannelNotifyWaitOnThread(a->main, a->left, MRA_DATA, TIMEOUT_S));
    }
    return 0;
}

uint32_t model_ring_ag(void *args)
{
    const struct mra_args *a = args;

    if (HcommBatchModeStart("model_ring_ag") != 0)
        return 1;
    int bad = HcommThreadNotifyWaitOnThread(a->main, a->start_idx, TIMEOUT_S) != 0 ||
              ring(a) != 0 || HcommThreadNotifyRecordOnThread(a->main, a->host, 0) != 0;
    bad |= HcommBatchModeEnd("model_ring_ag") != 0;
    return bad ? 1 : 0;
}
