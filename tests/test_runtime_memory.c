/* test_runtime_memory.c - device and pinned host memory through the ACL boundary:
 * aclrtMalloc/MallocWithCfg/Free, aclrtMallocHost/FreeHost, aclrtMemset(Async).
 *
 * Bytes are checked after a round trip through the device (the host never reads device
 * memory directly), and every refusal is checked for its exact aclError. */
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

/* Copy n bytes of device memory back to a fresh host buffer (caller frees). */
static uint8_t *read_back(const void *dev, size_t n)
{
    uint8_t *h = malloc(n);

    assert_non_null(h);
    assert_int_equal(aclrtMemcpy(h, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    return h;
}

/* ---- aclrtMalloc / aclrtFree ------------------------------------------------------------ */

static void malloc_returns_aligned_device_memory_that_holds_bytes(void **state)
{
    (void)state;
    void *p = NULL;
    uint8_t src[1000];

    assert_int_equal(aclrtMalloc(&p, sizeof(src), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 64, 0);
    rt_fill(src, sizeof(src), 1);
    assert_int_equal(aclrtMemcpy(p, sizeof(src), src, sizeof(src), ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_SUCCESS);
    uint8_t *back = read_back(p, sizeof(src));
    assert_int_equal(rt_check(back, sizeof(src), 1), -1);
    free(back);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

static void malloc_gives_distinct_buffers_that_do_not_overlap(void **state)
{
    (void)state;
    void *a, *b;

    assert_int_equal(aclrtMalloc(&a, 33, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&b, 33, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
    /* 33 bytes are rounded to a 32-byte multiple and 64-byte aligned: at least 64 apart. */
    uintptr_t lo = (uintptr_t)a < (uintptr_t)b ? (uintptr_t)a : (uintptr_t)b;
    uintptr_t hi = (uintptr_t)a < (uintptr_t)b ? (uintptr_t)b : (uintptr_t)a;
    assert_true(hi - lo >= 64);
    assert_int_equal(aclrtMemset(a, 33, 0x11, 33), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(b, 33, 0x22, 33), ACL_SUCCESS);
    uint8_t *ra = read_back(a, 33), *rb = read_back(b, 33);
    assert_true(rt_all_bytes(ra, 33, 0x11));
    assert_true(rt_all_bytes(rb, 33, 0x22));
    free(ra);
    free(rb);
    assert_int_equal(aclrtFree(a), ACL_SUCCESS);
    assert_int_equal(aclrtFree(b), ACL_SUCCESS);
}

static void malloc_accepts_every_documented_policy(void **state)
{
    (void)state;
    for (int policy = ACL_MEM_MALLOC_HUGE_FIRST; policy <= ACL_MEM_MALLOC_HUGE1G_ONLY_P2P;
         policy++) {
        void *p = NULL;
        assert_int_equal(aclrtMalloc(&p, 4096, (aclrtMemMallocPolicy)policy), ACL_SUCCESS);
        assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    }
}

static void malloc_rejects_a_null_out_pointer(void **state)
{
    (void)state;
    assert_int_equal(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_PARAM_INVALID);
}

static void malloc_rejects_size_zero(void **state)
{
    (void)state;
    void *p = (void *)0x1;

    assert_int_equal(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_PARAM_INVALID);
    assert_ptr_equal(p, (void *)0x1); /* a refused call leaves the output alone */
}

static void malloc_rejects_an_unknown_policy(void **state)
{
    (void)state;
    void *p;

    assert_int_equal(aclrtMalloc(&p, 64, (aclrtMemMallocPolicy)99), ACL_ERROR_RT_PARAM_INVALID);
    /* Bandwidth flags belong to aclrtMallocWithCfg only. */
    assert_int_equal(aclrtMalloc(&p, 64, (aclrtMemMallocPolicy)(ACL_MEM_TYPE_HIGH_BAND_WIDTH)),
                     ACL_ERROR_RT_PARAM_INVALID);
}

static void malloc_of_more_than_the_device_has_reports_out_of_memory(void **state)
{
    (void)state;
    void *p;

    assert_int_equal(aclrtMalloc(&p, (size_t)1 << 40, ACL_MEM_MALLOC_HUGE_FIRST),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
    assert_int_equal(aclrtMalloc(&p, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST),
                     ACL_ERROR_RT_MEMORY_ALLOCATION);
}

static void malloc_with_cfg_accepts_a_null_cfg_and_combined_flags(void **state)
{
    (void)state;
    void *p;
    aclrtMallocAttribute attr = {.attr = ACL_RT_MEM_ATTR_MODULE_ID, .value.moduleId = 3};
    aclrtMallocConfig cfg = {.attrs = &attr, .numAttrs = 1};
    aclrtMemMallocPolicy combined =
        (aclrtMemMallocPolicy)(ACL_MEM_TYPE_HIGH_BAND_WIDTH | ACL_MEM_MALLOC_HUGE_FIRST);

    assert_int_equal(aclrtMallocWithCfg(&p, 256, combined, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtMallocWithCfg(&p, 256, ACL_MEM_MALLOC_NORMAL_ONLY, &cfg), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

static void malloc_with_cfg_rejects_attributes_without_an_array(void **state)
{
    (void)state;
    void *p;
    aclrtMallocConfig cfg = {.attrs = NULL, .numAttrs = 2};

    assert_int_equal(aclrtMallocWithCfg(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST, &cfg),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMallocWithCfg(NULL, 256, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMallocWithCfg(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
}

static void free_rejects_null(void **state)
{
    (void)state;
    assert_int_equal(aclrtFree(NULL), ACL_ERROR_RT_PARAM_INVALID);
}

static void free_twice_reports_a_memory_free_error(void **state)
{
    (void)state;
    void *p;

    assert_int_equal(aclrtMalloc(&p, 128, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_ERROR_RT_MEMORY_FREE);
}

static void free_of_a_pointer_into_the_middle_of_a_buffer_is_refused(void **state)
{
    (void)state;
    void *p;

    assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree((uint8_t *)p + 64), ACL_ERROR_RT_MEMORY_FREE);
    /* The refused free left the buffer alive. */
    assert_int_equal(aclrtMemset(p, 4096, 1, 4096), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

static void free_of_host_memory_is_refused(void **state)
{
    (void)state;
    int on_stack = 0;
    void *heap = malloc(64);

    assert_int_equal(aclrtFree(&on_stack), ACL_ERROR_RT_MEMORY_FREE);
    assert_int_equal(aclrtFree(heap), ACL_ERROR_RT_MEMORY_FREE);
    free(heap);
}

static void free_of_memory_a_queued_task_uses_is_refused_until_the_stream_drains(void **state)
{
    (void)state;
    aclrtStream s;
    aclrtNotify n;
    void *p;

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    /* The stream parks on a notify nobody recorded yet, so the memset stays queued. */
    assert_int_equal(aclrtWaitAndResetNotify(n, s, 30), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(p, 4096, 0x5A, 4096, s), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_ERROR_RT_MEMORY_FREE);
    assert_int_equal(aclrtRecordNotify(n, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 10000), ACL_SUCCESS);
    uint8_t *back = read_back(p, 4096);
    assert_true(rt_all_bytes(back, 4096, 0x5A));
    free(back);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyNotify(n), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void freed_memory_is_no_longer_a_valid_copy_target(void **state)
{
    (void)state;
    void *p;
    uint8_t h[64] = {0};

    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(p, 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
}

static void *malloc_without_device(void *arg)
{
    void *p;

    *(aclError *)arg = aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);
    return NULL;
}

static void malloc_on_a_thread_without_a_device_reports_no_context(void **state)
{
    (void)state;
    pthread_t t;
    aclError rc = ACL_SUCCESS;

    /* The current device is per OS thread: a new thread has none. */
    assert_int_equal(pthread_create(&t, NULL, malloc_without_device, &rc), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(rc, ACL_ERROR_RT_CONTEXT_NULL);
}

/* ---- aclrtMallocHost / aclrtFreeHost ------------------------------------------------------ */

static void malloc_host_returns_aligned_writable_memory(void **state)
{
    (void)state;
    void *h[4];

    for (int i = 0; i < 4; i++) {
        assert_int_equal(aclrtMallocHost(&h[i], 1000 + (size_t)i), ACL_SUCCESS);
        assert_int_equal((uintptr_t)h[i] % 64, 0);
        rt_fill(h[i], 1000 + (size_t)i, (uint32_t)i);
    }
    /* Neighbours did not overwrite each other. */
    for (int i = 0; i < 4; i++) {
        assert_int_equal(rt_check(h[i], 1000 + (size_t)i, (uint32_t)i), -1);
        assert_int_equal(aclrtFreeHost(h[i]), ACL_SUCCESS);
    }
}

static void malloc_host_rejects_null_and_size_zero(void **state)
{
    (void)state;
    void *h;

    assert_int_equal(aclrtMallocHost(NULL, 64), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMallocHost(&h, 0), ACL_ERROR_RT_PARAM_INVALID);
}

static void free_host_rejects_null_foreign_and_double_free(void **state)
{
    (void)state;
    void *h, *heap = malloc(64);

    assert_int_equal(aclrtFreeHost(NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtFreeHost(heap), ACL_ERROR_RT_MEMORY_FREE);
    free(heap);
    assert_int_equal(aclrtMallocHost(&h, 64), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(h), ACL_ERROR_RT_MEMORY_FREE);
}

/* ---- aclrtMemset / aclrtMemsetAsync ----------------------------------------------------- */

static void memset_fills_device_bytes_and_stops_at_count(void **state)
{
    (void)state;
    void *p;

    assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(p, 4096, 0, 4096), ACL_SUCCESS);
    /* The value is a byte: 0x1234 sets 0x34. */
    assert_int_equal(aclrtMemset(p, 4096, 0x1234, 1000), ACL_SUCCESS);
    uint8_t *back = read_back(p, 4096);
    assert_true(rt_all_bytes(back, 1000, 0x34));
    assert_true(rt_all_bytes(back + 1000, 4096 - 1000, 0));
    free(back);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

static void memset_fills_pinned_host_memory(void **state)
{
    (void)state;
    void *h;

    assert_int_equal(aclrtMallocHost(&h, 512), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(h, 512, 0xEE, 512), ACL_SUCCESS);
    assert_true(rt_all_bytes(h, 512, 0xEE));
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
}

static void memset_rejects_bad_arguments(void **state)
{
    (void)state;
    void *p;
    uint8_t plain[64];

    assert_int_equal(aclrtMalloc(&p, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(NULL, 64, 0, 64), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemset(p, 100, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemset(p, 50, 0, 51), ACL_ERROR_RT_PARAM_INVALID);
    /* Past the 100 bytes asked for, even though the span is rounded up to 128. */
    assert_int_equal(aclrtMemset(p, 200, 0, 101), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemset((uint8_t *)p + 100, 8, 0, 8), ACL_ERROR_RT_PARAM_INVALID);
    /* Host memory must come from the ACL allocators. */
    assert_int_equal(aclrtMemset(plain, sizeof(plain), 0, sizeof(plain)),
                     ACL_ERROR_RT_PARAM_INVALID);
    /* An address in a device window that was never allocated. */
    assert_int_equal(aclrtMemset((uint8_t *)p + (1u << 30), 8, 0, 8), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

static void memset_async_fills_bytes_in_stream_order(void **state)
{
    (void)state;
    aclrtStream s;
    void *p;
    void *h;

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&h, 1 << 20), ACL_SUCCESS);
    /* Three tasks on one stream: the last one wins only if they run in order. */
    assert_int_equal(aclrtMemsetAsync(p, 1 << 20, 1, 1 << 20, s), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(p, 1 << 20, 2, 1 << 19, s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(h, 1 << 20, p, 1 << 20, ACL_MEMCPY_DEVICE_TO_HOST, s),
                     ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_true(rt_all_bytes(h, 1 << 19, 2));
    assert_true(rt_all_bytes((uint8_t *)h + (1 << 19), 1 << 19, 1));
    /* On the default stream (NULL) as well. */
    assert_int_equal(aclrtMemsetAsync(p, 1 << 20, 0xC3, 64, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    uint8_t *back = read_back(p, 64);
    assert_true(rt_all_bytes(back, 64, 0xC3));
    free(back);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void memset_async_on_pinned_host_memory_follows_earlier_work(void **state)
{
    (void)state;
    void *h;

    assert_int_equal(aclrtMallocHost(&h, 256), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(h, 256, 0x7F, 256, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    assert_true(rt_all_bytes(h, 256, 0x7F));
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
}

static void memset_async_rejects_bad_arguments_and_dead_streams(void **state)
{
    (void)state;
    aclrtStream s;
    void *p;
    int not_a_stream;

    assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(NULL, 64, 0, 64, NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemsetAsync(p, 64, 0, 0, NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemsetAsync(p, 64, 0, 65, NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemsetAsync(p, 128, 0, 128, NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemsetAsync(p, 64, 0, 64, &not_a_stream), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(p, 64, 0, 64, s), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(malloc_returns_aligned_device_memory_that_holds_bytes),
        cmocka_unit_test(malloc_gives_distinct_buffers_that_do_not_overlap),
        cmocka_unit_test(malloc_accepts_every_documented_policy),
        cmocka_unit_test(malloc_rejects_a_null_out_pointer),
        cmocka_unit_test(malloc_rejects_size_zero),
        cmocka_unit_test(malloc_rejects_an_unknown_policy),
        cmocka_unit_test(malloc_of_more_than_the_device_has_reports_out_of_memory),
        cmocka_unit_test(malloc_with_cfg_accepts_a_null_cfg_and_combined_flags),
        cmocka_unit_test(malloc_with_cfg_rejects_attributes_without_an_array),
        cmocka_unit_test(free_rejects_null),
        cmocka_unit_test(free_twice_reports_a_memory_free_error),
        cmocka_unit_test(free_of_a_pointer_into_the_middle_of_a_buffer_is_refused),
        cmocka_unit_test(free_of_host_memory_is_refused),
        cmocka_unit_test(free_of_memory_a_queued_task_uses_is_refused_until_the_stream_drains),
        cmocka_unit_test(freed_memory_is_no_longer_a_valid_copy_target),
        cmocka_unit_test(malloc_on_a_thread_without_a_device_reports_no_context),
        cmocka_unit_test(malloc_host_returns_aligned_writable_memory),
        cmocka_unit_test(malloc_host_rejects_null_and_size_zero),
        cmocka_unit_test(free_host_rejects_null_foreign_and_double_free),
        cmocka_unit_test(memset_fills_device_bytes_and_stops_at_count),
        cmocka_unit_test(memset_fills_pinned_host_memory),
        cmocka_unit_test(memset_rejects_bad_arguments),
        cmocka_unit_test(memset_async_fills_bytes_in_stream_order),
        cmocka_unit_test(memset_async_on_pinned_host_memory_follows_earlier_work),
        cmocka_unit_test(memset_async_rejects_bad_arguments_and_dead_streams),
    };
    return cmocka_run_group_tests_name("runtime_memory", tests, group_setup, group_teardown);
}
