/* test_runtime_streams.c - streams on the device's TS scheduler: create/destroy, in-order
 * execution, concurrency between streams, synchronisation (with and without a timeout, per
 * stream and per device), the error state of a stream whose task failed, and the
 * per-thread last error and recent error message.
 *
 * A stream is held back deterministically by a notify wait that nobody has recorded yet;
 * recording it releases the stream. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <acl/acl.h>

#include "rt_support.h"

#define BIG (8u << 20)

static char parent[RT_PATH];

static int group_setup(void **state)
{
    (void)state;
    return rt_group_open(parent, sizeof(parent), 1);
}

static int group_teardown(void **state)
{
    (void)state;
    return rt_group_close(parent, 1);
}

/* Each test starts with a clean last error. */
static int clear_errors(void **state)
{
    (void)state;
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    (void)aclGetRecentErrMsg();
    return 0;
}

static void create_stream_gives_distinct_live_streams(void **state)
{
    (void)state;
    aclrtStream s[16];

    for (int i = 0; i < 16; i++) {
        assert_int_equal(aclrtCreateStream(&s[i]), ACL_SUCCESS);
        assert_non_null(s[i]);
        for (int j = 0; j < i; j++)
            assert_ptr_not_equal(s[i], s[j]);
    }
    for (int i = 0; i < 16; i++) {
        assert_int_equal(aclrtSynchronizeStream(s[i]), ACL_SUCCESS);
        assert_int_equal(aclrtDestroyStream(s[i]), ACL_SUCCESS);
    }
}

static void create_stream_rejects_a_null_out_pointer(void **state)
{
    (void)state;
    assert_int_equal(aclrtCreateStream(NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtCreateStreamWithConfig(NULL, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
}

static void create_stream_with_config_accepts_documented_flags_only(void **state)
{
    (void)state;
    aclrtStream s;

    assert_int_equal(aclrtCreateStreamWithConfig(&s, 3, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_HUGE),
                     ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStreamWithConfig(&s, 0, 0x40), ACL_ERROR_RT_PARAM_INVALID);
}

static void destroy_stream_rejects_null_unknown_and_destroyed_streams(void **state)
{
    (void)state;
    aclrtStream s;
    int junk;

    assert_int_equal(aclrtDestroyStream(NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtDestroyStream(&junk), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_STREAM_CONTEXT);
}

static void tasks_of_one_stream_run_in_submission_order(void **state)
{
    (void)state;
    aclrtStream s;
    void *d, *h;

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&h, 4096), ACL_SUCCESS);
    /* 200 memsets of growing value over shrinking prefixes: in order, byte i ends up as the
     * value of the last memset that covered it. */
    for (int v = 1; v <= 200; v++)
        assert_int_equal(aclrtMemsetAsync(d, 4096, v, (size_t)(4096 - v * 20), s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(h, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST, s),
                     ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    const uint8_t *b = h;
    for (int i = 0; i < 4096 - 20; i++) {
        int last = (4096 - i - 1) / 20; /* largest v with i < 4096 - 20 v */
        assert_int_equal(b[i], last > 200 ? 200 : last);
    }
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void a_held_stream_does_not_block_another_stream(void **state)
{
    (void)state;
    aclrtStream held, free_s;
    aclrtNotify n;
    void *d;

    assert_int_equal(aclrtCreateStream(&held), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&free_s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, held, 60), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, 4096, 9, 4096, free_s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(free_s, 10000), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(held, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    assert_int_equal(aclrtRecordNotify(n, free_s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(held, 10000), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(held), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(free_s), ACL_SUCCESS);
}

static void synchronize_with_timeout_expires_with_sync_timeout_and_can_retry(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtNotify n;

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 60), ACL_SUCCESS);
    uint64_t t0 = rt_now_ms();
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 100), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    uint64_t took = rt_now_ms() - t0;
    assert_in_range(took, 90, 5000);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 0), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    /* A timed-out sync leaves the stream usable: release it and sync again. */
    assert_int_equal(aclrtRecordNotify(n, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, -1), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void synchronize_with_timeout_rejects_timeouts_below_minus_one(void **state)
{
    (void)state;
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(NULL, -2), ACL_ERROR_RT_PARAM_INVALID);
}

static void a_failed_task_discards_the_rest_of_its_stream_and_sync_returns_its_error(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtNotify n;
    void *d;
    uint8_t back[4096];

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(d, 4096, 0, 4096), ACL_SUCCESS);
    /* A wait of 1 s that nobody records fails with a task timeout; the memset behind it is
     * discarded. */
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 1), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, 4096, 0x77, 4096, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 20000), ACL_ERROR_RT_TASK_TIMEOUT);
    assert_int_equal(aclrtMemcpy(back, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_true(rt_all_bytes(back, 4096, 0));
    /* The error was reported once; the stream takes work again. */
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, 4096, 0x78, 4096, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, 4096, d, 4096, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_true(rt_all_bytes(back, 4096, 0x78));
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void synchronize_device_waits_for_every_stream(void **state)
{
    (void)state;
    aclrtStream s[3];
    void *d[3], *h[3];

    for (int i = 0; i < 3; i++) {
        assert_int_equal(aclrtCreateStream(&s[i]), ACL_SUCCESS);
        assert_int_equal(aclrtMalloc(&d[i], BIG, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        assert_int_equal(aclrtMallocHost(&h[i], BIG), ACL_SUCCESS);
        assert_int_equal(aclrtMemsetAsync(d[i], BIG, 0x10 + i, BIG, s[i]), ACL_SUCCESS);
        assert_int_equal(aclrtMemcpyAsync(h[i], BIG, d[i], BIG, ACL_MEMCPY_DEVICE_TO_HOST, s[i]),
                         ACL_SUCCESS);
    }
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    for (int i = 0; i < 3; i++) {
        assert_true(rt_all_bytes(h[i], BIG, (uint8_t)(0x10 + i)));
        assert_int_equal(aclrtFreeHost(h[i]), ACL_SUCCESS);
        assert_int_equal(aclrtFree(d[i]), ACL_SUCCESS);
        assert_int_equal(aclrtDestroyStream(s[i]), ACL_SUCCESS);
    }
}

static void destroy_stream_waits_for_its_queued_work(void **state)
{
    (void)state;
    aclrtStream s;
    void *d, *h;

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, BIG, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&h, BIG), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, BIG, 0x3C, BIG, s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(h, BIG, d, BIG, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_true(rt_all_bytes(h, BIG, 0x3C));
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void *sync_default_without_device(void *arg)
{
    aclError *rc = arg;

    rc[0] = aclrtSynchronizeStream(NULL);
    rc[1] = aclrtSynchronizeDevice();
    rc[2] = aclrtCreateStream(&(aclrtStream){NULL});
    return NULL;
}

static void the_default_stream_needs_a_device_on_the_calling_thread(void **state)
{
    (void)state;
    pthread_t t;
    aclError rc[3] = {0, 0, 0};

    assert_int_equal(pthread_create(&t, NULL, sync_default_without_device, rc), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(rc[0], ACL_ERROR_RT_CONTEXT_NULL);
    assert_int_equal(rc[1], ACL_ERROR_RT_CONTEXT_NULL);
    assert_int_equal(rc[2], ACL_ERROR_RT_CONTEXT_NULL);
}

/* ---- last error and recent message -------------------------------------------------------- */

static void last_error_keeps_the_latest_failure_until_read(void **state)
{
    (void)state;
    void *p;

    assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtFree(NULL), ACL_ERROR_RT_PARAM_INVALID);
    /* A success afterwards does not clear it. */
    assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    /* The latest failure wins. */
    assert_int_equal(aclrtSetDevice(100), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
}

static void last_error_rejects_an_unknown_level(void **state)
{
    (void)state;
    assert_int_equal(aclrtGetLastError((aclrtLastErrLevel)1), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtPeekAtLastError((aclrtLastErrLevel)7), ACL_ERROR_RT_PARAM_INVALID);
}

static void *peek_other_thread(void *arg)
{
    *(aclError *)arg = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
    return NULL;
}

static void last_error_belongs_to_the_thread_that_failed(void **state)
{
    (void)state;
    pthread_t t;
    aclError seen = -1;

    assert_int_equal(aclrtFree(NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(pthread_create(&t, NULL, peek_other_thread, &seen), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(seen, ACL_SUCCESS);
    assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
}

static void an_asynchronous_failure_becomes_the_last_error_at_sync(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtNotify n;

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 1), ACL_SUCCESS);
    assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 20000), ACL_ERROR_RT_TASK_TIMEOUT);
    assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_TASK_TIMEOUT);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void recent_error_message_describes_the_failure_once(void **state)
{
    (void)state;
    void *p;

    assert_null(aclGetRecentErrMsg());
    assert_int_equal(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_PARAM_INVALID);
    const char *msg = aclGetRecentErrMsg();
    assert_non_null(msg);
    assert_non_null(strstr(msg, "aclrtMalloc"));
    assert_non_null(strstr(msg, "size"));
    /* Read and cleared. */
    assert_null(aclGetRecentErrMsg());
    assert_int_equal(aclrtDestroyStream((aclrtStream)&p), ACL_ERROR_RT_STREAM_CONTEXT);
    msg = aclGetRecentErrMsg();
    assert_non_null(msg);
    assert_non_null(strstr(msg, "stream"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(create_stream_gives_distinct_live_streams, clear_errors),
        cmocka_unit_test_setup(create_stream_rejects_a_null_out_pointer, clear_errors),
        cmocka_unit_test_setup(create_stream_with_config_accepts_documented_flags_only,
                               clear_errors),
        cmocka_unit_test_setup(destroy_stream_rejects_null_unknown_and_destroyed_streams,
                               clear_errors),
        cmocka_unit_test_setup(tasks_of_one_stream_run_in_submission_order, clear_errors),
        cmocka_unit_test_setup(a_held_stream_does_not_block_another_stream, clear_errors),
        cmocka_unit_test_setup(synchronize_with_timeout_expires_with_sync_timeout_and_can_retry,
                               clear_errors),
        cmocka_unit_test_setup(synchronize_with_timeout_rejects_timeouts_below_minus_one,
                               clear_errors),
        cmocka_unit_test_setup(
            a_failed_task_discards_the_rest_of_its_stream_and_sync_returns_its_error,
            clear_errors),
        cmocka_unit_test_setup(synchronize_device_waits_for_every_stream, clear_errors),
        cmocka_unit_test_setup(destroy_stream_waits_for_its_queued_work, clear_errors),
        cmocka_unit_test_setup(the_default_stream_needs_a_device_on_the_calling_thread,
                               clear_errors),
        cmocka_unit_test_setup(last_error_keeps_the_latest_failure_until_read, clear_errors),
        cmocka_unit_test_setup(last_error_rejects_an_unknown_level, clear_errors),
        cmocka_unit_test_setup(last_error_belongs_to_the_thread_that_failed, clear_errors),
        cmocka_unit_test_setup(an_asynchronous_failure_becomes_the_last_error_at_sync,
                               clear_errors),
        cmocka_unit_test_setup(recent_error_message_describes_the_failure_once, clear_errors),
    };
    return cmocka_run_group_tests_name("runtime_streams", tests, group_setup, group_teardown);
}
