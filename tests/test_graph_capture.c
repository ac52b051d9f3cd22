/* test_graph_capture.c - ACL graph capture (aclmdlRI*, host/acl/acl_graph.c): what is issued on
 * a capturing stream is recorded, not run; an execute replays it with the captured arguments,
 * any number of times, on any stream; and each refusal has the vendor runtime's code and one
 * error line.
 *
 * Kernels are krt_basic's (tests/kernels/krt_basic.c): KrtAdd writes x + y, krt_count the
 * number of times it ran on its device. Collectives are the built-in ones, at 2 and 3 rank
 * threads, replayed with new input between executions. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <pkg_inc/runtime/rt_external.h>

#include "test_comm_util.h"

#define KPATH(name) KERNEL_DIR "/" name

static char job[CU_PATH];

/* call must return `code` with exactly one error line that contains `needle`. */
#define EXPECT_ERR(call, code, needle)                                                             \
    do {                                                                                           \
        struct cu_capture c_;                                                                      \
        cu_capture_begin(&c_);                                                                     \
        aclError rc_ = (call);                                                                     \
        cu_capture_end(&c_);                                                                       \
        if (rc_ != (code))                                                                         \
            fail_msg("%s returned %d, expected %d:\n%s", #call, rc_, (int)(code), c_.text);        \
        cu_assert_one_error(&c_, needle, NULL);                                                    \
    } while (0)

#define OK(call) assert_int_equal((call), ACL_SUCCESS)

/* ---- helpers ------------------------------------------------------------------------------- */

static aclrtStream new_stream(void)
{
    aclrtStream s = NULL;

    OK(aclrtCreateStream(&s));
    return s;
}

static aclrtEvent new_event(void)
{
    aclrtEvent e = NULL;

    OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    return e;
}

static void *dev_alloc(size_t n)
{
    void *p = NULL;

    OK(aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST));
    OK(aclrtMemset(p, n, 0, n));
    return p;
}

static uint32_t dev_u32(const void *p)
{
    uint32_t v = 0;

    OK(aclrtMemcpy(&v, sizeof(v), p, sizeof(v), ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
}

static aclrtFuncHandle func(const char *name)
{
    static aclrtBinHandle bin;
    aclrtBinaryLoadOption opt = {.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE};
    aclrtBinaryLoadOptions opts = {.options = &opt, .numOpt = 1};
    aclrtFuncHandle f = NULL;

    opt.value.cpuKernelMode = 1;
    if (bin == NULL)
        OK(aclrtBinaryLoadFromFile(KPATH("krt_basic.json"), &opts, &bin));
    OK(aclrtBinaryGetFunction(bin, name, &f));
    return f;
}

/* KrtAdd's argument list [u64 out][u32 x][u32 y]; y's parameter handle in *py. */
static aclrtArgsHandle add_args(aclrtFuncHandle f, void *out, uint32_t x, uint32_t y,
                                aclrtParamHandle *py)
{
    aclrtArgsHandle a = NULL;
    aclrtParamHandle p;
    uint64_t o = (uint64_t)(uintptr_t)out;

    OK(aclrtKernelArgsInit(f, &a));
    OK(aclrtKernelArgsAppend(a, &o, sizeof(o), &p));
    OK(aclrtKernelArgsAppend(a, &x, sizeof(x), &p));
    OK(aclrtKernelArgsAppend(a, &y, sizeof(y), py));
    OK(aclrtKernelArgsFinalize(a));
    return a;
}

static int capture_status(aclrtStream s, aclmdlRI *g)
{
    aclmdlRICaptureStatus st = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;

    OK(aclmdlRICaptureGetInfo(s, &st, g));
    return (int)st;
}

static void set_up_device(void)
{
    OK(aclrtSetDevice(0));
}

/* ---- kernels, copies, events ------------------------------------------------------------ */

static void kernel_launches_are_recorded_then_replayed_with_their_captured_args(void **state)
{
    (void)state;
    set_up_device();
    aclrtFuncHandle add = func("KrtAdd"), count = func("krt_count");
    aclrtStream s = new_stream(), other = new_stream();
    void *sum = dev_alloc(4), *runs = dev_alloc(4);
    aclrtParamHandle py;
    aclmdlRI g = NULL, seen = NULL;

    /* Nothing has run krt_count on this device yet in this process: its counter starts at 0. */
    OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    assert_int_equal(capture_status(s, &seen), ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    assert_non_null(seen);
    aclrtArgsHandle a = add_args(add, sum, 40, 2, &py);
    OK(aclrtLaunchKernelWithConfig(add, 1, s, NULL, a, NULL));
    /* The launch copied its arguments: a later update of the list does not reach the graph. */
    uint32_t y2 = 1000;
    OK(aclrtKernelArgsParaUpdate(a, py, &y2, sizeof(y2)));
    OK(aclrtKernelArgsFinalize(a));
    uint64_t o = (uint64_t)(uintptr_t)runs;
    OK(aclrtLaunchKernelWithHostArgs(count, 1, s, NULL, &o, sizeof(o), NULL, 0));
    o = 0; /* host arguments are copied at the launch too */
    OK(aclmdlRICaptureEnd(s, &g));
    assert_ptr_equal(g, seen);
    assert_int_equal(capture_status(s, NULL), ACL_MODEL_RI_CAPTURE_STATUS_NONE);

    /* Recorded, not run. */
    OK(aclrtSynchronizeStream(s));
    assert_int_equal(dev_u32(sum), 0);
    assert_int_equal(dev_u32(runs), 0);

    for (uint32_t i = 1; i <= 3; i++) {
        OK(aclmdlRIExecuteAsync(g, (i & 1) ? s : other));
        OK(aclrtSynchronizeStream((i & 1) ? s : other));
        assert_int_equal(dev_u32(sum), 42);
        assert_int_equal(dev_u32(runs), i);
    }
    OK(aclmdlRIExecute(g, 10000));
    assert_int_equal(dev_u32(runs), 4);
    uint32_t id = 0;
    char name[16];
    OK(aclmdlRISetName(g, "adder"));
    OK(aclmdlRIGetName(g, sizeof(name), name));
    assert_string_equal(name, "adder");
    OK(aclmdlRIGetId(g, &id));
    assert_true(id > 0);
    char path[CU_PATH + 16], text[512] = {0};
    snprintf(path, sizeof(path), "%s/graph.json", job);
    OK(aclmdlRIDebugJsonPrint(g, path, ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY));
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_true(fread(text, 1, sizeof(text) - 1, f) > 0);
    fclose(f);
    unlink(path);
    assert_non_null(strstr(text, "\"name\": \"adder\""));
    assert_non_null(strstr(text, "\"seq\": 1, \"stream\": 0, \"type\": \"kernel\""));
    OK(aclmdlRIDestroy(g));
    OK(aclrtFree(sum));
    OK(aclrtFree(runs));
    OK(aclrtDestroyStream(s));
    OK(aclrtDestroyStream(other));
}

static void copies_replay_with_the_bytes_their_addresses_hold_at_execution(void **state)
{
    (void)state;
    set_up_device();
    aclrtStream s = new_stream(), other = new_stream();
    uint32_t *host = NULL, *back = NULL;
    void *a = dev_alloc(64), *b = dev_alloc(64), *c = dev_alloc(64);
    aclmdlRI g = NULL;

    OK(aclrtMallocHost((void **)&host, 64));
    OK(aclrtMallocHost((void **)&back, 64));
    OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    OK(aclrtMemcpyAsync(a, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, s));
    OK(aclrtMemsetAsync(b, 64, 0x5A, 32, s));
    OK(aclrtMemcpyAsync((char *)b + 32, 32, a, 32, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    OK(aclrtMemcpyAsync(c, 64, b, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    OK(aclrtMemcpyAsync(back, 64, c, 64, ACL_MEMCPY_DEVICE_TO_HOST, s));
    OK(aclmdlRICaptureEnd(s, &g));
    OK(aclrtSynchronizeStream(s));
    uint8_t zero[64] = {0};
    assert_memory_equal(back, zero, 64); /* nothing ran */

    for (uint32_t round = 1; round <= 3; round++) {
        for (int i = 0; i < 16; i++)
            host[i] = round * 100 + (uint32_t)i;
        aclrtStream on = round == 2 ? other : s;
        OK(aclmdlRIExecuteAsync(g, on));
        OK(aclrtSynchronizeStream(on));
        for (int i = 0; i < 8; i++)
            assert_int_equal(back[i], 0x5A5A5A5Au);
        for (int i = 0; i < 8; i++)
            assert_int_equal(back[8 + i], round * 100 + (uint32_t)i);
    }
    OK(aclmdlRIDestroy(g));
    OK(aclrtFreeHost(host));
    OK(aclrtFreeHost(back));
    OK(aclrtFree(a));
    OK(aclrtFree(b));
    OK(aclrtFree(c));
    OK(aclrtDestroyStream(s));
    OK(aclrtDestroyStream(other));
}

/* Fork and join: s2 joins the capture by waiting on an event s1 recorded, and is joined back
 * by an event s1 waits on. The replay on a third stream keeps every dependency. */
static void events_fork_and_join_streams_into_one_graph(void **state)
{
    (void)state;
    set_up_device();
    aclrtStream s1 = new_stream(), s2 = new_stream(), s3 = new_stream();
    aclrtEvent fork = new_event(), join = new_event();
    aclrtFuncHandle add = func("KrtAdd");
    void *x = dev_alloc(4), *y = dev_alloc(4), *z = dev_alloc(4);
    uint32_t *host = NULL;
    aclrtParamHandle py;
    aclmdlRI g = NULL, g2 = NULL;

    OK(aclrtMallocHost((void **)&host, 4));
    OK(aclmdlRICaptureBegin(s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    OK(aclrtMemcpyAsync(x, 4, host, 4, ACL_MEMCPY_HOST_TO_DEVICE, s1));
    OK(aclrtRecordEvent(fork, s1));
    assert_int_equal(capture_status(s2, NULL), ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    OK(aclrtStreamWaitEvent(s2, fork));
    assert_int_equal(capture_status(s2, &g2), ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    OK(aclrtMemcpyAsync(y, 4, x, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
    OK(aclrtLaunchKernelWithConfig(add, 1, s2, NULL, add_args(add, z, 7, 8, &py), NULL));
    OK(aclrtRecordEvent(join, s2));
    OK(aclrtStreamWaitEvent(s1, join));
    /* The graph's events are capturing: waiting for them now is refused. */
    EXPECT_ERR(aclrtSynchronizeEvent(fork), ACL_ERROR_RT_EVENT_CAPTURED, "capture");
    EXPECT_ERR(aclmdlRICaptureEnd(s2, &g), ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED, "joined");
    OK(aclmdlRICaptureEnd(s1, &g));
    assert_ptr_equal(g, g2);
    assert_int_equal(capture_status(s2, NULL), ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    /* The graph orders its streams without the user's events: they may go now. */
    OK(aclrtDestroyEvent(fork));
    OK(aclrtDestroyEvent(join));
    for (uint32_t v = 5; v < 8; v++) {
        *host = v;
        OK(aclmdlRIExecuteAsync(g, s3));
        OK(aclrtSynchronizeStream(s3));
        assert_int_equal(dev_u32(y), v);
        assert_int_equal(dev_u32(z), 15);
    }
    OK(aclmdlRIDestroy(g));
    OK(aclrtFreeHost(host));
    OK(aclrtFree(x));
    OK(aclrtFree(y));
    OK(aclrtFree(z));
    OK(aclrtDestroyStream(s1));
    OK(aclrtDestroyStream(s2));
    OK(aclrtDestroyStream(s3));
}

/* rtStreamAddToModel (how HCCL brings its secondary streams into the user's capture): the
 * added stream's tasks are recorded, and it need not be joined back. */
static void streams_added_to_a_capture_are_recorded_without_a_join(void **state)
{
    (void)state;
    set_up_device();
    aclrtStream s = new_stream(), added = new_stream();
    void *d = dev_alloc(4);
    aclmdlRI g = NULL, g2 = NULL;

    OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    OK(aclmdlRICaptureGetInfo(s, NULL, &g));
    OK(rtStreamAddToModel(added, g));
    OK(rtStreamAddToModel(added, g)); /* again: nothing changes */
    assert_int_equal(capture_status(added, &g2), ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    assert_ptr_equal(g, g2);
    OK(aclrtMemsetAsync(d, 4, 0x11, 4, added));
    OK(aclmdlRICaptureEnd(s, &g));
    assert_int_equal(capture_status(added, NULL), ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    OK(aclrtSynchronizeStream(added));
    assert_int_equal(dev_u32(d), 0);
    OK(aclmdlRIExecuteAsync(g, s));
    OK(aclrtSynchronizeStream(s));
    assert_int_equal(dev_u32(d), 0x11111111u);
    EXPECT_ERR(rtStreamAddToModel(added, g), ACL_ERROR_RT_INTERNAL_ERROR, "not being captured");
    EXPECT_ERR(rtStreamAddToModel(NULL, g), ACL_ERROR_RT_PARAM_INVALID, "stm");
    OK(aclmdlRIDestroy(g));
    EXPECT_ERR(rtStreamAddToModel(added, g), ACL_ERROR_RT_INVALID_HANDLE, "model RI");
    OK(aclrtFree(d));
    OK(aclrtDestroyStream(s));
    OK(aclrtDestroyStream(added));
}

/* ---- refusals -------------------------------------------------------------------------- */

struct end_arg {
    aclrtStream s;
    aclError rc;
    struct cu_capture cap;
};

static void *end_on_thread(void *p)
{
    struct end_arg *a = p;
    aclmdlRI g = NULL;

    OK(aclrtSetDevice(0));
    a->rc = aclmdlRICaptureEnd(a->s, &g);
    return NULL;
}

static void *memcpy_on_thread(void *p)
{
    struct end_arg *a = p;
    uint32_t v = 1, *d = a->s;

    OK(aclrtSetDevice(0));
    a->rc = aclrtMemcpy(d, 4, &v, 4, ACL_MEMCPY_HOST_TO_DEVICE);
    return NULL;
}

static void synchronous_calls_during_capture_get_the_runtime_codes(void **state)
{
    (void)state;
    set_up_device();
    aclrtStream s = new_stream();
    void *d = dev_alloc(64);
    uint32_t v = 3, page[16] = {0};
    aclmdlRI g = NULL, capturing = NULL;
    aclmdlRICaptureMode mode;

    OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    EXPECT_ERR(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
               ACL_ERROR_RT_STREAM_CAPTURED, "already being captured");
    EXPECT_ERR(aclrtSynchronizeStream(s), ACL_ERROR_RT_STREAM_CAPTURED, "aclrtSynchronizeStream");
    EXPECT_ERR(aclrtSynchronizeStreamWithTimeout(s, 100), ACL_ERROR_RT_STREAM_CAPTURED,
               "being captured");
    EXPECT_ERR(aclrtSynchronizeDevice(), ACL_ERROR_RT_STREAM_CAPTURED, "aclrtSynchronizeDevice");
    EXPECT_ERR(aclrtDestroyStream(s), ACL_ERROR_RT_STREAM_CAPTURED, "aclrtDestroyStream");
    EXPECT_ERR(aclrtMemcpy(d, 4, &v, 4, ACL_MEMCPY_HOST_TO_DEVICE),
               ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, "GLOBAL");
    EXPECT_ERR(aclrtMemset(d, 4, 0, 4), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, "aclrtMemset");
    /* GLOBAL forbids it on every thread of the device. */
    struct end_arg t = {.s = d};
    pthread_t th;
    cu_capture_begin(&t.cap);
    assert_int_equal(pthread_create(&th, NULL, memcpy_on_thread, &t), 0);
    pthread_join(th, NULL);
    cu_capture_end(&t.cap);
    assert_int_equal(t.rc, ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
    cu_assert_one_error(&t.cap, "aclrtMemcpy", NULL);
    /* A RELAXED thread may. */
    mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    OK(aclmdlRICaptureThreadExchangeMode(&mode));
    assert_int_equal(mode, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
    OK(aclrtMemcpy(d, 4, &v, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    OK(aclmdlRICaptureThreadExchangeMode(&mode));
    assert_int_equal(mode, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
    /* Pageable host memory cannot be captured. */
    EXPECT_ERR(aclrtMemcpyAsync(d, 64, page, 64, ACL_MEMCPY_HOST_TO_DEVICE, s),
               ACL_ERROR_RT_PARAM_INVALID, "pinned");
    /* The graph being built cannot be executed or destroyed. */
    OK(aclmdlRICaptureGetInfo(s, NULL, &capturing));
    EXPECT_ERR(aclmdlRIExecuteAsync(capturing, NULL), ACL_ERROR_RT_MODEL_EXECUTE, "captured");
    EXPECT_ERR(aclmdlRIDestroy(capturing), ACL_ERROR_RT_MODEL_CAPTURED, "captured");
    /* None of that invalidated the capture, as in the runtime. */
    assert_int_equal(capture_status(s, NULL), ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    OK(aclrtMemsetAsync(d, 64, 1, 64, s));
    OK(aclmdlRICaptureEnd(s, &g));
    OK(aclmdlRIExecuteAsync(g, s));
    OK(aclrtSynchronizeStream(s));
    OK(aclmdlRIDestroy(g));
    EXPECT_ERR(aclmdlRIExecuteAsync(g, s), ACL_ERROR_RT_INVALID_HANDLE, "model RI");
    EXPECT_ERR(aclmdlRIDestroy(g), ACL_ERROR_RT_INVALID_HANDLE, "model RI");
    EXPECT_ERR(aclmdlRICaptureEnd(s, &g), ACL_ERROR_RT_STREAM_NOT_CAPTURED, "not being captured");
    EXPECT_ERR(aclmdlRICaptureBegin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
               ACL_ERROR_INVALID_PARAM, "default stream");
    EXPECT_ERR(aclmdlRICaptureBegin(s, (aclmdlRICaptureMode)3), ACL_ERROR_RT_PARAM_INVALID,
               "mode 3");

    /* THREAD_LOCAL forbids unsafe calls on the capturing thread only. */
    OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    EXPECT_ERR(aclrtMemcpy(d, 4, &v, 4, ACL_MEMCPY_HOST_TO_DEVICE),
               ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, "THREAD_LOCAL");
    t.rc = -1;
    assert_int_equal(pthread_create(&th, NULL, memcpy_on_thread, &t), 0);
    pthread_join(th, NULL);
    assert_int_equal(t.rc, ACL_SUCCESS);
    /* A GLOBAL capture must end on the thread that began it; the capture is discarded. */
    OK(aclmdlRICaptureEnd(s, &g));
    OK(aclmdlRIDestroy(g));
    OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    t = (struct end_arg){.s = s};
    cu_capture_begin(&t.cap);
    assert_int_equal(pthread_create(&th, NULL, end_on_thread, &t), 0);
    pthread_join(th, NULL);
    cu_capture_end(&t.cap);
    assert_int_equal(t.rc, ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD);
    cu_assert_one_error(&t.cap, "must end there", NULL);
    assert_int_equal(capture_status(s, NULL), ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    /* RELAXED captures may end on another thread. */
    OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    OK(aclrtMemcpy(d, 4, &v, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    t.rc = -1;
    assert_int_equal(pthread_create(&th, NULL, end_on_thread, &t), 0);
    pthread_join(th, NULL);
    assert_int_equal(t.rc, ACL_SUCCESS);
    OK(aclrtFree(d));
    OK(aclrtDestroyStream(s));
}

static void event_and_stream_misuse_gets_the_runtime_codes(void **state)
{
    (void)state;
    set_up_device();
    aclrtStream s1 = new_stream(), s2 = new_stream(), s3 = new_stream();
    aclrtEvent plain = NULL, before = new_event(), fork = new_event(), e3 = new_event();
    void *d = dev_alloc(64);
    aclmdlRI g = NULL;

    OK(aclrtCreateEvent(&plain));
    OK(aclrtRecordEvent(before, s2));
    OK(aclmdlRICaptureBegin(s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    EXPECT_ERR(aclrtRecordEvent(plain, s1), ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
               "aclrtCreateEventExWithFlag");
    EXPECT_ERR(aclrtStreamWaitEvent(s1, before), ACL_ERROR_RT_CAPTURE_DEPENDENCY,
               "outside the capture");
    OK(aclrtRecordEvent(fork, s1));
    EXPECT_ERR(aclrtStreamWaitEvent(NULL, fork), ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT,
               "default stream");
    /* s2 forks off and never joins back. */
    OK(aclrtStreamWaitEvent(s2, fork));
    OK(aclrtMemsetAsync(d, 64, 0, 64, s2));
    EXPECT_ERR(aclmdlRICaptureEnd(s1, &g), ACL_ERROR_RT_STREAM_UNJOINED, "not joined back");
    assert_null(g);
    assert_int_equal(capture_status(s2, NULL), ACL_MODEL_RI_CAPTURE_STATUS_NONE);

    /* Two captures that meet: both are invalidated, their ends say so. */
    OK(aclmdlRICaptureBegin(s1, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    OK(aclmdlRICaptureBegin(s3, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    OK(aclrtRecordEvent(e3, s3));
    EXPECT_ERR(aclrtStreamWaitEvent(s1, e3), ACL_ERROR_STREAM_CAPTURE_CONFLICT, "both captures");
    assert_int_equal(capture_status(s1, NULL), ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED);
    EXPECT_ERR(aclrtMemsetAsync(d, 64, 0, 64, s1), ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
               "invalidated");
    EXPECT_ERR(aclmdlRICaptureEnd(s1, &g), ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, "discarded");
    EXPECT_ERR(aclmdlRICaptureEnd(s3, &g), ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, "discarded");

    /* A graph runs on its own device only, and not on a capturing stream. */
    OK(aclmdlRICaptureBegin(s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    OK(aclrtMemsetAsync(d, 64, 0, 64, s1));
    OK(aclmdlRICaptureEnd(s1, &g));
    OK(aclmdlRICaptureBegin(s2, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    EXPECT_ERR(aclmdlRIExecuteAsync(g, s2), ACL_ERROR_RT_STREAM_CAPTURED, "being captured");
    aclmdlRI g2 = NULL;
    OK(aclmdlRICaptureEnd(s2, &g2)); /* an empty graph is a graph */
    OK(aclmdlRIExecuteAsync(g2, s2));
    OK(aclmdlRIDestroy(g2));
    OK(aclrtSetDevice(1));
    aclrtStream other = new_stream();
    EXPECT_ERR(aclmdlRIExecuteAsync(g, other), ACL_ERROR_RT_MODEL_CONTEXT, "device 0");
    OK(aclrtDestroyStream(other));
    OK(aclrtSetDevice(0));
    OK(aclmdlRIDestroy(g));
    OK(aclrtDestroyEvent(plain));
    OK(aclrtDestroyEvent(before));
    OK(aclrtDestroyEvent(fork));
    OK(aclrtDestroyEvent(e3));
    OK(aclrtFree(d));
    OK(aclrtDestroyStream(s1));
    OK(aclrtDestroyStream(s2));
    OK(aclrtDestroyStream(s3));
}

static int destroyed;

static void on_destroy(void *user)
{
    destroyed += *(int *)user;
}

static void destroy_waits_for_executions_and_runs_callbacks(void **state)
{
    (void)state;
    set_up_device();
    aclrtStream s = new_stream();
    aclrtFuncHandle add = func("KrtAdd");
    void *sum = dev_alloc(4);
    aclrtParamHandle py;
    aclmdlRI g = NULL;
    int one = 1, ten = 10;

    OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    OK(aclrtLaunchKernelWithConfig(add, 1, s, NULL, add_args(add, sum, 20, 22, &py), NULL));
    OK(aclmdlRICaptureEnd(s, &g));
    OK(aclmdlRIDestroyRegisterCallback(g, on_destroy, &one));
    OK(aclmdlRIDestroyRegisterCallback(g, on_destroy, &ten)); /* replaces the user data */
    for (int i = 0; i < 20; i++)
        OK(aclmdlRIExecuteAsync(g, s));
    destroyed = 0;
    OK(aclmdlRIDestroy(g)); /* the executions still queued read the graph's argument block */
    assert_int_equal(destroyed, 10);
    OK(aclrtSynchronizeStream(s));
    assert_int_equal(dev_u32(sum), 42);
    OK(aclrtFree(sum));
    OK(aclrtDestroyStream(s));
}

/* ---- collectives ----------------------------------------------------------------------- */

static void collective_body(struct cu_rank *r)
{
    const uint64_t count = 1000;
    aclrtStream s = NULL, other = NULL;
    float *host = NULL;
    void *in = NULL, *out = NULL, *gathered = NULL;
    aclmdlRI g = NULL;
    size_t bytes = count * sizeof(float);

    CU_CHECK(r, aclrtCreateStream(&s) == ACL_SUCCESS && aclrtCreateStream(&other) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMallocHost((void **)&host, bytes * (size_t)r->n) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&in, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&out, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&gathered, bytes * (size_t)r->n, ACL_MEM_MALLOC_HUGE_FIRST) ==
                    ACL_SUCCESS);
    if (r->failures != 0)
        return;
    CU_CHECK(r, aclrtMemset(in, bytes, 0, bytes) == ACL_SUCCESS);
    /* A live call first, so the communicator's pairs have exchanged before the capture. */
    CU_CHECK(r, HcclAllReduce(in, out, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, r->comm, s) ==
                    HCCL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(s) == ACL_SUCCESS);
    for (uint64_t i = 0; i < count; i++)
        host[i] = 1.0f;
    CU_CHECK(r, aclrtMemcpy(in, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMemset(out, bytes, 0, bytes) == ACL_SUCCESS);

    CU_CHECK(r, aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) == ACL_SUCCESS);
    CU_CHECK(r, HcclAllReduce(in, out, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, r->comm, s) ==
                    HCCL_SUCCESS);
    CU_CHECK(r,
             HcclAllGather(in, gathered, count, HCCL_DATA_TYPE_FP32, r->comm, s) == HCCL_SUCCESS);
    CU_CHECK(r, aclmdlRICaptureEnd(s, &g) == ACL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(s) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMemcpy(host, bytes, out, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    CU_CHECK(r, host[0] == 0.0f); /* recorded, not run */

    for (int round = 1; round <= 4 && r->failures == 0; round++) {
        for (uint64_t i = 0; i < count; i++)
            host[i] = (float)(round * 1000 + r->rank * 10) + (float)(i % 7);
        CU_CHECK(r, aclrtMemcpy(in, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
        aclrtStream on = round == 3 ? other : s;
        CU_CHECK(r, aclmdlRIExecuteAsync(g, on) == ACL_SUCCESS);
        if (round == 2) /* a live call between two executions */
            CU_CHECK(r, HcclAllReduce(in, out, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, r->comm,
                                      on) == HCCL_SUCCESS);
        CU_CHECK(r, aclrtSynchronizeStream(on) == ACL_SUCCESS);
        CU_CHECK(r, aclrtMemcpy(host, bytes, out, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
        float ranks_sum = 0;
        for (int p = 0; p < r->n; p++)
            ranks_sum += (float)(round * 1000 + p * 10);
        for (uint64_t i = 0; i < count && r->failures == 0; i++)
            CU_CHECK(r, host[i] == ranks_sum + (float)r->n * (float)(i % 7));
        CU_CHECK(r, aclrtMemcpy(host, bytes * (size_t)r->n, gathered, bytes * (size_t)r->n,
                                ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
        for (int p = 0; p < r->n && r->failures == 0; p++)
            CU_CHECK(r, host[(size_t)p * count + 5] == (float)(round * 1000 + p * 10 + 5));
    }
    CU_CHECK(r, aclmdlRIDestroy(g) == ACL_SUCCESS);
    aclrtFree(in);
    aclrtFree(out);
    aclrtFree(gathered);
    aclrtFreeHost(host);
    aclrtDestroyStream(s);
    aclrtDestroyStream(other);
}

static void captured_collectives_replay_with_new_input_at_2_and_3_ranks(void **state)
{
    (void)state;
    for (int n = 2; n <= 3; n++) {
        struct cu_rank ranks[3];
        HcclRootInfo ri;

        memset(ranks, 0, sizeof(ranks));
        OK(aclrtSetDevice(0));
        assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
        cu_run_ranks(ranks, n, &ri, collective_body, NULL);
        for (int i = 0; i < n; i++) {
            assert_int_equal(ranks[i].init_rc, HCCL_SUCCESS);
            assert_int_equal(ranks[i].failures, 0);
            assert_int_equal(ranks[i].destroy_rc, HCCL_SUCCESS);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernel_launches_are_recorded_then_replayed_with_their_captured_args),
        cmocka_unit_test(copies_replay_with_the_bytes_their_addresses_hold_at_execution),
        cmocka_unit_test(events_fork_and_join_streams_into_one_graph),
        cmocka_unit_test(streams_added_to_a_capture_are_recorded_without_a_join),
        cmocka_unit_test(synchronous_calls_during_capture_get_the_runtime_codes),
        cmocka_unit_test(event_and_stream_misuse_gets_the_runtime_codes),
        cmocka_unit_test(destroy_waits_for_executions_and_runs_callbacks),
        cmocka_unit_test(captured_collectives_replay_with_new_input_at_2_and_3_ranks),
    };

    cu_job_begin(job, sizeof(job), "4", "1");
    setenv("HCEMU_HANG_MS", "30000", 0);
    return cu_job_end(
        job, cmocka_run_group_tests_name("graph_capture", tests, cu_acl_setup, cu_acl_teardown));
}
