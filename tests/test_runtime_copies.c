/* test_runtime_copies.c - aclrtMemcpy and aclrtMemcpyAsync: every copy kind, device to
 * device on one device and across devices, asynchronous copies with pinned host memory
 * (a stream task) and pageable memory (done before return), and every refusal.
 *
 * Two devices are open for the whole group; the host thread switches between them. */
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

#define N (256u * 1024u + 96u) /* not a page multiple, so partial pages are covered */

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

/* Each test starts on device 0. */
static int on_device0(void **state)
{
    (void)state;
    return aclrtSetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static void *dev_alloc(int dev, size_t n)
{
    void *p = NULL;

    assert_int_equal(aclrtSetDevice(dev), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    return p;
}

/* ---- synchronous copies ---------------------------------------------------------------- */

static void memcpy_host_to_device_and_back_keeps_every_byte(void **state)
{
    (void)state;
    uint8_t *src = malloc(N), *dst = calloc(1, N);
    void *d = dev_alloc(0, N);

    rt_fill(src, N, 7);
    assert_int_equal(aclrtMemcpy(d, N, src, N, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(dst, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(rt_check(dst, N, 7), -1);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    free(src);
    free(dst);
}

static void memcpy_host_to_host_copies_plain_memory(void **state)
{
    (void)state;
    uint8_t src[333], dst[333];

    rt_fill(src, sizeof(src), 3);
    assert_int_equal(aclrtMemcpy(dst, sizeof(dst), src, sizeof(src), ACL_MEMCPY_HOST_TO_HOST),
                     ACL_SUCCESS);
    assert_int_equal(rt_check(dst, sizeof(dst), 3), -1);
}

static void memcpy_device_to_device_on_one_device_copies_a_sub_range(void **state)
{
    (void)state;
    uint8_t *src = malloc(N), *back = malloc(N);
    void *a = dev_alloc(0, N), *b = dev_alloc(0, N);

    rt_fill(src, N, 11);
    assert_int_equal(aclrtMemcpy(a, N, src, N, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtMemset(b, N, 0, N), ACL_SUCCESS);
    /* Offsets on both sides: [100, 100 + 5000) of a lands at [7, 7 + 5000) of b. */
    assert_int_equal(aclrtMemcpy((uint8_t *)b + 7, N - 7, (uint8_t *)a + 100, 5000,
                                 ACL_MEMCPY_DEVICE_TO_DEVICE),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, N, b, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_true(rt_all_bytes(back, 7, 0));
    assert_memory_equal(back + 7, src + 100, 5000);
    assert_true(rt_all_bytes(back + 7 + 5000, N - 7 - 5000, 0));
    assert_int_equal(aclrtFree(a), ACL_SUCCESS);
    assert_int_equal(aclrtFree(b), ACL_SUCCESS);
    free(src);
    free(back);
}

static void memcpy_device_to_device_crosses_devices_in_both_directions(void **state)
{
    (void)state;
    uint8_t *src = malloc(N), *back = malloc(N);
    void *on0 = dev_alloc(0, N), *on1 = dev_alloc(1, N);

    rt_fill(src, N, 21);
    assert_int_equal(aclrtMemcpy(on0, N, src, N, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(on1, N, on0, N, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
    /* Read back from device 1 while device 1 is current, then copy home with the
     * INTER_DEVICE kind from device 0. */
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, N, on1, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(rt_check(back, N, 21), -1);
    assert_int_equal(aclrtMemset(on1, N, 0x42, 4096), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(on0, N, on1, 4096, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, N, on0, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_true(rt_all_bytes(back, 4096, 0x42));
    assert_memory_equal(back + 4096, src + 4096, N - 4096);
    assert_int_equal(aclrtFree(on0), ACL_SUCCESS);
    assert_int_equal(aclrtFree(on1), ACL_SUCCESS);
    free(src);
    free(back);
}

static void memcpy_infers_the_direction_from_the_addresses(void **state)
{
    (void)state;
    uint8_t src[4096], back[4096];
    void *d = dev_alloc(0, sizeof(src));

    /* ACL 1.17: the kind is informational; DEFAULT, a wrong kind and the staged kind all
     * copy in the direction the addresses say. */
    rt_fill(src, sizeof(src), 5);
    assert_int_equal(aclrtMemcpy(d, sizeof(src), src, sizeof(src), ACL_MEMCPY_DEFAULT),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, sizeof(back), d, sizeof(back), ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_SUCCESS);
    assert_int_equal(rt_check(back, sizeof(back), 5), -1);
    rt_fill(src, sizeof(src), 6);
    assert_int_equal(aclrtMemcpy(d, sizeof(src), src, sizeof(src),
                                 ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, sizeof(back), d, sizeof(back),
                                 ACL_MEMCPY_INNER_DEVICE_TO_DEVICE),
                     ACL_SUCCESS);
    assert_int_equal(rt_check(back, sizeof(back), 6), -1);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void memcpy_rejects_null_zero_count_and_count_above_dest_max(void **state)
{
    (void)state;
    uint8_t h[256];
    void *d = dev_alloc(0, 256);

    assert_int_equal(aclrtMemcpy(NULL, 256, h, 256, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemcpy(d, 256, NULL, 256, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemcpy(d, 256, h, 0, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemcpy(d, 128, h, 129, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemcpy(d, 256, h, 256, (aclrtMemcpyKind)42), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemcpy(d, 256, h, 256, (aclrtMemcpyKind)-1), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void memcpy_rejects_ranges_past_an_allocation(void **state)
{
    (void)state;
    uint8_t h[512];
    void *d = dev_alloc(0, 100);

    assert_int_equal(aclrtMemcpy(d, 512, h, 101, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemcpy(h, 512, (uint8_t *)d + 50, 51, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_ERROR_RT_PARAM_INVALID);
    /* Inside the rounded span (100 -> 128) but past the 100 bytes asked for. */
    assert_int_equal(aclrtMemcpy((uint8_t *)d + 104, 8, h, 8, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    /* A count that would wrap the address space. */
    assert_int_equal(aclrtMemcpy((uint8_t *)d + 1, SIZE_MAX, h, SIZE_MAX,
                                 ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    /* The last byte is fine. */
    assert_int_equal(aclrtMemcpy((uint8_t *)d + 99, 1, h, 1, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void memcpy_rejects_device_addresses_that_were_never_allocated(void **state)
{
    (void)state;
    uint8_t h[64];
    void *d = dev_alloc(0, 64);
    /* The same offset in device 1's window: a pointer "into the wrong device". */
    uint8_t *wrong = (uint8_t *)d + (64ull << 30);

    assert_int_equal(aclrtMemcpy(wrong, 64, h, 64, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemcpy(h, 64, (uint8_t *)d + (512u << 20), 64,
                                 ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_ERROR_RT_PARAM_INVALID);
    /* Device 40's window: past HCEMU_DEVICES. */
    assert_int_equal(aclrtMemcpy((uint8_t *)d + 40 * (64ull << 30), 64, h, 64,
                                 ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void memcpy_rejects_overlapping_source_and_destination(void **state)
{
    (void)state;
    void *d = dev_alloc(0, 4096);

    assert_int_equal(aclrtMemcpy((uint8_t *)d + 8, 4088, d, 1024, ACL_MEMCPY_DEVICE_TO_DEVICE),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

/* ---- asynchronous copies ---------------------------------------------------------------- */

static void memcpy_async_with_pinned_memory_runs_on_the_stream(void **state)
{
    (void)state;
    aclrtStream s;
    void *in, *out;
    void *d = dev_alloc(0, N);

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&in, N), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&out, N), ACL_SUCCESS);
    rt_fill(in, N, 31);
    memset(out, 0, N);
    assert_int_equal(aclrtMemcpyAsync(d, N, in, N, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(out, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(rt_check(out, N, 31), -1);
    assert_int_equal(aclrtFreeHost(in), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(out), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

static void memcpy_async_with_pageable_memory_is_done_on_return(void **state)
{
    (void)state;
    aclrtStream s;
    uint8_t *in = malloc(N), *out = calloc(1, N);
    void *d = dev_alloc(0, N);

    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    rt_fill(in, N, 41);
    /* A queued memset must land first: pageable copies wait for earlier work. */
    assert_int_equal(aclrtMemsetAsync(d, N, 0, N, s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(d, N, in, N, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
    /* The host buffer may be reused at once. */
    memset(in, 0xFF, N);
    assert_int_equal(aclrtMemcpyAsync(out, N, d, N, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
    assert_int_equal(rt_check(out, N, 41), -1);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    free(in);
    free(out);
}

static void memcpy_async_device_to_device_crosses_devices_on_a_stream(void **state)
{
    (void)state;
    aclrtStream s;
    void *h;
    void *on0 = dev_alloc(0, N), *on1 = dev_alloc(1, N);

    assert_int_equal(aclrtMallocHost(&h, N), ACL_SUCCESS);
    rt_fill(h, N, 51);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(on0, N, h, N, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(on1, N, on0, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(on0, N, 0, N, s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(on0, N, on1, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(h, N, 0, N, s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(h, N, on0, N, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
    assert_int_equal(rt_check(h, N, 51), -1);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtFree(on0), ACL_SUCCESS);
    assert_int_equal(aclrtFree(on1), ACL_SUCCESS);
}

static void memcpy_async_of_host_to_host_is_not_supported(void **state)
{
    (void)state;
    uint8_t a[64], b[64] = {0};

    assert_int_equal(aclrtMemcpyAsync(a, 64, b, 64, ACL_MEMCPY_HOST_TO_HOST, NULL),
                     ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
}

static void memcpy_async_rejects_bad_arguments_and_unknown_streams(void **state)
{
    (void)state;
    void *h;
    void *d = dev_alloc(0, 256);
    aclrtStream s;
    long junk = 0;

    assert_int_equal(aclrtMallocHost(&h, 256), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(NULL, 256, h, 256, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemcpyAsync(d, 256, h, 0, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemcpyAsync(d, 100, h, 200, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemcpyAsync(d, 512, h, 257, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
                     ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtMemcpyAsync(d, 256, h, 256, ACL_MEMCPY_HOST_TO_DEVICE, &junk),
                     ACL_ERROR_RT_STREAM_CONTEXT);
    assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(d, 256, h, 256, ACL_MEMCPY_HOST_TO_DEVICE, s),
                     ACL_ERROR_RT_STREAM_CONTEXT);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void memcpy_async_from_a_small_pinned_block_copies_exactly_its_bytes(void **state)
{
    (void)state;
    void *h;
    void *d = dev_alloc(0, 4096);

    /* Pinned blocks are carved from one shared file: an odd size checks the executor's
     * translation of the block's offset and length. */
    assert_int_equal(aclrtMallocHost(&h, 1000), ACL_SUCCESS);
    rt_fill(h, 1000, 61);
    assert_int_equal(aclrtMemcpyAsync(d, 4096, h, 1000, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
                     ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
    uint8_t back[1000];
    assert_int_equal(aclrtMemcpy(back, 1000, d, 1000, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_int_equal(rt_check(back, 1000, 61), -1);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(memcpy_host_to_device_and_back_keeps_every_byte, on_device0),
        cmocka_unit_test_setup(memcpy_host_to_host_copies_plain_memory, on_device0),
        cmocka_unit_test_setup(memcpy_device_to_device_on_one_device_copies_a_sub_range,
                               on_device0),
        cmocka_unit_test_setup(memcpy_device_to_device_crosses_devices_in_both_directions,
                               on_device0),
        cmocka_unit_test_setup(memcpy_infers_the_direction_from_the_addresses, on_device0),
        cmocka_unit_test_setup(memcpy_rejects_null_zero_count_and_count_above_dest_max,
                               on_device0),
        cmocka_unit_test_setup(memcpy_rejects_ranges_past_an_allocation, on_device0),
        cmocka_unit_test_setup(memcpy_rejects_device_addresses_that_were_never_allocated,
                               on_device0),
        cmocka_unit_test_setup(memcpy_rejects_overlapping_source_and_destination, on_device0),
        cmocka_unit_test_setup(memcpy_async_with_pinned_memory_runs_on_the_stream, on_device0),
        cmocka_unit_test_setup(memcpy_async_with_pageable_memory_is_done_on_return, on_device0),
        cmocka_unit_test_setup(memcpy_async_device_to_device_crosses_devices_on_a_stream,
                               on_device0),
        cmocka_unit_test_setup(memcpy_async_of_host_to_host_is_not_supported, on_device0),
        cmocka_unit_test_setup(memcpy_async_rejects_bad_arguments_and_unknown_streams,
                               on_device0),
        cmocka_unit_test_setup(memcpy_async_from_a_small_pinned_block_copies_exactly_its_bytes,
                               on_device0),
    };
    return cmocka_run_group_tests_name("runtime_copies", tests, group_setup, group_teardown);
}
