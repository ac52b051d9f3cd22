/* test_coll_check.c - the cross-rank checks of the collectives (host/hccl/coll_check.c,
 * HCEMU_COLL_CHECK): one rank calls with another data type, count, reduce op, root, operator,
 * V vector, alltoall count or a zero count; every rank's call fails with HCCL_E_PARA and one
 * error line naming both calls. A rank that arrives late (past HCEMU_HANG_MS) is named and
 * the call fails on every rank, the late one included; a rank that leaves without the call is
 * named with HCCL_E_REMOTE. A matched call after a failed one moves the right bytes, and
 * HCEMU_COLL_CHECK=0 lets a mismatch through silently. At 2 and 8 ranks as threads; under
 * hcemu-run (HCEMU_RANK set) the mismatches, the matched call and the late rank, each rank
 * process checking its own line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <acl/acl.h>
#include <hccl/hccl.h>

#include "test_comm_util.h"

#define COUNT 64u
#define BYTES 4096u

static char job[CU_PATH];

struct bufs {
    aclrtStream s;
    void *a, *b;
    uint64_t vc[8], vd[8], sc[8], sd[8], rc[8], rd[8];
};

/* What one scenario expects: the code every rank gets (the odd rank `odd_want`), and the
 * error line each failing rank prints ("%d" in a needle is the odd rank). */
struct scenario {
    const char *name;
    void (*call)(struct cu_rank *r, struct bufs *b, bool odd);
    HcclResult want, odd_want;
    const char *needle1, *needle2;
    bool odd_lacks2; /* the odd rank's line lacks needle2 */
};

static const HcclDataType F = HCCL_DATA_TYPE_FP32;

static void allreduce(struct cu_rank *r, struct bufs *b, HcclDataType t, uint64_t n, HcclReduceOp op,
                      HcclResult *rc)
{
    *rc = HcclAllReduce(b->a, b->b, n, t, op, r->comm, b->s);
}

static HcclResult last_rc[8];

static void c_dtype(struct cu_rank *r, struct bufs *b, bool odd)
{
    allreduce(r, b, odd ? HCCL_DATA_TYPE_INT8 : F, COUNT, HCCL_REDUCE_SUM, &last_rc[r->rank]);
}

static void c_count(struct cu_rank *r, struct bufs *b, bool odd)
{
    allreduce(r, b, F, odd ? COUNT / 2 : COUNT, HCCL_REDUCE_SUM, &last_rc[r->rank]);
}

static void c_zero(struct cu_rank *r, struct bufs *b, bool odd)
{
    allreduce(r, b, F, odd ? 0 : COUNT, HCCL_REDUCE_SUM, &last_rc[r->rank]);
}

static void c_op(struct cu_rank *r, struct bufs *b, bool odd)
{
    allreduce(r, b, F, COUNT, odd ? HCCL_REDUCE_MAX : HCCL_REDUCE_SUM, &last_rc[r->rank]);
}

static void c_root(struct cu_rank *r, struct bufs *b, bool odd)
{
    last_rc[r->rank] = HcclBroadcast(b->a, COUNT, F, odd ? 1 : 0, r->comm, b->s);
}

static void c_order(struct cu_rank *r, struct bufs *b, bool odd)
{
    if (odd)
        last_rc[r->rank] = HcclBroadcast(b->a, COUNT, F, 0, r->comm, b->s);
    else
        allreduce(r, b, F, COUNT, HCCL_REDUCE_SUM, &last_rc[r->rank]);
}

/* AllGatherV: 4 elements from every rank; the odd rank thinks rank 0 sends 2. */
static void c_agv(struct cu_rank *r, struct bufs *b, bool odd)
{
    for (int p = 0; p < r->n; p++)
        b->vc[p] = 4, b->vd[p] = 4u * (uint64_t)p;
    if (odd)
        b->vc[0] = 2;
    last_rc[r->rank] = HcclAllGatherV(b->a, 4, b->b, b->vc, b->vd, F, r->comm, b->s);
}

/* AlltoAllV: 4 elements to every rank; the odd rank sends 2 to rank 0. */
static void c_a2av(struct cu_rank *r, struct bufs *b, bool odd)
{
    for (int p = 0; p < r->n; p++) {
        b->sc[p] = b->rc[p] = 4;
        b->sd[p] = b->rd[p] = 4u * (uint64_t)p;
    }
    if (odd)
        b->sc[0] = 2;
    last_rc[r->rank] = HcclAlltoAllV(b->a, b->sc, b->sd, F, b->b, b->rc, b->rd, F, r->comm, b->s);
}

static void c_late(struct cu_rank *r, struct bufs *b, bool odd)
{
    if (odd)
        usleep(1500 * 1000); /* past HCEMU_HANG_MS=300 with nothing else going on */
    allreduce(r, b, F, COUNT, HCCL_REDUCE_SUM, &last_rc[r->rank]);
}

static const struct scenario scenarios[] = {
    {"dtype", c_dtype, HCCL_E_PARA, HCCL_E_PARA, "called HcclAllReduce(fp32, 64, sum)",
     "rank %d HcclAllReduce(int8, 64, sum)", false},
    {"count", c_count, HCCL_E_PARA, HCCL_E_PARA, "called HcclAllReduce(fp32, 64, sum)",
     "rank %d HcclAllReduce(fp32, 32, sum)", false},
    {"zero count", c_zero, HCCL_E_PARA, HCCL_E_PARA, "called HcclAllReduce(fp32, 64, sum)",
     "rank %d HcclAllReduce(fp32, 0, sum)", false},
    {"op", c_op, HCCL_E_PARA, HCCL_E_PARA, "called HcclAllReduce(fp32, 64, sum)",
     "rank %d HcclAllReduce(fp32, 64, max)", false},
    {"root", c_root, HCCL_E_PARA, HCCL_E_PARA, "called HcclBroadcast(fp32, 64, root 0)",
     "rank %d HcclBroadcast(fp32, 64, root 1)", false},
    {"order", c_order, HCCL_E_PARA, HCCL_E_PARA, "called HcclAllReduce(fp32, 64, sum)",
     "rank %d HcclBroadcast(fp32, 64, root 0)", false},
    {"allgatherv", c_agv, HCCL_E_PARA, HCCL_E_PARA,
     "called HcclAllGatherV(fp32, recvCounts[0] 4, recvDispls[0] 0)",
     "rank %d HcclAllGatherV(fp32, recvCounts[0] 2, recvDispls[0] 0)", false},
    {"alltoallv", c_a2av, HCCL_E_PARA, HCCL_E_PARA, "rank %d's HcclAlltoAllV sends 2 fp32 to rank 0",
     "whose call receives 4 from rank %d", false},
    {"late", c_late, HCCL_E_TIMEOUT, HCCL_E_TIMEOUT, "HCEMU_HANG_MS without progress",
     "rank %d (its last was call", true},
};
#define NSCEN (sizeof(scenarios) / sizeof(scenarios[0]))

static void bufs_init(struct cu_rank *r, struct bufs *b)
{
    CU_CHECK(r, aclrtCreateStream(&b->s) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&b->a, BYTES, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&b->b, BYTES, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMemset(b->a, BYTES, 0, BYTES) == ACL_SUCCESS);
}

static void bufs_fini(struct bufs *b)
{
    aclrtFree(b->a);
    aclrtFree(b->b);
    aclrtDestroyStream(b->s);
}

/* How many times `needle` (with "%d" = odd) occurs in text. */
static int occurrences(const char *text, const char *needle, int odd)
{
    char want[256];
    int k = 0;

    snprintf(want, sizeof(want), needle, odd, odd);
    for (const char *p = strstr(text, want); p != NULL; p = strstr(p + 1, want))
        k++;
    return k;
}

/* One failing rank's line per failing rank, naming both calls. */
static void expect_lines(struct cu_rank *r, const struct scenario *sc, const struct cu_capture *cap,
                         int lines, int lines2, int odd)
{
    if (cap->errors != lines || occurrences(cap->text, sc->needle1, odd) != lines ||
        occurrences(cap->text, sc->needle2, odd) != lines2) {
        fprintf(stderr, "scenario %s at %d ranks: want %d error lines with \"%s\" and \"%s\":\n%s\n",
                sc->name, r->n, lines, sc->needle1, sc->needle2, cap->text);
        r->failures++;
    }
}

static void expect_rc(struct cu_rank *r, const struct scenario *sc, int rank, HcclResult want)
{
    if (last_rc[rank] != want) {
        fprintf(stderr, "scenario %s at %d ranks: rank %d got %d, want %d\n", sc->name, r->n, rank,
                (int)last_rc[rank], (int)want);
        r->failures++;
    }
}

/* A matched allreduce after the failed calls: every rank's input summed. */
static void matched_call_moves_bytes(struct cu_rank *r, struct bufs *b)
{
    int32_t in[COUNT], out[COUNT];

    for (uint32_t i = 0; i < COUNT; i++)
        in[i] = r->rank + 1 + (int32_t)i;
    CU_CHECK(r, aclrtMemcpy(b->a, BYTES, in, sizeof(in), ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    CU_CHECK(r, HcclAllReduce(b->a, b->b, COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, r->comm,
                              b->s) == HCCL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(b->s) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMemcpy(out, sizeof(out), b->b, sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST) ==
                    ACL_SUCCESS);
    for (uint32_t i = 0; i < COUNT; i++)
        CU_CHECK(r, out[i] == r->n * (r->n + 1) / 2 + r->n * (int32_t)i);
}

/* Threads: rank 0 captures stderr around each scenario (one process, one stderr). */
static void thread_body(struct cu_rank *r)
{
    struct bufs b;
    struct cu_capture cap;
    int odd = r->n - 1;

    bufs_init(r, &b);
    for (size_t i = 0; i < NSCEN; i++) {
        const struct scenario *sc = &scenarios[i];
        cu_barrier_wait();
        if (r->rank == 0)
            cu_capture_begin(&cap);
        cu_barrier_wait();
        sc->call(r, &b, r->rank == odd);
        cu_barrier_wait();
        if (r->rank != 0)
            continue;
        cu_capture_end(&cap);
        expect_lines(r, sc, &cap, r->n, sc->odd_lacks2 ? r->n - 1 : r->n, odd);
        for (int k = 0; k < r->n; k++)
            expect_rc(r, sc, k, k == odd ? sc->odd_want : sc->want);
    }
    cu_barrier_wait();
    matched_call_moves_bytes(r, &b);
    /* Off: an op mismatch goes through without a word (each rank reduces its own way). */
    cu_barrier_wait();
    if (r->rank == 0) {
        setenv("HCEMU_COLL_CHECK", "0", 1);
        cu_capture_begin(&cap);
    }
    cu_barrier_wait();
    c_op(r, &b, r->rank == odd);
    CU_CHECK(r, last_rc[r->rank] == HCCL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(b.s) == ACL_SUCCESS);
    cu_barrier_wait();
    if (r->rank == 0) {
        cu_capture_end(&cap);
        CU_CHECK(r, cap.errors == 0);
        setenv("HCEMU_COLL_CHECK", "1", 1);
    }
    cu_barrier_wait();
    /* A rank that leaves without the call: the others are told at once. */
    if (r->rank != odd) {
        if (r->rank == 0)
            cu_capture_begin(&cap);
        allreduce(r, &b, F, COUNT, HCCL_REDUCE_SUM, &last_rc[r->rank]);
        CU_CHECK(r, last_rc[r->rank] == HCCL_E_REMOTE);
    } else {
        CU_CHECK(r, HcclCommDestroy(r->comm) == HCCL_SUCCESS);
        r->comm = NULL;
    }
    cu_barrier_wait();
    if (r->rank == 0) {
        cu_capture_end(&cap);
        char want[96];
        snprintf(want, sizeof(want), "rank %d left the communicator or died", odd);
        CU_CHECK(r, cap.errors == r->n - 1 && occurrences(cap.text, want, odd) == r->n - 1);
    }
    bufs_fini(&b);
}

static void run_threads(int n)
{
    struct cu_rank ranks[8];
    HcclRootInfo ri;

    memset(ranks, 0, sizeof(ranks));
    ranks[n - 1].keep = true; /* it destroys its member itself */
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    cu_run_ranks(ranks, n, &ri, thread_body, NULL);
    for (int i = 0; i < n; i++) {
        assert_int_equal(ranks[i].init_rc, HCCL_SUCCESS);
        assert_int_equal(ranks[i].failures, 0);
        if (i != n - 1)
            assert_int_equal(ranks[i].destroy_rc, HCCL_SUCCESS);
    }
}

static void every_mismatch_fails_on_every_rank_at_2_ranks(void **state)
{
    (void)state;
    run_threads(2);
}

static void every_mismatch_fails_on_every_rank_at_8_ranks(void **state)
{
    (void)state;
    run_threads(8);
}

/* ---- ranks as processes (this program under hcemu-run) ------------------------------------ */

static int run_as_rank_process(int rank, int n)
{
    struct cu_rank r = {.rank = rank, .n = n};
    struct bufs b;
    struct cu_capture cap;
    HcclRootInfo ri;
    int odd = n - 1;

    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(rank) != ACL_SUCCESS ||
        HcclGetRootInfo(&ri) != HCCL_SUCCESS ||
        HcclCommInitRootInfo((uint32_t)n, &ri, (uint32_t)rank, &r.comm) != HCCL_SUCCESS) {
        fprintf(stderr, "rank %d/%d: cannot join the communicator\n", rank, n);
        return 1;
    }
    bufs_init(&r, &b);
    /* The late scenario last: past it the ranks are not in step any more (the early ones
     * gave up and go on, the late one fails its call when it comes). */
    for (size_t k = 0; k <= NSCEN; k++) {
        size_t i = k < NSCEN - 1 ? k : k == NSCEN - 1 ? NSCEN : NSCEN - 1;
        if (i == NSCEN) {
            matched_call_moves_bytes(&r, &b);
            continue;
        }
        const struct scenario *sc = &scenarios[i];
        cu_capture_begin(&cap);
        sc->call(&r, &b, rank == odd);
        cu_capture_end(&cap);
        expect_lines(&r, sc, &cap, 1, sc->odd_lacks2 && rank == odd ? 0 : 1, odd);
        expect_rc(&r, sc, rank, rank == odd ? sc->odd_want : sc->want);
    }
    bufs_fini(&b);
    if (HcclCommDestroy(r.comm) != HCCL_SUCCESS)
        r.failures++;
    aclrtResetDevice(rank);
    aclFinalize();
    if (r.failures == 0 && rank == 0)
        printf("coll_check: every scenario passed at %d ranks as processes\n", n);
    return r.failures != 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_mismatch_fails_on_every_rank_at_2_ranks),
        cmocka_unit_test(every_mismatch_fails_on_every_rank_at_8_ranks),
    };
    const char *rank = getenv("HCEMU_RANK"), *size = getenv("HCEMU_RANK_SIZE");

    setenv("HCEMU_COLL_CHECK", "1", 1);
    setenv("HCEMU_HANG_MS", "300", 1);
    if (rank != NULL && size != NULL) {
        return run_as_rank_process(atoi(rank), atoi(size));
    }
    cu_job_begin(job, sizeof(job), "8", "1");
    return cu_job_end(
        job, cmocka_run_group_tests_name("coll_check", tests, cu_acl_setup, cu_acl_teardown));
}
