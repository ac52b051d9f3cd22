/* dp_check.c - validation of every argument of a data-plane call, at the call.
 *
 * Handle decoding and the refusal line are shared with the host (common/contract/hcomm_check.c); this
 * file is the executor's side of them plus the checks only a kernel's calls need (memory
 * ranges, reductions, peers). Each check passes silently or logs exactly one line and returns
 * the status the boundary converts to the HcclResult (DATA_PLANE.md §12):
 * EMU_ENULL -> HCCL_E_PTR, EMU_EINVAL/EMU_EHANDLE -> HCCL_E_PARA, EMU_ENOTSUP -> HCCL_E_NOT_SUPPORT. */
#include <stdio.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/contract/layout.h"
#include "common/platform/log.h"
#include "common/contract/product.h"
#include "dp.h"
#include "device/net/net.h"
#include "device/kernel/kernel.h"
#include "reduce.h"
#include "device/kernel/symbols.h"

/* The executor's side of the shared checks (common/contract/hcomm_check.h): AICPU_TS threads of this
 * device only, call sites symbolized in the kernel image, the running kernel named. */
static struct emu_devctl *ctl_of(uint32_t dev, bool live)
{
    (void)live; /* the executor's own control block lives as long as the process */
    return dev == emu_exec_g.dev ? emu_exec_ctl() : NULL;
}

static void site_of(uint64_t pc, char *out, size_t len)
{
    if (pc != 0) /* a return address: - 1 lies in the call, so the line is the call's */
        emu_symbols_kernel_pc(pc - 1, out, len);
    else
        snprintf(out, len, "unknown call site");
}

static void kernel_of(char *out, size_t len)
{
    const struct emu_kernel_ctx *k = emu_kernel_current();

    if (k != NULL)
        snprintf(out, len, " (kernel %s)", k->kernel);
}

const struct emu_hcomm_side emu_dp_check_side = {
    .engine = EMU_ENGINE_AICPU_TS,
    .one_device = true,
    .rule = "a kernel can use only AICPU_TS (3)",
    .channel_engine_also = EMU_ENGINE_AICPU,
    .channel_rule = "a kernel can use only AICPU_TS (3) and AICPU (2)",
    .hint = " (export it with HcclThreadExportToCommEngine)",
    .hint_exported = "",
    .stale = "its thread was released",
    .ctl_of = ctl_of,
    .site = site_of,
    .context = kernel_of,
};

emu_status emu_dp_check_not_supported(const struct emu_hcomm_call *c, const char *what)
{
    emu_hcomm_check_refuse(c, "not supported on %s: %s", emu_product_label(), what);
    return EMU_ENOTSUP;
}

/* The thread handles this OS thread's calls named last, each after a full check: a kernel
 * names the same few handles call after call, and the full check (decoding, the device, the
 * engine) was a sixth of a small copy's cost. A remembered handle decodes the same as before,
 * so it is still good while its slot holds the same thread: live, of the same generation and
 * of the kind the check asked for, which is what the full check reads of the slot. */
#define KNOWN_THREADS 16u /* by the slot index's low bits: one look per call */

struct known_thread {
    uint64_t h;
    struct emu_stream_ctl *s;
};

static _Thread_local struct known_thread known[KNOWN_THREADS];

/* Whether slot s still holds the thread of handle h: an AICPU_TS thread of this kernel's
 * (own), or for a notify destination (dst) also the CPU_TS thread an exported handle names. */
static bool still_holds(const struct emu_stream_ctl *s, uint64_t h, bool dst)
{
    struct emu_handle dh;

    (void)emu_handle_decode(h, EMU_HANDLE_THREAD, &dh);
    if ((s->gen & EMU_HANDLE_GEN_MASK) != dh.gen)
        return false;
    uint32_t kind = emu_load_acquire(&s->kind);
    if (!dh.exported)
        return kind == EMU_STREAM_DEVICE && s->engine == (int32_t)EMU_ENGINE_AICPU_TS;
    return dst && kind == EMU_STREAM_ACL && s->engine == (int32_t)EMU_ENGINE_CPU_TS;
}

/* The slot of a remembered handle that still holds its thread; NULL when there is none. */
static struct emu_stream_ctl *known_thread(uint64_t h, bool dst)
{
    const struct known_thread *k = &known[(uint32_t)h % KNOWN_THREADS];

    return k->h == h && h != 0 && still_holds(k->s, h, dst) ? k->s : NULL;
}

static void remember_thread(uint64_t h, struct emu_stream_ctl *s)
{
    known[(uint32_t)h % KNOWN_THREADS] = (struct known_thread){.h = h, .s = s};
}

emu_status emu_dp_check_thread(struct emu_hcomm_call *c, uint64_t h, uint32_t *slot)
{
    struct emu_handle dh;
    struct emu_stream_ctl *s;

    if (known_thread(h, false) != NULL) {
        c->thread = *slot = (uint32_t)h & EMU_HANDLE_INDEX_MASK;
        return EMU_OK;
    }
    emu_status st = emu_hcomm_check_thread(c, "thread", h, &dh, &s);

    if (st != EMU_OK)
        return st;
    if (!emu_hcomm_check_own(c->side, &dh, s)) {
        emu_hcomm_check_refuse(c, "thread 0x%016llx is %s; tasks can be queued only on the "
                               "kernel's own AICPU_TS threads", (unsigned long long)h,
                               dh.exported ? "an exported handle (usable only as a notify "
                                             "destination)"
                                           : "not an AICPU_TS thread");
        return EMU_EHANDLE;
    }
    c->thread = dh.index;
    *slot = dh.index;
    remember_thread(h, s);
    return EMU_OK;
}

emu_status emu_dp_check_thread_channel(struct emu_hcomm_call *c, uint64_t thread,
                                       uint64_t channel, uint32_t *slot, uint32_t *ch)
{
    emu_status st = emu_dp_check_thread(c, thread, slot);

    return st != EMU_OK ? st : emu_hcomm_check_channel(c, channel, ch);
}

emu_status emu_dp_check_dst_thread(struct emu_hcomm_call *c, uint64_t h, uint32_t *slot,
                                   uint32_t *notify_base, uint32_t *notify_num)
{
    struct emu_handle dh;
    struct emu_stream_ctl *s = known_thread(h, true);

    if (s == NULL) {
        emu_status st = emu_hcomm_check_thread(c, "dstThread", h, &dh, &s);
        if (st != EMU_OK)
            return st;
        if (!emu_hcomm_check_notify_dst(c->side, &dh, s)) {
            emu_hcomm_check_refuse(c, "dstThread 0x%016llx is neither an AICPU_TS thread nor a "
                                   "CPU_TS thread exported to AICPU_TS (stream kind %u, engine "
                                   "%d, exported %d)", (unsigned long long)h, (unsigned)s->kind,
                                   s->engine, dh.exported);
            return EMU_EHANDLE;
        }
        remember_thread(h, s);
    }
    *slot = (uint32_t)h & EMU_HANDLE_INDEX_MASK;
    *notify_base = s->notify_base;
    *notify_num = s->notify_num;
    return EMU_OK;
}

emu_status emu_dp_check_ptr(const struct emu_hcomm_call *c, const char *what, const void *p)
{
    if (p != NULL)
        return EMU_OK;
    emu_hcomm_check_refuse(c, "%s is NULL", what);
    return EMU_ENULL;
}

emu_status emu_dp_check_local(const struct emu_hcomm_call *c, const char *what, uint64_t addr,
                              uint64_t len)
{
    if (len == 0)
        return EMU_OK;
    if (addr + len < addr) {
        emu_hcomm_check_refuse(c, "%s 0x%llx + len %llu wraps around the address space", what,
                               (unsigned long long)addr, (unsigned long long)len);
        return EMU_EINVAL;
    }
    if (emu_dp_check_range_alive(&emu_exec_g.self, addr, len))
        return EMU_OK;
    int dev = emu_window_device(addr);
    if (dev >= 0 && (uint32_t)dev != emu_exec_g.dev)
        emu_hcomm_check_refuse(c, "%s 0x%llx (len %llu) is memory of device %d, not of this device "
                               "%u; reach a peer only through a channel", what,
                               (unsigned long long)addr, (unsigned long long)len, dev,
                               emu_exec_g.dev);
    else
        emu_hcomm_check_refuse(c, "%s [0x%llx, +%llu) is not inside one live allocation of device "
                               "%u (freed, out of bounds, or not device memory)", what,
                               (unsigned long long)addr, (unsigned long long)len, emu_exec_g.dev);
    return EMU_EINVAL;
}

emu_status emu_dp_check_remote(const struct emu_hcomm_call *c, uint32_t chs, const char *what,
                               uint64_t addr, uint64_t len, struct emu_devmap **map)
{
    const struct emu_channel_ctl *ch = &emu_exec_ctl()->channels[chs];
    uint32_t n = ch->mem_num < EMU_MAX_CHANNEL_MEMS ? ch->mem_num : EMU_MAX_CHANNEL_MEMS;
    bool inside = len == 0;

    if (addr + len < addr) {
        emu_hcomm_check_refuse(c, "%s 0x%llx + len %llu wraps around the address space", what,
                               (unsigned long long)addr, (unsigned long long)len);
        return EMU_EINVAL;
    }
    for (uint32_t i = 0; i < n && !inside; i++) {
        const struct emu_channel_mem *m = &ch->mems[i];
        inside = addr >= m->addr && addr - m->addr <= m->size && len <= m->size - (addr - m->addr);
    }
    /* A peer's copy of a symmetric window is reachable on every channel of its communicator
     * to that peer (the window's registration exchanged it, not the channel). */
    if (!inside)
        inside = emu_dp_symwin_reaches(ch->comm_id, ch->remote_rank, addr, len);
    if (!inside) {
        emu_hcomm_check_refuse(c, "%s [0x%llx, +%llu) is not inside the peer's HCCL buffer or a "
                               "memory exchanged on this channel to rank %u (%u regions; see "
                               "HcclChannelGetHcclBuffer / HcclChannelGetRemoteMems), nor in "
                               "its copy of a symmetric window", what,
                               (unsigned long long)addr, (unsigned long long)len, ch->remote_rank,
                               n);
        return EMU_EINVAL;
    }
    const struct emu_peer_ref *p = &emu_exec_ctl()->peers[ch->peer];
    if (emu_net_is_remote(ch->peer)) {
        *map = NULL; /* another host: the peer's executor applies it (device/net/net.h) */
        return EMU_OK;
    }
    int dev = emu_window_device(addr);
    if (len == 0 && dev < 0)
        dev = (int)p->dev;
    if (dev < 0 || (uint32_t)dev != p->dev || emu_devmem_peer(p->job_dir, p->dev, map) != EMU_OK) {
        emu_hcomm_check_refuse(c, "%s 0x%llx: cannot reach device %u of the peer rank %u", what,
                               (unsigned long long)addr, p->dev, ch->remote_rank);
        return EMU_EINVAL;
    }
    return EMU_OK;
}

emu_status emu_dp_check_reduce(const struct emu_hcomm_call *c, int dtype, int op, uint64_t count,
                               bool remote, uint64_t *bytes)
{
    enum emu_reduce_site site = !remote ? EMU_REDUCE_LOCAL
                                : emu_product_current() == EMU_PRODUCT_950
                                    ? EMU_REDUCE_REMOTE_950
                                    : EMU_REDUCE_REMOTE_A2A3;

    if (emu_reduce_check(dtype, op, site) != EMU_OK) {
        emu_hcomm_check_refuse(c, "data type %s (%d) with reduce op %s (%d) is not supported by "
                               "this call on %s (types %s; ops SUM, MAX, MIN)",
                               emu_reduce_dtype_name(dtype), dtype, emu_reduce_op_name(op), op,
                               emu_product_label(),
                               site == EMU_REDUCE_REMOTE_950
                                   ? "INT8/16/32, UINT8/16/32, FP16, FP32, BFP16"
                                   : "INT8/16/32, FP16, FP32, BFP16");
        return EMU_EINVAL;
    }
    size_t es = emu_reduce_dtype_size(dtype);
    if (count > UINT64_MAX / es) {
        emu_hcomm_check_refuse(c, "count %llu of %s overflows the byte length",
                               (unsigned long long)count, emu_reduce_dtype_name(dtype));
        return EMU_EINVAL;
    }
    *bytes = count * es;
    return EMU_OK;
}

emu_status emu_dp_check_peer_ctl(const struct emu_hcomm_call *c, uint32_t chs,
                                 struct emu_devctl **out)
{
    const struct emu_channel_ctl *ch = &emu_exec_ctl()->channels[chs];
    const struct emu_peer_ref *p = &emu_exec_ctl()->peers[ch->peer];
    struct emu_devmap *m;

    if (emu_net_is_remote(ch->peer)) {
        *out = NULL; /* another host: the record travels to the peer's executor */
        return EMU_OK;
    }
    if (emu_devmem_peer(p->job_dir, p->dev, &m) != EMU_OK) {
        emu_hcomm_check_refuse(c, "cannot reach device %u of the peer rank %u", p->dev,
                               ch->remote_rank);
        return EMU_EINVAL;
    }
    *out = m->ctl;
    return EMU_OK;
}

bool emu_dp_check_range_alive(const struct emu_devmap *m, uint64_t addr, uint64_t len)
{
    uint64_t base = emu_window_base(m->dev);

    if (len == 0)
        return true;
    if (addr < base || addr - base >= m->mem_size || len > m->mem_size - (addr - base))
        return false;
    /* An allocation of another size may have taken the offset since the call: the range
     * must lie in its first `size` bytes, not in its padding. */
    return emu_devmem_holds(m, addr - base, len);
}
