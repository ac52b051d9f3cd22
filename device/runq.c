/* runq.c - the job-wide run queue, this executor's side (docs/ARCHITECTURE.md, "One job-wide
 * run queue"; the layout is in common/contract/devctl.h, the publishing device's side in sched.c).
 *
 * A device thread parked on a notify wait is published in its device's control block as
 * pointer-free descriptors (emu_runq_export, called by the scheduler). A worker of any
 * executor of the job whose task records that notify takes the entry with a CAS and runs the
 * tasks right there, through this process's own mappings of the devices they touch: the
 * hand-off costs a memory write instead of a futex wake of the other executor. It runs until
 * the published tasks end or the next wait's notify is not set; then it publishes the entry
 * again on that notify, so the next recorder goes on, wherever it runs. The device's own
 * scheduler keeps the task objects and retires them when it next looks: at once when the
 * runner stopped early, failed, or someone waits for the stream, otherwise lazily (its next
 * wake-up, at most IDLE_MAX_NS later; the kernel's "done" record to the host stream wakes it
 * anyway).
 *
 * Only data-plane tasks between devices of this job folder travel (kernels, host tasks and
 * transfers to other hosts stay home), and only when no diagnostic hooks tasks
 * (emu_sched_runq_active). A failed task (a range freed since the call) is not reported
 * here: its status and note go back to the device, whose scheduler fails the task in place
 * and reports it with its own call sites. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/platform/os.h"
#include "common/contract/settings.h"
#include "device/dp/dp.h"
#include "inject.h"
#include "prov_rec.h"
#include "runq.h"

/* Bytes a published entry may move: a runner runs it inside a task of its own, which a long
 * copy would delay; large transfers stay with their device. */
#define RUNQ_BYTES (1u << 20)
/* A single move this large stays home too, though the entry would hold it: the runner's own
 * streams wait while it copies, and a peer of the runner that waits for them waits for the
 * copy too. At 8 ranks on two cores, the pushed allgather's last step (a 512 KiB write of a
 * 1 MiB output) took the call to 605-637 us when a runner took it, 392-404 when it stayed
 * home; the 4-rank 1 MiB allgather 277-283 against 190-196. A cap of 128 KiB sent home steps
 * too short to pay for the wake-up (8 ranks, 256 KiB: 165-174 against 122-129 us). */
#define RUNQ_MOVE_MAX (256u << 10)
/* Entries a worker took and has not run yet (records by the tasks it runs take more). */
#define QUEUE 16u

/* ---- publishing (the device's scheduler, lock held) ------------------------------------ */

/* Whether m is this job's mapping of its device (not another job folder's). */
static bool in_job(const struct emu_devmap *m)
{
    return m != NULL && emu_devmem_job_find(m->dev) == m;
}

static bool describe(const struct emu_task *t, struct emu_runq_task *d)
{
    const struct emu_dp_op *o = (const struct emu_dp_op *)(const void *)t->u.raw;
    uint32_t f = emu_dp_kinds_flags(t->kind);
    const struct emu_devmap *m;

    /* A published end is read from this device's mailbox when the task runs, wherever it
     * runs (build); a read-reduce into a third buffer of this device stays home, and so does
     * a reduce-spread, whose peers' ends are read from a row of mailboxes. */
    if (t->run != emu_dp_task_run || f == 0 || o->net || t->park == EMU_PARK_DEFER ||
        ((f & EMU_DPF_PUBLISHED) && emu_dp_own_of(o, f) != 0) || (f & EMU_DPF_SPREAD))
        return false;
    *d = (struct emu_runq_task){.dst = o->dst, .src = o->src, .len = o->len, .count = o->count,
                                .callsite = t->callsite, .kind = t->kind,
                                .dst_dev = EMU_RUNQ_NODEV, .src_dev = EMU_RUNQ_NODEV,
                                .dtype = o->dtype, .op = o->op, .notify_dev = EMU_RUNQ_NODEV,
                                .notify_slot = EMU_RUNQ_NODEV, .timeout_s = o->timeout_s,
                                .copy_mode = o->copy_mode};
    if (f & EMU_DPF_PUBLISHED)
        d->mailbox = o->mailbox, d->pub_off = o->pub_off;
    if ((f & EMU_DPF_MOVE) && o->len > 0) {
        if (!in_job(o->dst_map) || !in_job(o->src_map))
            return false;
        d->dst_dev = o->dst_map->dev;
        d->src_dev = o->src_map->dev;
    }
    if (f & (EMU_DPF_RECORD | EMU_DPF_WAIT)) {
        if (o->notify_slot >= EMU_MAX_NOTIFIES)
            return false;
        if ((f & EMU_DPF_WAIT) ? o->notify_ctl != emu_exec_ctl()
                               : (m = emu_devmem_job_find(o->notify_dev)) == NULL ||
                                     m->ctl != o->notify_ctl)
            return false;
        d->notify_dev = o->notify_dev;
        d->notify_slot = o->notify_slot;
    }
    return true;
}

static uint32_t emu_runq_export(const struct emu_task *head, struct emu_runq_task *out,
                                uint32_t cap, bool behind, bool *more)
{
    const struct emu_task *t = head;
    uint64_t bytes = 0;
    uint32_t n = 0;

    if (!behind && !(emu_dp_kinds_flags(head->kind) & EMU_DPF_WAIT))
        return 0;
    for (; t != NULL && n < cap; t = t->next) {
        if (!describe(t, &out[n]) || out[n].len >= RUNQ_MOVE_MAX ||
            (bytes += out[n].len) > RUNQ_BYTES)
            break;
        n++;
    }
    *more = t != NULL;
    return n;
}

void emu_runq_init(void)
{
    /* Injected faults count each device's tasks where they run: on their own executor; and
     * provenance names call sites where their kernel image is loaded. */
    if (!emu_settings_bool(EMU_SET_RUNQ) || emu_inject_on() || emu_prov_on())
        return;
    emu_sched_set_export(emu_runq_export);
    emu_dp_task_handoff_hook = emu_runq_take;
}

/* ---- running (any executor's worker) ----------------------------------------------------- */

struct taken {
    struct emu_devctl *ctl;
    uint32_t s;
};

static _Thread_local struct taken queue[QUEUE];
static _Thread_local uint32_t q_first, q_n;
static _Thread_local bool draining;

enum step { STEP_DONE, STEP_FAIL, STEP_HOME };

/* This process's mapping of `dev` when it reaches [addr, addr+len) (len 0: any mapping), NULL
 * otherwise: a runner maps no device anew, but reaches further into one it maps (a kernel's
 * copy between the device's own buffers, which the channels' reach did not cover, sent the
 * entry home at every call: most of an 8-rank 1 KiB allgather's returns). */
static struct emu_devmap *reached(uint32_t dev, uint64_t addr, uint64_t len)
{
    struct emu_devmap *m = emu_devmem_job_find(dev);

    return m != NULL && (len == 0 || emu_devmap_reach(m, addr, len)) ? m : NULL;
}

/* Build in t descriptor k of entry g (stream s of device `ctl`) as a task of this process,
 * with this process's mappings; false when it cannot run here (a device or a range this
 * process does not map yet: the device runs it itself). */
static bool build(struct emu_devctl *ctl, uint32_t s, struct emu_runq_seg *g, uint32_t k,
                  struct emu_task *t)
{
    const struct emu_runq_task *d = &g->tasks[k];
    struct emu_dp_op *o = emu_dp_op_of(t);
    struct emu_devmap *m;

    memset(t, 0, EMU_TASK_HOT_BYTES); /* as emu_task_create: note's tail unused */
    /* The copy stands alone; `next` says only whether tasks follow it on the stream (a lazy
     * record reads that, dp_task.c). */
    t->next = k + 1 < emu_load_acquire(&g->n) || atomic_load(&g->more) != 0 ? t : NULL;
    t->kind = (uint16_t)d->kind;
    t->stream = s;
    t->callsite = d->callsite;
    *o = (struct emu_dp_op){.dst = d->dst, .src = d->src, .len = d->len, .count = d->count,
                            .dtype = d->dtype, .op = d->op, .notify_dev = d->notify_dev,
                            .notify_slot = d->notify_slot, .timeout_s = d->timeout_s,
                            .channel = EMU_DP_NONE, .copy_mode = (uint16_t)d->copy_mode,
                            .home_ctl = ctl};
    /* A published end first: the peer's address, read here through this process's mapping of
     * the home device, as at home; then its range is reached like any other. */
    if (d->mailbox != 0) {
        o->mailbox = d->mailbox;
        o->pub_off = d->pub_off;
        o->own = 0; /* a published task records no notify: the union's room is `own`, unused */
        struct emu_devmap *home = reached(ctl->dev, d->mailbox, sizeof(uint64_t));
        uint32_t peer = (emu_dp_kinds_flags(d->kind) & EMU_DPF_REMOTE_DST) ? d->dst_dev
                                                                           : d->src_dev;
        if (home == NULL || !emu_dp_resolve_published(t, home, peer))
            return false; /* the device runs it, and fails it there if it must */
    }
    if ((d->dst_dev != EMU_RUNQ_NODEV &&
         (o->dst_map = reached(d->dst_dev, o->dst, d->len)) == NULL) ||
        (d->src_dev != EMU_RUNQ_NODEV &&
         (o->src_map = reached(d->src_dev, o->src, d->len)) == NULL))
        return false;
    if (d->notify_slot != EMU_RUNQ_NODEV) {
        if ((m = reached(d->notify_dev, 0, 0)) == NULL)
            return false;
        o->notify_ctl = m->ctl;
    }
    return true;
}

/* Run t, built by build(): the same run function as its device's; `waited`: only the move of
 * a wait-then-move task (dp_kinds.h, WAIT_COPY and WAIT_REDUCE) whose notify the runner has
 * just consumed. */
static enum step run_built(struct emu_task *t, struct emu_runq_seg *g, bool waited)
{
    enum emu_run_result r = waited ? emu_dp_task_run_moved(t) : emu_dp_task_run(t);

    if (r == EMU_RUN_DONE)
        return STEP_DONE;
    if (r == EMU_RUN_PARK)
        return STEP_HOME;
    g->status = (int32_t)t->status;
    snprintf(g->note, sizeof(g->note), "%s", t->note);
    return STEP_FAIL;
}

/* The next task of entry g is a wait whose notify is not set: publish the entry again on it.
 * PUB_OUT when it is published (no longer ours); PUB_SET when the notify was set meanwhile
 * and we took it back; PUB_LOST when its recorder failed meanwhile (lost_record.c) and we
 * took it back: the device itself fails the wait. */
enum republished { PUB_OUT, PUB_SET, PUB_LOST };

static enum republished republish(struct emu_devctl *ctl, uint32_t s, struct emu_runq_seg *g,
                                  uint32_t k)
{
    const struct emu_runq_task *d = &g->tasks[k];
    struct emu_stream_ctl *sc = &ctl->streams[s];
    uint32_t slot = d->notify_slot, st = EMU_RUNQ_PUBLISHED, w = s + 1;

    g->done = k;
    atomic_store(&g->deadline_ns, emu_os_deadline_s(d->timeout_s));
    atomic_store(&g->wait_slot, slot);
    /* What the hang watchdog shows for the stream (still parked, now on this wait). */
    sc->parked_slot = slot;
    sc->parked_callsite = d->callsite;
    sc->parked_since_ns = emu_os_now_ns();
    /* Sequentially consistent with the recorder's set and load (emu_runq_take), and with a
     * lost mark's store before its ring: either they see the entry, or we see them below. */
    atomic_store(&ctl->notifies[slot].waiter, s + 1);
    atomic_store(&g->state, EMU_RUNQ_PUBLISHED);
    bool set = atomic_load(&ctl->notifies[slot].value) != 0;
    if ((!set && atomic_load(&ctl->notifies[slot].lost) == 0) ||
        !atomic_compare_exchange_strong(&g->state, &st, EMU_RUNQ_TAKEN))
        return PUB_OUT;
    /* The entry we took may be a newer publication, waiting on another slot (run_entry). */
    atomic_compare_exchange_strong(&ctl->notifies[atomic_load(&g->wait_slot)].waiter, &w, 0);
    return set ? PUB_SET : PUB_LOST;
}

/* Run the taken entry of stream s of device `ctl` from its `done` task on. */
static void run_entry(struct emu_devctl *ctl, uint32_t s)
{
    struct emu_runq_seg *g = &ctl->runq[s];
    uint32_t k = g->done, w = s + 1;

    atomic_compare_exchange_strong(&ctl->notifies[atomic_load(&g->wait_slot)].waiter, &w, 0);
    g->runner = emu_exec_g.dev;
    /* Acquire: the descriptors the device wrote before it grew n (sched.c, extend). */
    while (k < emu_load_acquire(&g->n) && emu_load_acquire(&ctl->streams[s].error) == 0) {
        const struct emu_runq_task *d = &g->tasks[k];
        uint32_t f = emu_dp_kinds_flags(d->kind);
        struct emu_task t;
        if (f & EMU_DPF_WAIT) {
            /* A move after the wait is built first: once its notify is consumed, the
             * device could not run the task again. */
            if ((f & EMU_DPF_MOVE) && !build(ctl, s, g, k, &t))
                break;
            if (emu_task_host_notify_consume(ctl, d->notify_slot)) {
                g->waits_run++;
                if ((f & EMU_DPF_MOVE) && run_built(&t, g, true) != STEP_DONE)
                    break;
                k++;
                emu_fetch_add_relaxed(&ctl->progress, 1);
                continue;
            }
            enum republished p = republish(ctl, s, g, k);
            if (p == PUB_OUT)
                return;
            /* Ours again, but maybe not as we left it: between our publishing and our taking
             * back, the device's scan may have taken the entry home (the notify was set) and
             * published it anew from a later head. Whatever we took, its `done` says where
             * its tasks start; our k counted the old ones (a runner that went on from k ran
             * tasks twice and skipped others, and two devices then waited on notifies of
             * different parities for good). */
            k = g->done;
            if (p == PUB_LOST)
                break; /* its recorder failed: the device fails the wait at home */
            continue;
        }
        if (!build(ctl, s, g, k, &t) || run_built(&t, g, false) != STEP_DONE)
            break;
        k++;
        emu_fetch_add_relaxed(&ctl->progress, 1);
    }
    g->done = k;
    atomic_store(&g->state, EMU_RUNQ_RETURNED);
    /* After the store, sequentially consistent with the device's growing of the entry and
     * its `more` (sched.c, extend): either we see them here, or it sees the entry returned. */
    bool early = k < atomic_load(&g->n) || atomic_load(&g->more) != 0;
    /* After the store (sequentially consistent with emu_sched_wait_idle's count, which
     * rings the device itself when it counted too late). */
    if (early || atomic_load(&ctl->idle_waiters) != 0 ||
        emu_load_acquire(&ctl->streams[s].waiters) != 0)
        emu_devctl_ring(ctl);
    else
        emu_fetch_add_release(&ctl->doorbell, 1); /* retired at its next look: no wake-up */
}

static void drain(void)
{
    draining = true;
    while (q_n > 0) {
        struct taken e = queue[q_first];
        q_first = (q_first + 1) % QUEUE;
        q_n--;
        run_entry(e.ctl, e.s);
    }
    draining = false;
}

bool emu_runq_take(struct emu_devctl *ctl, uint32_t slot)
{
    struct emu_devmap *m;

    if (!emu_sched_runq_active() || ctl == emu_exec_ctl() || slot >= EMU_MAX_NOTIFIES ||
        atomic_load(&ctl->runq_on) == 0)
        return false;
    /* Pairs with the publisher's stores of `waiter` then `state` (sched.c, republish). */
    atomic_thread_fence(memory_order_seq_cst);
    /* A spinning worker of the device sees the ring as a memory write already. */
    if (atomic_load(&ctl->spinners) != 0)
        return false;
    uint32_t w = atomic_load(&ctl->notifies[slot].waiter), st = EMU_RUNQ_PUBLISHED;
    if (w == 0)
        return true; /* nobody waits yet: the stream that reaches the wait finds it set */
    if (w > EMU_MAX_STREAMS || q_n == QUEUE || (m = emu_devmem_job_find(ctl->dev)) == NULL ||
        m->ctl != ctl)
        return false;
    struct emu_runq_seg *g = &ctl->runq[w - 1];
    if (atomic_load(&g->wait_slot) != slot ||
        !atomic_compare_exchange_strong(&g->state, &st, EMU_RUNQ_TAKEN))
        return false;
    queue[(q_first + q_n) % QUEUE] = (struct taken){ctl, w - 1};
    q_n++;
    if (!draining)
        drain();
    return true;
}
