/* test_api_abuse_kernel.c - every device-side Hcomm* call refuses garbage inside a running
 * kernel and leaves the device healthy.
 *
 * A 2-rank communicator is built through the real control plane (HcclGetRootInfo,
 * HcclCommInitRootInfo with ranks as threads, HcclThreadAcquire, HcclChannelAcquire over the
 * UB_CTP link of HcclRankGraphGetLinks). Rank 0 launches abuse_kernel, which calls each
 * function with bad handles, indices, pointers, counts, types and batch descriptors and
 * stores every return value with the code it must be. stderr (inherited by the executors) goes
 * to a file; the kernel writes a marker before each case, so the error lines of each call are
 * counted: exactly one per refusal, none per accepted call. The kernel ends with a correct
 * copy, remote write and notify hand-shake; the host checks their data and that the stream
 * synchronises with 0. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include <acl/acl.h>
#include <hccl/hccl.h>

#include "abuse_params.h"
#include "test_comm_util.h"

static char job_parent[256];
static char log_path[300];
static int log_fd = -1;
static int saved_stderr = -1;

/* What the rank threads hand over (rank threads must not call cmocka asserts). */
struct side {
    ThreadHandle thread, thread2, cpu_thread, exported_cpu, exported_main;
    ChannelHandle channel;
    void *local_buf, *hccl, *peer_hccl;
    uint64_t hccl_size, peer_size;
    aclrtStream stream;
    char name[COMM_NAME_MAX_LENGTH];
};

static struct side sides[2];
static ThreadHandle stale_thread;
static ChannelHandle stale_channel;
static int32_t results[ABUSE_MAX_CASES], expected[ABUSE_MAX_CASES];
static uint32_t ncases;
static int launch_rc = -1, sync_rc = -1;
static uint8_t copy_back[ABUSE_DATA], peer_back[ABUSE_DATA], pattern[ABUSE_DATA];
static char failures[4096];

static void note_fail(const char *fmt, ...)
{
    size_t n = strlen(failures);
    va_list ap;

    if (n + 200 >= sizeof(failures))
        return;
    va_start(ap, fmt);
    vsnprintf(failures + n, sizeof(failures) - n, fmt, ap);
    va_end(ap);
    strcat(failures, "\n");
}

#define NEED(cond)                                                                             \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            note_fail("%s:%d: %s", __FILE__, __LINE__, #cond);                                 \
            return;                                                                            \
        }                                                                                      \
    } while (0)

/* Threads and one channel on both ranks; the handles of the first run go stale. */
static void stale_body(struct cu_rank *r)
{
    HcclChannelDesc d;
    ThreadHandle t;
    ChannelHandle ch;
    uint32_t peer = (uint32_t)(1 - r->rank);

    NEED(HcclThreadAcquire(r->comm, COMM_ENGINE_AICPU_TS, 1, 2, &t) == HCCL_SUCCESS);
    NEED(cu_desc_to(r->comm, (uint32_t)r->rank, peer, COMM_PROTOCOL_UB_CTP, 2, &d) ==
         HCCL_SUCCESS);
    NEED(HcclChannelAcquire(r->comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch) == HCCL_SUCCESS);
    if (r->rank == 0) {
        stale_thread = t;
        stale_channel = ch;
    }
}

static void prepare(struct cu_rank *r, struct side *s)
{
    HcclChannelDesc d;
    uint32_t peer = (uint32_t)(1 - r->rank);
    ThreadHandle th[2];

    NEED(aclrtCreateStream(&s->stream) == ACL_SUCCESS);
    NEED(HcclThreadAcquire(r->comm, COMM_ENGINE_AICPU_TS, 2, 2, th) == HCCL_SUCCESS);
    s->thread = th[0];
    s->thread2 = th[1];
    NEED(HcclThreadAcquireWithStream(r->comm, COMM_ENGINE_CPU_TS, s->stream, 1,
                                     &s->cpu_thread) == HCCL_SUCCESS);
    NEED(HcclThreadExportToCommEngine(r->comm, 1, &s->cpu_thread, COMM_ENGINE_AICPU_TS,
                                      &s->exported_cpu) == HCCL_SUCCESS);
    NEED(HcclThreadExportToCommEngine(r->comm, 1, &s->thread, COMM_ENGINE_CPU_TS,
                                      &s->exported_main) == HCCL_SUCCESS);
    NEED(cu_desc_to(r->comm, (uint32_t)r->rank, peer, COMM_PROTOCOL_UB_CTP, 2, &d) ==
         HCCL_SUCCESS);
    NEED(HcclChannelAcquire(r->comm, COMM_ENGINE_AICPU_TS, &d, 1, &s->channel) == HCCL_SUCCESS);
    NEED(HcclGetHcclBuffer(r->comm, &s->hccl, &s->hccl_size) == HCCL_SUCCESS);
    NEED(HcclChannelGetHcclBuffer(r->comm, s->channel, &s->peer_hccl, &s->peer_size) ==
         HCCL_SUCCESS);
    NEED(aclrtMalloc(&s->local_buf, 4096, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    NEED(HcclGetCommName(r->comm, s->name) == HCCL_SUCCESS);
}

static void launch(struct side *me, struct side *other)
{
    aclrtBinaryLoadOption opt = {.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE};
    aclrtBinaryLoadOptions opts = {&opt, 1};
    aclrtBinHandle bin;
    aclrtFuncHandle fn;
    aclrtArgsHandle ah;
    aclrtParamHandle ph;
    void *res, *exp, *cnt;
    struct abuse_args a;
    static int host_var;

    for (int i = 0; i < ABUSE_DATA; i++)
        pattern[i] = (uint8_t)(i * 7 + 3);
    NEED(aclrtMemcpy(me->local_buf, 4096, pattern, ABUSE_DATA, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    NEED(aclrtMalloc(&res, sizeof(results), ACL_MEM_MALLOC_HUGE_FIRST) == 0);
    NEED(aclrtMalloc(&exp, sizeof(expected), ACL_MEM_MALLOC_HUGE_FIRST) == 0);
    NEED(aclrtMalloc(&cnt, 64, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
    NEED(aclrtMemset(cnt, 64, 0, 64) == 0);
    memset(&a, 0, sizeof(a));
    a.thread = me->thread;
    a.thread2 = me->thread2;
    a.peer_thread = other->thread;
    a.stale_thread = stale_thread;
    a.cpu_thread = me->cpu_thread;
    a.exported_cpu = me->exported_cpu;
    a.exported_main = me->exported_main;
    a.channel = me->channel;
    a.peer_channel = other->channel;
    a.stale_channel = stale_channel;
    a.local_buf = (uint64_t)(uintptr_t)me->local_buf;
    a.local_size = 4096;
    a.local_hccl = (uint64_t)(uintptr_t)me->hccl;
    a.peer_hccl = (uint64_t)(uintptr_t)me->peer_hccl;
    a.peer_size = me->peer_size;
    a.host_ptr = (uint64_t)(uintptr_t)&host_var;
    a.results = (uint64_t)(uintptr_t)res;
    a.expected = (uint64_t)(uintptr_t)exp;
    a.ncases = (uint64_t)(uintptr_t)cnt;
    memcpy(a.comm_name, me->name, sizeof(a.comm_name));
    NEED(aclrtBinaryLoadFromFile(ABUSE_KERNELS_JSON, &opts, &bin) == 0);
    NEED(aclrtBinaryGetFunction(bin, "abuse_run", &fn) == 0);
    NEED(aclrtKernelArgsInit(fn, &ah) == 0);
    NEED(aclrtKernelArgsAppend(ah, &a, sizeof(a), &ph) == 0);
    NEED(aclrtKernelArgsFinalize(ah) == 0);
    launch_rc = aclrtLaunchKernelWithConfig(fn, 1, me->stream, NULL, ah, NULL);
    sync_rc = aclrtSynchronizeStream(me->stream);
    NEED(aclrtMemcpy(&ncases, sizeof(ncases), cnt, sizeof(ncases), ACL_MEMCPY_DEVICE_TO_HOST) ==
         0);
    NEED(aclrtMemcpy(results, sizeof(results), res, sizeof(results),
                     ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    NEED(aclrtMemcpy(expected, sizeof(expected), exp, sizeof(expected),
                     ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    NEED(aclrtMemcpy(copy_back, sizeof(copy_back), (char *)me->local_buf + 2048, ABUSE_DATA,
                     ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    aclrtFree(res);
    aclrtFree(exp);
    aclrtFree(cnt);
    NEED(aclrtBinaryUnLoad(bin) == 0);
}

static void abuse_body(struct cu_rank *r)
{
    struct side *s = &sides[r->rank];

    prepare(r, s);
    cu_barrier_wait();
    if (r->rank == 0)
        launch(&sides[0], &sides[1]);
    cu_barrier_wait();
    if (r->rank == 1)
        NEED(aclrtMemcpy(peer_back, sizeof(peer_back), s->hccl, ABUSE_DATA,
                         ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    NEED(aclrtSynchronizeStream(s->stream) == 0);
    NEED(aclrtFree(s->local_buf) == 0);
    NEED(aclrtDestroyStream(s->stream) == 0);
}

/* Error lines of each case, from the markers the kernel wrote. */
static void count_lines(int *errors, int *lines, uint32_t n)
{
    FILE *f = fopen(log_path, "r");
    char buf[2048];
    int cur = -1;

    assert_non_null(f);
    memset(errors, 0, n * sizeof(*errors));
    memset(lines, 0, n * sizeof(*lines));
    while (fgets(buf, sizeof(buf), f) != NULL) {
        unsigned k;
        if (sscanf(buf, "ABUSE-CASE %u", &k) == 1) {
            cur = (int)k;
            continue;
        }
        if (strncmp(buf, "ABUSE-END", 9) == 0) {
            cur = -1;
            continue;
        }
        if (cur < 0 || (uint32_t)cur >= n)
            continue;
        lines[cur]++;
        if (strstr(buf, "] error: ") != NULL)
            errors[cur]++;
    }
    fclose(f);
}

static void dump_case(uint32_t k)
{
    FILE *f = fopen(log_path, "r");
    char buf[2048], want[32];
    int on = 0;

    if (f == NULL)
        return;
    snprintf(want, sizeof(want), "ABUSE-CASE %u\n", k);
    while (fgets(buf, sizeof(buf), f) != NULL) {
        if (strncmp(buf, "ABUSE-", 6) == 0)
            on = strcmp(buf, want) == 0;
        else if (on)
            fprintf(stdout, "    | %s", buf);
    }
    fclose(f);
}

static bool code_ok(int32_t want, int32_t got)
{
    if (want == ABUSE_ANY_ERROR)
        return got != 0;
    if (want == -2) /* bad index: HCCL_E_PARA or HCCL_E_PTR */
        return got == HCCL_E_PARA || got == HCCL_E_PTR;
    if (want == -3) /* either accepted or refused */
        return true;
    return got == want;
}

static void device_calls_refuse_garbage_and_the_device_stays_healthy(void **state)
{
    HcclRootInfo root;
    struct cu_rank ranks[2];

    (void)state;
    assert_int_equal(aclrtSetDevice(0), 0);
    assert_int_equal(HcclGetRootInfo(&root), 0);
    memset(ranks, 0, sizeof(ranks));
    cu_run_ranks(ranks, 2, &root, stale_body, NULL);
    assert_int_equal(ranks[0].init_rc, 0);
    assert_int_equal(ranks[1].init_rc, 0);
    assert_int_equal(ranks[0].destroy_rc, 0);
    assert_int_equal(ranks[1].destroy_rc, 0);
    assert_int_equal(HcclGetRootInfo(&root), 0);
    memset(ranks, 0, sizeof(ranks));
    cu_run_ranks(ranks, 2, &root, abuse_body, NULL);
    assert_int_equal(aclrtResetDevice(0), 0);
    fflush(stderr);

    if (failures[0] != '\0')
        fprintf(stdout, "%s", failures);
    assert_true(failures[0] == '\0');
    assert_int_equal(ranks[0].init_rc, 0);
    assert_int_equal(ranks[1].init_rc, 0);
    assert_int_equal(launch_rc, 0);
    assert_int_equal(sync_rc, 0);
    assert_int_equal(ranks[0].destroy_rc, 0);
    assert_int_equal(ranks[1].destroy_rc, 0);
    assert_true(ncases > 100 && ncases < ABUSE_MAX_CASES); /* room left: nothing dropped */

    static int errors[ABUSE_MAX_CASES], lines[ABUSE_MAX_CASES];
    int bad = 0;
    count_lines(errors, lines, ncases);
    for (uint32_t k = 0; k < ncases; k++) {
        int32_t want = expected[k], got = results[k];
        bool ok = code_ok(want, got);
        int want_errors = got != 0 ? 1 : 0;
        if (want == 0 && got != 0)
            ok = false;
        if (ok && (errors[k] != want_errors || lines[k] != want_errors))
            ok = false;
        if (!ok) {
            fprintf(stdout, "case %u (abuse_kernel.c): returned %d, wanted %d; %d error line(s), "
                    "%d line(s)\n", k, got, want, errors[k], lines[k]);
            dump_case(k);
            bad++;
        }
    }
    fprintf(stdout, "%u device-side cases checked, %d wrong\n", ncases, bad);
    assert_int_equal(bad, 0);
    assert_memory_equal(copy_back, pattern, ABUSE_DATA);
    assert_memory_equal(peer_back, pattern, ABUSE_DATA);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_calls_refuse_garbage_and_the_device_stays_healthy),
    };
    int rc;

    snprintf(job_parent, sizeof(job_parent), "/dev/shm/hcemu-abusek-XXXXXX");
    if (mkdtemp(job_parent) == NULL)
        return 1;
    snprintf(log_path, sizeof(log_path), "%s.log", job_parent);
    setenv("HCEMU_JOB_DIR", job_parent, 1);
    setenv("HCEMU_DEVICES", "2", 1);
    setenv("HCEMU_DEVICE_MEM_GB", "1", 1);
    setenv("HCCL_BUFFSIZE", "4", 1);
    setenv("HCCL_CONNECT_TIMEOUT", "20", 1);
    unsetenv("HCEMU_JOB_PATH");
    /* Executors inherit stderr when they start, so the file sees their lines too. */
    log_fd = open(log_path, O_CREAT | O_TRUNC | O_RDWR | O_APPEND, 0600);
    if (log_fd < 0)
        return 1;
    fflush(stderr);
    saved_stderr = dup(STDERR_FILENO);
    dup2(log_fd, STDERR_FILENO);
    if (aclInit(NULL) != ACL_SUCCESS)
        return 1;
    rc = cmocka_run_group_tests_name("api_abuse_kernel", tests, NULL, NULL);
    aclFinalize();
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    if (rc != 0 || getenv("ABUSE_KEEP_LOG") != NULL)
        fprintf(stderr, "log: %s\n", log_path);
    else
        unlink(log_path);
    close(log_fd);
    if (cu_wait_executors_gone(job_parent, 5000) != 0) {
        fprintf(stderr, "hcemu-device processes of %s are still running\n", job_parent);
        rc = 1;
    }
    if (cu_count_files(job_parent, NULL) != 0) {
        fprintf(stderr, "files left in %s\n", job_parent);
        rc = 1;
    }
    cu_rmtree(job_parent);
    return rc;
}
