/* dp_build.c - turn the checked arguments of one data-plane call into one task.
 *
 * Each builder validates what is specific to its call (pointers, ranges, types, notify
 * indices; the thread and channel handles were checked by the caller) and returns the task,
 * ready for emu_dp_submit_task(). A refusal has been logged once when a builder returns an error,
 * and no task exists then. The batch-transfer call uses the same builders for every entry. */
#include <string.h>

#include "common/contract/product.h"
#include "dp.h"
#include "common/platform/copy.h"
#include "device/kernel/kernel.h"
#include "device/net/net.h"

/* The payload's channel `ch` and where its peer is. */
static void set_channel(struct emu_dp_op *o, uint32_t ch)
{
    const struct emu_peer_ref *p = &emu_exec_ctl()->peers[emu_exec_ctl()->channels[ch].peer];

    o->channel = ch;
    o->net = emu_net_is_remote(emu_exec_ctl()->channels[ch].peer);
    o->net_dev = p->dev;
    o->net_diag = o->net && strcmp(p->job_dir, emu_exec_g.job_dir) == 0;
}

/* A task of `kind`; `ch` is kept for the kinds that go through a channel (dp_kinds.h). */
static emu_status alloc(uint32_t kind, uint32_t ch, struct emu_task **out)
{
    *out = emu_dp_task_new(kind);
    if (*out == NULL)
        return EMU_EINTERNAL;
    const struct emu_kernel_ctx *k = emu_kernel_current();
    emu_dp_op_of(*out)->copy_mode = k != NULL ? k->copy_mode : EMU_COPY_AUTO;
    if (emu_dp_kinds_flags(kind) & EMU_DPF_CHANNEL)
        set_channel(emu_dp_op_of(*out), ch);
    return EMU_OK;
}

/* The moving part of a payload: `len` bytes (`n` elements of dtype for a reduction) from src
 * to dst, through the mappings that reach them. */
static void set_move(struct emu_dp_op *o, uint64_t dst, uint64_t src, uint64_t len, uint64_t n,
                     int dtype, int op, struct emu_devmap *dst_map, struct emu_devmap *src_map)
{
    o->dst = dst;
    o->src = src;
    o->len = len;
    o->count = n;
    o->dtype = dtype;
    o->op = op;
    o->dst_map = dst_map;
    o->src_map = src_map;
}

static bool overlap(uint64_t a, uint64_t b, uint64_t len)
{
    return len > 0 && a != b && a < b + len && b < a + len;
}

emu_status emu_dp_build_local(const struct emu_hcomm_call *c, bool reduce, const void *dstp,
                              const void *srcp, uint64_t n, int dtype, int op,
                              struct emu_task **out)
{
    uint64_t dst = (uint64_t)(uintptr_t)dstp, src = (uint64_t)(uintptr_t)srcp, len = n;
    emu_status st;

    if ((st = emu_dp_check_ptr(c, "dst", dstp)) != EMU_OK ||
        (st = emu_dp_check_ptr(c, "src", srcp)) != EMU_OK)
        return st;
    if (reduce && (st = emu_dp_check_reduce(c, dtype, op, n, false, &len)) != EMU_OK)
        return st;
    if ((st = emu_dp_check_local(c, "dst", dst, len)) != EMU_OK ||
        (st = emu_dp_check_local(c, "src", src, len)) != EMU_OK)
        return st;
    if (overlap(dst, src, len)) {
        emu_hcomm_check_refuse(c, "dst [0x%llx, +%llu) and src [0x%llx, +%llu) overlap (only dst "
                               "== src is accepted)", (unsigned long long)dst,
                               (unsigned long long)len, (unsigned long long)src,
                               (unsigned long long)len);
        return EMU_EINVAL;
    }
    if ((st = alloc(reduce ? EMU_DP_REDUCE : EMU_DP_COPY, EMU_DP_NONE, out)) != EMU_OK)
        return st;
    set_move(emu_dp_op_of(*out), dst, src, len, n, dtype, op, &emu_exec_g.self, &emu_exec_g.self);
    return EMU_OK;
}

/* The remote notify slot `idx` of channel `ch` (the peer's end). */
static emu_status remote_notify(const struct emu_hcomm_call *c, uint32_t ch, uint32_t idx,
                                struct emu_dp_op *o)
{
    const struct emu_channel_ctl *cc = &emu_exec_ctl()->channels[ch];
    emu_status st;

    if ((st = emu_hcomm_check_index(c, "remoteNotifyIdx", idx, cc->notify_num)) != EMU_OK ||
        (st = emu_dp_check_peer_ctl(c, ch, &o->notify_ctl)) != EMU_OK)
        return st;
    o->notify_dev = emu_exec_ctl()->peers[cc->peer].dev;
    o->notify_slot = cc->remote_notify_base + idx;
    return EMU_OK;
}

emu_status emu_dp_build_remote(const struct emu_hcomm_call *c, uint32_t ch, uint32_t kind,
                               const void *dstp, const void *srcp, uint64_t n, int dtype, int op,
                               uint32_t idx, struct emu_task **out)
{
    uint64_t dst = (uint64_t)(uintptr_t)dstp, src = (uint64_t)(uintptr_t)srcp, len = n;
    uint32_t f = emu_dp_kinds_flags(kind);
    bool w = (f & EMU_DPF_REMOTE_DST) != 0, notify = (f & EMU_DPF_RECORD) != 0;
    struct emu_devmap *peer = NULL;
    struct emu_dp_op tmp = {0};
    emu_status st;

    if ((st = emu_dp_check_ptr(c, "dst", dstp)) != EMU_OK ||
        (st = emu_dp_check_ptr(c, "src", srcp)) != EMU_OK)
        return st;
    if ((f & EMU_DPF_REDUCE) && (st = emu_dp_check_reduce(c, dtype, op, n, true, &len)) != EMU_OK)
        return st;
    if (w)
        st = emu_dp_check_remote(c, ch, "dst (remote)", dst, len, &peer);
    else
        st = emu_dp_check_local(c, "dst (local)", dst, len);
    if (st != EMU_OK)
        return st;
    if (w)
        st = emu_dp_check_local(c, "src (local)", src, len);
    else
        st = emu_dp_check_remote(c, ch, "src (remote)", src, len, &peer);
    if (st != EMU_OK)
        return st;
    if (notify && (st = remote_notify(c, ch, idx, &tmp)) != EMU_OK)
        return st;
    if ((st = alloc(kind, ch, out)) != EMU_OK)
        return st;
    struct emu_dp_op *o = emu_dp_op_of(*out);
    o->notify_ctl = tmp.notify_ctl;
    o->notify_dev = tmp.notify_dev;
    o->notify_slot = notify ? tmp.notify_slot : EMU_DP_NONE;
    set_move(o, dst, src, len, n, dtype, op, w ? peer : &emu_exec_g.self,
             w ? &emu_exec_g.self : peer);
    return EMU_OK;
}

/* A published read's or write's mailbox and peer: the mailbox 8-byte aligned, the peer on this
 * host (the task moves through this process's mapping of the peer's whole memory, which a
 * peer on another host does not have), and that mapping in *peer. */
static emu_status published_peer(const struct emu_hcomm_call *c, uint32_t ch, uint64_t mailbox,
                                 struct emu_devmap **peer)
{
    const struct emu_peer_ref *p = &emu_exec_ctl()->peers[emu_exec_ctl()->channels[ch].peer];

    if (mailbox % sizeof(uint64_t) != 0) {
        emu_hcomm_check_refuse(c, "mailbox 0x%llx is not 8-byte aligned",
                               (unsigned long long)mailbox);
        return EMU_EINVAL;
    }
    if (emu_net_is_remote(emu_exec_ctl()->channels[ch].peer))
        return emu_dp_check_not_supported(c, "a published buffer of a rank on another host");
    if (emu_devmem_peer(p->job_dir, p->dev, peer) != EMU_OK) {
        emu_hcomm_check_refuse(c, "cannot reach device %u of the peer", p->dev);
        return EMU_EINVAL;
    }
    return EMU_OK;
}

emu_status emu_dp_build_read_published(const struct emu_hcomm_call *c, uint32_t ch, bool reduce,
                                       const void *dstp, const void *ownp, bool own_first,
                                       const void *mailboxp, uint64_t off, uint64_t n, int dtype,
                                       int op, struct emu_task **out)
{
    uint64_t dst = (uint64_t)(uintptr_t)dstp, mailbox = (uint64_t)(uintptr_t)mailboxp, len = n;
    uint64_t own = (uint64_t)(uintptr_t)ownp;
    struct emu_devmap *peer = NULL;
    emu_status st;

    if ((st = emu_dp_check_ptr(c, "dst", dstp)) != EMU_OK ||
        (st = emu_dp_check_ptr(c, "mailbox", mailboxp)) != EMU_OK)
        return st;
    if (reduce && (st = emu_dp_check_reduce(c, dtype, op, n, true, &len)) != EMU_OK)
        return st;
    if ((st = emu_dp_check_local(c, "dst", dst, len)) != EMU_OK ||
        (st = emu_dp_check_local(c, "mailbox", mailbox, sizeof(uint64_t))) != EMU_OK)
        return st;
    if (ownp != NULL && (st = emu_dp_check_local(c, "own", own, len)) != EMU_OK)
        return st;
    if (ownp != NULL && overlap(dst, own, len)) {
        emu_hcomm_check_refuse(c, "own [0x%llx, +%llu) overlaps dst 0x%llx without being it",
                               (unsigned long long)own, (unsigned long long)len,
                               (unsigned long long)dst);
        return EMU_EINVAL;
    }
    if ((st = published_peer(c, ch, mailbox, &peer)) != EMU_OK)
        return st;
    if ((st = alloc(reduce ? EMU_DP_READ_REDUCE_PUBLISHED : EMU_DP_READ_PUBLISHED, ch, out)) !=
        EMU_OK)
        return st;
    struct emu_dp_op *o = emu_dp_op_of(*out);
    set_move(o, dst, 0, len, n, dtype, op, &emu_exec_g.self, peer); /* src: when it runs */
    o->mailbox = mailbox;
    o->pub_off = off;
    o->own = own;
    o->own_first = own_first;
    return EMU_OK;
}

emu_status emu_dp_build_reduce_spread(const struct emu_hcomm_call *c, const uint64_t *chans,
                                      uint32_t n, uint32_t me, const void *ownp, void *minep,
                                      const void *mailboxp, uint32_t stride, uint64_t off,
                                      uint64_t count, int dtype, int op, struct emu_task **out)
{
    uint64_t own = (uint64_t)(uintptr_t)ownp, mine = (uint64_t)(uintptr_t)minep;
    uint64_t mailbox = (uint64_t)(uintptr_t)mailboxp, len = count;
    emu_status st;

    if ((st = emu_dp_check_ptr(c, "own", ownp)) != EMU_OK ||
        (st = emu_dp_check_ptr(c, "mine", minep)) != EMU_OK ||
        (st = emu_dp_check_ptr(c, "mailbox", mailboxp)) != EMU_OK ||
        (st = emu_dp_check_ptr(c, "chans", chans)) != EMU_OK)
        return st;
    if (n < 2 || n > EMU_DP_SPREAD_MAX || me >= n || stride < 2 * sizeof(uint64_t) ||
        stride % sizeof(uint64_t) != 0) {
        emu_hcomm_check_refuse(c,
                               "rank %u of %u ranks, mailboxes %u bytes apart: want 2 to %u "
                               "ranks, a rank below their number, and at least 16 bytes "
                               "apart, 8-byte aligned",
                               me, n, stride, EMU_DP_SPREAD_MAX);
        return EMU_EINVAL;
    }
    if ((st = emu_dp_check_reduce(c, dtype, op, count, true, &len)) != EMU_OK ||
        (st = emu_dp_check_local(c, "own", own, len)) != EMU_OK ||
        (st = emu_dp_check_local(c, "mine", mine, len)) != EMU_OK ||
        (st = emu_dp_check_local(c, "mailboxes", mailbox, (uint64_t)stride * n)) != EMU_OK)
        return st;
    if (overlap(own, mine, len)) {
        emu_hcomm_check_refuse(c, "own [0x%llx, +%llu) overlaps mine 0x%llx without being it",
                               (unsigned long long)own, (unsigned long long)len,
                               (unsigned long long)mine);
        return EMU_EINVAL;
    }
    /* Every peer on this host and mapped here: the task reaches them through these mappings
     * when it runs (emu_devmem_job_find), as a published read or write does. */
    for (uint32_t q = 0; q < n; q++) {
        struct emu_devmap *peer;
        struct emu_hcomm_call cq = *c;
        uint32_t ch;
        if (q != me &&
            ((st = emu_hcomm_check_channel(&cq, chans[q], &ch)) != EMU_OK ||
             (st = published_peer(&cq, ch, mailbox + (uint64_t)q * stride, &peer)) != EMU_OK))
            return st;
    }
    if ((st = alloc(EMU_DP_REDUCE_SPREAD_PUBLISHED, EMU_DP_NONE, out)) != EMU_OK)
        return st;
    struct emu_dp_op *o = emu_dp_op_of(*out);
    set_move(o, mine, own, len, count, dtype, op, &emu_exec_g.self, &emu_exec_g.self);
    o->mailbox = mailbox;
    o->pub_off = off;
    o->spread_n = (uint16_t)n;
    o->spread_me = (uint16_t)me;
    o->spread_stride = stride;
    return EMU_OK;
}

emu_status emu_dp_build_write_published(const struct emu_hcomm_call *c, uint32_t ch,
                                        const void *mailboxp, uint64_t off, const void *srcp,
                                        uint64_t len, struct emu_task **out)
{
    uint64_t src = (uint64_t)(uintptr_t)srcp, mailbox = (uint64_t)(uintptr_t)mailboxp;
    struct emu_devmap *peer = NULL;
    emu_status st;

    if ((st = emu_dp_check_ptr(c, "src", srcp)) != EMU_OK ||
        (st = emu_dp_check_ptr(c, "mailbox", mailboxp)) != EMU_OK ||
        (st = emu_dp_check_local(c, "src", src, len)) != EMU_OK ||
        (st = emu_dp_check_local(c, "mailbox", mailbox, sizeof(uint64_t))) != EMU_OK)
        return st;
    if ((st = published_peer(c, ch, mailbox, &peer)) != EMU_OK)
        return st;
    if ((st = alloc(EMU_DP_WRITE_PUBLISHED, ch, out)) != EMU_OK)
        return st;
    struct emu_dp_op *o = emu_dp_op_of(*out);
    set_move(o, 0, src, len, len, 0, 0, peer, &emu_exec_g.self); /* dst: when it runs */
    o->mailbox = mailbox;
    o->pub_off = off;
    return EMU_OK;
}

emu_status emu_dp_build_thread_record(const struct emu_hcomm_call *c, uint32_t kind,
                                      uint64_t dst_thread, uint32_t idx, struct emu_task **out)
{
    uint32_t slot, base, num;
    emu_status st;

    if ((st = emu_dp_check_dst_thread((struct emu_hcomm_call *)c, dst_thread, &slot, &base,
                                      &num)) != EMU_OK ||
        (st = emu_hcomm_check_index(c, "dstNotifyIdx", idx, num)) != EMU_OK ||
        (st = alloc(kind, EMU_DP_NONE, out)) != EMU_OK)
        return st;
    struct emu_dp_op *o = emu_dp_op_of(*out);
    o->notify_ctl = emu_exec_ctl();
    o->notify_dev = emu_exec_g.dev;
    o->notify_slot = base + idx;
    return EMU_OK;
}

/* The waiting part of a payload: notify `slot` of this device, within timeout_s. */
static void set_wait(struct emu_dp_op *o, uint32_t slot, uint32_t timeout_s)
{
    o->notify_ctl = emu_exec_ctl();
    o->notify_dev = emu_exec_g.dev;
    o->notify_slot = slot;
    o->timeout_s = timeout_s;
}

static emu_status wait_task(uint32_t kind, uint32_t ch, uint32_t slot, uint32_t timeout_s,
                            struct emu_task **out)
{
    emu_status st = alloc(kind, ch, out);

    if (st != EMU_OK)
        return st;
    set_wait(emu_dp_op_of(*out), slot, timeout_s);
    return EMU_OK;
}

emu_status emu_dp_build_thread_wait(const struct emu_hcomm_call *c, uint32_t thread, uint32_t idx,
                                    uint32_t timeout_s, struct emu_task **out)
{
    const struct emu_stream_ctl *s = &emu_exec_ctl()->streams[thread];
    emu_status st = emu_hcomm_check_index(c, "notifyIdx", idx, s->notify_num);

    if (st != EMU_OK)
        return st;
    return wait_task(EMU_DP_THREAD_WAIT, EMU_DP_NONE, s->notify_base + idx, timeout_s, out);
}

emu_status emu_dp_build_channel_record(const struct emu_hcomm_call *c, uint32_t ch, uint32_t idx,
                                       struct emu_task **out)
{
    struct emu_dp_op tmp = {0};
    emu_status st = remote_notify(c, ch, idx, &tmp);

    if (st != EMU_OK || (st = alloc(EMU_DP_CHANNEL_RECORD, ch, out)) != EMU_OK)
        return st;
    struct emu_dp_op *o = emu_dp_op_of(*out);
    o->notify_ctl = tmp.notify_ctl;
    o->notify_dev = tmp.notify_dev;
    o->notify_slot = tmp.notify_slot;
    return EMU_OK;
}

emu_status emu_dp_build_channel_wait(const struct emu_hcomm_call *c, uint32_t ch, uint32_t idx,
                                     uint32_t timeout_s, struct emu_task **out)
{
    const struct emu_channel_ctl *cc = &emu_exec_ctl()->channels[ch];
    emu_status st = emu_hcomm_check_index(c, "localNotifyIdx", idx, cc->notify_num);

    if (st != EMU_OK)
        return st;
    return wait_task(EMU_DP_CHANNEL_WAIT, ch, cc->local_notify_base + idx, timeout_s, out);
}

/* The channel wait's checks, then the local move's: the move's task becomes the fused one,
 * with the wait's channel and notify (dp_kinds.h, WAIT_COPY and WAIT_REDUCE). */
emu_status emu_dp_build_wait_move(const struct emu_hcomm_call *c, uint32_t ch, uint32_t idx,
                                  uint32_t timeout_s, bool reduce, const void *dst,
                                  const void *src, uint64_t n, int dtype, int op,
                                  struct emu_task **out)
{
    const struct emu_channel_ctl *cc = &emu_exec_ctl()->channels[ch];
    emu_status st = emu_hcomm_check_index(c, "localNotifyIdx", idx, cc->notify_num);

    if (st != EMU_OK || (st = emu_dp_build_local(c, reduce, dst, src, n, dtype, op, out)) != EMU_OK)
        return st;
    struct emu_dp_op *o = emu_dp_op_of(*out);
    (*out)->kind = reduce ? EMU_DP_WAIT_REDUCE : EMU_DP_WAIT_COPY;
    set_channel(o, ch);
    set_wait(o, cc->local_notify_base + idx, timeout_s);
    return EMU_OK;
}

/* A runtime notify id (aclrtGetNotifyId) is (device << 24) | slot in that device's pool. */
static emu_status acl_notify(const struct emu_hcomm_call *c, uint64_t id, bool wait,
                             struct emu_devctl **ctl, uint32_t *dev, uint32_t *slot)
{
    struct emu_devmap *m;

    *dev = (uint32_t)(id >> 24);
    *slot = (uint32_t)(id & 0xFFFFFFu);
    if (id > UINT32_MAX || *dev >= 64u || *slot >= EMU_MAX_NOTIFIES) {
        emu_hcomm_check_refuse(c, "notify id 0x%llx is not an id from aclrtGetNotifyId",
                               (unsigned long long)id);
        return EMU_EINVAL;
    }
    if (wait && *dev != emu_exec_g.dev) {
        emu_hcomm_check_refuse(c, "notify id 0x%llx belongs to device %u; a wait needs a notify of "
                               "this device %u", (unsigned long long)id, *dev, emu_exec_g.dev);
        return EMU_EINVAL;
    }
    if (emu_devmem_peer(emu_exec_g.job_dir, *dev, &m) != EMU_OK) {
        emu_hcomm_check_refuse(c, "notify id 0x%llx: device %u is not reachable",
                               (unsigned long long)id, *dev);
        return EMU_EINVAL;
    }
    struct emu_devctl *x = m->ctl;
    emu_devctl_lock(&x->res_lock);
    int i = emu_range_find(&x->notify_ranges.set, x->notify_ranges.recs, *slot);
    emu_devctl_unlock(&x->res_lock);
    if (i < 0) {
        emu_hcomm_check_refuse(c, "notify id 0x%llx names no live notify of device %u (destroyed?)",
                               (unsigned long long)id, *dev);
        return EMU_EINVAL;
    }
    *ctl = x;
    return EMU_OK;
}

emu_status emu_dp_build_acl(const struct emu_hcomm_call *c, uint64_t id, bool wait,
                            uint32_t timeout_s, struct emu_task **out)
{
    struct emu_devctl *ctl;
    uint32_t dev, slot;
    emu_status st = acl_notify(c, id, wait, &ctl, &dev, &slot);

    if (st != EMU_OK ||
        (st = alloc(wait ? EMU_DP_ACL_WAIT : EMU_DP_ACL_RECORD, EMU_DP_NONE, out)) != EMU_OK)
        return st;
    struct emu_dp_op *o = emu_dp_op_of(*out);
    o->notify_ctl = ctl;
    o->notify_dev = dev;
    o->notify_slot = slot;
    o->timeout_s = timeout_s;
    return EMU_OK;
}
