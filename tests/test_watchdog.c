/* test_watchdog.c - the hang watchdog's reports outside a communicator, end to end: a kernel
 * that runs longer than HCEMU_HANG_MS without queuing a task is named with its device (and
 * not failed), a stopped executor is reported once, and long copies into fresh pages on
 * oversubscribed cores with a tiny HCEMU_HANG_MS are never a hang; an executor killed is
 * named once with how it ended, and executors the program's exit shut down are not named.
 *
 * Each scenario runs in a child (this program with "--child <scenario>") whose stderr is read
 * after it ended, so no report can land after the check. Every child has a deadline. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <acl/acl.h>

#include "rt_support.h"

#define CHILD_MS 120000
#define COPY_BYTES (64u << 20)

static char parent[RT_PATH];

static int group_setup(void **state)
{
    (void)state;
    setenv("HCEMU_DEVICES", "2", 1);
    return rt_job_parent_make(parent, sizeof(parent));
}

static int group_teardown(void **state)
{
    (void)state;
    return rt_job_parent_finish(parent);
}

static int count_of(const char *text, const char *needle)
{
    int n = 0;

    for (const char *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void run_child(const char *scenario, const char *env, struct rt_child *c)
{
    assert_int_equal(rt_child_run(scenario, parent, env, 0, CHILD_MS, c), 0);
    if (c->timed_out || !WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0)
        fail_msg("child %s did not end with 0 (status 0x%x):\n%s", scenario, c->status,
                 c->err);
    assert_int_equal(rt_wait_executors_gone(parent, 5000), 0);
}

static void endless_kernel_is_reported_with_its_name_and_device(void **state)
{
    struct rt_child c;
    (void)state;

    run_child("spin", "HCEMU_HANG_MS=200", &c);
    /* Reported once, without failing it: the child's synchronisation returned success. */
    assert_int_equal(count_of(c.err, "hang?: kernel krt_spin on device 0"), 1);
    assert_int_equal(count_of(c.err, "hang: no task"), 0);
}

static void stopped_executor_is_reported_once(void **state)
{
    struct rt_child c;
    (void)state;

    run_child("stop", "HCEMU_HANG_MS=200", &c);
    assert_int_equal(count_of(c.err, "device 1: its executor (pid"), 1);
    assert_int_equal(count_of(c.err, "is stopped (SIGSTOP or job control)"), 1);
}

static void long_copies_on_busy_cores_are_not_a_hang(void **state)
{
    struct rt_child c;
    (void)state;

    run_child("copy", "HCEMU_HANG_MS=20", &c);
    assert_int_equal(count_of(c.err, "hang"), 0);
}

static void killed_executor_is_named_once_and_shut_down_ones_not_at_all(void **state)
{
    struct rt_child c;
    (void)state;

    run_child("kill", NULL, &c);
    assert_int_equal(count_of(c.err, "device 0 failed"), 1);
    assert_int_equal(count_of(c.err, "was killed by signal 9"), 1);
    assert_int_equal(count_of(c.err, "device 1 failed"), 0);
    assert_int_equal(count_of(c.err, "device 1"), 0);
}

/* ---- child side ----------------------------------------------------------------------------- */

#define CHECK(call)                                                                             \
    do {                                                                                        \
        aclError e_ = (call);                                                                   \
        if (e_ != ACL_SUCCESS) {                                                                \
            fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, (int)e_);   \
            exit(10);                                                                           \
        }                                                                                       \
    } while (0)

/* krt_spin spins until its flag is set or 1.5 s passed: far longer than HCEMU_HANG_MS. */
static int child_spin(void)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL;
    aclrtArgsHandle a = NULL;
    aclrtParamHandle ph = NULL;
    aclrtStream s = NULL;
    void *flag = NULL;
    uint32_t limit_ms = 1500;

    CHECK(aclrtSetDevice(0));
    aclrtBinaryLoadOption opt = {.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE};
    aclrtBinaryLoadOptions opts = {.options = &opt, .numOpt = 1};
    opt.value.cpuKernelMode = 1;
    CHECK(aclrtBinaryLoadFromFile(KERNEL_DIR "/krt_blocks.json", &opts, &bin));
    CHECK(aclrtBinaryGetFunction(bin, "krt_spin", &f));
    CHECK(aclrtMalloc(&flag, 4, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemset(flag, 4, 0, 4));
    uint64_t o = (uint64_t)(uintptr_t)flag;
    CHECK(aclrtKernelArgsInit(f, &a));
    CHECK(aclrtKernelArgsAppend(a, &o, sizeof(o), &ph));
    CHECK(aclrtKernelArgsAppend(a, &limit_ms, sizeof(limit_ms), &ph));
    CHECK(aclrtKernelArgsFinalize(a));
    CHECK(aclrtCreateStream(&s));
    CHECK(aclrtLaunchKernelWithConfig(f, 1, s, NULL, a, NULL));
    CHECK(aclrtSynchronizeStream(s));
    CHECK(aclrtDestroyStream(s));
    return 0;
}

static void *cont_later(void *arg)
{
    usleep(1500 * 1000);
    kill(*(pid_t *)arg, SIGCONT);
    return NULL;
}

/* Device 1's executor is stopped while a copy on it is pending; it is continued 1.5 s later,
 * so the synchronisation then succeeds. */
static int child_stop(void)
{
    void *d1 = NULL;
    char buf[4096];
    pthread_t th;
    aclrtStream s = NULL;
    char job[RT_PATH];
    pid_t exec;

    CHECK(aclrtSetDevice(0));
    CHECK(aclrtSetDevice(1));
    CHECK(aclrtMalloc(&d1, sizeof(buf), ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtCreateStream(&s));
    if (rt_job_dirs(getenv("HCEMU_JOB_DIR"), job, sizeof(job)) != 1 ||
        (exec = rt_exec_pid(job, 1)) <= 0) {
        fprintf(stderr, "no executor of device 1 found\n");
        return 11;
    }
    memset(buf, 7, sizeof(buf));
    if (kill(exec, SIGSTOP) != 0 || pthread_create(&th, NULL, cont_later, &exec) != 0)
        return 12;
    CHECK(aclrtMemcpyAsync(d1, sizeof(buf), buf, sizeof(buf), ACL_MEMCPY_HOST_TO_DEVICE, s));
    CHECK(aclrtSynchronizeStream(s));
    pthread_join(th, NULL);
    CHECK(aclrtDestroyStream(s));
    return 0;
}

static void *sync_dev1(void *arg)
{
    /* Parked until the process exits: the shut-down must not read as a crash of device 1. */
    (void)aclrtSynchronizeStreamWithTimeout(arg, 20000);
    return NULL;
}

/* Device 0's executor is killed while a wait is pending on each device; then the program
 * exits (the exit handler shuts device 1 down while a thread still waits on it). */
static int child_kill(void)
{
    aclrtStream s0 = NULL, s1 = NULL;
    aclrtNotify n0 = NULL, n1 = NULL;
    char job[RT_PATH];
    pthread_t th;

    CHECK(aclrtSetDevice(1));
    CHECK(aclrtCreateStream(&s1));
    CHECK(aclrtCreateNotify(&n1, ACL_NOTIFY_DEFAULT));
    CHECK(aclrtWaitAndResetNotify(n1, s1, 0));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&s0));
    CHECK(aclrtCreateNotify(&n0, ACL_NOTIFY_DEFAULT));
    CHECK(aclrtWaitAndResetNotify(n0, s0, 0));
    pid_t exec = rt_job_dirs(getenv("HCEMU_JOB_DIR"), job, sizeof(job)) == 1
                     ? rt_exec_pid(job, 0)
                     : -1;
    if (exec <= 0 || pthread_create(&th, NULL, sync_dev1, s1) != 0)
        return 11;
    kill(exec, SIGKILL);
    if (aclrtSynchronizeStreamWithTimeout(s0, 20000) == ACL_SUCCESS)
        return 12;
    fflush(stderr);
    exit(0); /* no aclFinalize: the exit handler shuts the other executor down */
}

static _Atomic int spin_stop;

static void *busy(void *arg)
{
    (void)arg;
    while (!spin_stop) {
    }
    return NULL;
}

/* Stream a waits on an event recorded by stream b after a long copy into fresh pages, while
 * two busy threads compete for the cores: the parked wait must not be taken for a hang. */
static int child_copy(void)
{
    aclrtStream a = NULL, b = NULL;
    aclrtEvent ev = NULL;
    void *src = NULL;
    pthread_t th[2];

    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&a));
    CHECK(aclrtCreateStream(&b));
    CHECK(aclrtCreateEvent(&ev));
    CHECK(aclrtMalloc(&src, COPY_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclrtMemset(src, COPY_BYTES, 5, COPY_BYTES));
    for (int i = 0; i < 2; i++)
        if (pthread_create(&th[i], NULL, busy, NULL) != 0)
            return 12;
    for (int it = 0; it < 6; it++) {
        void *dst = NULL;
        CHECK(aclrtMalloc(&dst, COPY_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK(aclrtMemcpyAsync(dst, COPY_BYTES, src, COPY_BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE,
                               b));
        CHECK(aclrtRecordEvent(ev, b));
        CHECK(aclrtStreamWaitEvent(a, ev));
        CHECK(aclrtSynchronizeStream(a));
        CHECK(aclrtSynchronizeStream(b));
        uint8_t last = 0;
        CHECK(aclrtMemcpy(&last, 1, (uint8_t *)dst + COPY_BYTES - 1, 1,
                          ACL_MEMCPY_DEVICE_TO_HOST));
        if (last != 5)
            return 13;
        CHECK(aclrtFree(dst));
    }
    spin_stop = 1;
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    CHECK(aclrtFree(src));
    return 0;
}

static int child_main(const char *scenario)
{
    int rc = 2;

    fputs("READY\n", stdout);
    fflush(stdout);
    if (aclInit(NULL) != ACL_SUCCESS)
        return 3;
    if (strcmp(scenario, "spin") == 0)
        rc = child_spin();
    else if (strcmp(scenario, "stop") == 0)
        rc = child_stop();
    else if (strcmp(scenario, "copy") == 0)
        rc = child_copy();
    else if (strcmp(scenario, "kill") == 0)
        rc = child_kill();
    aclrtResetDevice(0);
    aclrtResetDevice(1);
    aclFinalize();
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(endless_kernel_is_reported_with_its_name_and_device),
        cmocka_unit_test(stopped_executor_is_reported_once),
        cmocka_unit_test(long_copies_on_busy_cores_are_not_a_hang),
        cmocka_unit_test(killed_executor_is_named_once_and_shut_down_ones_not_at_all),
    };
    return cmocka_run_group_tests_name("watchdog", tests, group_setup, group_teardown);
}
