/* test_runtime_lifecycle.c - the runtime's life and death: calls before aclInit, repeated
 * init/finalize, nothing left behind (job folder, executors) after aclFinalize, normal exit,
 * SIGINT and SIGTERM; an executor killed with SIGKILL; the host-dereference diagnostic;
 * optional libraries not loaded at start-up.
 *
 * Scenarios that end a process run in a child: this same program re-executed with
 * "--child <scenario>" (a fresh process, so our signal handlers are installed as in a user
 * program, not under cmocka's). Every child runs under a deadline. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
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
#include <hccl/hccl.h>

#include "rt_support.h"

#define CHILD_MS 30000

static char parent[RT_PATH];

static int group_setup(void **state)
{
    (void)state;
    return rt_job_parent_make(parent, sizeof(parent));
}

static int group_teardown(void **state)
{
    (void)state;
    return rt_job_parent_finish(parent);
}

/* After each test: nothing of ours may still run or lie in the parent folder. */
static int nothing_left(void **state)
{
    (void)state;
    int left = rt_wait_executors_gone(parent, 5000);
    int dirs = rt_job_dirs(parent, NULL, 0);

    /* Remove leftovers so one failure does not cascade into the next test. */
    rt_job_parent_remove(parent);
    mkdir(parent, 0700);
    return left == 0 && dirs == 0 ? 0 : -1;
}

static void calls_before_acl_init_report_uninitialised(void **state)
{
    (void)state;
    uint32_t n;
    void *p;
    aclrtStream s;

    assert_int_equal(aclrtGetDeviceCount(&n), ACL_ERROR_UNINITIALIZE);
    assert_int_equal(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_UNINITIALIZE);
    assert_int_equal(aclrtMallocHost(&p, 64), ACL_ERROR_UNINITIALIZE);
    assert_int_equal(aclrtCreateStream(&s), ACL_ERROR_UNINITIALIZE);
    assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    /* Nothing was started by the refused calls. */
    assert_int_equal(rt_job_dirs(parent, NULL, 0), 0);
}

static void finalize_stops_every_executor_and_removes_the_job_folder(void **state)
{
    (void)state;
    char job[RT_PATH * 2];
    void *p;

    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    assert_int_equal(rt_job_dirs(parent, job, sizeof(job)), 1);
    /* The folder is private to the user. */
    struct stat st;
    assert_int_equal(stat(job, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&p, 1 << 20), ACL_SUCCESS);
    assert_int_equal(rt_executors(parent, -1, NULL, 0), 2);
    assert_int_equal(rt_executors(parent, 1, NULL, 0), 1);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(rt_job_dirs(parent, NULL, 0), 0);
    assert_int_equal(rt_wait_executors_gone(parent, 5000), 0);
    assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
    assert_int_equal(aclrtSetDevice(0), ACL_ERROR_UNINITIALIZE);
}

/* Whether process `pid` maps a file whose path contains `part` (from /proc/<pid>/maps). */
static bool maps_file(pid_t pid, const char *part)
{
    char path[64], line[1024];
    bool found = false;

    snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    while (!found && fgets(line, sizeof(line), f) != NULL)
        found = strstr(line, part) != NULL;
    fclose(f);
    return found;
}

/* Start-up loads only what it needs (docs/ARCHITECTURE.md, "Start-up cost"): an executor
 * loads UCX when a rank of another host asks for its address (the multihost_net tests run
 * that path), libdw when a report needs a source line; the host loads libarchive when it
 * reads an AICPU package (test_package). A job on one host that runs work loads none. */
static void a_one_host_job_loads_no_ucx_libdw_or_libarchive(void **state)
{
    (void)state;
    char job[RT_PATH * 2];
    void *d = NULL;
    aclrtStream s = NULL;

    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, 4096, 7, 4096, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(rt_job_dirs(parent, job, sizeof(job)), 1);
    pid_t exec = rt_exec_pid(job, 0);
    assert_true(exec > 0);
    assert_false(maps_file(exec, "libucp"));
    assert_false(maps_file(exec, "libhcemu_net_ucx"));
    assert_false(maps_file(exec, "libdw"));
    assert_true(maps_file(exec, "libccl_kernel")); /* the check itself sees libraries */
    assert_false(maps_file(getpid(), "libarchive"));
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void finalize_reference_counts_down_to_the_last_init(void **state)
{
    (void)state;
    uint64_t refs = 99;

    assert_int_equal(aclFinalizeReference(NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclFinalizeReference(&refs), ACL_SUCCESS);
    assert_int_equal(refs, 1);
    /* Still initialised: the device works. */
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    assert_int_equal(aclFinalizeReference(&refs), ACL_SUCCESS);
    assert_int_equal(refs, 0);
    assert_int_equal(rt_job_dirs(parent, NULL, 0), 0);
    assert_int_equal(aclFinalizeReference(&refs), ACL_ERROR_REPEAT_FINALIZE);
}

static void a_second_init_starts_afresh_with_no_streams_of_the_first(void **state)
{
    (void)state;
    void *p, *q;
    aclrtStream s;

    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(p, 4096, 1, 4096, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(p, 4096, 2, 4096, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);

    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    /* The stream of the first run died with it. */
    assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_STREAM_CONTEXT);
    /* A fresh device hands out the same address again; nothing of the first run may
     * claim it is still in use. */
    assert_int_equal(aclrtMalloc(&q, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_ptr_equal(p, q);
    assert_int_equal(aclrtFree(q), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void handles_of_a_finalized_runtime_are_refused_not_followed(void **state)
{
    (void)state;
    aclrtEvent e;
    aclrtNotify n;
    uint32_t id;

    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    /* The device memory behind these handles is gone: they must be refused, not used. */
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtRecordEvent(e, NULL), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtGetNotifyId(n, &id), ACL_ERROR_RT_INVALID_HANDLE);
    /* Nor do they come back to life in the next run. */
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtDestroyEvent(e), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtDestroyNotify(n), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

/* ---- teardown in the orders the vendor runtime accepts ------------------------------------ */

/* hicann/runtime's aclFinalize leaves devices set and streams, events and memory alive; HCOMM's
 * one_device_per_pthread sample resets its device after aclFinalize. Each set is undone once
 * by a reset, before or after aclFinalize; a reset with none outstanding is the runtime's
 * "context release error". Device 5 is used by no other test of this program. */
static void reset_after_finalize_undoes_the_sets_still_outstanding(void **state)
{
    (void)state;

    assert_int_equal(aclrtResetDevice(5), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(5), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    assert_int_equal(aclrtResetDevice(8), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_int_equal(aclrtSetDevice(5), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(5), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(5), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(5), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(5), ACL_SUCCESS);
    /* Outstanding sets survive a new init and are undone after this run's own. */
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(5), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(5), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(5), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(5), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(5), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
}

/* Streams, events, notifies and memory live at aclFinalize may be destroyed or freed after it,
 * once each; a second time, or a handle of no runtime, is refused as before; the next aclInit
 * forgets them. */
static void destroy_and_free_after_finalize_succeed_once(void **state)
{
    (void)state;
    aclrtStream s, s2;
    aclrtEvent e;
    aclrtNotify n;
    void *d, *h, *d2;
    int32_t dev = 6;
    HcclComm c;

    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(6), ACL_SUCCESS);
    assert_int_equal(HcclCommInitAll(1, &dev, &c), HCCL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s2), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d2, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&h, 4096), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, 4096, 1, 4096, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);

    assert_int_equal(HcclCommDestroy(c), HCCL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(6), ACL_SUCCESS);
    /* Twice is refused, as while initialised. */
    assert_int_equal(aclrtDestroyStream(s), ACL_ERROR_UNINITIALIZE);
    assert_int_equal(aclrtDestroyEvent(e), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtDestroyNotify(n), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtFree(d), ACL_ERROR_UNINITIALIZE);
    assert_int_equal(aclrtFreeHost(h), ACL_ERROR_UNINITIALIZE);
    /* A pointer that was never allocated is not taken for one that was. */
    assert_int_equal(aclrtFree((char *)d2 + 8), ACL_ERROR_UNINITIALIZE);
    /* What a new init has not made cannot be released in it. */
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(6), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s2), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_int_equal(aclrtFree(d2), ACL_ERROR_RT_MEMORY_FREE);
    assert_int_equal(aclrtResetDevice(6), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

/* While initialised, a second destroy is refused (the vendor's would use a freed object). */
static void double_destroy_while_initialised_is_refused(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtEvent e;
    aclrtNotify n;

    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(7), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtResetDevice(7), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(7), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

/* ---- an executor killed with SIGKILL ------------------------------------------------------ */

struct killer {
    pid_t pid;
    int delay_ms;
};

static void *kill_later(void *arg)
{
    struct killer *k = arg;

    usleep((useconds_t)k->delay_ms * 1000u);
    kill(k->pid, SIGKILL);
    return NULL;
}

static void a_killed_executor_fails_its_device_while_others_keep_working(void **state)
{
    (void)state;
    char job[RT_PATH * 2];
    aclrtStream s;
    aclrtNotify n;
    void *d0, *d1;
    uint8_t h[4096];
    pid_t pids[4];

    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d1, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d0, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(rt_job_dirs(parent, job, sizeof(job)), 1);
    /* The control block names the executor; /proc agrees. */
    struct killer k = {.pid = rt_exec_pid(job, 0), .delay_ms = 200};
    assert_true(k.pid > 0);
    assert_int_equal(rt_executors(parent, 0, pids, 4), 1);
    assert_int_equal(pids[0], k.pid);

    /* A sync that is pending when the executor dies returns an error, not a timeout. */
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 0), ACL_SUCCESS);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, kill_later, &k), 0);
    uint64_t t0 = rt_now_ms();
    aclError rc = aclrtSynchronizeStreamWithTimeout(s, 20000);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_not_equal(rc, ACL_SUCCESS);
    assert_int_not_equal(rc, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    assert_true(rt_now_ms() - t0 < 10000);

    /* Later calls on the device fail as well. */
    void *p;
    assert_int_not_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_not_equal(aclrtMemcpy(d0, 4096, h, 4096, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_not_equal(aclrtMemsetAsync(d0, 4096, 0, 4096, s), ACL_SUCCESS);
    assert_int_not_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    assert_int_not_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    assert_int_not_equal(aclrtCreateStream(&(aclrtStream){NULL}), ACL_SUCCESS);
    /* Handles of the failed device can still be released. */
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);

    /* Device 1 keeps working, and so does this process. */
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    rt_fill(h, sizeof(h), 9);
    assert_int_equal(aclrtMemcpy(d1, 4096, h, 4096, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d1, 4096, 0x31, 100, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(NULL, 10000), ACL_SUCCESS);
    memset(h, 0, sizeof(h));
    assert_int_equal(aclrtMemcpy(h, 4096, d1, 4096, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_true(rt_all_bytes(h, 100, 0x31));
    assert_int_equal(aclrtFree(d1), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
    assert_int_equal(rt_job_dirs(parent, NULL, 0), 0);

    /* A new init gets a new executor for device 0. */
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

/* ---- child processes ----------------------------------------------------------------------- */

static void child_must_end_cleanly(const struct rt_child *c)
{
    assert_false(c->timed_out);
    assert_true(c->saw_ready);
    /* The executors hang up with their host; the host (or its handler) removed the folder. */
    assert_int_equal(rt_wait_executors_gone(parent, 5000), 0);
    assert_int_equal(rt_job_dirs(parent, NULL, 0), 0);
}

static void normal_exit_without_finalize_leaves_nothing_behind(void **state)
{
    (void)state;
    struct rt_child c;

    assert_int_equal(rt_child_run("exit", parent, NULL, 0, CHILD_MS, &c), 0);
    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), 0);
    child_must_end_cleanly(&c);
}

static void sigint_leaves_nothing_behind_and_still_ends_the_program(void **state)
{
    (void)state;
    struct rt_child c;

    assert_int_equal(rt_child_run("wait", parent, NULL, SIGINT, CHILD_MS, &c), 0);
    assert_true(WIFSIGNALED(c.status));
    assert_int_equal(WTERMSIG(c.status), SIGINT);
    child_must_end_cleanly(&c);
}

static void sigterm_leaves_nothing_behind_and_still_ends_the_program(void **state)
{
    (void)state;
    struct rt_child c;

    assert_int_equal(rt_child_run("wait", parent, NULL, SIGTERM, CHILD_MS, &c), 0);
    assert_true(WIFSIGNALED(c.status));
    assert_int_equal(WTERMSIG(c.status), SIGTERM);
    child_must_end_cleanly(&c);
}

static void a_host_killed_with_sigkill_leaves_no_executor_running(void **state)
{
    (void)state;
    struct rt_child c;

    /* Nothing can run in the host after SIGKILL; the executors notice the hang-up. The
     * folder stays (nobody could remove it), so remove it here. */
    assert_int_equal(rt_child_run("wait", parent, NULL, SIGKILL, CHILD_MS, &c), 0);
    assert_true(WIFSIGNALED(c.status));
    assert_int_equal(WTERMSIG(c.status), SIGKILL);
    assert_int_equal(rt_wait_executors_gone(parent, 5000), 0);
    rt_job_parent_remove(parent);
    mkdir(parent, 0700);
}

static void host_dereference_of_device_memory_dies_naming_device_and_allocation(void **state)
{
    (void)state;
    struct rt_child c;

    /* ASan would catch the SIGSEGV first and exit instead; let our handler see it. */
    assert_int_equal(rt_child_run("deref", parent, "ASAN_OPTIONS=handle_segv=0", 0, CHILD_MS, &c),
                     0);
    assert_false(c.timed_out);
    assert_true(c.saw_ready);
    assert_true(WIFSIGNALED(c.status));
    assert_int_equal(WTERMSIG(c.status), SIGSEGV);
    const char *line = strstr(c.err, "host code dereferenced device address");
    if (line == NULL)
        fail_msg("no diagnostic in the child's stderr:\n%s", c.err);
    /* The child read 100 bytes into a 4096-byte buffer on device 1. */
    assert_non_null(strstr(line, "4096-byte allocation"));
    assert_non_null(strstr(line, "on device 1"));
    assert_non_null(strstr(line, "offset 100"));
    /* Exactly one line. */
    assert_null(strstr(line + 1, "host code dereferenced device address"));
    assert_int_equal(rt_wait_executors_gone(parent, 5000), 0);
    rt_job_parent_remove(parent);
    mkdir(parent, 0700);
}

/* ---- child side ----------------------------------------------------------------------------- */

static int child_open_devices(void **buf)
{
    /* A program started from a non-interactive shell may inherit ignored SIGINT; a user's
     * terminal program has the default, which is what the cleanup handler hooks. */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtMalloc(buf, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtSetDevice(1) != ACL_SUCCESS ||
        aclrtMalloc(buf, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
        return 1;
    return 0;
}

static void child_ready(void)
{
    fputs("READY\n", stdout);
    fflush(stdout);
}

static int child_main(const char *scenario)
{
    void *buf;

    if (child_open_devices(&buf) != 0)
        return 3;
    child_ready();
    if (strcmp(scenario, "exit") == 0)
        return 0; /* no aclFinalize: the exit handler cleans up */
    if (strcmp(scenario, "wait") == 0) {
        for (int i = 0; i < 300; i++)
            usleep(100000); /* the parent's signal ends us long before this */
        return 4;
    }
    if (strcmp(scenario, "deref") == 0) {
        volatile uint8_t *p = (volatile uint8_t *)buf + 100;
        return *p; /* must not return */
    }
    return 2;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(calls_before_acl_init_report_uninitialised, nothing_left),
        cmocka_unit_test_teardown(reset_after_finalize_undoes_the_sets_still_outstanding,
                                  nothing_left),
        cmocka_unit_test_teardown(destroy_and_free_after_finalize_succeed_once, nothing_left),
        cmocka_unit_test_teardown(double_destroy_while_initialised_is_refused, nothing_left),
        cmocka_unit_test_teardown(finalize_stops_every_executor_and_removes_the_job_folder,
                                  nothing_left),
        cmocka_unit_test_teardown(a_one_host_job_loads_no_ucx_libdw_or_libarchive, nothing_left),
        cmocka_unit_test_teardown(finalize_reference_counts_down_to_the_last_init, nothing_left),
        cmocka_unit_test_teardown(a_second_init_starts_afresh_with_no_streams_of_the_first,
                                  nothing_left),
        cmocka_unit_test_teardown(handles_of_a_finalized_runtime_are_refused_not_followed,
                                  nothing_left),
        cmocka_unit_test_teardown(a_killed_executor_fails_its_device_while_others_keep_working,
                                  nothing_left),
        cmocka_unit_test_teardown(normal_exit_without_finalize_leaves_nothing_behind,
                                  nothing_left),
        cmocka_unit_test_teardown(sigint_leaves_nothing_behind_and_still_ends_the_program,
                                  nothing_left),
        cmocka_unit_test_teardown(sigterm_leaves_nothing_behind_and_still_ends_the_program,
                                  nothing_left),
        cmocka_unit_test_teardown(a_host_killed_with_sigkill_leaves_no_executor_running,
                                  nothing_left),
        cmocka_unit_test_teardown(
            host_dereference_of_device_memory_dies_naming_device_and_allocation, nothing_left),
    };
    return cmocka_run_group_tests_name("runtime_lifecycle", tests, group_setup, group_teardown);
}
