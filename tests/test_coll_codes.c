/* test_coll_codes.c - a user's error code survives end to end through the built-in
 * collectives: each class of failure, wherever inside hcemu it arises (argument checks, the
 * communicator's HCCL buffer, channel set-up with a peer, the engine contexts), reaches the
 * caller of HcclAllReduce as its own HcclResult with one error line, never as
 * HCCL_E_INTERNAL. The codes are common/contract/status.c's table: PARA 1, PTR 2, MEMORY 3,
 * NOT_SUPPORT 5, TIMEOUT 9, REMOTE 21. Ranks are threads of this process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <acl/acl.h>
#include <hccl/hccl.h>

#include "test_comm_util.h"

static char job[CU_PATH];

/* Rank 0 calls HcclAllReduce of 4 floats on its comm, expecting `want` and one error line
 * containing `needle`; other ranks do what the scenario says. */
struct scenario {
    HcclResult want;
    const char *needle;
    void (*before)(struct cu_rank *r, aclrtStream s); /* every rank, before rank 0's call */
    bool peers_join;                                   /* the other ranks call it too */
    int op;                                            /* HcclReduceOp of the call */
    HcclDataType type;
    bool null_send;
};

static void allreduce_body(struct cu_rank *r)
{
    const struct scenario *sc = r->arg;
    aclrtStream s;
    void *a = NULL, *b = NULL;

    CU_CHECK(r, aclrtCreateStream(&s) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_ONLY) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&b, 64, ACL_MEM_MALLOC_HUGE_ONLY) == ACL_SUCCESS);
    if (sc->before != NULL)
        sc->before(r, s);
    cu_barrier_wait();
    if (r->rank == 0) {
        struct cu_capture cap;
        cu_capture_begin(&cap);
        HcclResult rc = HcclAllReduce(sc->null_send ? NULL : a, b, 4, sc->type,
                                      (HcclReduceOp)sc->op, r->comm, s);
        cu_capture_end(&cap);
        if (rc != sc->want || cap.errors < 1 || strstr(cap.text, sc->needle) == NULL) {
            fprintf(stderr, "HcclAllReduce returned %d with %d error lines, want %d and a line "
                            "with \"%s\":\n%s\n",
                    (int)rc, cap.errors, (int)sc->want, sc->needle, cap.text);
            r->failures++;
        }
    } else if (sc->peers_join) {
        (void)HcclAllReduce(a, b, 4, sc->type, (HcclReduceOp)sc->op, r->comm, s);
    }
    cu_barrier_wait();
    (void)aclrtSynchronizeStream(s);
    aclrtFree(a);
    aclrtFree(b);
    aclrtDestroyStream(s);
}

/* Each test sets the two settings it may change (a failed test leaves them as they were). */
static void run_with(const struct scenario *sc, int n, const char *buffsize_mb,
                     const char *connect_s)
{
    struct cu_rank ranks[2];
    HcclRootInfo ri;

    setenv("HCCL_BUFFSIZE", buffsize_mb, 1);
    setenv("HCCL_CONNECT_TIMEOUT", connect_s, 1);
    memset(ranks, 0, sizeof(ranks));
    cu_barrier_init(n);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    cu_run_ranks(ranks, n, &ri, allreduce_body, (void *)sc);
    for (int i = 0; i < n; i++) {
        assert_int_equal(ranks[i].init_rc, HCCL_SUCCESS);
        assert_int_equal(ranks[i].failures, 0);
    }
}

static void run(const struct scenario *sc, int n)
{
    run_with(sc, n, "1", "20");
}

/* ---- one test per code class ------------------------------------------------------------- */

static void bad_parameter_is_para(void **state)
{
    (void)state;
    struct scenario sc = {HCCL_E_PARA, "is not sum, prod, max or min", NULL, false, 7,
                          HCCL_DATA_TYPE_FP32, false};
    run(&sc, 2);
}

/* The state's engine context taken by the user under hcemu's tag: found deep in the
 * collectives' set-up, still the user's parameter error. */
static void take_the_tag(struct cu_rank *r, aclrtStream s)
{
    void *ctx = NULL;

    (void)s;
    if (r->rank == 0)
        CU_CHECK(r, HcclEngineCtxCreate(r->comm, "hcemu.collectives", COMM_ENGINE_CPU_TS, 8, &ctx) ==
                        HCCL_SUCCESS);
}

static void reserved_context_is_para(void **state)
{
    (void)state;
    struct scenario sc = {HCCL_E_PARA, "is reserved for the built-in collectives", take_the_tag,
                          false, HCCL_REDUCE_SUM, HCCL_DATA_TYPE_FP32, false};
    run(&sc, 2);
}

static void null_buffer_is_ptr(void **state)
{
    (void)state;
    struct scenario sc = {HCCL_E_PTR, "is NULL", NULL, false, HCCL_REDUCE_SUM,
                          HCCL_DATA_TYPE_FP32, true};
    run(&sc, 2);
}

static void unsupported_type_is_not_support(void **state)
{
    (void)state;
    struct scenario sc = {HCCL_E_NOT_SUPPORT, "is not supported", NULL, false, HCCL_REDUCE_SUM,
                          HCCL_DATA_TYPE_FP8E4M3, false};
    run(&sc, 2);
}

/* An HCCL buffer larger than the device's memory (1 GiB here): the allocation at the first
 * collective fails, and the caller sees a memory error. */
static void buffer_beyond_device_memory_is_memory(void **state)
{
    (void)state;
    struct scenario sc = {HCCL_E_MEMORY, "cannot allocate", NULL, false, HCCL_REDUCE_SUM,
                          HCCL_DATA_TYPE_FP32, false};
    run_with(&sc, 1, "4096", "20");
}

/* The peer never calls: channel set-up with it gives up after HCCL_CONNECT_TIMEOUT. */
static void peer_that_never_comes_is_timeout(void **state)
{
    (void)state;
    struct scenario sc = {HCCL_E_TIMEOUT, "HCCL_CONNECT_TIMEOUT", NULL, false, HCCL_REDUCE_SUM,
                          HCCL_DATA_TYPE_FP32, false};
    run_with(&sc, 2, "1", "1");
}

/* The peer destroyed its communicator before the call: it left, a remote failure. */
static void leave_early(struct cu_rank *r, aclrtStream s)
{
    (void)s;
    if (r->rank != 0) {
        CU_CHECK(r, HcclCommDestroy(r->comm) == HCCL_SUCCESS);
        r->keep = true; /* destroyed already */
    }
}

static void peer_that_left_is_remote(void **state)
{
    (void)state;
    struct scenario sc = {HCCL_E_REMOTE, "left the communicator", leave_early, false,
                          HCCL_REDUCE_SUM, HCCL_DATA_TYPE_FP32, false};
    run(&sc, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_parameter_is_para),
        cmocka_unit_test(reserved_context_is_para),
        cmocka_unit_test(null_buffer_is_ptr),
        cmocka_unit_test(unsupported_type_is_not_support),
        cmocka_unit_test(buffer_beyond_device_memory_is_memory),
        cmocka_unit_test(peer_that_never_comes_is_timeout),
        cmocka_unit_test(peer_that_left_is_remote),
    };

    cu_job_begin(job, sizeof(job), "2", "1");
    return cu_job_end(
        job, cmocka_run_group_tests_name("coll_codes", tests, cu_acl_setup, cu_acl_teardown));
}
