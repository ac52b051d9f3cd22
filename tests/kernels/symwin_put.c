/* symwin_put.c - the kernel of test_sym_win: asks the device functions for the next rank's
 * copy of a symmetric window (and for what they must refuse), writes its bytes there through
 * the channel to that rank, reads the tail that rank filled before the launch (HCCL's
 * symmetric AllGather reads its peers' windows), tells it with a channel notify, waits for
 * the previous rank's, and drains, so the window holds the previous rank's bytes when the
 * launch completes. Every result goes to args.out for the host to check. */
#include <stdint.h>
#include <string.h>

#include "hccl/hccl_sym_win.h"
#include "hcomm/hcomm_primitives.h"

#include "symwin_params.h"

HcclResult HcommSymWinGetPeerPointer(HcclCommSymWindow winHandle, size_t offset, uint32_t peerRank,
                                     void **ptr);

static HcclCommSymWindow W(uint64_t v)
{
    return (HcclCommSymWindow)(uintptr_t)v;
}

/* The refusals: each code, and whether *ptr was left NULL. */
static void refusals(const struct symwin_args *a, uint32_t next, int64_t *r)
{
    void *p = &r;

    r[SW_RANK_RC] = HcclSymWinGetPeerPointer(W(a->win), 0, a->rank_size, &p);
    r[SW_RANK_NULL] = p == NULL;
    p = &r;
    r[SW_OFF_RC] = HcclSymWinGetPeerPointer(W(a->win), a->win_size, next, &p);
    r[SW_OFF_NULL] = p == NULL;
    p = &r;
    r[SW_BOGUS_RC] = HcclSymWinGetPeerPointer(W(a->bogus), 0, next, &p);
    r[SW_BOGUS_NULL] = p == NULL;
    r[SW_NULL_RC] = HcclSymWinGetPeerPointer(NULL, 0, next, &p);
}

uint32_t symwin_put(void *args)
{
    struct symwin_args a;
    void *peer = NULL, *peer2 = NULL, *self = NULL;

    memcpy(&a, args, sizeof(a));
    int64_t *r = (int64_t *)(uintptr_t)a.out;
    uint32_t next = (a.rank + 1) % a.rank_size;
    r[SW_PEER_RC] = HcclSymWinGetPeerPointer(W(a.win), a.offset, next, &peer);
    r[SW_PEER_PTR] = (int64_t)(uintptr_t)peer;
    r[SW_HCOMM_RC] = HcommSymWinGetPeerPointer(W(a.win), a.offset, next, &peer2);
    r[SW_HCOMM_PTR] = (int64_t)(uintptr_t)peer2;
    (void)HcclSymWinGetPeerPointer(W(a.win), 0, a.rank, &self);
    r[SW_SELF_PTR] = (int64_t)(uintptr_t)self;
    refusals(&a, next, r);
    if (peer == NULL)
        return 1;
    uint8_t *src = (uint8_t *)(uintptr_t)a.src;
    uint8_t *end = (uint8_t *)peer - a.offset + a.win_size;
    r[SW_WRITE_RC] = HcommWriteOnThread(a.thread, a.ch_next, peer, src, a.len);
    r[SW_STRADDLE_RC] = HcommWriteOnThread(a.thread, a.ch_next, end - 1, src, 2);
    r[SW_READ_RC] =
        HcommReadOnThread(a.thread, a.ch_next, (void *)(uintptr_t)a.dst, end - a.len, a.len);
    r[SW_RECORD_RC] = HcommChannelNotifyRecordOnThread(a.thread, a.ch_next, 0);
    r[SW_WAIT_RC] = HcommChannelNotifyWaitOnThread(a.thread, a.ch_prev, 0, SW_WAIT_S);
    r[SW_DRAIN_RC] = HcommChannelDrainOnThread(a.thread, a.ch_prev);
    return 0;
}
