/* test_runtime_devices.c - devices as the host thread sees them: count, set/get/reset per OS
 * thread, the SoC name, and eight host threads driving eight devices at once (allocating,
 * copying within and across devices, synchronising, checking bytes). */
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

#define NDEV 8
#define BUF (4u << 20)
#define ROUNDS 3

static char parent[RT_PATH];

static int group_setup(void **state)
{
    (void)state;
    /* The default device count is what the eight-thread test relies on. */
    unsetenv("HCEMU_DEVICES");
    return rt_group_open(parent, sizeof(parent), 0);
}

static int group_teardown(void **state)
{
    (void)state;
    return rt_group_close(parent, 0);
}

static void device_count_is_eight_by_default(void **state)
{
    (void)state;
    uint32_t n = 0;

    assert_int_equal(aclrtGetDeviceCount(&n), ACL_SUCCESS);
    assert_int_equal(n, NDEV);
    assert_int_equal(aclrtGetDeviceCount(NULL), ACL_ERROR_RT_PARAM_INVALID);
}

static void set_device_rejects_ids_outside_the_device_range(void **state)
{
    (void)state;
    assert_int_equal(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_int_equal(aclrtSetDevice(NDEV), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_int_equal(aclrtSetDevice(INT32_MAX), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_int_equal(aclrtResetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_int_equal(aclrtResetDevice(NDEV), ACL_ERROR_RT_INVALID_DEVICEID);
}

static void get_device_returns_the_device_set_on_this_thread(void **state)
{
    (void)state;
    int32_t dev = -1;

    assert_int_equal(aclrtGetDevice(NULL), ACL_ERROR_RT_PARAM_INVALID);
    assert_int_equal(aclrtSetDevice(3), ACL_SUCCESS);
    assert_int_equal(aclrtGetDevice(&dev), ACL_SUCCESS);
    assert_int_equal(dev, 3);
    assert_int_equal(aclrtSetDevice(2), ACL_SUCCESS);
    assert_int_equal(aclrtGetDevice(&dev), ACL_SUCCESS);
    assert_int_equal(dev, 2);
    assert_int_equal(aclrtResetDevice(2), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(3), ACL_SUCCESS);
}

static void *get_device_on_new_thread(void *arg)
{
    int32_t *out = arg;

    out[0] = aclrtGetDevice(&out[1]);
    if (aclrtSetDevice(5) == ACL_SUCCESS) {
        out[2] = aclrtGetDevice(&out[3]);
        out[4] = aclrtResetDevice(5);
    }
    return NULL;
}

static void the_current_device_belongs_to_the_os_thread(void **state)
{
    (void)state;
    pthread_t t;
    int32_t r[5] = {-1, -1, -1, -1, -1};
    int32_t mine = -1;

    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(pthread_create(&t, NULL, get_device_on_new_thread, r), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(r[0], ACL_ERROR_RT_CONTEXT_NULL);
    assert_int_equal(r[2], ACL_SUCCESS);
    assert_int_equal(r[3], 5);
    assert_int_equal(r[4], ACL_SUCCESS);
    /* The other thread's choice did not move ours. */
    assert_int_equal(aclrtGetDevice(&mine), ACL_SUCCESS);
    assert_int_equal(mine, 1);
    assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
}

static void reset_device_clears_the_current_device_and_waits_for_its_work(void **state)
{
    (void)state;
    int32_t dev;
    void *d, *h;

    assert_int_equal(aclrtSetDevice(4), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, BUF, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMallocHost(&h, BUF), ACL_SUCCESS);
    assert_int_equal(aclrtMemsetAsync(d, BUF, 0x66, BUF, NULL), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpyAsync(h, BUF, d, BUF, ACL_MEMCPY_DEVICE_TO_HOST, NULL),
                     ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(4), ACL_SUCCESS);
    /* The last reset waited for the queued work. */
    assert_true(rt_all_bytes(h, BUF, 0x66));
    assert_int_equal(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
    assert_int_equal(aclrtFreeHost(h), ACL_SUCCESS);
    /* The memory belongs to the device, not the thread: it can still be freed. */
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    /* And the device can be set again. */
    assert_int_equal(aclrtSetDevice(4), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
    assert_int_equal(aclrtResetDevice(4), ACL_SUCCESS);
}

static void soc_name_names_an_ascend950(void **state)
{
    (void)state;
    const char *soc = aclrtGetSocName();

    assert_non_null(soc);
    assert_non_null(strstr(soc, "Ascend950"));
}

/* ---- eight host threads, eight devices -------------------------------------------------- */

struct worker {
    int dev;
    pthread_barrier_t *barrier;
    void **bufs;      /* bufs[d]: device d's first buffer, shared for cross-device reads */
    char error[160];  /* first failure, empty when none (cmocka asserts only on main) */
};

#define CHECK(w, cond)                                                                         \
    do {                                                                                       \
        if (!(cond) && (w)->error[0] == '\0')                                                  \
            snprintf((w)->error, sizeof((w)->error), "dev %d line %d: %s", (w)->dev, __LINE__, \
                     #cond);                                                                   \
    } while (0)

static void worker_round(struct worker *w, int round, void *mine2, void *pin, aclrtStream s)
{
    int peer = (w->dev + 1) % NDEV;
    uint32_t seed = (uint32_t)(round * 100 + w->dev);
    uint32_t peer_seed = (uint32_t)(round * 100 + peer);

    if (pin == NULL) {
        /* Setup failed (already recorded): still meet both barriers of the round. */
        pthread_barrier_wait(w->barrier);
        pthread_barrier_wait(w->barrier);
        return;
    }
    /* Phase 1: fill our own buffer from pinned memory on our stream. */
    rt_fill(pin, BUF, seed);
    CHECK(w, aclrtMemcpyAsync(w->bufs[w->dev], BUF, pin, BUF, ACL_MEMCPY_HOST_TO_DEVICE, s) ==
                 ACL_SUCCESS);
    CHECK(w, aclrtSynchronizeStreamWithTimeout(s, 30000) == ACL_SUCCESS);
    pthread_barrier_wait(w->barrier);
    /* Phase 2: every device's buffer is filled; pull the neighbour's, device to device. */
    CHECK(w, aclrtMemcpyAsync(mine2, BUF, w->bufs[peer], BUF, ACL_MEMCPY_DEVICE_TO_DEVICE, s) ==
                 ACL_SUCCESS);
    CHECK(w, aclrtMemsetAsync(mine2, BUF, w->dev, 4096, s) == ACL_SUCCESS);
    memset(pin, 0, BUF);
    CHECK(w, aclrtMemcpyAsync(pin, BUF, mine2, BUF, ACL_MEMCPY_DEVICE_TO_HOST, s) == ACL_SUCCESS);
    CHECK(w, aclrtSynchronizeStreamWithTimeout(s, 30000) == ACL_SUCCESS);
    CHECK(w, rt_all_bytes(pin, 4096, (uint8_t)w->dev));
    uint8_t *expect = malloc(BUF);
    rt_fill(expect, BUF, peer_seed);
    CHECK(w, memcmp((uint8_t *)pin + 4096, expect + 4096, BUF - 4096) == 0);
    /* And a synchronous round trip of our own buffer. */
    CHECK(w, aclrtMemcpy(expect, BUF, w->bufs[w->dev], BUF, ACL_MEMCPY_DEVICE_TO_HOST) ==
                 ACL_SUCCESS);
    CHECK(w, rt_check(expect, BUF, seed) == -1);
    free(expect);
    /* Nobody overwrites a buffer a neighbour may still be reading. */
    pthread_barrier_wait(w->barrier);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    aclrtStream s = NULL;
    void *mine2 = NULL, *pin = NULL;

    CHECK(w, aclrtSetDevice(w->dev) == ACL_SUCCESS);
    CHECK(w, aclrtMalloc(&w->bufs[w->dev], BUF, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(w, aclrtMalloc(&mine2, BUF, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CHECK(w, aclrtMallocHost(&pin, BUF) == ACL_SUCCESS);
    CHECK(w, aclrtCreateStream(&s) == ACL_SUCCESS);
    pthread_barrier_wait(w->barrier);
    for (int r = 0; r < ROUNDS; r++)
        worker_round(w, r, mine2, pin, s);
    CHECK(w, aclrtDestroyStream(s) == ACL_SUCCESS);
    CHECK(w, aclrtFreeHost(pin) == ACL_SUCCESS);
    CHECK(w, aclrtFree(mine2) == ACL_SUCCESS);
    /* Wait until every neighbour is done reading before freeing the shared buffer. */
    pthread_barrier_wait(w->barrier);
    CHECK(w, aclrtFree(w->bufs[w->dev]) == ACL_SUCCESS);
    CHECK(w, aclrtResetDevice(w->dev) == ACL_SUCCESS);
    return NULL;
}

static void eight_host_threads_drive_eight_devices_at_once(void **state)
{
    (void)state;
    pthread_t t[NDEV];
    struct worker w[NDEV];
    void *bufs[NDEV] = {0};
    pthread_barrier_t barrier;

    /* A failing thread keeps meeting every barrier (CHECK records and carries on), so no
     * thread waits forever for it. */
    assert_int_equal(pthread_barrier_init(&barrier, NULL, NDEV), 0);
    for (int i = 0; i < NDEV; i++) {
        w[i] = (struct worker){.dev = i, .barrier = &barrier, .bufs = bufs};
        assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
    }
    for (int i = 0; i < NDEV; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    pthread_barrier_destroy(&barrier);
    for (int i = 0; i < NDEV; i++) {
        if (w[i].error[0] != '\0')
            fail_msg("%s", w[i].error);
    }
    /* One executor per device, all alive. */
    assert_int_equal(rt_executors(parent, -1, NULL, 0), NDEV);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_count_is_eight_by_default),
        cmocka_unit_test(set_device_rejects_ids_outside_the_device_range),
        cmocka_unit_test(get_device_returns_the_device_set_on_this_thread),
        cmocka_unit_test(the_current_device_belongs_to_the_os_thread),
        cmocka_unit_test(reset_device_clears_the_current_device_and_waits_for_its_work),
        cmocka_unit_test(soc_name_names_an_ascend950),
        cmocka_unit_test(eight_host_threads_drive_eight_devices_at_once),
    };
    return cmocka_run_group_tests_name("runtime_devices", tests, group_setup, group_teardown);
}
