/* test_placement.c - core placement (common/platform/placement.c): a worker is bound to its device's
 * core while the job has more executors than the cores the process may use, or as many and
 * no other worker of its device is busy; devices spread over those cores; a worker is given
 * all of them back when the count falls below the cores; with HCEMU_BIND=0 (run as
 * placement_off) nothing is ever bound. The process first restricts
 * itself to two CPUs, so the expectations do not depend on the machine's size; on a
 * one-CPU machine there is nothing to place and the tests say so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/platform/placement.h"
#include "common/contract/settings.h"
#include "common/platform/spin.h"

static int cpu_a = -1, cpu_b = -1; /* the two CPUs this process keeps */

struct probe {
    unsigned dev;
    bool crowded; /* another worker of the device is busy */
    cpu_set_t set; /* the worker's CPU set after emu_place_worker() */
    bool bound;
    int rc; /* of reading the set (cmocka's asserts belong to the test's own thread) */
};

/* Each probe is a fresh thread, as every worker is: it starts with the process's set. */
static void *probe_main(void *arg)
{
    struct probe *p = arg;

    emu_place_worker(p->dev, p->crowded);
    p->bound = emu_place_bound();
    CPU_ZERO(&p->set);
    p->rc = pthread_getaffinity_np(pthread_self(), sizeof(p->set), &p->set);
    return NULL;
}

static struct probe run_probe(unsigned dev, bool crowded)
{
    struct probe p = {.dev = dev, .crowded = crowded, .rc = -1};
    pthread_t t;

    assert_int_equal(pthread_create(&t, NULL, probe_main, &p), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(p.rc, 0);
    return p;
}

/* A probe while the job counts `executors` executors. */
static struct probe probe_at(int executors, unsigned dev, bool crowded)
{
    emu_spin_executor(executors);
    struct probe p = run_probe(dev, crowded);
    emu_spin_executor(-executors);
    return p;
}

static bool only(const cpu_set_t *s, int cpu)
{
    return CPU_COUNT(s) == 1 && CPU_ISSET(cpu, s);
}

static bool both(const cpu_set_t *s)
{
    return CPU_COUNT(s) == 2 && CPU_ISSET(cpu_a, s) && CPU_ISSET(cpu_b, s);
}

/* Not bound: the thread keeps both CPUs. */
static void expect_free(const struct probe *p)
{
    assert_false(p->bound);
    assert_true(both(&p->set));
}

static int setup(void **state)
{
    cpu_set_t s, two;
    (void)state;

    if (sched_getaffinity(0, sizeof(s), &s) != 0 || CPU_COUNT(&s) < 2)
        return 0;
    for (int c = 0; c < CPU_SETSIZE && cpu_b < 0; c++)
        if (CPU_ISSET(c, &s))
            *(cpu_a < 0 ? &cpu_a : &cpu_b) = c;
    CPU_ZERO(&two);
    CPU_SET(cpu_a, &two);
    CPU_SET(cpu_b, &two);
    return sched_setaffinity(0, sizeof(two), &two);
}

/* Three executors on two cores: devices 0, 1, 2 go to the first, second and first CPU, a
 * crowded worker (device 1's) too. */
static void test_bound_while_oversubscribed(void **state)
{
    (void)state;
    if (cpu_b < 0)
        skip();
    struct probe p0 = probe_at(3, 0, false), p1 = probe_at(3, 1, true), p2 = probe_at(3, 2, false);

    if (!emu_settings_bool(EMU_SET_BIND)) {
        expect_free(&p0);
        expect_free(&p1);
        expect_free(&p2);
        return;
    }
    assert_true(p0.bound && p1.bound && p2.bound);
    assert_true(only(&p0.set, cpu_a));
    assert_true(only(&p1.set, cpu_b));
    assert_true(only(&p2.set, cpu_a));
}

/* As many executors as cores: a device's lone busy worker on the device's core, a second busy
 * worker of the same device free to use the other core. */
static void test_a_core_each_at_as_many(void **state)
{
    (void)state;
    if (cpu_b < 0)
        skip();
    struct probe alone = probe_at(2, 1, false), second = probe_at(2, 1, true);
    expect_free(&second);
    if (!emu_settings_bool(EMU_SET_BIND)) {
        expect_free(&alone);
        return;
    }
    assert_true(alone.bound);
    assert_true(only(&alone.set, cpu_b));
}

/* Fewer executors than cores: nothing to share, nobody bound. */
static void test_unbound_within_the_cores(void **state)
{
    (void)state;
    if (cpu_b < 0)
        skip();
    struct probe p = probe_at(1, 1, false);
    expect_free(&p);
}

struct follow {
    cpu_set_t during, after;
    bool bound_during, bound_after;
    int rc; /* of reading the sets */
};

/* One thread across a change of the count: bound while 3 executors run, given both CPUs back
 * once 1 remains (the next call, as after a worker's next wake-up). */
static void *follow_main(void *arg)
{
    struct follow *f = arg;

    emu_spin_executor(3);
    emu_place_worker(1, false);
    f->bound_during = emu_place_bound();
    f->rc = pthread_getaffinity_np(pthread_self(), sizeof(f->during), &f->during);
    emu_spin_executor(-2);
    emu_place_worker(1, false);
    f->bound_after = emu_place_bound();
    f->rc |= pthread_getaffinity_np(pthread_self(), sizeof(f->after), &f->after);
    emu_spin_executor(-1);
    return NULL;
}

static void test_binding_follows_the_count(void **state)
{
    struct follow f = {.rc = -1};
    pthread_t t;
    (void)state;

    if (cpu_b < 0)
        skip();
    assert_int_equal(pthread_create(&t, NULL, follow_main, &f), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(f.rc, 0);
    assert_int_equal(f.bound_during, emu_settings_bool(EMU_SET_BIND));
    assert_true(emu_settings_bool(EMU_SET_BIND) ? only(&f.during, cpu_b) : both(&f.during));
    assert_false(f.bound_after);
    assert_true(both(&f.after));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bound_while_oversubscribed),
        cmocka_unit_test(test_a_core_each_at_as_many),
        cmocka_unit_test(test_unbound_within_the_cores),
        cmocka_unit_test(test_binding_follows_the_count),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
