/* sched.c - the TS scheduler of one device.
 *
 * `lock` protects every stream's queue and state, the run queue and the parked list. A
 * worker takes a runnable stream, runs its head tasks outside the lock, one at a time, in
 * order, and puts the stream back (or parks it on a wait). Parked heads are polled again
 * each time the doorbell in the device's control block changes; host submissions and notify
 * records (from any process) ring it.
 *
 * The scheduler knows nothing of diagnostics: they, and the failure report, register hook
 * tables (emu_sched_register, sched.h). A serial, seeded schedule is one such hook (`pick`). */
#include "sched.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "device/dp/dp_kinds.h"
#include "common/platform/os.h"
#include "common/platform/placement.h"
#include "common/platform/spin.h"

#define NONE UINT32_MAX
#define QUANTUM 64u      /* tasks a worker runs on one stream before letting others in */
#define SPIN_NS 50000u   /* how long an idle worker spins before it sleeps */
/* The longest an idle worker sleeps without looking again. A worker that starts a kernel
 * inline wakes an idle one only when a parked deadline is nearer than that one's next look
 * (run_deferred): a kernel's timeout is seconds away, so starting it costs no wake-up. */
#define IDLE_MAX_NS 1000000000ull
#define MAX_WORKERS 16u
#define MAX_HOOKS 8u

enum stream_state { S_IDLE = 0, S_QUEUED, S_RUNNING, S_PARKED };

struct stream_rt {
    struct emu_task *head;
    struct emu_task *tail;
    uint32_t count;
    uint32_t state;
    uint32_t next_run;
    uint32_t parked_pos; /* index in parked[] while parked */
    uint32_t kernel;     /* serial mode: parked on its kernel entry (counted in n_kernels) */
    uint32_t published;  /* parked with its head tasks in the job-wide run queue (runq[s]) */
};

/* Adaptive: critical sections are short and workers contend on every hand-off; spinning
 * briefly beats sleeping in the kernel. */
static pthread_mutex_t lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
static pthread_cond_t idle_cv = PTHREAD_COND_INITIALIZER;
static struct stream_rt streams[EMU_MAX_STREAMS];
static uint32_t runq_head = NONE, runq_tail = NONE;
static uint32_t parked[EMU_MAX_STREAMS];
static uint32_t n_parked;
static uint32_t last_scan_bell;
static uint64_t next_seq;
static bool stopping;
static pthread_t workers[MAX_WORKERS];
static unsigned n_workers;
/* Deferred work (emu_sched_defer): what this worker runs once the task that asked has been
 * parked and the lock dropped, how many workers are inside such work (at most n_workers-1,
 * so one worker always serves the queues), and which ones (emu_sched_stop). */
static _Thread_local bool on_worker;
static _Thread_local void (*deferred_fn)(void *);
static _Thread_local void *deferred_arg;
static _Atomic uint32_t n_deferred;
static _Atomic uint32_t in_deferred[MAX_WORKERS];
/* Per worker, the deadline it waits with while idle (spinning or asleep), 0 while awake.
 * Lock held. A worker that defers work must not leave a parked deadline unwatched. */
static uint64_t idle_until[MAX_WORKERS];
/* The device's control block (streams, notifies, doorbell, submission ring), given at start. */
static struct emu_devctl *dc;
static emu_sched_decode_fn decode_wire;

/* Registered hook tables, and per event the bit saying some table has it: the hot path
 * tests the bit and makes no indirect call when nothing is registered. Written only before
 * the workers start. */
enum { H_SUBMIT = 1, H_START = 2, H_PARK = 4, H_END = 8, H_FAIL = 16 };
static const struct emu_sched_hooks *hooks[MAX_HOOKS];
static uint32_t n_hooks;
static uint32_t hook_mask;
/* Serial mode: a registered `pick` chooses among runnable streams, one task per turn, one
 * worker (seeded schedules). NULL keeps the FIFO run queue and QUANTUM. */
static uint32_t (*pick_hook)(uint32_t n);
/* Job-wide run queue: how parked device threads are described (NULL: never published), and
 * whether publishing is on (an export, and no diagnostic hooking tasks). */
static emu_sched_export_fn export_fn;
static bool runq_on;
/* The tasks of stream s that its run-queue entry describes, in order (allocated at the
 * stream's first publish). Retiring them is what the entry's return costs this device, and
 * walking their chain to do it cost one cache miss after another: by then the tasks have
 * left this core's caches (16 processes of an 8-rank job take turns on 2 cores). With their
 * addresses at hand, the misses are asked for all at once (retire_described). */
static struct emu_task **described[EMU_MAX_STREAMS];
static uint64_t (*draw_hook)(void);
static uint32_t quantum = QUANTUM;
/* Serial mode "kernel gate": while a kernel entry runs, the worker picks no stream, so every
 * task the kernel queues (eager or batch) is queued before the next seeded choice and the
 * choices do not depend on how fast the kernel submits. A kernel blocked in a join
 * (emu_sched_wait_idle from kernel code) opens the gate, or it would wait for itself; any
 * other way of waiting for device work from kernel code opens it after GATE_MAX_NS. */
#define GATE_MAX_NS 1000000000ull
static uint32_t n_kernels;  /* streams parked on a running kernel entry */
static uint32_t n_joiners;  /* kernel threads inside emu_sched_wait_idle */
static uint64_t gate_since; /* when the gate last closed; 0 = open */
static bool gate_warned;

emu_status emu_sched_register(const struct emu_sched_hooks *h)
{
    const char *why = NULL;

    if (n_workers != 0)
        why = "the workers already run";
    else if (n_hooks == MAX_HOOKS)
        why = "hook table full";
    else if (h->pick != NULL && pick_hook != NULL)
        why = "a second pick hook";
    if (why != NULL) {
        EMU_LOG_ERR("emu_sched_register: refused: %s", why);
        return EMU_EINVAL;
    }
    /* Task memory is task.c's: it calls the free hooks itself. */
    if (h->free != NULL && emu_task_on_free(h->free) != EMU_OK)
        return EMU_EINVAL;
    hooks[n_hooks++] = h;
    hook_mask |= (h->submit ? H_SUBMIT : 0) | (h->start ? H_START : 0) | (h->park ? H_PARK : 0) |
                 (h->end ? H_END : 0) | (h->fail ? H_FAIL : 0);
    if (h->pick != NULL) {
        pick_hook = h->pick;
        draw_hook = h->draw;
    }
    return EMU_OK;
}

/* The hook callers: only reached when hook_mask has the event's bit. */
static void hook_task(uint32_t bit, struct emu_task *t)
{
    for (uint32_t i = 0; i < n_hooks; i++) {
        const struct emu_sched_hooks *h = hooks[i];
        void (*fn)(struct emu_task *) = h->park;
        if (bit == H_SUBMIT)
            fn = h->submit;
        else if (bit == H_START)
            fn = h->start;
        if (fn != NULL)
            fn(t);
    }
}

static void hook_end(struct emu_task *t, enum emu_run_result res)
{
    for (uint32_t i = 0; i < n_hooks; i++)
        if (hooks[i]->end != NULL)
            hooks[i]->end(t, res);
}

static void hook_fail(uint32_t s, const struct emu_task *t)
{
    for (uint32_t i = 0; i < n_hooks; i++)
        if (hooks[i]->fail != NULL)
            hooks[i]->fail(s, t);
}

static void runq_push(uint32_t s)
{
    streams[s].state = S_QUEUED;
    streams[s].next_run = NONE;
    emu_fetch_add_acq_rel(&dc->busy, 1);
    if (runq_tail == NONE)
        runq_head = s;
    else
        streams[runq_tail].next_run = s;
    runq_tail = s;
}

/* Serial mode: whether the kernel gate holds the runnable streams back now. Lock held. */
static bool gate_closed(uint64_t now)
{
    if (pick_hook == NULL || n_kernels <= n_joiners || runq_head == NONE) {
        gate_since = 0;
        return false;
    }
    if (gate_since == 0)
        gate_since = now;
    if (now - gate_since < GATE_MAX_NS)
        return true;
    if (!gate_warned) {
        gate_warned = true;
        EMU_LOG_WARN("HCEMU_SEED: a kernel has run for more than %llu ms while other streams "
                     "were runnable, without HcommThreadJoin; letting them run (this device's "
                     "schedule may now depend on timing)",
                     (unsigned long long)(GATE_MAX_NS / 1000000u));
    }
    return false;
}

uint64_t emu_sched_seed_draw(void)
{
    return draw_hook != NULL ? draw_hook() : 0;
}

/* Unlink and return the runnable stream the pick hook chooses. */
static uint32_t runq_pop_picked(void)
{
    uint32_t n = 0, prev = NONE;

    for (uint32_t s = runq_head; s != NONE; s = streams[s].next_run)
        n++;
    if (n == 0)
        return NONE;
    uint32_t k = pick_hook(n) % n;
    uint32_t s = runq_head;
    for (; k > 0; k--) {
        prev = s;
        s = streams[s].next_run;
    }
    if (prev == NONE)
        runq_head = streams[s].next_run;
    else
        streams[prev].next_run = streams[s].next_run;
    if (runq_tail == s)
        runq_tail = prev;
    return s;
}

static uint32_t runq_pop(void)
{
    uint32_t s = runq_head;

    if (pick_hook != NULL)
        return runq_pop_picked();
    if (s != NONE) {
        runq_head = streams[s].next_run;
        if (runq_head == NONE)
            runq_tail = NONE;
    }
    return s;
}

static void park_add(uint32_t s, struct emu_task *t)
{
    struct emu_stream_ctl *sc = &dc->streams[s];

    streams[s].state = S_PARKED;
    streams[s].parked_pos = n_parked;
    if (pick_hook != NULL && t->park == EMU_PARK_KERNEL) {
        streams[s].kernel = 1;
        n_kernels++;
    }
    parked[n_parked++] = s;
    /* Job-wide run queue: a recorder of another executor rings us only for a slot a stream
     * of ours is parked on (publish() replaces the mark with the stream when it publishes).
     * Sequentially consistent with its set and load: a record that saw no mark came before
     * this store, and the scan that follows every park sees it. */
    if (runq_on && t->park == EMU_PARK_NOTIFY && t->park_slot < EMU_MAX_NOTIFIES)
        atomic_store(&dc->notifies[t->park_slot].waiter, EMU_RUNQ_HOME);
    sc->parked_slot = t->park_slot;
    sc->parked_callsite = t->callsite;
    sc->parked_since_ns = emu_os_now_ns();
    /* Pairs with the watchdog's acquire load of `parked`: the fields above are set first. */
    emu_store_release(&sc->parked, t->park ? t->park : EMU_PARK_NOTIFY);
}

static void park_remove(uint32_t s)
{
    uint32_t pos = streams[s].parked_pos;

    if (streams[s].kernel) {
        streams[s].kernel = 0;
        n_kernels--;
    }
    parked[pos] = parked[--n_parked];
    streams[parked[pos]].parked_pos = pos;
    if (runq_on && emu_load_relaxed(&dc->streams[s].parked) == EMU_PARK_NOTIFY) {
        uint32_t mark = EMU_RUNQ_HOME, slot = dc->streams[s].parked_slot;
        if (slot < EMU_MAX_NOTIFIES)
            atomic_compare_exchange_strong(&dc->notifies[slot].waiter, &mark, 0);
    }
    emu_store_release(&dc->streams[s].parked, EMU_PARK_NONE);
}

/* Count `n` tasks of stream s as retired and wake host threads synchronising on it. */
static void account(uint32_t s, uint32_t n)
{
    struct emu_devctl *ctl = dc;
    struct emu_stream_ctl *sc = &ctl->streams[s];

    if (n == 0)
        return;
    emu_fetch_add_relaxed(&ctl->progress, n);
    /* Pairs with the acquire load in the host's stream synchronisation: the effects of the
     * retired tasks are visible once `completed` is. */
    uint32_t done = emu_fetch_add_release(&sc->completed, n) + n;
    /* Pairs with the waiter's count in `waiters` after lowering `wake_at` (host stream.c):
     * either it sees the new `completed` before it sleeps, or this sees it counted. */
    if (emu_load_acquire(&sc->waiters) != 0 && emu_stream_ctl_wake_due(sc, done))
        emu_os_futex_wake(&sc->completed, INT32_MAX);
}

static struct emu_task *pop_head(uint32_t s)
{
    struct stream_rt *r = &streams[s];
    struct emu_task *t = r->head;

    r->head = t->next;
    if (r->head == NULL)
        r->tail = NULL;
    r->count--;
    return t;
}

/* After the head left: queue the stream again or let it go idle. */
static void requeue(uint32_t s)
{
    if (streams[s].count > 0) {
        runq_push(s);
    } else {
        streams[s].state = S_IDLE;
        pthread_cond_broadcast(&idle_cv);
    }
}

static void set_error_locked(uint32_t s, emu_status st)
{
    struct emu_stream_ctl *sc = &dc->streams[s];
    int32_t expected = 0;

    atomic_compare_exchange_strong(&sc->error, &expected, (int32_t)st);
}

/* What the host stream that fed device thread s learns of its failure: a peer of another
 * host that died stays HCCL_E_REMOTE up to the host's synchronisation. */
static emu_status origin_status(uint32_t s)
{
    return emu_load_acquire(&dc->streams[s].error) == EMU_EREMOTE ? EMU_EREMOTE : EMU_ETASK_FAIL;
}

/* Drop every queued task of s (the stream is in its error state). A device thread's tasks
 * were fed by kernels of host streams (`origin`) that may wait for them: fail those too, so
 * their synchronisation returns instead of waiting for a notify that will never come. */
static void discard_all(uint32_t s)
{
    struct emu_devctl *ctl = dc;
    bool device = ctl->streams[s].kind == EMU_STREAM_DEVICE;
    bool told = false;
    uint32_t n = 0;

    emu_status err = (emu_status)emu_load_acquire(&ctl->streams[s].error);

    while (streams[s].head != NULL) {
        struct emu_task *t = pop_head(s);
        if (device && t->origin != NONE && t->origin != s && t->origin < EMU_MAX_STREAMS) {
            set_error_locked(t->origin, origin_status(s));
            told = true;
        }
        /* Marked for the free hooks: this task never ran (a record it would have made will
         * not come, lost_record.c). */
        t->status = err != EMU_OK ? err : EMU_ETASK_FAIL;
        emu_task_destroy(t);
        n++;
    }
    account(s, n);
    if (told)
        emu_fetch_add_release(&ctl->doorbell, 1); /* let the parked origin see its error */
}

/* The head task of s failed: report, put the stream in its error state, drop the rest, and
 * carry the failure to the host stream whose kernel fed this device thread. */
static void fail_head(uint32_t s, struct emu_task *t)
{
    struct emu_devctl *ctl = dc;
    uint32_t origin = t->origin; /* read before the task is freed below */

    if (hook_mask & H_FAIL)
        hook_fail(s, t);
    set_error_locked(s, t->status);
    emu_task_destroy(pop_head(s));
    account(s, 1);
    discard_all(s);
    streams[s].state = S_IDLE;
    pthread_cond_broadcast(&idle_cv);
    if (ctl->streams[s].kind == EMU_STREAM_DEVICE && origin != NONE && origin != s &&
        origin < EMU_MAX_STREAMS)
        set_error_locked(origin, origin_status(s));
    emu_fetch_add_release(&ctl->doorbell, 1); /* let parked streams see the error */
}

static bool stream_has_error(uint32_t s)
{
    return emu_load_acquire(&dc->streams[s].error) != 0;
}

/* ---- job-wide run queue: this device's side (the runner's is device/runq.c) ------------- */

/* Note the n tasks from t on as described from index `at` on. False without memory (the
 * caller then keeps them home). */
static bool note_described(uint32_t s, uint32_t at, struct emu_task *t, uint32_t n)
{
    if (described[s] == NULL &&
        (described[s] = malloc(EMU_RUNQ_TASKS * sizeof(*described[s]))) == NULL)
        return false;
    for (uint32_t i = 0; i < n; i++, t = t->next)
        described[s][at + i] = t;
    return true;
}

/* Stream s of a device thread just parked on notify wait t: publish t and the tasks behind
 * it, so whichever worker of the job records that notify runs them (a memory write instead
 * of waking this device). Lock held. */
static void publish(uint32_t s, struct emu_task *t)
{
    struct emu_runq_seg *g = &dc->runq[s];
    bool more = false;

    if (!runq_on || streams[s].published || t->park != EMU_PARK_NOTIFY ||
        t->deadline_ns == 0 || emu_os_now_ns() >= t->deadline_ns ||
        dc->streams[s].kind != EMU_STREAM_DEVICE || emu_load_acquire(&g->state) != EMU_RUNQ_FREE)
        return;
    uint32_t n = export_fn(t, g->tasks, EMU_RUNQ_TASKS, false, &more);
    uint32_t slot = g->tasks[0].notify_slot;
    if (n < 2 || slot >= EMU_MAX_NOTIFIES || !note_described(s, 0, t, n))
        return; /* a wait alone: whoever runs it would have to wake us to retire it */
    atomic_store(&g->n, n);
    g->done = 0;
    g->waits_run = 0;
    atomic_store(&g->more, more ? 1u : 0u);
    g->status = 0;
    g->runner = dc->dev;
    g->note[0] = '\0';
    atomic_store(&g->deadline_ns, t->deadline_ns);
    atomic_store(&g->wait_slot, slot);
    streams[s].published = 1;
    /* Sequentially consistent, like the recorder's set and load (runq.c): either it sees
     * the waiter and takes the work, or its record happened before and rang the doorbell,
     * whose next scan finds the notify set and takes the stream back (reclaim). */
    atomic_store(&dc->notifies[slot].waiter, s + 1);
    atomic_store(&g->state, EMU_RUNQ_PUBLISHED);
}

/* Tasks just queued on stream s, whose entry is out (published or taken): describe them
 * behind the entry's last task, so its runner goes on into them instead of returning the
 * entry for this device to publish again (a wake-up of a device that mostly sleeps while its
 * kernels' tasks run elsewhere). Only while the entry holds every task of the stream (not
 * `more`) and has room; false when they stay home. Lock held. */
static bool extend(uint32_t s, struct emu_task *head)
{
    struct emu_runq_seg *g = &dc->runq[s];
    uint32_t n = atomic_load(&g->n), st = atomic_load(&g->state);
    bool more = false;

    if (atomic_load(&g->more) != 0 || (st != EMU_RUNQ_PUBLISHED && st != EMU_RUNQ_TAKEN) ||
        n >= EMU_RUNQ_TASKS)
        return false;
    uint32_t add = export_fn(head, &g->tasks[n], EMU_RUNQ_TASKS - n, true, &more);
    if (add == 0)
        return false;
    note_described(s, n, head, add); /* allocated at the publish */
    /* Sequentially consistent, and releases the descriptors: a runner that ends the entry
     * reads n again after it stored RETURNED (runq.c, run_entry). */
    atomic_store(&g->n, n + add);
    if (more)
        atomic_store(&g->more, 1);
    /* Returned meanwhile: its runner may have read n before it grew, and this device's next
     * scan takes the stream back and runs what is left. */
    if (atomic_load(&g->state) == EMU_RUNQ_RETURNED)
        emu_devctl_ring(dc);
    return true;
}

/* Retire the first `done` tasks of published stream s, which its runners ran. Each wait
 * among them consumed its notify in a runner, and no other: a wait retired unconsumed, or
 * consumed and run again here, would leave its notify to the thread's next wait of that
 * index, and the order of the thread's exchanges would be lost for good. A mismatch is
 * hcemu's own error; it is named here, where it happens, rather than by the hang it causes
 * later (no runner failed: a failed one consumed the notify of the task it stopped at).
 * Counting the waits reads each task's first line through the array, so those misses are
 * under way together before the chain is walked to retire them. */
static void retire_described(uint32_t s, uint32_t done)
{
    const struct emu_runq_seg *g = &dc->runq[s];
    uint32_t waits = 0;

    for (uint32_t i = 0; i < done; i++)
        waits += (emu_dp_kinds_flags(described[s][i]->kind) & EMU_DPF_WAIT) != 0;
    if (waits != g->waits_run && g->status == 0)
        EMU_LOG_ERR("device %u thread slot %u: runners consumed %u notifies for the %u waits "
                    "among the %u tasks they ran (internal error: that thread's notifies are "
                    "out of step now)", dc->dev, s, g->waits_run, waits, done);
    for (uint32_t i = 0; i < done && streams[s].head != NULL; i++)
        emu_task_destroy(pop_head(s));
}

enum reclaim_result { RECLAIM_LEAVE, RECLAIM_HOME };

/* Scan of published stream s: take it back when a runner returned it, or when it is still
 * published but its notify is set (a record that did not take it rang us), its deadline
 * passed or it failed; retire the tasks runners ran. Lock held. */
static enum reclaim_result reclaim(uint32_t s, uint64_t now)
{
    struct emu_runq_seg *g = &dc->runq[s];
    uint32_t st = atomic_load(&g->state);

    if (st == EMU_RUNQ_TAKEN)
        return RECLAIM_LEAVE;
    /* Still published and nothing to do here: no error, no deadline, the notify neither
     * set nor marked lost (its recorder failed: lost_record.c rings us to fail the wait). */
    uint32_t slot = atomic_load(&g->wait_slot);
    if (st == EMU_RUNQ_PUBLISHED && !stream_has_error(s) && !stopping &&
        now < atomic_load(&g->deadline_ns) && atomic_load(&dc->notifies[slot].value) == 0 &&
        atomic_load(&dc->notifies[slot].lost) == 0)
        return RECLAIM_LEAVE;
    if (!atomic_compare_exchange_strong(&g->state, &st, EMU_RUNQ_FREE))
        return RECLAIM_LEAVE; /* a runner took it meanwhile */
    uint32_t w = s + 1, done = g->done;
    atomic_compare_exchange_strong(&dc->notifies[slot].waiter, &w, 0);
    streams[s].published = 0;
    retire_described(s, done);
    account(s, done);
    struct emu_task *h = streams[s].head;
    if (h != NULL && st == EMU_RUNQ_PUBLISHED && done < atomic_load(&g->n))
        h->deadline_ns = atomic_load(&g->deadline_ns); /* the wait keeps its deadline */
    if (h != NULL && g->status != 0) {
        h->status = (emu_status)g->status;
        memcpy(h->note, g->note, sizeof(h->note));
        h->note[sizeof(h->note) - 1] = '\0';
    }
    return RECLAIM_HOME;
}

/* Deadline of parked stream s: a published one's is its runner's current wait. */
static uint64_t parked_deadline(uint32_t s)
{
    if (streams[s].published)
        return atomic_load(&dc->runq[s].deadline_ns);
    return streams[s].head->deadline_ns;
}

/* Whether stream s, just parked by a thread that is not a worker (emu_sched_serve), has a
 * deadline nearer than every idle worker's next look: then one must look again. Lock held. */
static bool deadline_unwatched(uint32_t s)
{
    uint64_t d = parked_deadline(s);

    for (unsigned i = 0; i < n_workers; i++)
        if (idle_until[i] == 0 || idle_until[i] <= d)
            return false; /* an awake worker recomputes its deadline; this one looks in time */
    return true;
}

/* Run task t of stream s outside the lock, with the start, end and park hooks around it.
 * Rings of this device by the task (a notify record for another of its streams) wake
 * nobody: they set *held, and the caller serves them when it leaves the stream. */
static enum emu_run_result run_task(struct emu_task *t, bool *held)
{
    if (!t->started) {
        t->started = 1;
        if (hook_mask & H_START)
            hook_task(H_START, t);
    }
    emu_devctl_hold(dc);
    enum emu_run_result res = t->run(t);
    *held |= emu_devctl_unhold();
    if (hook_mask & (H_END | H_PARK)) {
        if (res != EMU_RUN_PARK && (hook_mask & H_END))
            hook_end(t, res);
        else if (res == EMU_RUN_PARK && (hook_mask & H_PARK))
            hook_task(H_PARK, t);
    }
    return res;
}

/* Bytes a task may move before a held ring is served: about as long as waking another
 * worker takes (a futex wake and a context switch, several microseconds), so serving the
 * woken stream after the task delays it less than the wake would. */
#define SHORT_MOVE (64u * 1024u)

/* Whether a held ring must be served before `next` runs: a notify record or wait (it parks
 * or passes at once) or a short data-plane move runs first; a long move or a task of
 * unknown length (a kernel, a host task) must not delay the woken stream. */
static bool held_blocks(bool held, const struct emu_task *next)
{
    if (!held)
        return false;
    if (next->sync_op != EMU_SYNC_NONE && next->n_acc == 0)
        return false;
    if (next->n_acc == 0)
        return true;
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < next->n_acc && i < 2; i++)
        bytes += next->acc[i].len;
    return bytes > 2ull * SHORT_MOVE; /* read and write of the same bytes */
}

/* Run up to QUANTUM tasks of s. Called and returns with `lock` held. On a worker (srv NULL)
 * the worker serves what its tasks rang when it leaves the stream. On a serving thread
 * (emu_sched_serve), tasks run only while srv->fits them; returns true when a worker must
 * look: the stream has tasks left, a ring of this device was held back, or a ring may have
 * been missed while the task ran (the worker's own loop rescans for that).
 *
 * Tasks that retire run back to back without the lock while the next one is already queued:
 * the stream is RUNNING, so only this worker takes tasks from its head, and appenders only
 * link behind the tail (a release store of `next`, append_locked). The lock is taken again
 * to retire them all at once, and for anything else: a park, a failure, an error of the
 * stream, the end of the quantum, a held ring before a task that moves bytes. */
static bool run_stream(uint32_t s, const struct emu_sched_server *srv)
{
    struct stream_rt *r = &streams[s];
    uint32_t done = 0, i = 0;
    bool held = false; /* a task rang this device and nobody was woken yet */

    r->state = S_RUNNING;
    while (i < quantum && r->head != NULL) {
        struct emu_task *t = r->head;
        if (stream_has_error(s)) {
            account(s, done);
            discard_all(s);
            r->state = S_IDLE;
            pthread_cond_broadcast(&idle_cv);
            return held;
        }
        if (srv != NULL && !srv->fits(t, srv->arg))
            break;
        uint32_t bell, ran = 0;
        bool refused = false; /* srv->fits said no to the next task (asked once per task) */
        enum emu_run_result res;
        pthread_mutex_unlock(&lock);
        for (;;) {
            /* Pairs with the release store of an appender: a task seen here is complete.
             * Its lines were written by the kernel's thread on another core: fetch them
             * while t runs. */
            struct emu_task *next = __atomic_load_n(&t->next, __ATOMIC_ACQUIRE);
            if (next != NULL)
                emu_task_prefetch(next);
            bell = emu_load_acquire(&dc->doorbell);
            res = run_task(t, &held);
            i++;
            if (res != EMU_RUN_DONE)
                break;
            ran++;
            if (next == NULL)
                next = __atomic_load_n(&t->next, __ATOMIC_ACQUIRE);
            if (next == NULL || i >= quantum || deferred_fn != NULL || stream_has_error(s) ||
                held_blocks(held, next))
                break;
            if (srv != NULL && !srv->fits(next, srv->arg)) {
                refused = true;
                break;
            }
            t = next;
        }
        pthread_mutex_lock(&lock);
        for (uint32_t k = 0; k < ran; k++)
            emu_task_destroy(pop_head(s));
        done += ran;
        if (res == EMU_RUN_DONE) {
            if (r->head != NULL && i < quantum && held_blocks(held, r->head)) {
                held = false;
                emu_devctl_wake(dc);
            }
            if (refused)
                break;
            continue;
        }
        if (res == EMU_RUN_PARK) {
            account(s, done);
            park_add(s, t);
            /* run() polled outside the lock: a record that landed since then rang a bell
             * another worker may already have scanned before this stream was parked.
             * Make the next loop poll the parked heads again so that ring is not lost. */
            uint32_t now_bell = emu_load_relaxed(&dc->doorbell);
            last_scan_bell = now_bell - 1;
            publish(s, t);
            if (held && deferred_fn != NULL)
                emu_devctl_wake(dc); /* this worker goes into a kernel, not to the scan */
            /* A serving thread has no next loop: a worker looks if a ring came meanwhile or
             * the new wait's deadline is nearer than the idle workers' next look. */
            return srv != NULL && (held || now_bell != bell || deadline_unwatched(s));
        }
        account(s, done);
        fail_head(s, t);
        return held;
    }
    account(s, done);
    requeue(s);
    return held || r->state == S_QUEUED;
}

/* Poll parked stream s's head again (not published, no error). PARK: it still waits. Otherwise
 * the stream left the parked list and its head failed (reported, the rest discarded: the
 * stream is idle) or retired (the caller requeues or runs the stream). Lock held. */
static enum emu_run_result poll_head(uint32_t s, uint64_t now)
{
    struct emu_task *t = streams[s].head;
    enum emu_run_result res = t->run(t);

    if (res == EMU_RUN_PARK && now >= t->deadline_ns) {
        t->status = t->timeout_status ? t->timeout_status : EMU_ETASK_TIMEOUT;
        res = EMU_RUN_FAIL;
    }
    if (res == EMU_RUN_PARK)
        return res;
    if (hook_mask & H_END)
        hook_end(t, res);
    park_remove(s);
    if (res == EMU_RUN_FAIL) {
        fail_head(s, t); /* reported here, by the task's own device */
        return res;
    }
    emu_task_destroy(pop_head(s));
    account(s, 1);
    return res;
}

/* Poll every parked head again: called when the doorbell moved or a deadline passed. */
static void scan_parked(uint64_t now)
{
    for (uint32_t i = 0; i < n_parked;) {
        uint32_t s = parked[i];

        if (streams[s].published) {
            if (reclaim(s, now) == RECLAIM_LEAVE) {
                i++;
                continue;
            }
            park_remove(s);
            if (streams[s].head != NULL && dc->runq[s].status != 0 && !stream_has_error(s)) {
                if (hook_mask & H_END)
                    hook_end(streams[s].head, EMU_RUN_FAIL);
                fail_head(s, streams[s].head); /* reported here, by the task's device */
            } else {
                requeue(s);
            }
            continue;
        }
        if (stream_has_error(s)) {
            park_remove(s);
            discard_all(s);
            streams[s].state = S_IDLE;
            pthread_cond_broadcast(&idle_cv);
            continue;
        }
        enum emu_run_result res = poll_head(s, now);
        if (res == EMU_RUN_PARK)
            i++;
        else if (res == EMU_RUN_DONE)
            requeue(s);
    }
}

static uint64_t nearest_deadline(void)
{
    uint64_t d = UINT64_MAX;

    for (uint32_t i = 0; i < n_parked; i++) {
        uint64_t x = parked_deadline(parked[i]);
        if (x < d)
            d = x;
    }
    return d;
}

/* Queue the tasks linked from `head` (a NULL-terminated list) on stream s, numbered in
 * order. The list is numbered first and linked behind the tail in one store, so a batch of a
 * kernel's tasks costs one link, not one per task. Lock held. */
static void append_locked(uint32_t s, struct emu_task *head)
{
    struct stream_rt *r = &streams[s];
    struct emu_task *last = head;
    uint32_t n = 0, from_kernels = 0;

    for (struct emu_task *t = head; t != NULL; t = t->next) {
        t->stream = s;
        t->seq = ++next_seq;
        if (hook_mask & H_SUBMIT)
            hook_task(H_SUBMIT, t);
        from_kernels += t->from_kernel != 0;
        last = t;
        n++;
    }
    /* For the watchdog; once per list, since the counter shares its line with the doorbell,
     * which the stream's runner reads before every task. */
    if (from_kernels > 0)
        emu_fetch_add_relaxed(&dc->kernel_submits, from_kernels);
    if (r->tail == NULL)
        r->head = head;
    else /* release: a worker running the stream reads `next` without the lock (run_stream) */
        __atomic_store_n(&r->tail->next, head, __ATOMIC_RELEASE);
    r->tail = last;
    r->count += n;
    /* Sequentially consistent with a runner's return (runq.c): either it sees this and
     * wakes us, or our next scan (the submitter rings) sees the entry returned. */
    if (r->published && !extend(s, head))
        atomic_store(&dc->runq[s].more, 1);
    if (r->state == S_IDLE)
        runq_push(s);
}

/* Move host submissions from the ring into stream queues. */
static void intake(void)
{
    struct emu_devctl *ctl = dc;
    struct emu_sq *sq = &ctl->sq;
    uint32_t head = emu_load_relaxed(&sq->head);
    /* Pairs with the release store of `tail` by the host's submit: the entries up to tail
     * are fully written. */
    uint32_t tail = emu_load_acquire(&sq->tail);

    if (head == tail)
        return;
    for (; head != tail; head++) {
        const struct emu_wire_task *w = &sq->ring[head % EMU_SQ_DEPTH];
        struct emu_task *t = emu_task_create();
        if (w->stream >= EMU_MAX_STREAMS) {
            emu_task_destroy(t);
            continue;
        }
        if (t == NULL || decode_wire == NULL || decode_wire(w, t) != EMU_OK) {
            /* Unreadable entry: count it so host synchronisation still completes. */
            emu_task_destroy(t);
            set_error_locked(w->stream, EMU_EINTERNAL);
            account(w->stream, 1);
            continue;
        }
        t->origin = w->stream;
        t->next = NULL;
        append_locked(w->stream, t);
    }
    /* Pairs with the acquire load of `head` by a host waiting for ring space. */
    emu_store_release(&sq->head, head);
    if (emu_load_acquire(&sq->space_waiters) != 0)
        emu_os_futex_wake(&sq->head, INT32_MAX);
}

/* No core free to spin on (or the spin ended): poll the doorbell a while, yielding the core
 * between looks (HCEMU_POLL_US, common/platform/spin.h). While any worker of the device polls, rings
 * of this device make no futex call; the next ring is seen at the poller's next turn on a
 * core instead of after a wake-up. Every idle worker polls (a poller holds no core): with
 * one poller per device, the worker that slept meanwhile was what the next ring woke (a
 * kernel's batch while the poller ran the kernel). True when the doorbell moved. */
static bool poll_doorbell(uint32_t bell, uint64_t deadline)
{
    struct emu_devctl *ctl = dc;
    uint64_t end = emu_spin_poll_end(deadline);

    /* The serial (seeded) mode keeps its one worker's schedule free of timing. */
    if (end == 0 || pick_hook != NULL)
        return false;
    atomic_fetch_add(&ctl->pollers, 1);
    bool moved = emu_spin_poll(&ctl->doorbell, bell, end);
    atomic_fetch_sub(&ctl->pollers, 1);
    /* Pairs with the fence in emu_devctl_wake(), as for a spinner: a ringer that still saw
     * the poller bumped the doorbell before, so it is seen here or by the futex's check. */
    atomic_thread_fence(memory_order_seq_cst);
    return moved || emu_load_acquire(&ctl->doorbell) != bell;
}

static void idle_wait(uint32_t bell, uint64_t deadline)
{
    struct emu_devctl *ctl = dc;

    /* Spin only when a core of the machine is free for the thread that will ring; while we
     * spin, rings of this device skip the futex wake (emu_devctl_ring). */
    if (emu_spin_begin(&ctl->spinners)) {
        uint64_t until = emu_os_now_ns() + SPIN_NS;
        while (emu_load_acquire(&ctl->doorbell) == bell && emu_os_now_ns() < until &&
               emu_os_now_ns() < deadline)
            emu_cpu_relax();
        emu_spin_end(&ctl->spinners);
        /* Pairs with the fence in emu_devctl_ring(): a ringer that still saw us spinning
         * bumped the doorbell before, so we see it here or in the futex's own check. */
        atomic_thread_fence(memory_order_seq_cst);
        if (emu_load_acquire(&ctl->doorbell) != bell)
            return;
    }
    if (poll_doorbell(bell, deadline))
        return;
    emu_fetch_add_acq_rel(&ctl->sleepers, 1);
    /* The futex re-checks doorbell == bell in the kernel, so a ring after our load is never
     * lost: either we see the new value or the ringer sees sleepers != 0 and wakes us. */
    (void)emu_os_futex_wait(&ctl->doorbell, bell, deadline);
    emu_fetch_sub_acq_rel(&ctl->sleepers, 1);
}

/* Run what the last task asked for (emu_sched_defer), without the lock, after its stream was
 * parked and stopped counting as busy: it is the task's own work (a kernel), watched like
 * it would be on any other thread. */
static void run_deferred(unsigned me)
{
    void (*fn)(void *) = deferred_fn;
    uint64_t due = nearest_deadline();
    bool watched = false, idle = false, queued = runq_head != NONE;

    deferred_fn = NULL;
    emu_store_release(&in_deferred[me], 1);
    for (unsigned i = 0; i < n_workers; i++) {
        if (i != me && idle_until[i] != 0) {
            idle = true;
            watched |= idle_until[i] <= due;
        }
    }
    pthread_mutex_unlock(&lock);
    /* This worker would have slept until the nearest deadline (a kernel's timeout among
     * them); an idle worker waiting past it must look again. Busy workers will. Runnable
     * streams left in the queue need a worker while this one is in the kernel (which may
     * wait for them). */
    if (idle && (!watched || queued))
        emu_devctl_ring(dc);
    fn(deferred_arg);
    emu_store_release(&in_deferred[me], 0);
    emu_fetch_sub_acq_rel(&n_deferred, 1);
    pthread_mutex_lock(&lock);
}

/* A spinning worker took a ring that made several streams runnable: with a spinner there the
 * ringer woke nobody, so pass one wake on to a sleeping worker. Lock held; dropped briefly. */
static void wake_another(void)
{
    if (runq_head == NONE || emu_load_acquire(&dc->sleepers) == 0 || pick_hook != NULL)
        return;
    /* With no core free a second worker cannot run beside this one: it would only add a
     * wake-up and a context switch. This worker serves the queue itself, in turn (a worker
     * about to run a kernel inline wakes one first: run_deferred). */
    if (!emu_spin_core_free())
        return;
    pthread_mutex_unlock(&lock);
    emu_os_futex_wake(&dc->doorbell, 1);
    pthread_mutex_lock(&lock);
}

/* This device's workers out of their idle wait: a worker that wakes while another runs is
 * `crowded` for its core placement (common/platform/placement.h). */
static _Atomic int32_t busy_workers;

/* A worker starts or leaves its idle wait: placed for the job's executor count (which moves
 * while it sleeps: ranks start and end) and for its device's other busy workers, then
 * counted busy. */
static void worker_up(const struct emu_devctl *ctl)
{
    emu_place_worker(ctl->dev, emu_load_relaxed(&busy_workers) > 0);
    emu_fetch_add_relaxed(&busy_workers, 1);
    emu_spin_busy(1);
}

static void worker_down(void)
{
    emu_fetch_sub_acq_rel(&busy_workers, 1);
    emu_spin_busy(-1);
}

static void *worker_main(void *arg)
{
    struct emu_devctl *ctl = dc;
    unsigned me = (unsigned)(uintptr_t)arg;

    on_worker = true;
    worker_up(ctl);
    pthread_mutex_lock(&lock);
    while (!stopping) {
        /* Pairs with the release increment in emu_devctl_ring(). */
        uint32_t bell = emu_load_acquire(&ctl->doorbell);
        uint64_t now = emu_os_now_ns();
        intake();
        if (bell != last_scan_bell || (n_parked > 0 && now >= nearest_deadline())) {
            last_scan_bell = bell;
            scan_parked(now);
        }
        bool gated = gate_closed(now);
        uint32_t s = gated ? NONE : runq_pop();
        if (s != NONE) {
            wake_another();
            (void)run_stream(s, NULL);
            /* Pairs with the increment in runq_push(): the stream was busy until now. */
            emu_fetch_sub_acq_rel(&ctl->busy, 1);
            if (deferred_fn != NULL)
                run_deferred(me);
            continue;
        }
        /* A host skips the ring of a submission to a stream with an earlier task not yet
         * retired (emu_stream_submit): whoever retired that task (this worker, if any task
         * retired since the last intake) looks at the ring once more before sleeping.
         * Sequentially consistent with the host's store of `tail`, fence, load of
         * `completed`. */
        atomic_thread_fence(memory_order_seq_cst);
        if (emu_load_acquire(&ctl->sq.tail) != emu_load_relaxed(&ctl->sq.head))
            continue;
        uint64_t deadline = nearest_deadline();
        if (gated && gate_since + GATE_MAX_NS < deadline)
            deadline = gate_since + GATE_MAX_NS;
        if (now + IDLE_MAX_NS < deadline)
            deadline = now + IDLE_MAX_NS;
        idle_until[me] = deadline;
        pthread_mutex_unlock(&lock);
        worker_down();
        idle_wait(bell, deadline);
        worker_up(ctl);
        pthread_mutex_lock(&lock);
        idle_until[me] = 0;
    }
    pthread_mutex_unlock(&lock);
    emu_task_free_cache();
    return NULL;
}

emu_status emu_sched_start(struct emu_devctl *ctl, unsigned n, emu_sched_decode_fn decode)
{
    dc = ctl;
    decode_wire = decode;
    runq_on = export_fn != NULL && pick_hook == NULL && (hook_mask & ~(uint32_t)H_FAIL) == 0;
    atomic_store(&ctl->runq_on, runq_on ? 1u : 0u);
    if (n == 0)
        n = emu_os_cpu_count() < 4 ? 2 : 4;
    if (pick_hook != NULL) {
        /* One worker and the pick hook make the device's schedule a function of the hook. */
        quantum = 1;
        n = 1;
    }
    if (n > MAX_WORKERS)
        n = MAX_WORKERS;
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&workers[i], NULL, worker_main, (void *)(uintptr_t)i) != 0) {
            EMU_LOG_ERR("cannot start scheduler worker %u", i);
            return EMU_ESYSCALL;
        }
        n_workers++;
    }
    return EMU_OK;
}

/* A worker inside deferred work (a kernel) may never come back: give it a second, then let
 * it go with the process instead of waiting forever. */
static void join_worker(unsigned i)
{
    uint64_t until = emu_os_now_ns() + 1000000000ull;

    while (emu_load_acquire(&in_deferred[i]) != 0 && emu_os_now_ns() < until)
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    if (emu_load_acquire(&in_deferred[i]) != 0) {
        EMU_LOG_WARN("scheduler worker %u is still running a kernel at stop; not waiting", i);
        pthread_detach(workers[i]);
        return;
    }
    pthread_join(workers[i], NULL);
}

void emu_sched_stop(void)
{
    pthread_mutex_lock(&lock);
    stopping = true;
    pthread_mutex_unlock(&lock);
    for (unsigned i = 0; i < n_workers; i++) {
        emu_devctl_ring(dc);
        emu_os_futex_wake(&dc->doorbell, INT32_MAX);
    }
    for (unsigned i = 0; i < n_workers; i++)
        join_worker(i);
    n_workers = 0;
    for (uint32_t s = 0; s < EMU_MAX_STREAMS; s++) {
        free(described[s]);
        described[s] = NULL;
    }
    emu_task_free_pool();
}

/* Tasks were appended to stream s: a device thread parked on a wait with nothing (or only
 * part) behind it when it parked publishes now that it has work to hand over. Lock held. */
static void publish_appended(uint32_t s)
{
    if (runq_on && streams[s].state == S_PARKED && !streams[s].published)
        publish(s, streams[s].head);
}

void emu_sched_submit(uint32_t slot, struct emu_task *t, bool wake)
{
    t->next = NULL;
    pthread_mutex_lock(&lock);
    append_locked(slot, t);
    publish_appended(slot);
    pthread_mutex_unlock(&lock);
    if (wake)
        emu_devctl_ring(dc);
}

void emu_sched_submit_list(uint32_t slot, struct emu_task *head, bool wake)
{
    if (head == NULL)
        return;
    pthread_mutex_lock(&lock);
    append_locked(slot, head);
    publish_appended(slot);
    pthread_mutex_unlock(&lock);
    if (wake)
        emu_devctl_ring(dc);
}

/* The device thread parked on notify `slot` (a published one: whose current wait is on it),
 * NONE when there is none. Lock held. */
static uint32_t parked_on(uint32_t slot)
{
    for (uint32_t i = 0; i < n_parked; i++) {
        uint32_t s = parked[i];
        const struct emu_task *t = streams[s].head;
        if (streams[s].published ? atomic_load(&dc->runq[s].wait_slot) == slot
                                 : t->park == EMU_PARK_NOTIFY && t->park_slot == slot)
            return s;
    }
    return NONE;
}

/* Poll parked stream s's head as scan_parked() does and, when it can go on, run the stream
 * here. Lock held. */
static enum emu_sched_served serve_locked(uint32_t s, const struct emu_sched_server *srv)
{
    struct stream_rt *r = &streams[s];

    if (r->state != S_PARKED)
        return EMU_SCHED_IDLE; /* a worker runs it, or it is not waiting any more */
    /* A published thread is the job-wide run queue's (a worker's scan takes it back); an
     * error, another kind of stream or a task that does not fit is a worker's too. */
    if (r->published || stream_has_error(s) || dc->streams[s].kind != EMU_STREAM_DEVICE ||
        !srv->fits(r->head, srv->arg))
        return EMU_SCHED_WAKE;
    enum emu_run_result res = poll_head(s, emu_os_now_ns());
    if (res == EMU_RUN_PARK)
        return EMU_SCHED_IDLE;
    if (res == EMU_RUN_FAIL)
        return EMU_SCHED_SERVED; /* failed and reported as a worker's scan would */
    /* Busy from here until the tasks behind it ran, as a popped stream is (runq_push). */
    emu_fetch_add_acq_rel(&dc->busy, 1);
    bool wake = run_stream(s, srv);
    emu_fetch_sub_acq_rel(&dc->busy, 1);
    return wake ? EMU_SCHED_WAKE : EMU_SCHED_SERVED;
}

enum emu_sched_served emu_sched_serve(uint32_t stream, uint32_t notify_slot,
                                      const struct emu_sched_server *srv)
{
    enum emu_sched_served r = EMU_SCHED_WAKE;

    if (!runq_on || on_worker)
        return r;
    pthread_mutex_lock(&lock);
    uint32_t s = stream == EMU_SCHED_BY_SLOT ? parked_on(notify_slot) : stream;
    if (stopping)
        r = EMU_SCHED_WAKE;
    else if (s == NONE)
        r = EMU_SCHED_IDLE; /* nobody waits there yet: the stream that reaches the wait finds
                             * the notify set (a wait parking meanwhile rescans) */
    else if (s < EMU_MAX_STREAMS)
        r = serve_locked(s, srv);
    pthread_mutex_unlock(&lock);
    return r;
}

void emu_sched_set_export(emu_sched_export_fn fn)
{
    export_fn = fn;
}

bool emu_sched_runq_active(void)
{
    return runq_on;
}

bool emu_sched_defer(void (*fn)(void *), void *arg)
{
    uint32_t n = emu_load_acquire(&n_deferred);

    if (!on_worker || pick_hook != NULL || deferred_fn != NULL || n_workers < 2)
        return false;
    do {
        if (n + 1 >= n_workers)
            return false;
    } while (!emu_cas_acq_rel(&n_deferred, &n, n + 1));
    deferred_fn = fn;
    deferred_arg = arg;
    return true;
}

void emu_sched_kick(void)
{
    emu_devctl_ring(dc);
}

void emu_sched_kick_self(void)
{
    if (!on_worker) {
        emu_devctl_ring(dc);
        return;
    }
    /* This worker scans the doorbell when it is back in its loop: bump it, wake nobody. */
    emu_devctl_hold(dc);
    emu_devctl_ring(dc);
    (void)emu_devctl_unhold();
}

bool emu_sched_stream_is_idle(uint32_t slot)
{
    pthread_mutex_lock(&lock);
    bool idle = streams[slot].count == 0;
    pthread_mutex_unlock(&lock);
    return idle;
}

emu_status emu_sched_wait_idle(uint32_t slot, uint64_t deadline, bool from_kernel)
{
    emu_status st = EMU_OK;
    bool joiner = pick_hook != NULL && from_kernel;

    /* Runners of the job-wide run queue wake this device when they retire a stream's last
     * published task while someone waits like this (device/runq.c). */
    emu_fetch_add_acq_rel(&dc->idle_waiters, 1);
    pthread_mutex_lock(&lock);
    if (streams[slot].published) {
        /* A runner that checked idle_waiters just before we counted ourselves did not wake
         * the device: ring it, so a worker retires what runners finished (reclaim). */
        pthread_mutex_unlock(&lock);
        emu_devctl_ring(dc);
        pthread_mutex_lock(&lock);
    }
    if (joiner) {
        /* Open the kernel gate while this kernel waits for its thread (see gate_closed). */
        n_joiners++;
        pthread_mutex_unlock(&lock);
        emu_devctl_ring(dc);
        pthread_mutex_lock(&lock);
    }
    /* Kernel code blocked here holds no core: the job's spin budget must not count it as a
     * busy thread that will ring (common/platform/spin.h), or a poller on the hand-off path (the
     * network's progress thread, an idle worker) is refused its spin for the whole join. */
    bool counted = from_kernel && streams[slot].count != 0;
    if (counted)
        emu_spin_busy(-1);
    while (streams[slot].count != 0) {
        if (deadline == UINT64_MAX) {
            pthread_cond_wait(&idle_cv, &lock);
            continue;
        }
        /* idle_cv uses the realtime clock; convert the monotonic deadline. */
        uint64_t now = emu_os_now_ns();
        if (now >= deadline) {
            st = EMU_ETIMEOUT;
            break;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t left = deadline - now;
        ts.tv_sec += (time_t)(left / 1000000000ull);
        ts.tv_nsec += (long)(left % 1000000000ull);
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&idle_cv, &lock, &ts);
    }
    if (joiner)
        n_joiners--;
    pthread_mutex_unlock(&lock);
    if (counted)
        emu_spin_busy(1);
    emu_fetch_sub_acq_rel(&dc->idle_waiters, 1);
    return st;
}

void emu_sched_inspect_parked(void (*cb)(uint32_t slot, const struct emu_task *head, void *arg),
                              void *arg)
{
    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < n_parked; i++) {
        uint32_t s = parked[i];
        const struct emu_task *h = streams[s].head;
        /* A published stream's first tasks may have been run by other executors: describe
         * the one it waits at now (diagnostics: the count may be a moment old). */
        uint32_t k =
            streams[s].published ? __atomic_load_n(&dc->runq[s].done, __ATOMIC_ACQUIRE) : 0;
        for (; k > 0 && h->next != NULL; k--)
            h = h->next;
        cb(s, h, arg);
    }
    pthread_mutex_unlock(&lock);
}

void emu_sched_fail_stream(uint32_t slot, emu_status st)
{
    pthread_mutex_lock(&lock);
    set_error_locked(slot, st);
    pthread_mutex_unlock(&lock);
    emu_devctl_ring(dc);
}
