/* test_sched.c - the TS scheduler core (device/sched/sched.c, task.c; common/platform/spin.c) linked alone, without
 * the executor or any diagnostic: order of tasks on a stream, parking and waking on the
 * doorbell, failure propagation (the rest of the queue discarded, the stream's and the
 * origin stream's error set), deadlines of parked tasks, and a registered hook table seeing
 * submit/start/park/end/fail/free in order, work a task defers (emu_sched_defer) run by
 * the worker once the task is parked, and held rings (a task's ring of its own device wakes
 * nobody; the worker that ran it polls the parked heads), and yielding polls (a poll sees a
 * write or ends in time; idle workers poll the doorbell only while HCEMU_POLL_US is not 0:
 * the test runs with the default, 300, and as sched_nopoll with 0), and whom a retirement wakes
 * (wake_at). The control block lives in plain memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/platform/atomic.h"
#include "common/contract/devctl.h"
#include "common/platform/os.h"
#include "common/contract/settings.h"
#include "common/platform/spin.h"
#include "device/sched/sched.h"

#define WAIT_NS 10000000000ull /* bound of every wait: 10 s */
#define MAX_EVENTS 1024u /* 60 tasks x 5 events fit */

static struct emu_devctl *ctl;

/* What the test tasks did, in order: (id << 8) | event. */
enum { EV_RUN = 1, EV_SUBMIT, EV_START, EV_PARK, EV_END_DONE, EV_END_FAIL, EV_FAIL, EV_FREE };
static pthread_mutex_t ev_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t events[MAX_EVENTS];
static uint32_t n_events;
static _Atomic uint32_t gate; /* parking tasks wait for it to become non-zero */

/* Payload of a test task, in u.raw. */
struct payload {
    uint32_t id;
    uint32_t result; /* enum emu_run_result when not parking */
    uint32_t park;   /* park until `gate` is set */
    emu_status fail_status;
};

static void note(uint32_t id, uint32_t ev)
{
    pthread_mutex_lock(&ev_lock);
    if (n_events < MAX_EVENTS)
        events[n_events++] = id << 8 | ev;
    pthread_mutex_unlock(&ev_lock);
}

static uint32_t id_of(const struct emu_task *t)
{
    return ((const struct payload *)t->u.raw)->id;
}

static enum emu_run_result run(struct emu_task *t)
{
    struct payload *p = (struct payload *)t->u.raw;

    if (p->park && emu_load_acquire(&gate) == 0)
        return EMU_RUN_PARK;
    note(p->id, EV_RUN);
    if (p->result == EMU_RUN_FAIL)
        t->status = p->fail_status;
    return (enum emu_run_result)p->result;
}

static struct emu_task *make(uint32_t id, enum emu_run_result result, bool park)
{
    struct emu_task *t = emu_task_create();
    struct payload p = {.id = id, .result = result, .park = park, .fail_status = EMU_EINVAL};

    assert_non_null(t);
    t->run = run;
    t->origin = UINT32_MAX;
    t->deadline_ns = UINT64_MAX;
    t->park = EMU_PARK_NOTIFY;
    memcpy(t->u.raw, &p, sizeof(p));
    return t;
}

/* --- the hook table under test: records every event of the test tasks ---------------- */

static void on_submit(struct emu_task *t)
{
    note(id_of(t), EV_SUBMIT);
}

static void on_start(struct emu_task *t)
{
    note(id_of(t), EV_START);
}

static void on_park(struct emu_task *t)
{
    note(id_of(t), EV_PARK);
}

static void on_end(struct emu_task *t, enum emu_run_result res)
{
    note(id_of(t), res == EMU_RUN_DONE ? EV_END_DONE : EV_END_FAIL);
}

static void on_fail(uint32_t slot, const struct emu_task *t)
{
    (void)slot;
    note(id_of(t), EV_FAIL);
}

static void on_free(struct emu_task *t)
{
    note(id_of(t), EV_FREE);
}

static const struct emu_sched_hooks recorder = {.submit = on_submit,
                                                .start = on_start,
                                                .park = on_park,
                                                .end = on_end,
                                                .fail = on_fail,
                                                .free = on_free};

/* The events of one kind, in order. */
static uint32_t only(uint32_t ev, uint32_t *out, uint32_t max)
{
    uint32_t n = 0;

    pthread_mutex_lock(&ev_lock);
    for (uint32_t i = 0; i < n_events && n < max; i++)
        if ((events[i] & 0xff) == ev)
            out[n++] = events[i] >> 8;
    pthread_mutex_unlock(&ev_lock);
    return n;
}

/* The events of task `id`, in order. */
static uint32_t of_task(uint32_t id, uint32_t *out, uint32_t max)
{
    uint32_t n = 0;

    pthread_mutex_lock(&ev_lock);
    for (uint32_t i = 0; i < n_events && n < max; i++)
        if (events[i] >> 8 == id)
            out[n++] = events[i] & 0xff;
    pthread_mutex_unlock(&ev_lock);
    return n;
}

static int setup(void **state)
{
    (void)state;
    ctl = calloc(1, sizeof(*ctl));
    if (ctl == NULL || emu_sched_register(&recorder) != EMU_OK ||
        emu_sched_start(ctl, 2, NULL) != EMU_OK)
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    emu_sched_stop();
    emu_task_free_cache();
    free(ctl);
    return 0;
}

static int reset(void **state)
{
    (void)state;
    pthread_mutex_lock(&ev_lock);
    n_events = 0;
    pthread_mutex_unlock(&ev_lock);
    emu_store_release(&gate, 0);
    return 0;
}

static void wait_idle(uint32_t slot)
{
    assert_int_equal(emu_sched_wait_idle(slot, emu_os_now_ns() + WAIT_NS, false), EMU_OK);
}

/* --- tests -------------------------------------------------------------------------------- */

static void test_order_on_a_stream(void **state)
{
    uint32_t ran[MAX_EVENTS];
    (void)state;

    for (uint32_t i = 0; i < 50; i++)
        emu_sched_submit(1, make(100 + i, EMU_RUN_DONE, false), i % 7 == 0);
    /* A chain submitted at once keeps its order after the single tasks. */
    struct emu_task *head = make(150, EMU_RUN_DONE, false), *t = head;
    for (uint32_t i = 151; i < 160; i++)
        t = t->next = make(i, EMU_RUN_DONE, false);
    emu_sched_submit_list(1, head, true);
    wait_idle(1);
    assert_int_equal(only(EV_RUN, ran, MAX_EVENTS), 60);
    for (uint32_t i = 0; i < 60; i++)
        assert_int_equal(ran[i], 100 + i);
    assert_int_equal(emu_load_acquire(&ctl->streams[1].completed), 60);
    assert_int_equal(emu_load_acquire(&ctl->streams[1].error), 0);
    assert_true(emu_sched_stream_is_idle(1));
}

static void count_parked(uint32_t slot, const struct emu_task *head, void *arg)
{
    if (slot == 2 && id_of(head) == 200)
        ++*(uint32_t *)arg;
}

static void test_park_and_wake(void **state)
{
    uint32_t ran[8], parked = 0;
    (void)state;

    emu_sched_submit(2, make(200, EMU_RUN_DONE, true), false);
    emu_sched_submit(2, make(201, EMU_RUN_DONE, false), true);
    /* The head parks: the stream does not go idle and the task behind it waits. */
    assert_int_equal(emu_sched_wait_idle(2, emu_os_now_ns() + 20000000ull, false), EMU_ETIMEOUT);
    for (uint64_t until = emu_os_now_ns() + WAIT_NS; parked == 0 && emu_os_now_ns() < until;)
        emu_sched_inspect_parked(count_parked, &parked);
    assert_int_equal(parked, 1);
    assert_int_equal(emu_load_acquire(&ctl->streams[2].parked), EMU_PARK_NOTIFY);
    assert_int_equal(only(EV_RUN, ran, 8), 0);
    /* Ringing the doorbell polls the parked head again. */
    emu_store_release(&gate, 1);
    emu_sched_kick();
    wait_idle(2);
    assert_int_equal(only(EV_RUN, ran, 8), 2);
    assert_int_equal(ran[0], 200);
    assert_int_equal(ran[1], 201);
    assert_int_equal(emu_load_acquire(&ctl->streams[2].parked), EMU_PARK_NONE);
    assert_int_equal(emu_load_acquire(&ctl->streams[2].completed), 2);
}

static void count_parked_800(uint32_t slot, const struct emu_task *head, void *arg)
{
    if (slot == 20 && id_of(head) == 800)
        ++*(uint32_t *)arg;
}

/* A task that opens the gate and rings its own device, as a notify record for another of
 * the device's streams does. */
static enum emu_run_result run_opener(struct emu_task *t)
{
    note(id_of(t), EV_RUN);
    emu_store_release(&gate, 1);
    emu_devctl_ring(ctl);
    return EMU_RUN_DONE;
}

static void test_own_ring_is_served(void **state)
{
    uint32_t ran[8], parked = 0;
    (void)state;

    emu_sched_submit(20, make(800, EMU_RUN_DONE, true), true);
    for (uint64_t until = emu_os_now_ns() + WAIT_NS; parked == 0 && emu_os_now_ns() < until;)
        emu_sched_inspect_parked(count_parked_800, &parked);
    assert_int_equal(parked, 1);
    /* The worker running 801 holds its device: the ring wakes nobody, and that worker polls
     * the parked head itself when it leaves stream 21. */
    struct emu_task *opener = make(801, EMU_RUN_DONE, false);
    opener->run = run_opener;
    emu_sched_submit(21, opener, true);
    wait_idle(21);
    wait_idle(20);
    assert_int_equal(only(EV_RUN, ran, 8), 2);
    assert_int_equal(ran[0], 801);
    assert_int_equal(ran[1], 800);
}

static void test_held_ring_bumps_the_doorbell(void **state)
{
    (void)state;
    /* Outside the workers (no scheduler thread involved): a held ring bumps the doorbell
     * and is reported at the end of the hold; nothing held, nothing reported. */
    uint32_t bell = emu_load_acquire(&ctl->doorbell);
    assert_false(emu_devctl_unhold());
    emu_devctl_hold(NULL);
    emu_devctl_ring(ctl);
    emu_devctl_ring(ctl);
    assert_int_equal(emu_load_acquire(&ctl->doorbell), bell + 2);
    assert_true(emu_devctl_unhold());
    assert_false(emu_devctl_unhold());
    emu_devctl_hold(ctl);
    emu_devctl_release(); /* nothing rung: no wake */
    emu_devctl_hold(ctl);
    emu_devctl_ring(ctl);
    emu_devctl_release(); /* rung: the wake half runs now */
    assert_int_equal(emu_load_acquire(&ctl->doorbell), bell + 3);
}

static void test_fail_discards_and_sets_errors(void **state)
{
    uint32_t ran[8];
    (void)state;

    /* Stream 4 is a device thread fed by the kernel of host stream 3. */
    emu_store_release(&ctl->streams[4].kind, EMU_STREAM_DEVICE);
    struct emu_task *t[4] = {make(400, EMU_RUN_DONE, false), make(401, EMU_RUN_FAIL, false),
                             make(402, EMU_RUN_DONE, false), make(403, EMU_RUN_DONE, false)};
    for (uint32_t i = 0; i < 4; i++) {
        t[i]->origin = 3;
        emu_sched_submit(4, t[i], i == 3);
    }
    wait_idle(4);
    assert_int_equal(only(EV_RUN, ran, 8), 2);
    assert_int_equal(ran[0], 400);
    assert_int_equal(ran[1], 401);
    assert_int_equal(emu_load_acquire(&ctl->streams[4].error), EMU_EINVAL);
    assert_int_equal(emu_load_acquire(&ctl->streams[3].error), EMU_ETASK_FAIL);
    /* Discarded tasks count as retired, so host synchronisation completes. */
    assert_int_equal(emu_load_acquire(&ctl->streams[4].completed), 4);
    /* Tasks submitted to a failed stream are discarded until the error is cleared. */
    emu_sched_submit(4, make(404, EMU_RUN_DONE, false), true);
    wait_idle(4);
    assert_int_equal(only(EV_RUN, ran, 8), 2);
    assert_int_equal(emu_load_acquire(&ctl->streams[4].completed), 5);
}

static void test_fail_stream_from_outside(void **state)
{
    uint32_t ran[8];
    (void)state;

    emu_sched_submit(5, make(500, EMU_RUN_DONE, true), true);
    emu_sched_submit(5, make(501, EMU_RUN_DONE, false), true);
    emu_sched_fail_stream(5, EMU_ETIMEOUT);
    wait_idle(5);
    assert_int_equal(only(EV_RUN, ran, 8), 0);
    assert_int_equal(emu_load_acquire(&ctl->streams[5].error), EMU_ETIMEOUT);
    assert_int_equal(emu_load_acquire(&ctl->streams[5].completed), 2);
}

static void test_parked_deadline_fails(void **state)
{
    uint32_t ran[8];
    (void)state;

    struct emu_task *t = make(600, EMU_RUN_DONE, true);
    t->deadline_ns = 1; /* long past: the first poll after parking fails it */
    t->timeout_status = EMU_ETASK_TIMEOUT;
    emu_sched_submit(6, t, false);
    emu_sched_submit(6, make(601, EMU_RUN_DONE, false), true);
    wait_idle(6);
    assert_int_equal(only(EV_RUN, ran, 8), 0);
    assert_int_equal(emu_load_acquire(&ctl->streams[6].error), EMU_ETASK_TIMEOUT);
}

static void test_hooks_in_order(void **state)
{
    uint32_t ev[16];
    (void)state;

    emu_sched_submit(7, make(700, EMU_RUN_DONE, true), true);
    emu_sched_submit(7, make(701, EMU_RUN_FAIL, false), true);
    emu_sched_submit(7, make(702, EMU_RUN_DONE, false), true);
    for (uint64_t until = emu_os_now_ns() + WAIT_NS;
         only(EV_PARK, ev, 16) == 0 && emu_os_now_ns() < until;)
        emu_sched_kick();
    emu_store_release(&gate, 1);
    emu_sched_kick();
    wait_idle(7);

    static const uint32_t parked[] = {EV_SUBMIT, EV_START, EV_PARK, EV_RUN, EV_END_DONE, EV_FREE};
    assert_int_equal(of_task(700, ev, 16), 6);
    assert_memory_equal(ev, parked, sizeof(parked));
    static const uint32_t failed[] = {EV_SUBMIT, EV_START, EV_RUN, EV_END_FAIL, EV_FAIL, EV_FREE};
    assert_int_equal(of_task(701, ev, 16), 6);
    assert_memory_equal(ev, failed, sizeof(failed));
    /* Discarded without running: only its submission and its release. */
    static const uint32_t discarded[] = {EV_SUBMIT, EV_FREE};
    assert_int_equal(of_task(702, ev, 16), 2);
    assert_memory_equal(ev, discarded, sizeof(discarded));
}

/* emu_sched_defer: the deferred function runs on the worker after its task parked. */
static _Atomic uint32_t deferred_saw_parked, deferred_ran;

static void deferred(void *arg)
{
    uint32_t slot = *(uint32_t *)arg;

    emu_store_release(&deferred_saw_parked, emu_load_acquire(&ctl->streams[slot].parked));
    emu_store_release(&deferred_ran, 1);
    emu_sched_kick(); /* the parked task polls again and sees deferred_ran */
}

static enum emu_run_result run_deferring(struct emu_task *t)
{
    static uint32_t slot;

    if (t->priv == NULL) {
        slot = t->stream;
        t->priv = &slot;
        if (!emu_sched_defer(deferred, &slot))
            return EMU_RUN_FAIL; /* two workers: one may always defer */
    }
    return emu_load_acquire(&deferred_ran) ? EMU_RUN_DONE : EMU_RUN_PARK;
}

static void test_defer_runs_after_park(void **state)
{
    (void)state;

    assert_false(emu_sched_defer(deferred, NULL)); /* not a worker */
    struct emu_task *t = make(900, EMU_RUN_DONE, false);
    t->run = run_deferring;
    emu_sched_submit(9, t, true);
    wait_idle(9);
    assert_int_equal(emu_load_acquire(&ctl->streams[9].error), 0);
    assert_int_equal(emu_load_acquire(&deferred_ran), 1);
    assert_int_equal(emu_load_acquire(&deferred_saw_parked), EMU_PARK_NOTIFY);
    assert_int_equal(emu_load_acquire(&ctl->streams[9].error), 0);
    assert_int_equal(emu_load_acquire(&ctl->streams[9].completed), 1);
}

static uint32_t pick_first(uint32_t n)
{
    (void)n;
    return 0;
}

/* ---- yielding polls (HCEMU_POLL_US, common/platform/spin.c) ------------------------------------- */

static _Atomic uint32_t poll_word;

static void *write_later(void *arg)
{
    (void)arg;
    nanosleep(&(struct timespec){.tv_nsec = 2000000}, NULL);
    emu_store_release(&poll_word, 1);
    return NULL;
}

/* A poll sees a write made while it yields, and ends by itself at its end when none comes. */
static void test_poll_sees_a_write_or_ends(void **state)
{
    pthread_t th;
    (void)state;

    emu_store_release(&poll_word, 0);
    /* Nothing written: false, at the end or earlier (a long yield, too many pollers). */
    assert_false(emu_spin_poll(&poll_word, 0, emu_os_now_ns() + 1000000ull));
    assert_int_equal(pthread_create(&th, NULL, write_later, NULL), 0);
    /* A poll may also end early after a yield that took a slice (a loaded machine) or when
     * the job has enough pollers: then the word is read once more, as callers do before
     * sleeping. */
    bool seen = emu_spin_poll(&poll_word, 0, emu_os_now_ns() + WAIT_NS);
    pthread_join(th, NULL);
    assert_true(seen || emu_load_acquire(&poll_word) == 1);
    assert_true(emu_spin_poll(&poll_word, 0, 0)); /* already changed: true without a look */
    /* The end of a poll never passes the caller's deadline; 0 means polling is off. */
    uint64_t now = emu_os_now_ns(), end = emu_spin_poll_end(now + 1000u);
    assert_true(end == 0 || end <= now + 1000u);
    if (emu_settings_u64(EMU_SET_POLL_US) == 0)
        assert_int_equal(emu_spin_poll_end(UINT64_MAX), 0);
}

/* Idle workers poll the doorbell while the setting is on (never while it is 0), and a ring
 * made while they poll runs its work. */
static void test_idle_workers_poll(void **state)
{
    uint32_t ran[8];
    bool on = emu_settings_u64(EMU_SET_POLL_US) != 0, seen = false;
    (void)state;

    /* Kick the workers out of their sleep now and then: a poll ends after the setting's time
     * (or at once after a long yield on a loaded machine) and a worker then sleeps. Off,
     * 100 ms of looking is enough to see that nobody polls. */
    uint64_t start = emu_os_now_ns(), look = on ? WAIT_NS : 100000000ull;
    while (!seen && emu_os_now_ns() - start < look) {
        emu_sched_kick();
        for (int i = 0; i < 1000 && !seen; i++)
            seen = emu_load_acquire(&ctl->pollers) != 0;
        nanosleep(&(struct timespec){.tv_nsec = 100000}, NULL);
    }
    assert_int_equal(seen, on);
    emu_sched_submit(30, make(900, EMU_RUN_DONE, false), true);
    wait_idle(30);
    assert_int_equal(only(EV_RUN, ran, 8), 1);
    assert_int_equal(ran[0], 900);
}

/* A job with more executors than cores: a gated spinner (an idle worker) is refused, and
 * the gate stays free for the next one. */
static void test_no_worker_spins_with_more_executors_than_cores(void **state)
{
    _Atomic uint32_t gate = 0;
    int cores = (int)emu_os_cpu_count();
    (void)state;

    emu_spin_executor(cores + 1);
    assert_false(emu_spin_begin(&gate));
    assert_int_equal(emu_load_acquire(&gate), 0);
    emu_spin_executor(-(cores + 1));
    /* Within the cores again, the budget alone decides (busy threads, the machine's load);
     * a spin granted now leaves the gate as it found it. */
    if (emu_spin_begin(&gate)) {
        assert_int_equal(emu_load_acquire(&gate), 1);
        emu_spin_end(&gate);
    }
    assert_int_equal(emu_load_acquire(&gate), 0);
}

/* Hook tables are fixed once the workers run: a late registration is refused. */
static void test_register_after_start_refused(void **state)
{
    static const struct emu_sched_hooks late = {.pick = pick_first};
    (void)state;

    assert_int_equal(emu_sched_register(&late), EMU_EINVAL);
}

/* wake_at (common/contract/devctl.c): a retirement wakes sleeping hosts only once `completed` reaches
 * the lowest target any of them waits for, then moves out of the way until a waiter lowers
 * it again; the zeroed initial value only wakes early; signed distances across the wrap. */
static void test_wake_at_wakes_only_at_the_lowest_target(void **state)
{
    struct emu_stream_ctl sc;
    (void)state;

    memset(&sc, 0, sizeof(sc));
    emu_stream_ctl_want(&sc, 100); /* behind every target: left alone ... */
    assert_true(emu_stream_ctl_wake_due(&sc, 1)); /* ... so the first retirement wakes early */
    assert_false(emu_stream_ctl_wake_due(&sc, 2)); /* and then nobody until a waiter asks */
    emu_stream_ctl_want(&sc, 100);
    assert_false(emu_stream_ctl_wake_due(&sc, 50));
    assert_false(emu_stream_ctl_wake_due(&sc, 99));
    assert_true(emu_stream_ctl_wake_due(&sc, 100));
    assert_false(emu_stream_ctl_wake_due(&sc, 101));
    emu_stream_ctl_want(&sc, 300); /* two waiters: the lower target counts */
    emu_stream_ctl_want(&sc, 200);
    emu_stream_ctl_want(&sc, 250);
    assert_false(emu_stream_ctl_wake_due(&sc, 199));
    assert_true(emu_stream_ctl_wake_due(&sc, 230)); /* past it: due */
    emu_stream_ctl_want(&sc, 300); /* the one still waiting asks again */
    assert_false(emu_stream_ctl_wake_due(&sc, 299));
    assert_true(emu_stream_ctl_wake_due(&sc, 300));
    /* Across the wrap of `completed`: 2^31 retirements with nobody asking bring it round. */
    assert_true(emu_stream_ctl_wake_due(&sc, 0xFFFFFFF0u));
    emu_stream_ctl_want(&sc, 5);
    assert_false(emu_stream_ctl_wake_due(&sc, 0xFFFFFFF1u));
    assert_false(emu_stream_ctl_wake_due(&sc, 0xFFFFFFFFu));
    assert_true(emu_stream_ctl_wake_due(&sc, 5));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wake_at_wakes_only_at_the_lowest_target),
        cmocka_unit_test_setup(test_order_on_a_stream, reset),
        cmocka_unit_test_setup(test_park_and_wake, reset),
        cmocka_unit_test_setup(test_own_ring_is_served, reset),
        cmocka_unit_test_setup(test_held_ring_bumps_the_doorbell, reset),
        cmocka_unit_test_setup(test_fail_discards_and_sets_errors, reset),
        cmocka_unit_test_setup(test_fail_stream_from_outside, reset),
        cmocka_unit_test_setup(test_parked_deadline_fails, reset),
        cmocka_unit_test_setup(test_hooks_in_order, reset),
        cmocka_unit_test_setup(test_defer_runs_after_park, reset),
        cmocka_unit_test_setup(test_register_after_start_refused, reset),
        cmocka_unit_test_setup(test_poll_sees_a_write_or_ends, reset),
        cmocka_unit_test_setup(test_idle_workers_poll, reset),
        cmocka_unit_test_setup(test_no_worker_spins_with_more_executors_than_cores, reset),
    };
    return cmocka_run_group_tests_name("sched", tests, setup, teardown);
}
