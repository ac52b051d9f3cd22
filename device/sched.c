/* sched.c - the TS scheduler of one device.
 *
 * `lock` protects every stream's queue and state, the run queue and the parked list. A
 * worker takes a runnable stream, runs its head tasks outside the lock, one at a time, in
 * order, and puts the stream back (or parks it on a wait). Parked heads are polled again
 * each time the doorbell in the device's control block changes; host submissions and notify
 * records (from any process) ring it. */
#include "sched.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/atomic.h"
#include "common/log.h"
#include "common/os.h"
#include "diag.h"
#include "exec.h"
#include "kernel_run.h"
#include "report.h"
#include "spin.h"

#define NONE UINT32_MAX
#define QUANTUM 64u      /* tasks a worker runs on one stream before letting others in */
#define SPIN_NS 20000u   /* how long an idle worker spins before it sleeps */
#define MAX_WORKERS 16u

enum stream_state { S_IDLE = 0, S_QUEUED, S_RUNNING, S_PARKED };

struct stream_rt {
    struct emu_task *head;
    struct emu_task *tail;
    uint32_t count;
    uint32_t state;
    uint32_t next_run;
    uint32_t parked_pos; /* index in parked[] while parked */
    uint32_t kernel;     /* HCEMU_SEED: parked on its kernel entry (counted in n_kernels) */
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
/* HCEMU_SEED: a seeded pick among runnable streams, one task per turn, one worker. Zero
 * keeps the FIFO run queue and QUANTUM. Set before the workers start. */
static uint64_t seed_state;
static uint32_t quantum = QUANTUM;
/* HCEMU_SEED "kernel gate": while a kernel entry runs, the worker picks no stream, so every
 * task the kernel queues (eager or batch) is queued before the next seeded choice and the
 * choices do not depend on how fast the kernel submits. A kernel blocked in a join
 * (emu_sched_wait_idle from kernel code) opens the gate, or it would wait for itself; any
 * other way of waiting for device work from kernel code opens it after GATE_MAX_NS. */
#define GATE_MAX_NS 1000000000ull
static uint32_t n_kernels;  /* streams parked on a running kernel entry */
static uint32_t n_joiners;  /* kernel threads inside emu_sched_wait_idle */
static uint64_t gate_since; /* when the gate last closed; 0 = open */
static bool gate_warned;

static void runq_push(uint32_t s)
{
    streams[s].state = S_QUEUED;
    streams[s].next_run = NONE;
    if (runq_tail == NONE)
        runq_head = s;
    else
        streams[runq_tail].next_run = s;
    runq_tail = s;
}

/* HCEMU_SEED: whether the kernel gate holds the runnable streams back now. Lock held. */
static bool gate_closed(uint64_t now)
{
    if (seed_state == 0 || n_kernels <= n_joiners || runq_head == NONE) {
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

/* A second seeded sequence, for the choices tasks make (emu_sched_seed_draw). Separate from
 * seed_state so that a task's draw does not shift the stream picks. Worker thread only. */
static uint64_t draw_state;

uint64_t emu_sched_seed_draw(void)
{
    if (draw_state == 0)
        return 0;
    draw_state ^= draw_state >> 12;
    draw_state ^= draw_state << 25;
    draw_state ^= draw_state >> 27;
    uint64_t r = draw_state * 0x2545f4914f6cdd1dull;
    return r != 0 ? r : 1;
}

/* Unlink and return a runnable stream chosen by the seeded generator (xorshift64*). */
static uint32_t runq_pop_seeded(void)
{
    uint32_t n = 0, prev = NONE;

    for (uint32_t s = runq_head; s != NONE; s = streams[s].next_run)
        n++;
    if (n == 0)
        return NONE;
    seed_state ^= seed_state >> 12;
    seed_state ^= seed_state << 25;
    seed_state ^= seed_state >> 27;
    uint32_t k = (uint32_t)((seed_state * 0x2545f4914f6cdd1dull) >> 33) % n;
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

    if (seed_state != 0)
        return runq_pop_seeded();
    if (s != NONE) {
        runq_head = streams[s].next_run;
        if (runq_head == NONE)
            runq_tail = NONE;
    }
    return s;
}

static void park_add(uint32_t s, struct emu_task *t)
{
    struct emu_stream_ctl *sc = &emu_exec_ctl()->streams[s];

    streams[s].state = S_PARKED;
    streams[s].parked_pos = n_parked;
    if (seed_state != 0 && t->park == EMU_PARK_KERNEL) {
        streams[s].kernel = 1;
        n_kernels++;
    }
    parked[n_parked++] = s;
    sc->parked_slot = t->park_slot;
    sc->parked_callsite = t->callsite;
    sc->parked_since_ns = emu_now_ns();
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
    emu_store_release(&emu_exec_ctl()->streams[s].parked, EMU_PARK_NONE);
}

/* Count `n` tasks of stream s as retired and wake host threads synchronising on it. */
static void account(uint32_t s, uint32_t n)
{
    struct emu_devctl *ctl = emu_exec_ctl();
    struct emu_stream_ctl *sc = &ctl->streams[s];

    if (n == 0)
        return;
    emu_fetch_add_relaxed(&ctl->progress, n);
    /* Pairs with the acquire load in the host's stream synchronisation: the effects of the
     * retired tasks are visible once `completed` is. */
    emu_fetch_add_release(&sc->completed, n);
    if (emu_load_acquire(&sc->waiters) != 0)
        emu_futex_wake(&sc->completed, INT32_MAX);
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
    struct emu_stream_ctl *sc = &emu_exec_ctl()->streams[s];
    int32_t expected = 0;

    atomic_compare_exchange_strong(&sc->error, &expected, (int32_t)st);
}

/* Drop every queued task of s (the stream is in its error state). A device thread's tasks
 * were fed by kernels of host streams (`origin`) that may wait for them: fail those too, so
 * their synchronisation returns instead of waiting for a notify that will never come. */
static void discard_all(uint32_t s)
{
    struct emu_devctl *ctl = emu_exec_ctl();
    bool device = ctl->streams[s].kind == EMU_STREAM_DEVICE;
    bool told = false;
    uint32_t n = 0;

    while (streams[s].head != NULL) {
        struct emu_task *t = pop_head(s);
        if (device && t->origin != NONE && t->origin != s && t->origin < EMU_MAX_STREAMS) {
            set_error_locked(t->origin, EMU_ETASK_FAIL);
            told = true;
        }
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
    struct emu_devctl *ctl = emu_exec_ctl();
    uint32_t origin = t->origin; /* read before the task is freed below */

    emu_report_task_failure(s, t);
    set_error_locked(s, t->status);
    emu_task_destroy(pop_head(s));
    account(s, 1);
    discard_all(s);
    streams[s].state = S_IDLE;
    pthread_cond_broadcast(&idle_cv);
    if (ctl->streams[s].kind == EMU_STREAM_DEVICE && origin != NONE && origin != s &&
        origin < EMU_MAX_STREAMS)
        set_error_locked(origin, EMU_ETASK_FAIL);
    emu_fetch_add_release(&ctl->doorbell, 1); /* let parked streams see the error */
}

static bool stream_has_error(uint32_t s)
{
    return emu_load_acquire(&emu_exec_ctl()->streams[s].error) != 0;
}

/* Run up to QUANTUM tasks of s. Called and returns with `lock` held. */
static void run_stream(uint32_t s)
{
    struct stream_rt *r = &streams[s];
    uint32_t done = 0;

    r->state = S_RUNNING;
    for (uint32_t i = 0; i < quantum && r->head != NULL; i++) {
        struct emu_task *t = r->head;
        if (stream_has_error(s)) {
            account(s, done);
            discard_all(s);
            r->state = S_IDLE;
            pthread_cond_broadcast(&idle_cv);
            return;
        }
        pthread_mutex_unlock(&lock);
        if (!t->started) {
            t->started = 1;
            emu_diag_task_start(t);
        }
        enum emu_run_result res = t->run(t);
        if (res != EMU_RUN_PARK)
            emu_diag_task_end(t, res);
        pthread_mutex_lock(&lock);
        if (res == EMU_RUN_PARK) {
            account(s, done);
            park_add(s, t);
            /* run() polled outside the lock: a record that landed since then rang a bell
             * another worker may already have scanned before this stream was parked.
             * Make the next loop poll the parked heads again so that ring is not lost. */
            last_scan_bell = emu_load_relaxed(&emu_exec_ctl()->doorbell) - 1;
            return;
        }
        if (res == EMU_RUN_FAIL) {
            account(s, done);
            fail_head(s, t);
            return;
        }
        emu_task_destroy(pop_head(s));
        done++;
    }
    account(s, done);
    requeue(s);
}

/* Poll every parked head again: called when the doorbell moved or a deadline passed. */
static void scan_parked(uint64_t now)
{
    for (uint32_t i = 0; i < n_parked;) {
        uint32_t s = parked[i];
        struct emu_task *t = streams[s].head;
        enum emu_run_result res;

        if (stream_has_error(s)) {
            park_remove(s);
            discard_all(s);
            streams[s].state = S_IDLE;
            pthread_cond_broadcast(&idle_cv);
            continue;
        }
        res = t->run(t);
        if (res == EMU_RUN_PARK && now >= t->deadline_ns) {
            t->status = t->timeout_status ? t->timeout_status : EMU_ETASK_TIMEOUT;
            res = EMU_RUN_FAIL;
        }
        if (res == EMU_RUN_PARK) {
            i++;
            continue;
        }
        emu_diag_task_end(t, res);
        park_remove(s);
        if (res == EMU_RUN_FAIL) {
            fail_head(s, t);
            continue;
        }
        emu_task_destroy(pop_head(s));
        account(s, 1);
        requeue(s);
    }
}

static uint64_t nearest_deadline(void)
{
    uint64_t d = UINT64_MAX;

    for (uint32_t i = 0; i < n_parked; i++) {
        uint64_t x = streams[parked[i]].head->deadline_ns;
        if (x < d)
            d = x;
    }
    return d;
}

static void append_locked(uint32_t s, struct emu_task *t)
{
    struct stream_rt *r = &streams[s];

    t->next = NULL;
    t->stream = s;
    t->seq = ++next_seq;
    if (emu_diag_submit_on)
        emu_diag_task_submit(t);
    if (r->tail == NULL)
        r->head = t;
    else
        r->tail->next = t;
    r->tail = t;
    r->count++;
    if (r->state == S_IDLE)
        runq_push(s);
}

/* Move host submissions from the ring into stream queues. */
static void intake(void)
{
    struct emu_devctl *ctl = emu_exec_ctl();
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
        if (t == NULL || emu_task_from_wire(w, t) != EMU_OK) {
            /* Unreadable entry: count it so host synchronisation still completes. */
            emu_task_destroy(t);
            set_error_locked(w->stream, EMU_EINTERNAL);
            account(w->stream, 1);
            continue;
        }
        t->origin = w->stream;
        append_locked(w->stream, t);
    }
    /* Pairs with the acquire load of `head` by a host waiting for ring space. */
    emu_store_release(&sq->head, head);
    if (emu_load_acquire(&sq->space_waiters) != 0)
        emu_futex_wake(&sq->head, INT32_MAX);
}

static void idle_wait(uint32_t bell, uint64_t deadline)
{
    struct emu_devctl *ctl = emu_exec_ctl();

    /* Spin only when a core of the machine is free for the thread that will ring. */
    if (emu_spin_begin()) {
        uint64_t until = emu_now_ns() + SPIN_NS;
        while (emu_load_acquire(&ctl->doorbell) == bell && emu_now_ns() < until &&
               emu_now_ns() < deadline)
            emu_cpu_relax();
        emu_spin_end();
        if (emu_load_acquire(&ctl->doorbell) != bell)
            return;
    }
    emu_fetch_add_acq_rel(&ctl->sleepers, 1);
    /* The futex re-checks doorbell == bell in the kernel, so a ring after our load is never
     * lost: either we see the new value or the ringer sees sleepers != 0 and wakes us. */
    (void)emu_futex_wait(&ctl->doorbell, bell, deadline);
    emu_fetch_sub_acq_rel(&ctl->sleepers, 1);
}

static void *worker_main(void *arg)
{
    struct emu_devctl *ctl = emu_exec_ctl();
    (void)arg;

    emu_spin_busy(1);
    pthread_mutex_lock(&lock);
    while (!stopping) {
        /* Pairs with the release increment in emu_devctl_ring(). */
        uint32_t bell = emu_load_acquire(&ctl->doorbell);
        uint64_t now = emu_now_ns();
        intake();
        if (bell != last_scan_bell || (n_parked > 0 && now >= nearest_deadline())) {
            last_scan_bell = bell;
            scan_parked(now);
        }
        bool gated = gate_closed(now);
        uint32_t s = gated ? NONE : runq_pop();
        if (s != NONE) {
            run_stream(s);
            continue;
        }
        uint64_t deadline = nearest_deadline();
        if (gated && gate_since + GATE_MAX_NS < deadline)
            deadline = gate_since + GATE_MAX_NS;
        pthread_mutex_unlock(&lock);
        emu_spin_busy(-1);
        idle_wait(bell, deadline);
        emu_spin_busy(1);
        pthread_mutex_lock(&lock);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

emu_status emu_sched_start(unsigned n)
{
    if (n == 0)
        n = emu_cpu_count() < 4 ? 2 : 4;
    uint64_t seed = emu_diag_seed();
    if (seed != 0) {
        /* One worker and a seeded pick make the device's schedule a function of the seed. */
        seed_state = seed * 0x9e3779b97f4a7c15ull + emu_exec_g.dev + 1;
        if (seed_state == 0)
            seed_state = 1;
        draw_state = seed_state ^ 0xd1b54a32d192ed03ull;
        quantum = 1;
        n = 1;
    }
    if (n > MAX_WORKERS)
        n = MAX_WORKERS;
    for (unsigned i = 0; i < n; i++) {
        if (pthread_create(&workers[i], NULL, worker_main, NULL) != 0) {
            EMU_LOG_ERR("cannot start scheduler worker %u", i);
            return EMU_ESYSCALL;
        }
        n_workers++;
    }
    return EMU_OK;
}

void emu_sched_stop(void)
{
    pthread_mutex_lock(&lock);
    stopping = true;
    pthread_mutex_unlock(&lock);
    for (unsigned i = 0; i < n_workers; i++) {
        emu_devctl_ring(emu_exec_ctl());
        emu_futex_wake(&emu_exec_ctl()->doorbell, INT32_MAX);
    }
    for (unsigned i = 0; i < n_workers; i++)
        pthread_join(workers[i], NULL);
    n_workers = 0;
}

void emu_sched_submit(uint32_t slot, struct emu_task *t, bool wake)
{
    pthread_mutex_lock(&lock);
    append_locked(slot, t);
    pthread_mutex_unlock(&lock);
    if (wake)
        emu_devctl_ring(emu_exec_ctl());
}

void emu_sched_submit_list(uint32_t slot, struct emu_task *head, bool wake)
{
    pthread_mutex_lock(&lock);
    while (head != NULL) {
        struct emu_task *next = head->next;
        append_locked(slot, head);
        head = next;
    }
    pthread_mutex_unlock(&lock);
    if (wake)
        emu_devctl_ring(emu_exec_ctl());
}

void emu_sched_kick(void)
{
    emu_devctl_ring(emu_exec_ctl());
}

bool emu_sched_stream_is_idle(uint32_t slot)
{
    pthread_mutex_lock(&lock);
    bool idle = streams[slot].count == 0;
    pthread_mutex_unlock(&lock);
    return idle;
}

emu_status emu_sched_wait_idle(uint32_t slot, uint64_t deadline)
{
    emu_status st = EMU_OK;
    bool joiner = seed_state != 0 && emu_kernel_current() != NULL;

    pthread_mutex_lock(&lock);
    if (joiner) {
        /* Open the kernel gate while this kernel waits for its thread (see gate_closed). */
        n_joiners++;
        pthread_mutex_unlock(&lock);
        emu_devctl_ring(emu_exec_ctl());
        pthread_mutex_lock(&lock);
    }
    while (streams[slot].count != 0) {
        if (deadline == UINT64_MAX) {
            pthread_cond_wait(&idle_cv, &lock);
            continue;
        }
        /* idle_cv uses the realtime clock; convert the monotonic deadline. */
        uint64_t now = emu_now_ns();
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
    return st;
}

void emu_sched_inspect_parked(void (*cb)(uint32_t slot, const struct emu_task *head, void *arg),
                              void *arg)
{
    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < n_parked; i++)
        cb(parked[i], streams[parked[i]].head, arg);
    pthread_mutex_unlock(&lock);
}

void emu_sched_fail_stream(uint32_t slot, emu_status st)
{
    pthread_mutex_lock(&lock);
    set_error_locked(slot, st);
    pthread_mutex_unlock(&lock);
    emu_devctl_ring(emu_exec_ctl());
}
