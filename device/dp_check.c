/* dp_check.c - validation of every argument of a data-plane call, at the call.
 *
 * Each check either passes silently or logs exactly one line (emu_dp_refuse) naming the rank,
 * thread, call, argument and call site, and returns the status the boundary converts to the
 * spec's HcclResult: EMU_ENULL -> HCCL_E_PTR, EMU_EINVAL/EMU_EHANDLE -> HCCL_E_PARA,
 * EMU_ENOTSUP -> HCCL_E_NOT_SUPPORT. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/atomic.h"
#include "common/layout.h"
#include "common/log.h"
#include "common/product.h"
#include "dp.h"
#include "kernel_run.h"
#include "reduce.h"

static void who(const struct emu_dp_call *c, char *out, size_t len)
{
    struct emu_devctl *ctl = emu_exec_ctl();
    const struct emu_kernel_ctx *k = emu_kernel_current();
    char kern[96] = "";

    if (k != NULL)
        snprintf(kern, sizeof(kern), " (kernel %s)", k->kernel);
    if (c->thread != EMU_DP_NONE) {
        const struct emu_stream_ctl *s = &ctl->streams[c->thread];
        if (s->label[0] != '\0')
            snprintf(out, len, "%.36s%s", s->label, kern); /* "rank R thread T" */
        else if (s->rank != UINT32_MAX)
            snprintf(out, len, "rank %u thread %u%s", s->rank, s->thread_index, kern);
        else
            snprintf(out, len, "thread slot %u%s", c->thread, kern);
        return;
    }
    if (c->channel != EMU_DP_NONE) {
        snprintf(out, len, "rank %u channel to rank %u%s", ctl->channels[c->channel].local_rank,
                 ctl->channels[c->channel].remote_rank, kern);
        return;
    }
    snprintf(out, len, "device %u%s", emu_exec_g.dev, kern);
}

void emu_dp_refuse(const struct emu_dp_call *c, const char *fmt, ...)
{
    char msg[320];
    char site[384];
    char whom[192];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    who(c, whom, sizeof(whom));
    if (c->callsite != 0) /* a return address: - 1 lies in the call, so the line is the call's */
        emu_kernel_symbolize(c->callsite - 1, site, sizeof(site));
    else
        snprintf(site, sizeof(site), "unknown call site");
    EMU_LOG_ERR("%s: %s refused: %s; called from %s", whom, c->fn, msg, site);
}

emu_status emu_dp_not_supported(const struct emu_dp_call *c, const char *what)
{
    emu_dp_refuse(c, "not supported on %s: %s", emu_product_label(), what);
    return EMU_ENOTSUP;
}

/* Decode and check the parts every thread handle shares; *slot = its stream slot. */
static emu_status thread_slot(struct emu_dp_call *c, const char *what, uint64_t h,
                              struct emu_handle *dh)
{
    if (h == 0) {
        emu_dp_refuse(c, "%s is 0 (no thread)", what);
        return EMU_ENULL;
    }
    if (!emu_handle_decode(h, EMU_HANDLE_THREAD, dh)) {
        emu_dp_refuse(c, "%s 0x%016llx is not a thread handle", what, (unsigned long long)h);
        return EMU_EHANDLE;
    }
    if (dh->dev != emu_exec_g.dev) {
        emu_dp_refuse(c, "%s 0x%016llx belongs to device %u, this kernel runs on device %u", what,
                      (unsigned long long)h, dh->dev, emu_exec_g.dev);
        return EMU_EHANDLE;
    }
    if (dh->engine != EMU_DP_ENGINE_AICPU_TS) {
        emu_dp_refuse(c, "%s 0x%016llx is a handle of engine %u; a kernel can use only "
                      "AICPU_TS (3) handles%s", what, (unsigned long long)h, dh->engine,
                      dh->exported ? "" : " (export it with HcclThreadExportToCommEngine)");
        return EMU_EHANDLE;
    }
    if (dh->index >= EMU_MAX_STREAMS ||
        emu_load_acquire(&emu_exec_ctl()->streams[dh->index].kind) == EMU_STREAM_FREE ||
        (emu_exec_ctl()->streams[dh->index].gen & EMU_HANDLE_GEN_MASK) != dh->gen) {
        emu_dp_refuse(c, "%s 0x%016llx is stale (its thread was released) or was never "
                      "acquired", what, (unsigned long long)h);
        return EMU_EHANDLE;
    }
    return EMU_OK;
}

emu_status emu_dp_check_thread(struct emu_dp_call *c, uint64_t h, uint32_t *slot)
{
    struct emu_handle dh;
    emu_status st = thread_slot(c, "thread", h, &dh);

    if (st != EMU_OK)
        return st;
    const struct emu_stream_ctl *s = &emu_exec_ctl()->streams[dh.index];
    if (dh.exported || s->kind != EMU_STREAM_DEVICE || s->engine != (int32_t)EMU_DP_ENGINE_AICPU_TS) {
        emu_dp_refuse(c, "thread 0x%016llx is %s; tasks can be queued only on the kernel's own "
                      "AICPU_TS threads", (unsigned long long)h,
                      dh.exported ? "an exported handle (usable only as a notify destination)"
                                  : "not an AICPU_TS thread");
        return EMU_EHANDLE;
    }
    c->thread = dh.index;
    *slot = dh.index;
    return EMU_OK;
}

emu_status emu_dp_check_dst_thread(struct emu_dp_call *c, uint64_t h, uint32_t *slot,
                                   uint32_t *notify_base, uint32_t *notify_num)
{
    struct emu_handle dh;
    emu_status st = thread_slot(c, "dstThread", h, &dh);

    if (st != EMU_OK)
        return st;
    const struct emu_stream_ctl *s = &emu_exec_ctl()->streams[dh.index];
    bool own = !dh.exported && s->kind == EMU_STREAM_DEVICE &&
               s->engine == (int32_t)EMU_DP_ENGINE_AICPU_TS;
    bool imported = dh.exported && s->kind == EMU_STREAM_ACL &&
                    s->engine == (int32_t)EMU_DP_ENGINE_CPU_TS;
    if (!own && !imported) {
        emu_dp_refuse(c, "dstThread 0x%016llx is neither an AICPU_TS thread nor a CPU_TS thread "
                      "exported to AICPU_TS (stream kind %u, engine %d, exported %d)",
                      (unsigned long long)h, (unsigned)s->kind, s->engine, dh.exported);
        return EMU_EHANDLE;
    }
    *slot = dh.index;
    *notify_base = s->notify_base;
    *notify_num = s->notify_num;
    return EMU_OK;
}

/* COMM_ENGINE_AICPU channels (engine 2) are used by AICPU kernels just as AICPU_TS ones are
 * (the vendor P2P custom-op sample acquires its channels so). Kept apart for the unified
 * Hcomm checks of common/ to take over. */
#define EMU_DP_ENGINE_AICPU 2u
static bool kernel_channel_engine(uint32_t engine)
{
    return engine == EMU_DP_ENGINE_AICPU_TS || engine == EMU_DP_ENGINE_AICPU;
}

emu_status emu_dp_check_channel(struct emu_dp_call *c, uint64_t h, uint32_t *slot)
{
    struct emu_handle dh;

    if (h == 0) {
        emu_dp_refuse(c, "channel is 0 (no channel)");
        return EMU_ENULL;
    }
    if (!emu_handle_decode(h, EMU_HANDLE_CHANNEL, &dh)) {
        emu_dp_refuse(c, "channel 0x%016llx is not a channel handle", (unsigned long long)h);
        return EMU_EHANDLE;
    }
    if (dh.dev != emu_exec_g.dev) {
        emu_dp_refuse(c, "channel 0x%016llx belongs to device %u, this kernel runs on device %u",
                      (unsigned long long)h, dh.dev, emu_exec_g.dev);
        return EMU_EHANDLE;
    }
    if (!kernel_channel_engine(dh.engine) || dh.exported) {
        emu_dp_refuse(c, "channel 0x%016llx was acquired for engine %u; a kernel can use only "
                      "AICPU_TS (3) and AICPU (2) channels", (unsigned long long)h, dh.engine);
        return EMU_EHANDLE;
    }
    const struct emu_channel_ctl *ch = &emu_exec_ctl()->channels[dh.index % EMU_MAX_CHANNELS];
    if (dh.index >= EMU_MAX_CHANNELS || emu_load_acquire(&ch->state) != 1 ||
        (ch->gen & EMU_HANDLE_GEN_MASK) != dh.gen ||
        !kernel_channel_engine((uint32_t)ch->engine) || ch->peer >= EMU_MAX_PEERS) {
        emu_dp_refuse(c, "channel 0x%016llx is stale (released) or was never acquired",
                      (unsigned long long)h);
        return EMU_EHANDLE;
    }
    c->channel = dh.index;
    *slot = dh.index;
    return EMU_OK;
}

emu_status emu_dp_check_index(const struct emu_dp_call *c, const char *what, uint32_t idx,
                              uint32_t num)
{
    if (idx < num)
        return EMU_OK;
    if (num == 0)
        emu_dp_refuse(c, "%s %u: the target has no notifies (notifyNum 0)", what, idx);
    else
        emu_dp_refuse(c, "%s %u is out of range [0, %u)", what, idx, num);
    return EMU_EINVAL;
}

emu_status emu_dp_check_ptr(const struct emu_dp_call *c, const char *what, const void *p)
{
    if (p != NULL)
        return EMU_OK;
    emu_dp_refuse(c, "%s is NULL", what);
    return EMU_ENULL;
}

emu_status emu_dp_check_local(const struct emu_dp_call *c, const char *what, uint64_t addr,
                              uint64_t len)
{
    struct emu_range r;

    if (len == 0)
        return EMU_OK;
    if (addr + len < addr) {
        emu_dp_refuse(c, "%s 0x%llx + len %llu wraps around the address space", what,
                      (unsigned long long)addr, (unsigned long long)len);
        return EMU_EINVAL;
    }
    if (emu_devmem_lookup(addr, len, &r) == EMU_OK)
        return EMU_OK;
    int dev = emu_window_device(addr);
    if (dev >= 0 && (uint32_t)dev != emu_exec_g.dev)
        emu_dp_refuse(c, "%s 0x%llx (len %llu) is memory of device %d, not of this device %u; "
                      "reach a peer only through a channel", what, (unsigned long long)addr,
                      (unsigned long long)len, dev, emu_exec_g.dev);
    else
        emu_dp_refuse(c, "%s [0x%llx, +%llu) is not inside one live allocation of device %u "
                      "(freed, out of bounds, or not device memory)", what,
                      (unsigned long long)addr, (unsigned long long)len, emu_exec_g.dev);
    return EMU_EINVAL;
}

emu_status emu_dp_check_remote(const struct emu_dp_call *c, uint32_t chs, const char *what,
                               uint64_t addr, uint64_t len, struct emu_devmap **map)
{
    const struct emu_channel_ctl *ch = &emu_exec_ctl()->channels[chs];
    uint32_t n = ch->mem_num < EMU_MAX_CHANNEL_MEMS ? ch->mem_num : EMU_MAX_CHANNEL_MEMS;
    bool inside = len == 0;

    if (addr + len < addr) {
        emu_dp_refuse(c, "%s 0x%llx + len %llu wraps around the address space", what,
                      (unsigned long long)addr, (unsigned long long)len);
        return EMU_EINVAL;
    }
    for (uint32_t i = 0; i < n && !inside; i++) {
        const struct emu_channel_mem *m = &ch->mems[i];
        inside = addr >= m->addr && addr - m->addr <= m->size && len <= m->size - (addr - m->addr);
    }
    if (!inside) {
        emu_dp_refuse(c, "%s [0x%llx, +%llu) is not inside the peer's HCCL buffer or a memory "
                      "exchanged on this channel to rank %u (%u regions; see "
                      "HcclChannelGetHcclBuffer / HcclChannelGetRemoteMems)", what,
                      (unsigned long long)addr, (unsigned long long)len, ch->remote_rank, n);
        return EMU_EINVAL;
    }
    const struct emu_peer_ref *p = &emu_exec_ctl()->peers[ch->peer];
    int dev = emu_window_device(addr);
    if (len == 0 && dev < 0)
        dev = (int)p->dev;
    if (dev < 0 || (uint32_t)dev != p->dev || emu_devmem_peer(p->job_dir, p->dev, map) != EMU_OK) {
        emu_dp_refuse(c, "%s 0x%llx: cannot reach device %u of the peer rank %u", what,
                      (unsigned long long)addr, p->dev, ch->remote_rank);
        return EMU_EINVAL;
    }
    return EMU_OK;
}

emu_status emu_dp_check_reduce(const struct emu_dp_call *c, int dtype, int op, uint64_t count,
                               bool remote, uint64_t *bytes)
{
    enum emu_reduce_site site = !remote ? EMU_REDUCE_LOCAL
                                : emu_product_current() == EMU_PRODUCT_950
                                    ? EMU_REDUCE_REMOTE_950
                                    : EMU_REDUCE_REMOTE_A2A3;

    if (emu_reduce_check(dtype, op, site) != EMU_OK) {
        emu_dp_refuse(c, "data type %s (%d) with reduce op %s (%d) is not supported by this "
                      "call on %s (types %s; ops SUM, MAX, MIN)", emu_dtype_name(dtype), dtype,
                      emu_reduce_op_name(op), op, emu_product_label(),
                      site == EMU_REDUCE_REMOTE_950 ? "INT8/16/32, UINT8/16/32, FP16, FP32, BFP16"
                                                    : "INT8/16/32, FP16, FP32, BFP16");
        return EMU_EINVAL;
    }
    size_t es = emu_dtype_size(dtype);
    if (count > UINT64_MAX / es) {
        emu_dp_refuse(c, "count %llu of %s overflows the byte length", (unsigned long long)count,
                      emu_dtype_name(dtype));
        return EMU_EINVAL;
    }
    *bytes = count * es;
    return EMU_OK;
}

emu_status emu_dp_peer_ctl(const struct emu_dp_call *c, uint32_t chs, struct emu_devctl **out)
{
    const struct emu_channel_ctl *ch = &emu_exec_ctl()->channels[chs];
    const struct emu_peer_ref *p = &emu_exec_ctl()->peers[ch->peer];
    struct emu_devmap *m;

    if (emu_devmem_peer(p->job_dir, p->dev, &m) != EMU_OK) {
        emu_dp_refuse(c, "cannot reach device %u of the peer rank %u", p->dev, ch->remote_rank);
        return EMU_EINVAL;
    }
    *out = m->ctl;
    return EMU_OK;
}

bool emu_dp_range_alive(const struct emu_devmap *m, uint64_t addr, uint64_t len)
{
    struct emu_devctl *ctl = m->ctl;
    uint64_t base = emu_window_base(m->dev);
    bool ok = false;

    if (len == 0)
        return true;
    if (addr < base || addr - base >= m->mem_size || len > m->mem_size - (addr - base))
        return false;
    emu_devctl_lock(&ctl->alloc.lock);
    int i = emu_range_find(&ctl->alloc.set, ctl->alloc.recs, addr - base);
    if (i >= 0) {
        const struct emu_range *r = &ctl->alloc.recs[i];
        ok = len <= r->off + r->size - (addr - base) && addr - base >= r->off;
    }
    emu_devctl_unlock(&ctl->alloc.lock);
    return ok;
}

emu_status emu_dp_check_timeout(const struct emu_dp_call *c, float s, uint32_t *out)
{
    if (isnan(s) || s < 0.0f || (double)s > (double)UINT32_MAX) {
        emu_dp_refuse(c, "timeout %g s: must be a number in [0, %u] (0 = forever)", (double)s,
                      UINT32_MAX);
        return EMU_EINVAL;
    }
    *out = (uint32_t)s;
    return EMU_OK;
}
