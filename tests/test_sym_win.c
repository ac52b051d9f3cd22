/* test_sym_win.c - symmetric windows on ranks as threads: HcclCommSymWinRegister on every
 * rank, HcclCommSymWinGet's handle and offset (and its quiet "not found"), the device-side
 * HcclSymWinGetPeerPointer from a kernel whose pointer a one-sided write on a channel accepts
 * and whose bytes the peer then finds in its window, every refusal with its code and its one
 * line, windows released with their communicator, and the products without windows
 * (TEST_SYMWIN_SOC, tests/sym_win.cmake). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hccl_res.h>
#include <hccl/hccl_sym_win.h>
#include <hcomm/hcomm_primitives.h>

#include "kernels/symwin_params.h"
#include "test_comm_util.h"

#define WIN (256u * 1024u) /* bytes of each rank's window */
#define LEN 4096u          /* bytes each rank writes into the next rank's window */
#define MAXR 4

static char job[256];
static aclrtFuncHandle put_fn;
static void *bases[MAXR]; /* each rank's window, for the peer pointers' expected values */

static uint8_t pat(int rank, uint32_t i)
{
    return (uint8_t)(rank * 37 + i * 7 + 1);
}

static void check_lines(struct cu_rank *r, const struct cu_capture *cap, HcclResult rc,
                        HcclResult want, const char *needle, int line)
{
    bool ok = rc == want &&
              (needle == NULL ? cap->errors == 0 : cap->errors == 1 && strstr(cap->text, needle));

    if (!ok)
        fprintf(stderr, "line %d: got %d (want %d), %d error lines (want %d with \"%s\"):\n%s\n",
                line, (int)rc, (int)want, cap->errors, needle != NULL, needle ? needle : "",
                cap->text);
    CU_CHECK(r, ok);
}

/* One call made with stderr captured: its code, and exactly one error line naming `needle`
 * (none when needle is NULL). Only one rank calls it while the others wait at a barrier. */
#define ONE_LINE(r, call, want, needle)                                                            \
    do {                                                                                           \
        struct cu_capture cap_;                                                                    \
        cu_capture_begin(&cap_);                                                                   \
        HcclResult rc_ = (call);                                                                   \
        cu_capture_end(&cap_);                                                                     \
        check_lines((r), &cap_, rc_, (want), (needle), __LINE__);                                  \
    } while (0)

static void *dev_alloc(struct cu_rank *r, size_t n)
{
    void *p = NULL;

    CU_CHECK(r, aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMemset(p, n, 0, n) == ACL_SUCCESS);
    return p;
}

/* ---- lookups -------------------------------------------------------------------------- */

static void lookups(struct cu_rank *r)
{
    uint8_t *win = dev_alloc(r, WIN), *other = dev_alloc(r, 4096);
    HcclCommSymWindow h = NULL, g = NULL;
    size_t off = 99;

    CU_CHECK(r, HcclCommSymWinRegister(r->comm, win, WIN, &h, 1) == HCCL_SUCCESS && h != NULL);
    CU_CHECK(r, HcclCommSymWinGet(r->comm, win + 100, 50, &g, &off) == HCCL_SUCCESS);
    CU_CHECK(r, g == h && off == 100);
    CU_CHECK(r, HcclCommSymWinGet(r->comm, win, WIN, &g, &off) == HCCL_SUCCESS);
    CU_CHECK(r, g == h && off == 0);
    CU_CHECK(r, HcclCommSymWinGet(r->comm, win + WIN - 8, 8, &g, &off) == HCCL_SUCCESS);
    CU_CHECK(r, g == h && off == WIN - 8);
    cu_barrier_wait();
    if (r->rank == 0) { /* ranges in no window: NOT_FOUND, handle NULL, offset 0, no line */
        ONE_LINE(r, HcclCommSymWinGet(r->comm, win + WIN - 1, 2, &g, &off), HCCL_E_NOT_FOUND, NULL);
        CU_CHECK(r, g == NULL && off == 0);
        ONE_LINE(r, HcclCommSymWinGet(r->comm, other, 16, &g, &off), HCCL_E_NOT_FOUND, NULL);
        ONE_LINE(r, HcclCommSymWinGet(r->comm, &off, 8, &g, &off), HCCL_E_NOT_FOUND, NULL);
        ONE_LINE(r, HcclCommSymWinGet(r->comm, NULL, 8, &g, &off), HCCL_E_NOT_FOUND, NULL);
    }
    cu_barrier_wait();
    CU_CHECK(r, HcclCommSymWinDeregister(h) == HCCL_SUCCESS);
    g = h;
    CU_CHECK(r, HcclCommSymWinGet(r->comm, win, 16, &g, &off) == HCCL_E_NOT_FOUND && g == NULL);
    cu_barrier_wait();
    if (r->rank == 0)
        ONE_LINE(r, HcclCommSymWinDeregister(h), HCCL_E_PARA, "not a symmetric window");
    cu_barrier_wait();
    /* A second window on the same range, after the first is gone. */
    CU_CHECK(r, HcclCommSymWinRegister(r->comm, win, WIN / 2, &h, 1) == HCCL_SUCCESS);
    CU_CHECK(r, HcclCommSymWinGet(r->comm, win + WIN / 2, 1, &g, &off) == HCCL_E_NOT_FOUND);
    CU_CHECK(r, HcclCommSymWinDeregister(h) == HCCL_SUCCESS);
    aclrtFree(win);
    aclrtFree(other);
}

static void run_ranks(int n, cu_rank_fn body)
{
    HcclRootInfo root;
    struct cu_rank ranks[MAXR];

    assert_int_equal(HcclGetRootInfo(&root), HCCL_SUCCESS);
    memset(ranks, 0, sizeof(ranks));
    cu_run_ranks(ranks, n, &root, body, NULL);
    for (int i = 0; i < n; i++) {
        assert_int_equal(ranks[i].init_rc, HCCL_SUCCESS);
        assert_int_equal(ranks[i].failures, 0);
        assert_int_equal(ranks[i].destroy_rc, HCCL_SUCCESS);
    }
}

static void get_finds_the_window_and_offset_and_not_found_is_quiet(void **state)
{
    (void)state;
    run_ranks(4, lookups);
}

/* ---- the peer pointer from a kernel, and a write through it ----------------------------- */

struct ring {
    ThreadHandle thread;
    ChannelHandle next, prev;
};

static void ring_up(struct cu_rank *r, struct ring *g)
{
    HcclChannelDesc d[2];
    ChannelHandle h[2] = {0, 0};
    uint32_t next = (uint32_t)(r->rank + 1) % (uint32_t)r->n;
    uint32_t prev = (uint32_t)(r->rank + r->n - 1) % (uint32_t)r->n;
    uint32_t nd = next == prev ? 1 : 2;

    memset(d, 0, sizeof(d));
    CU_CHECK(r, HcclThreadAcquire(r->comm, COMM_ENGINE_AICPU_TS, 1, 0, &g->thread) == 0);
    CU_CHECK(r, cu_desc_to(r->comm, (uint32_t)r->rank, next, -1, 1, &d[0]) == HCCL_SUCCESS);
    if (nd == 2)
        CU_CHECK(r, cu_desc_to(r->comm, (uint32_t)r->rank, prev, -1, 1, &d[1]) == HCCL_SUCCESS);
    CU_CHECK(r, HcclChannelAcquire(r->comm, COMM_ENGINE_AICPU_TS, d, nd, h) == HCCL_SUCCESS);
    g->next = h[0];
    g->prev = nd == 2 ? h[1] : h[0];
}

static void launch_put(struct cu_rank *r, const struct ring *g, HcclCommSymWindow h, uint8_t *src,
                       uint8_t *dst, int64_t *got)
{
    struct symwin_args a;
    aclrtStream s = NULL;
    void *out = NULL;

    memset(&a, 0, sizeof(a));
    CU_CHECK(r, aclrtCreateStream(&s) == ACL_SUCCESS);
    out = dev_alloc(r, SW_COUNT * sizeof(int64_t));
    a.win = (uint64_t)(uintptr_t)h;
    a.bogus = (uint64_t)(uintptr_t)src;
    a.thread = g->thread;
    a.ch_next = g->next;
    a.ch_prev = g->prev;
    a.src = (uint64_t)(uintptr_t)src;
    a.len = LEN;
    a.offset = (uint64_t)r->rank * LEN;
    a.win_size = WIN;
    a.out = (uint64_t)(uintptr_t)out;
    a.dst = (uint64_t)(uintptr_t)dst;
    a.rank = (uint32_t)r->rank;
    a.rank_size = (uint32_t)r->n;
    CU_CHECK(r, aclrtLaunchKernelWithHostArgs(put_fn, 1, s, NULL, &a, sizeof(a), NULL, 0) ==
                    ACL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(s) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMemcpy(got, SW_COUNT * sizeof(int64_t), out, SW_COUNT * sizeof(int64_t),
                            ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    aclrtFree(out);
    aclrtDestroyStream(s);
}

static void check_results(struct cu_rank *r, const int64_t *got)
{
    int next = (r->rank + 1) % r->n;
    uint64_t want = (uint64_t)(uintptr_t)bases[next] + (uint64_t)r->rank * LEN;

    CU_CHECK(r, got[SW_PEER_RC] == HCCL_SUCCESS && (uint64_t)got[SW_PEER_PTR] == want);
    CU_CHECK(r, got[SW_HCOMM_RC] == HCCL_SUCCESS && (uint64_t)got[SW_HCOMM_PTR] == want);
    CU_CHECK(r, (uint64_t)got[SW_SELF_PTR] == (uint64_t)(uintptr_t)bases[r->rank]);
    CU_CHECK(r, got[SW_RANK_RC] == HCCL_E_PARA && got[SW_RANK_NULL] == 1);
    CU_CHECK(r, got[SW_OFF_RC] == HCCL_E_PARA && got[SW_OFF_NULL] == 1);
    CU_CHECK(r, got[SW_BOGUS_RC] == HCCL_E_PARA && got[SW_BOGUS_NULL] == 1);
    CU_CHECK(r, got[SW_NULL_RC] == HCCL_E_PTR);
    CU_CHECK(r, got[SW_WRITE_RC] == 0);
    CU_CHECK(r, got[SW_STRADDLE_RC] == HCCL_E_PARA);
    CU_CHECK(r, got[SW_READ_RC] == 0);
    CU_CHECK(r, got[SW_RECORD_RC] == 0 && got[SW_WAIT_RC] == 0 && got[SW_DRAIN_RC] == 0);
}

/* What rank r's window holds after the launch at byte i: the previous rank's bytes at its
 * offset, r's own tail (filled before), zeros elsewhere. */
static uint8_t want_at(int rank, int n, uint32_t i)
{
    int prev = (rank + n - 1) % n;
    uint32_t at = (uint32_t)prev * LEN;

    if (i >= WIN - LEN)
        return pat(rank + 100, i - (WIN - LEN));
    return i >= at && i < at + LEN ? pat(prev, i - at) : 0;
}

/* My window as want_at() says, and the next rank's tail in `dst` (the kernel's read). */
static void check_window(struct cu_rank *r, const uint8_t *win, const uint8_t *dst)
{
    static _Thread_local uint8_t host[WIN];
    uint32_t bad = 0;

    CU_CHECK(r, aclrtMemcpy(host, WIN, win, WIN, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    for (uint32_t i = 0; i < WIN; i++)
        bad += host[i] != want_at(r->rank, r->n, i);
    CU_CHECK(r, aclrtMemcpy(host, LEN, dst, LEN, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    for (uint32_t i = 0; i < LEN; i++)
        bad += host[i] != pat((r->rank + 1) % r->n + 100, i);
    CU_CHECK(r, bad == 0);
}

static void ring_put(struct cu_rank *r)
{
    static _Thread_local uint8_t host[LEN];
    uint8_t *win = dev_alloc(r, WIN), *src = dev_alloc(r, LEN), *dst = dev_alloc(r, LEN);
    HcclCommSymWindow h = NULL;
    int64_t got[SW_COUNT];
    struct ring g;

    for (uint32_t i = 0; i < LEN; i++)
        host[i] = pat(r->rank, i);
    CU_CHECK(r, aclrtMemcpy(src, LEN, host, LEN, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    for (uint32_t i = 0; i < LEN; i++)
        host[i] = pat(r->rank + 100, i);
    CU_CHECK(r, aclrtMemcpy(win + WIN - LEN, LEN, host, LEN, ACL_MEMCPY_HOST_TO_DEVICE) ==
                    ACL_SUCCESS);
    bases[r->rank] = win;
    ring_up(r, &g);
    CU_CHECK(r, HcclCommSymWinRegister(r->comm, win, WIN, &h, 1) == HCCL_SUCCESS);
    cu_barrier_wait(); /* bases[] complete */
    memset(got, 0, sizeof(got));
    launch_put(r, &g, h, src, dst, got);
    check_results(r, got);
    check_window(r, win, dst);
    cu_barrier_wait(); /* every kernel is done with the windows */
    CU_CHECK(r, HcclCommSymWinDeregister(h) == HCCL_SUCCESS);
    aclrtFree(win);
    aclrtFree(src);
    aclrtFree(dst);
}

static void peer_pointer_is_a_remote_address_a_write_reaches_2_ranks(void **state)
{
    (void)state;
    run_ranks(2, ring_put);
}

static void peer_pointer_is_a_remote_address_a_write_reaches_4_ranks(void **state)
{
    (void)state;
    run_ranks(4, ring_put);
}

/* ---- refusals ------------------------------------------------------------------------- */

static void bad_arguments(struct cu_rank *r)
{
    uint8_t *win = dev_alloc(r, WIN);
    HcclCommSymWindow h = NULL, g = NULL;
    size_t off = 0;
    void *p = &off;
    char junk[64] = {0};

    if (r->rank == 0) { /* local refusals: nothing is posted, the others need not come */
        ONE_LINE(r, HcclCommSymWinRegister(r->comm, win, WIN, &h, 0), HCCL_E_PARA, "flag 0");
        ONE_LINE(r, HcclCommSymWinRegister(r->comm, win, WIN, &h, 2), HCCL_E_PARA, "flag 2");
        ONE_LINE(r, HcclCommSymWinRegister(r->comm, win, 0, &h, 1), HCCL_E_PARA, "size is 0");
        ONE_LINE(r, HcclCommSymWinRegister(r->comm, NULL, WIN, &h, 1), HCCL_E_PTR, "addr");
        ONE_LINE(r, HcclCommSymWinRegister(r->comm, win, WIN, NULL, 1), HCCL_E_PTR, "winHandle");
        ONE_LINE(r, HcclCommSymWinRegister(NULL, win, WIN, &h, 1), HCCL_E_PTR, "comm");
        ONE_LINE(r, HcclCommSymWinRegister(r->comm, junk, sizeof(junk), &h, 1), HCCL_E_PARA,
                 "not inside one allocation");
        ONE_LINE(r, HcclCommSymWinRegister(r->comm, win, WIN + 1, &h, 1), HCCL_E_PARA,
                 "not inside one allocation");
        CU_CHECK(r, h == NULL);
        ONE_LINE(r, HcclCommSymWinDeregister(NULL), HCCL_E_PTR, "winHandle");
        ONE_LINE(r, HcclCommSymWinDeregister(junk), HCCL_E_PARA, "not a symmetric window");
        ONE_LINE(r, HcclCommSymWinGet(r->comm, win, 0, &g, &off), HCCL_E_PARA, "size is 0");
        ONE_LINE(r, HcclCommSymWinGet(r->comm, win, 8, NULL, &off), HCCL_E_PTR, "winHandle");
        ONE_LINE(r, HcclCommSymWinGet(r->comm, win, 8, &g, NULL), HCCL_E_PTR, "offset");
        ONE_LINE(r, HcclSymWinGetPeerPointer(junk, 0, 0, &p), HCCL_E_NOT_SUPPORT,
                 "device-side call");
        CU_CHECK(r, p == NULL);
    }
    cu_barrier_wait();
    /* Sizes that differ between ranks: every rank refuses, none keeps a window. */
    CU_CHECK(r, HcclCommSymWinRegister(r->comm, win, r->rank == 1 ? WIN / 2 : WIN, &h, 1) ==
                    HCCL_E_PARA);
    CU_CHECK(r, h == NULL);
    CU_CHECK(r, HcclCommSymWinGet(r->comm, win, 8, &g, &off) == HCCL_E_NOT_FOUND);
    /* The exchange stays in step: the next registration works. */
    CU_CHECK(r, HcclCommSymWinRegister(r->comm, win, WIN / 2, &h, 1) == HCCL_SUCCESS);
    cu_barrier_wait();
    if (r->rank == 0)
        ONE_LINE(r, HcclCommSymWinRegister(r->comm, win + WIN / 4, WIN / 2, &g, 1), HCCL_E_PARA,
                 "overlaps");
    cu_barrier_wait();
    CU_CHECK(r, HcclCommSymWinDeregister(h) == HCCL_SUCCESS);
    aclrtFree(win);
}

static void bad_arguments_get_their_codes_and_one_line(void **state)
{
    (void)state;
    run_ranks(2, bad_arguments);
}

/* ---- destroy -------------------------------------------------------------------------- */

static HcclCommSymWindow left[MAXR];
static void *left_mem[MAXR];

static void register_and_leave(struct cu_rank *r)
{
    left_mem[r->rank] = dev_alloc(r, WIN);
    CU_CHECK(r, HcclCommSymWinRegister(r->comm, left_mem[r->rank], WIN, &left[r->rank], 1) ==
                    HCCL_SUCCESS);
}

static int live_windows(int dev)
{
    const struct emu_devctl *ctl = cu_ctl_map(job, dev);
    int n = 0;

    assert_non_null(ctl);
    for (uint32_t i = 0; i < EMU_MAX_SYMWINS; i++)
        n += ctl->symwins[i].state != 0;
    cu_ctl_unmap(ctl);
    return n;
}

static void destroy_releases_the_windows_not_the_memory(void **state)
{
    struct cu_capture cap;
    (void)state;

    run_ranks(2, register_and_leave);
    for (int d = 0; d < 2; d++)
        assert_int_equal(live_windows(d), 0);
    cu_capture_begin(&cap);
    HcclResult rc = HcclCommSymWinDeregister(left[0]);
    cu_capture_end(&cap);
    assert_int_equal(rc, HCCL_E_PARA);
    cu_assert_one_error(&cap, "not a symmetric window", NULL);
    for (int d = 0; d < 2; d++) { /* the user's memory is still the user's */
        assert_int_equal(aclrtSetDevice(d), ACL_SUCCESS);
        assert_int_equal(aclrtFree(left_mem[d]), ACL_SUCCESS);
    }
}

/* ---- products without windows --------------------------------------------------------- */

static void refused(struct cu_rank *r)
{
    uint8_t *win = dev_alloc(r, WIN);
    HcclCommSymWindow h = NULL, g = &h;
    size_t off = 7;
    char junk[16];

    if (r->rank == 0) {
        ONE_LINE(r, HcclCommSymWinRegister(r->comm, win, WIN, &h, 1), HCCL_E_NOT_SUPPORT,
                 "does not support HcclCommSymWinRegister");
        ONE_LINE(r, HcclCommSymWinDeregister(junk), HCCL_E_NOT_SUPPORT,
                 "does not support HcclCommSymWinDeregister");
        ONE_LINE(r, HcclCommSymWinGet(r->comm, win, 8, &g, &off), HCCL_E_NOT_FOUND, NULL);
        CU_CHECK(r, h == NULL && g == NULL && off == 0);
    }
    aclrtFree(win);
}

static void products_without_windows_refuse_them(void **state)
{
    (void)state;
    run_ranks(2, refused);
}

static int load_kernel(void **state)
{
    aclrtBinHandle bin = NULL;

    if (cu_acl_setup(state) != 0 ||
        aclrtBinaryLoadFromFile(KERNEL_DIR "/symwin_put.json", NULL, &bin) != ACL_SUCCESS ||
        aclrtBinaryGetFunction(bin, "symwin_put", &put_fn) != ACL_SUCCESS)
        return -1;
    return 0;
}

int main(void)
{
    const struct CMUnitTest with_windows[] = {
        cmocka_unit_test(get_finds_the_window_and_offset_and_not_found_is_quiet),
        cmocka_unit_test(peer_pointer_is_a_remote_address_a_write_reaches_2_ranks),
        cmocka_unit_test(peer_pointer_is_a_remote_address_a_write_reaches_4_ranks),
        cmocka_unit_test(bad_arguments_get_their_codes_and_one_line),
        cmocka_unit_test(destroy_releases_the_windows_not_the_memory),
    };
    const struct CMUnitTest without[] = {
        cmocka_unit_test(products_without_windows_refuse_them),
    };
    const char *soc = getenv("TEST_SYMWIN_SOC");

    cu_job_begin(job, sizeof(job), "4", "4");
    /* cu_job_begin inherits no SoC: TEST_SYMWIN_SOC names one (tests/sym_win.cmake). */
    if (soc != NULL)
        setenv("HCEMU_SOC", soc, 1);
    if (soc != NULL && strcmp(soc, "Ascend910B1") == 0)
        return cu_job_end(
            job, cmocka_run_group_tests_name("sym_win_a2", without, cu_acl_setup, cu_acl_teardown));
    return cu_job_end(
        job, cmocka_run_group_tests_name("sym_win", with_windows, load_kernel, cu_acl_teardown));
}
