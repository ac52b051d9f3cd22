/* test_runtime_events.c - ACL events (record, stream wait, host sync; within a device, across
 * streams and across devices) and ACL notifies (record, wait-and-reset, timeouts, ids).
 *
 * Ordering is made deterministic by holding the recording stream on a notify nobody has
 * recorded yet: the waiting side is queued first, then the recorder is released. */
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

#define LEN (1u << 20)

static char parent[RT_PATH];

static int group_setup(void **state)
{
    (void)state;
    return rt_group_open(parent, sizeof(parent), 2);
}

static int group_teardown(void **state)
{
    (void)state;
    return rt_group_close(parent, 2);
}

static int on_device0(void **state)
{
    (void)state;
    return aclrtSetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

/* ---- events -------------------------------------------------------------------------------- */

static void create_event_rejects_null_and_destroy_rejects_dead_events(void **state)
{
    (void)state;
    aclrtEvent e;
    int junk;

    assert_int_equal(aclrtCreateEvent(NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtDestroyEvent(NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtDestroyEvent(&junk), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_non_null(e);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtRecordEvent(e, NULL), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtStreamWaitEvent(NULL, e), ACL_ERROR_RT_INVALID_HANDLE);
}

static void event_calls_reject_null_events_and_dead_streams(void **state)
{
    (void)state;
    aclrtEvent e;
    aclrtStream s;

    assert_int_equal(aclrtRecordEvent(NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtStreamWaitEvent(NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtSynchronizeEvent(NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, s), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_int_equal(aclrtStreamWaitEvent(s, e), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
}

static void an_event_never_recorded_is_already_complete(void **state)
{
    (void)state;
    aclrtEvent e;

    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
    /* Waiting on it queues nothing: the stream is not held. */
    assert_int_equal(aclrtStreamWaitEvent(NULL, e), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(NULL, 10000), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
}

static void synchronize_event_waits_for_the_work_queued_before_the_record(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtEvent e;
    aclrtNotify gate;
    void *d, *h;

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&gate, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, LEN, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&h, LEN), ACL_SUCCESS);
    memset(h, 0, LEN);
    assert_int_equal(aclrtWaitAndResetNotify(gate, s, 60), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, LEN, 0xA5, LEN, s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(h, LEN, d, LEN, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, s), ACL_SUCCESS);
    /* Held: nothing before the record has run. */
    assert_true(rt_all_bytes(h, LEN, 0));
    assert_int_equal(aclrtRecordNotify(gate, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
    assert_true(rt_all_bytes(h, LEN, 0xA5));
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(gate), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

/* Producer on stream `ps` (device pdev) fills `src` after a gate; consumer stream `cs`
 * waits on the event, then copies src -> host. The consumer is queued before the producer
 * is released, so only the event orders them. */
static void event_orders(int pdev, int cdev)
{
    aclrtStream ps, cs;
    aclrtEvent e;
    aclrtNotify gate;
    void *src, *h;

    assert_int_equal(aclrtSetDevice(pdev), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&ps), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&gate, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&src, LEN, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(src, LEN, 0, LEN), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&h, LEN), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(gate, ps, 60), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(src, LEN, 0x5C, LEN, ps), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, ps), ACL_SUCCESS);

    assert_int_equal(aclrtSetDevice(cdev), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&cs), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(cs, e), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(h, LEN, src, LEN, ACL_MEMCPY_DEVICE_TO_HOST, cs),
                     ACL_SUCCESS);
    /* Give the consumer time to reach (and park on) the wait before releasing. */
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(cs, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);

    assert_int_equal(aclrtSetDevice(pdev), ACL_SUCCESS);
    assert_int_equal(aclrtRecordNotify(gate, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(cdev), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(cs, 10000), ACL_SUCCESS);
    assert_true(rt_all_bytes(h, LEN, 0x5C));
    assert_int_equal(aclrtDestroyStream(cs), ACL_SUCCESS);

    assert_int_equal(aclrtSetDevice(pdev), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(ps, 10000), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtFree(src), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(gate), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(ps), ACL_SUCCESS);
}

static void stream_wait_event_orders_two_streams_of_one_device(void **state)
{
    (void)state;
    event_orders(0, 0);
}

static void stream_wait_event_orders_streams_of_two_devices(void **state)
{
    (void)state;
    event_orders(0, 1);
}

static void a_later_record_moves_the_event_forward(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtEvent e;
    aclrtNotify gate;

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&gate, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
    /* The second record captures the held work: a stream waiting on the event now waits
     * for the gate too. */
    assert_int_equal(aclrtWaitAndResetNotify(gate, s, 60), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, s), ACL_SUCCESS);
    assert_int_equal(aclrtStreamWaitEvent(NULL, e), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(NULL, 50),
                     ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    aclrtStream other;
    assert_int_equal(aclrtCreateStream(&other), ACL_SUCCESS);
    assert_int_equal(aclrtRecordNotify(gate, other), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(NULL, 10000), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(other), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(gate), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void destroying_an_event_before_it_completes_is_allowed(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtEvent e;
    aclrtNotify gate;

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&gate, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(gate, s, 60), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(e, s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
    assert_int_equal(aclrtRecordNotify(gate, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 10000), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(gate), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

/* ---- notifies ------------------------------------------------------------------------------ */

static void create_notify_rejects_null_and_unknown_flags(void **state)
{
    (void)state;
    aclrtNotify n;

    assert_int_equal(aclrtCreateNotify(NULL, ACL_NOTIFY_DEFAULT), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtCreateNotify(&n, 0x80), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEVICE_USE_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
}

static void notify_ids_are_distinct_and_checked(void **state)
{
    (void)state;
    aclrtNotify a, b;
    uint32_t ia = 0, ib = 0;
    int junk;

    assert_int_equal(aclrtCreateNotify(&a, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&b, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtGetNotifyId(a, &ia), ACL_SUCCESS);
    assert_int_equal(aclrtGetNotifyId(b, &ib), ACL_SUCCESS);
    assert_int_not_equal(ia, ib);
    assert_int_equal(aclrtGetNotifyId(a, NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtGetNotifyId(NULL, &ia), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtGetNotifyId(&junk, &ia), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtDestroyNotify(a), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(b), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(a), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtDestroyNotify(NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtRecordNotify(b, NULL), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtWaitAndResetNotify(b, NULL, 1), ACL_ERROR_RT_INVALID_HANDLE);
    assert_int_equal(aclrtRecordNotify(NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtWaitAndResetNotify(NULL, NULL, 1), ACL_ERROR_RT_PARAM_INVALID);
}

static void a_recorded_notify_releases_one_wait_and_is_reset(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtNotify n;

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    /* Record first, wait later: the wait finds it set. */
    assert_int_equal(aclrtRecordNotify(n, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 10), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 10000), ACL_SUCCESS);
    /* The wait reset it: a second wait is held until a new record. */
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 60), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 50), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    assert_int_equal(aclrtRecordNotify(n, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 10000), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void a_notify_wait_that_times_out_fails_the_stream_at_sync(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtNotify n;

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    uint64_t t0 = rt_now_ms();
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 1), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 20000), ACL_ERROR_RT_TASK_TIMEOUT);
    assert_in_range(rt_now_ms() - t0, 900, 15000);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void two_records_before_a_wait_count_once(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtNotify n;

    /* Notifies are binary: the second record is absorbed (a warning says so). */
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtRecordNotify(n, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtRecordNotify(n, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 10), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 10000), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 1), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 20000), ACL_ERROR_RT_TASK_TIMEOUT);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void a_notify_of_one_device_cannot_be_waited_on_by_another(void **state)
{
    (void)state;
    aclrtNotify n;

    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, NULL, 1), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
}

static void a_notify_recorded_from_another_device_releases_the_wait(void **state)
{
    (void)state;
    aclrtStream s0, s1;
    aclrtNotify n;

    assert_int_equal(aclrtCreateStream(&s0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtWaitAndResetNotify(n, s0, 60), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s1), ACL_SUCCESS);
    assert_int_equal(aclrtRecordNotify(n, s1), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s1, 10000), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s1), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s0, 10000), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s0), ACL_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(create_event_rejects_null_and_destroy_rejects_dead_events,
                               on_device0),
        cmocka_unit_test_setup(event_calls_reject_null_events_and_dead_streams, on_device0),
        cmocka_unit_test_setup(an_event_never_recorded_is_already_complete, on_device0),
        cmocka_unit_test_setup(synchronize_event_waits_for_the_work_queued_before_the_record,
                               on_device0),
        cmocka_unit_test_setup(stream_wait_event_orders_two_streams_of_one_device, on_device0),
        cmocka_unit_test_setup(stream_wait_event_orders_streams_of_two_devices, on_device0),
        cmocka_unit_test_setup(a_later_record_moves_the_event_forward, on_device0),
        cmocka_unit_test_setup(destroying_an_event_before_it_completes_is_allowed, on_device0),
        cmocka_unit_test_setup(create_notify_rejects_null_and_unknown_flags, on_device0),
        cmocka_unit_test_setup(notify_ids_are_distinct_and_checked, on_device0),
        cmocka_unit_test_setup(a_recorded_notify_releases_one_wait_and_is_reset, on_device0),
        cmocka_unit_test_setup(a_notify_wait_that_times_out_fails_the_stream_at_sync,
                               on_device0),
        cmocka_unit_test_setup(two_records_before_a_wait_count_once, on_device0),
        cmocka_unit_test_setup(a_notify_of_one_device_cannot_be_waited_on_by_another,
                               on_device0),
        cmocka_unit_test_setup(a_notify_recorded_from_another_device_releases_the_wait,
                               on_device0),
    };
    return cmocka_run_group_tests_name("runtime_events", tests, group_setup, group_teardown);
}
