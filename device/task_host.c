/* task_host.c - the task kinds a host process submits through the ring: copies, memsets,
 * notifies, events and kernel launches. */
#include <stdio.h>
#include <string.h>

#include "common/platform/bus_guard.h"
#include "common/platform/copy.h"
#include "common/platform/atomic.h"
#include "common/contract/layout.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "exec.h"
#include "device/kernel/kernel.h"
#include "device/dp/lost_record.h"
#include "device/sched/sched.h"

/* How often a parked wait on another device's event polls (see run_event_wait()). */
#define EVENT_POLL_NS 1000000ull

static enum emu_run_result run_nop(struct emu_task *t)
{
    (void)t;
    return EMU_RUN_DONE;
}

/* A page of device memory (or pinned host memory) could not be had: the job folder's file
 * system is full (common/platform/bus_guard.h). */
static enum emu_run_result no_pages(struct emu_task *t)
{
    snprintf(t->note, sizeof(t->note),
             "no room for the pages this task touches: the file system of the job folder is "
             "full");
    t->status = EMU_ENOMEM;
    return EMU_RUN_FAIL;
}

static enum emu_run_result run_copy(struct emu_task *t)
{
    const struct emu_wire_task *w = &t->u.wire;
    uint64_t len = w->u.copy.len;
    void *dst = emu_devmem_ptr(w->u.copy.dst.addr, w->u.copy.dst.space, len);
    void *src = emu_devmem_ptr(w->u.copy.src.addr, w->u.copy.src.space, len);

    if (dst == NULL || src == NULL) {
        t->status = EMU_EINVAL;
        return EMU_RUN_FAIL;
    }
    if (emu_bus_guard_copy(dst, src, len) != EMU_OK)
        return no_pages(t);
    return EMU_RUN_DONE;
}

static enum emu_run_result run_memset(struct emu_task *t)
{
    const struct emu_wire_task *w = &t->u.wire;
    void *dst = emu_devmem_ptr(w->u.memset.dst, 0, w->u.memset.len);

    if (dst == NULL) {
        t->status = EMU_EINVAL;
        return EMU_RUN_FAIL;
    }
    if (emu_bus_guard_memset(dst, (int)(uint8_t)w->u.memset.value, w->u.memset.len) != EMU_OK)
        return no_pages(t);
    return EMU_RUN_DONE;
}

static struct emu_devctl *ctl_of(uint32_t dev)
{
    struct emu_devmap *m;

    if (dev == emu_exec_g.dev)
        return emu_exec_ctl();
    if (emu_devmem_peer(emu_exec_g.job_dir, dev, &m) != EMU_OK)
        return NULL;
    return m->ctl;
}

static enum emu_run_result run_notify_record(struct emu_task *t)
{
    const struct emu_wire_task *w = &t->u.wire;
    struct emu_devctl *ctl = ctl_of(w->u.notify.dev);

    if (ctl == NULL || w->u.notify.slot >= EMU_MAX_NOTIFIES) {
        t->status = EMU_EINVAL;
        return EMU_RUN_FAIL;
    }
    if (emu_devctl_notify_record(ctl, w->u.notify.slot, (emu_exec_g.dev << 24) | t->stream))
        EMU_LOG_WARN("stream %u: notify record absorbed: notify slot %u was already set and "
                     "not yet waited for, so this record is lost (as on hardware)",
                     t->stream, w->u.notify.slot);
    return EMU_RUN_DONE;
}

/* Consume a binary notify: 1 -> 0. The CAS pairs with the exchange in
 * emu_devctl_notify_record(): work before the record is visible after the consume. */
bool emu_task_host_notify_consume(struct emu_devctl *ctl, uint32_t slot)
{
    _Atomic uint32_t *v = &ctl->notifies[slot].value;
    uint32_t one = 1;

    return emu_load_relaxed(v) == 1 && emu_cas_acq_rel(v, &one, 0);
}

static enum emu_run_result run_notify_wait(struct emu_task *t)
{
    const struct emu_wire_task *w = &t->u.wire;

    if (w->u.wait.slot >= EMU_MAX_NOTIFIES) {
        t->status = EMU_EINVAL;
        return EMU_RUN_FAIL;
    }
    if (emu_task_host_notify_consume(emu_exec_ctl(), w->u.wait.slot))
        return EMU_RUN_DONE;
    /* A kernel's thread that was to record it failed (lost_record.h). */
    if (emu_lost_record_take(emu_exec_ctl(), w->u.wait.slot, t->note, sizeof(t->note),
                             &t->status))
        return EMU_RUN_FAIL;
    if (t->deadline_ns == 0)
        t->deadline_ns = emu_os_deadline_s(w->u.wait.timeout_s);
    t->park = EMU_PARK_NOTIFY;
    t->park_slot = w->u.wait.slot;
    t->timeout_status = EMU_ETASK_TIMEOUT;
    return EMU_RUN_PARK;
}

static enum emu_run_result run_event_record(struct emu_task *t)
{
    const struct emu_wire_task *w = &t->u.wire;
    struct emu_devctl *ctl = ctl_of(w->u.event.dev);

    if (ctl == NULL || w->u.event.slot >= EMU_MAX_NOTIFIES) {
        t->status = EMU_EINVAL;
        return EMU_RUN_FAIL;
    }
    emu_store_relaxed(&ctl->notifies[w->u.event.slot].stamp_ns, emu_os_now_ns());
    /* Pairs with the acquire load in run_event_wait() and in the host's event sync. */
    emu_store_release(&ctl->notifies[w->u.event.slot].value, w->u.event.seq);
    emu_os_futex_wake(&ctl->notifies[w->u.event.slot].value, INT32_MAX);
    /* Streams of the event's own device that parked on it are not in ring_mask when they
     * were queued after this record (the usual record-then-wait order): ring it always. */
    emu_devctl_ring(ctl);
    /* Bit d % 64 stands for every device d: a spare ring only wakes a scheduler early, and
     * the devices d + 64k the job does not have are skipped without a word. */
    for (uint32_t d = 0; d < EMU_MAX_DEVICES; d++) {
        if ((w->u.event.ring_mask >> (d % 64u)) & 1u &&
            (d == emu_exec_g.dev || emu_devmem_peer_exists(emu_exec_g.job_dir, d))) {
            struct emu_devctl *peer = ctl_of(d);
            if (peer != NULL)
                emu_devctl_ring(peer);
        }
    }
    return EMU_RUN_DONE;
}

static enum emu_run_result run_event_wait(struct emu_task *t)
{
    const struct emu_wire_task *w = &t->u.wire;
    struct emu_devctl *ctl = ctl_of(w->u.event.dev);

    if (ctl == NULL || w->u.event.slot >= EMU_MAX_NOTIFIES) {
        t->status = EMU_EINVAL;
        return EMU_RUN_FAIL;
    }
    uint32_t v = emu_load_acquire(&ctl->notifies[w->u.event.slot].value);
    if ((int32_t)(v - w->u.event.seq) >= 0)
        return EMU_RUN_DONE;
    /* A record on another device rings this one only if this device was in the event's
     * waiter mask when the record was queued, which a wait queued after the record is not.
     * Such waits poll instead of waiting for a ring that may never come; the deadline is
     * renewed on every poll, so it never expires. */
    t->deadline_ns = w->u.event.dev == emu_exec_g.dev ? UINT64_MAX : emu_os_now_ns() + EVENT_POLL_NS;
    t->park = EMU_PARK_EVENT;
    t->park_slot = w->u.event.slot;
    return EMU_RUN_PARK;
}

emu_status emu_task_host_decode(const struct emu_wire_task *w, struct emu_task *t)
{
    static const emu_task_run_fn runs[EMU_TASK_KIND_COUNT] = {
        [EMU_TASK_NOP] = run_nop,
        [EMU_TASK_COPY] = run_copy,
        [EMU_TASK_MEMSET] = run_memset,
        [EMU_TASK_NOTIFY_RECORD] = run_notify_record,
        [EMU_TASK_NOTIFY_WAIT] = run_notify_wait,
        [EMU_TASK_EVENT_RECORD] = run_event_record,
        [EMU_TASK_EVENT_WAIT] = run_event_wait,
        [EMU_TASK_KERNEL] = emu_kernel_task_run,
    };

    if (w->kind >= EMU_TASK_KIND_COUNT || runs[w->kind] == NULL)
        return EMU_EINVAL;
    t->u.wire = *w;
    t->kind = w->kind;
    t->run = runs[w->kind];
    t->callsite = w->callsite;
    if (w->kind == EMU_TASK_KERNEL)
        t->release = emu_kernel_task_release;
    return EMU_OK;
}
