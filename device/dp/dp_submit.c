/* dp_submit.c - how a built task reaches the scheduler, and the per-OS-thread state of the
 * data plane (docs/DATA_PLANE.md §6): batch mode, the threads it touched, the default timeouts.
 *
 * Eager mode hands each task over at once and rings the doorbell. In batch mode tasks wait
 * in this OS thread's pending lists (one per touched device thread) and are handed over at
 * HcommBatchModeEnd, with one doorbell ring for the whole batch, or when one list reaches
 * EMU_DP_BATCH_LIMIT. All state here is _Thread_local: only the owning OS thread touches it,
 * so it needs no lock. Hand-over counts the tasks in the thread's `submitted` before the
 * scheduler can retire them, so joins and thread destruction can wait for `completed`. */
#include <malloc.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "dp.h"
#include "device/kernel/kernel.h"
#include "lost_record.h"

#define MAX_TOUCHED 64u

struct pending {
    uint32_t slot;
    uint32_t n;
    struct emu_task *head;
    struct emu_task *tail;
};

static _Thread_local bool batch;
static _Thread_local char batch_tag[128];
static _Thread_local struct pending touched[MAX_TOUCHED];
static _Thread_local uint32_t n_touched;
static _Thread_local uint32_t last_touched;
static _Thread_local uint32_t wait_s = EMU_DP_DEFAULT_WAIT_S;
static _Thread_local uint32_t res_s = EMU_DP_DEFAULT_RES_S;

/* A thread that failed earlier keeps its error until a kernel feeds it again while it is idle
 * (every task of the failed operator already discarded): the new operator starts clean. */
static void clear_stale_error(uint32_t slot)
{
    struct emu_stream_ctl *sc = &emu_exec_ctl()->streams[slot];

    if (!emu_sched_stream_is_idle(slot))
        return;
    int32_t old = atomic_exchange(&sc->error, 0);
    if (old != 0) {
        /* Marks of records lost for the failed operator's waits are not this one's. */
        emu_lost_record_forget(emu_exec_ctl(), sc->rank, sc->notify_base, sc->notify_num);
        EMU_LOG_INFO("thread slot %u: clearing the error of an earlier operator (%s) as new "
                     "tasks arrive", slot, emu_status_str((emu_status)old));
    }
}

static void handover(uint32_t slot, struct emu_task *head, uint32_t n, bool wake)
{
    struct emu_stream_ctl *sc = &emu_exec_ctl()->streams[slot];
    const struct emu_kernel_ctx *k = emu_kernel_current();

    if (emu_load_relaxed(&sc->error) != 0)
        clear_stale_error(slot);
    if (k != NULL)
        emu_store_relaxed(&sc->origin, k->origin);
    /* Pairs with the acquire loads of joins and of thread destruction on the host: a waiter
     * that sees `completed` reach this count knows these tasks retired. */
    emu_fetch_add_release(&sc->submitted, n);
    emu_sched_submit_list(slot, head, wake);
}

static void flush_entry(struct pending *p, bool wake)
{
    struct emu_task *head = p->head;
    uint32_t n = p->n;

    p->head = p->tail = NULL;
    p->n = 0;
    if (n > 0)
        handover(p->slot, head, n, wake);
}

void emu_dp_submit_flush(uint32_t slot)
{
    bool any = false;

    for (uint32_t i = 0; i < n_touched; i++) {
        if (slot != EMU_DP_NONE && touched[i].slot != slot)
            continue;
        any |= touched[i].n > 0;
        flush_entry(&touched[i], false);
    }
    if (slot == EMU_DP_NONE)
        n_touched = 0;
    if (!any)
        return;
    /* hcemu's own collectives kernel ends its batch and returns: run inline on a worker, it
     * is back in that worker's loop within a microsecond, and the loop sees the doorbell.
     * Waking a second worker for the batch then buys nothing on a free core (the wake takes
     * longer than the return) and costs a context switch on a busy one. A user kernel may go
     * on working or poll memory its tasks write, so its batch wakes a worker as before. */
    const struct emu_kernel_ctx *k = emu_kernel_current();
    if (slot == EMU_DP_NONE && k != NULL && k->own)
        emu_sched_kick_self();
    else
        emu_sched_kick();
}

static struct pending *pending_of(uint32_t slot)
{
    if (last_touched < n_touched && touched[last_touched].slot == slot)
        return &touched[last_touched];
    for (uint32_t i = 0; i < n_touched; i++) {
        if (touched[i].slot == slot) {
            last_touched = i;
            return &touched[i];
        }
    }
    if (n_touched == MAX_TOUCHED)
        emu_dp_submit_flush(EMU_DP_NONE); /* more threads than we track: release what we hold */
    last_touched = n_touched++;
    touched[last_touched] = (struct pending){.slot = slot};
    return &touched[last_touched];
}

void (*emu_dp_submit_note_hook)(const struct emu_task *t);

void emu_dp_submit_task(const struct emu_hcomm_call *c, uint32_t slot, struct emu_task *t)
{
    const struct emu_kernel_ctx *k = emu_kernel_current();

    t->next = NULL;
    t->stream = slot;
    t->origin = k != NULL ? k->origin : EMU_DP_NONE;
    t->callsite = c->callsite;
    t->from_kernel = 1;
    emu_dp_task_describe(t);
    if (emu_dp_submit_note_hook != NULL)
        emu_dp_submit_note_hook(t);
    if (!batch) {
        handover(slot, t, 1, true);
        return;
    }
    struct pending *p = pending_of(slot);
    if (p->tail == NULL)
        p->head = t;
    else
        p->tail->next = t;
    p->tail = t;
    if (++p->n >= EMU_DP_BATCH_LIMIT)
        flush_entry(p, true);
}

int32_t emu_dp_submit_built(const struct emu_hcomm_call *c, uint32_t slot, emu_status st,
                            struct emu_task *t)
{
    if (st != EMU_OK)
        return emu_status_to_hccl(st);
    emu_dp_submit_task(c, slot, t);
    return 0;
}

static const char *tag_or_empty(const char *tag)
{
    return tag != NULL ? tag : "";
}

emu_status emu_dp_submit_batch_start(const struct emu_hcomm_call *c, const char *tag)
{
    if (batch) {
        emu_hcomm_check_refuse(c, "already in batch mode (tag \"%s\") on this OS thread; end it "
                               "with HcommBatchModeEnd first", batch_tag);
        return EMU_EINVAL;
    }
    if (strlen(tag_or_empty(tag)) >= sizeof(batch_tag)) {
        emu_hcomm_check_refuse(c, "batchTag is longer than %zu characters", sizeof(batch_tag) - 1);
        return EMU_EINVAL;
    }
    strcpy(batch_tag, tag_or_empty(tag));
    batch = true;
    return EMU_OK;
}

emu_status emu_dp_submit_batch_end(const struct emu_hcomm_call *c, const char *tag)
{
    if (!batch) {
        emu_hcomm_check_refuse(c, "not in batch mode on this OS thread (no HcommBatchModeStart)");
        return EMU_EINVAL;
    }
    if (strcmp(batch_tag, tag_or_empty(tag)) != 0) {
        emu_hcomm_check_refuse(c, "batchTag \"%s\" does not match HcommBatchModeStart's \"%s\"",
                               tag_or_empty(tag), batch_tag);
        return EMU_EINVAL;
    }
    batch = false;
    emu_dp_submit_flush(EMU_DP_NONE);
    return EMU_OK;
}

bool emu_dp_submit_in_batch(void)
{
    return batch;
}

uint32_t emu_dp_submit_default_wait_s(void)
{
    return wait_s;
}

void emu_dp_submit_set_default_wait_s(uint32_t s)
{
    wait_s = s;
}

void emu_dp_submit_set_res_timeout_s(uint32_t s)
{
    /* Kept for completeness: hcemu's queues never fill, so submission never waits. */
    res_s = s;
}

void emu_dp_submit_kernel_exit(void)
{
    const struct emu_kernel_ctx *k = emu_kernel_current();
    const char *name = k != NULL ? k->kernel : "?";

    if (batch) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < n_touched; i++)
            n += touched[i].n;
        EMU_LOG_WARN("kernel %s returned in batch mode (HcommBatchModeStart(\"%s\") without "
                     "HcommBatchModeEnd): its %u pending tasks are submitted now", name,
                     batch_tag, n);
        batch = false;
    }
    emu_dp_submit_flush(EMU_DP_NONE);
}

__attribute__((constructor)) static void dp_init(void)
{
    /* Tasks are allocated by kernel threads and freed by scheduler workers, up to a batch of
     * thousands at a time: without this, glibc trims and regrows the heap around every
     * batch (sysmalloc, madvise and page faults dominated the small-task profile). */
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_TOP_PAD, 16 << 20);
    emu_dp_task_init();
}
