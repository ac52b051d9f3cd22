/* kernel.c - kernel launches: copy the packed argument block to device memory (or take the
 * user's block as it is) and queue a KERNEL task on the stream. */
#include "kernel.h"

#include <string.h>

#include "common/platform/bus_guard.h"
#include "common/platform/log.h"
#include "acl_graph.h"
#include "mem.h"
#include "package.h"

static emu_status submit_kernel(struct emu_hstream *s, uint32_t fid, uint64_t args,
                                uint64_t size, bool free_args, const struct emu_launch_opts *o)
{
    struct emu_wire_task w;

    memset(&w, 0, sizeof(w));
    w.kind = EMU_TASK_KERNEL;
    w.flags = free_args ? EMU_WIRE_FREE_ARGS : 0;
    w.callsite = o->callsite;
    w.u.kernel.func = fid;
    w.u.kernel.args = args;
    w.u.kernel.args_size = size;
    w.u.kernel.blocks = o->blocks;
    w.u.kernel.copy_mode = o->copy_mode;
    w.u.kernel.timeout_us = o->timeout_us;
    return emu_stream_submit(s, &w);
}

/* The packed parameters go into device memory whose pages may be had only now. */
struct packing {
    const struct emu_args *a;
    uint8_t *host;
    uint64_t base;
};

static void pack(void *ctx)
{
    const struct packing *p = ctx;

    emu_args_pack(p->a, p->host, p->base);
}

emu_status emu_kernel_launch(struct emu_function *f, struct emu_args *a, struct emu_hstream *s,
                             const struct emu_launch_opts *o)
{
    struct emu_hdev *d = s->d;
    uint32_t fid;
    emu_status st;

    if ((st = emu_args_ready_for(a, f)) != EMU_OK ||
        (st = emu_function_resolve(f, d, &fid)) != EMU_OK)
        return st;
    /* Placeholder buffers follow the packed parameters in the same device block: in the
     * stream's ring (args_ring.c), or a block of its own when the ring is full or the launch
     * is captured (the graph keeps that block for its executions, acl_graph.c). */
    uint64_t total = emu_args_packed_size(a), block = total ? total : 8, base;
    bool ring = !emu_aclgraph_capturing(s);
    bool in_ring = ring && emu_args_ring_take(&s->args, block, &base) == EMU_OK;
    if (!in_ring) {
        void *dev_args;
        if ((st = emu_mem_alloc(d, block, EMU_ALLOC_ARGS, &dev_args)) != EMU_OK) {
            if (ring)
                emu_args_ring_commit(&s->args, false, false);
            return st;
        }
        base = (uint64_t)(uintptr_t)dev_args;
    }
    struct packing p = {a, d->alias + (base - emu_window_base(d->id)), base};
    if (emu_bus_guard_run(pack, &p) != EMU_OK) {
        emu_mem_log_no_pages("kernel launch arguments", total);
        st = EMU_ENOMEM;
    } else {
        st = submit_kernel(s, fid, base, total, !in_ring, o);
    }
    if (ring)
        emu_args_ring_commit(&s->args, in_ring, st == EMU_OK);
    if (st != EMU_OK && !in_ring)
        emu_mem_free_owned((void *)(uintptr_t)base);
    return st;
}

emu_status emu_kernel_launch_raw(struct emu_function *f, const void *args, size_t size,
                                 struct emu_hstream *s, const struct emu_launch_opts *o)
{
    struct emu_mem_ref ref;
    uint32_t fid;
    emu_status st;

    if ((st = emu_mem_resolve(args, size, "kernel arguments", &ref)) != EMU_OK)
        return st;
    if (ref.dev != (int)s->dev) {
        EMU_LOG_ERR("aclrtLaunchKernel: arguments %p must be device memory of device %u",
                    args, s->dev);
        return EMU_EINVAL;
    }
    if ((st = emu_function_resolve(f, s->d, &fid)) != EMU_OK)
        return st;
    return submit_kernel(s, fid, (uint64_t)(uintptr_t)args, size, false, o);
}
