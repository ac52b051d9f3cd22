/* test_hccl92.c - the hcomm 9.2 level HCCL's own library relies on: the device functions
 * called from a kernel on a real 2-rank communicator (directly and through
 * dlopen("libccl_kernel.so")), a launch with host arguments, and the host answers HCCL
 * takes its decisions from (expansion mode, status, group state, versions, ids, link kinds),
 * and hcomm's inner collectives HCCL falls back to, with real bytes. */
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
#include <hccl/hccl_inner.h>
#include <pkg_inc/runtime/rt_external.h>

#include "kernels/hccl92_params.h"
#include "test_comm_util.h"


static char job[256];
static aclrtFuncHandle probe;

static void run_probe(struct cu_rank *r)
{
    char name[COMM_NAME_MAX_LENGTH] = {0};
    struct hccl92_args a;
    int32_t got[H92_COUNT];
    aclrtStream s = NULL;
    void *out = NULL;

    CU_CHECK(r, HcclGetCommName(r->comm, name) == HCCL_SUCCESS);
    CU_CHECK(r, aclrtCreateStream(&s) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&out, sizeof(got), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMemset(out, sizeof(got), 0xEE, sizeof(got)) == ACL_SUCCESS);
    memset(&a, 0, sizeof(a));
    memcpy(a.comm, name, sizeof(a.comm));
    a.out = (uint64_t)(uintptr_t)out;
    CU_CHECK(r, aclrtLaunchKernelWithHostArgs(probe, 1, s, NULL, &a, sizeof(a), NULL, 0) ==
                    ACL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(s) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMemcpy(got, sizeof(got), out, sizeof(got), ACL_MEMCPY_DEVICE_TO_HOST) ==
                    ACL_SUCCESS);
    CU_CHECK(r, got[H92_STATUS] == HCCL_SUCCESS);
    CU_CHECK(r, got[H92_STATUS_VALUE] == HCCL_COMM_STATUS_READY);
    CU_CHECK(r, got[H92_STATUS_UNKNOWN] == HCCL_E_NOT_FOUND);
    CU_CHECK(r, got[H92_GROUP] == HCCL_SUCCESS);
    CU_CHECK(r, got[H92_GROUP_VALUE] == 0);
    CU_CHECK(r, got[H92_DEVICE_OP] == HCCL_SUCCESS);
    CU_CHECK(r, got[H92_START_TASK] == HCCL_SUCCESS);
    CU_CHECK(r, got[H92_DFX] == HCCL_SUCCESS);
    CU_CHECK(r, got[H92_REG_OP] == HCCL_SUCCESS);
    CU_CHECK(r, got[H92_PEER_PTR] == HCCL_E_PARA);
    CU_CHECK(r, got[H92_PEER_PTR_NULL] == 1);
    CU_CHECK(r, got[H92_DL_OPEN] == 1);
    CU_CHECK(r, got[H92_DL_STATUS] == HCCL_SUCCESS);
    CU_CHECK(r, got[H92_DL_STATUS_VALUE] == HCCL_COMM_STATUS_READY);
    CU_CHECK(r, got[H92_DL_END_TASK] == HCCL_SUCCESS);
    CU_CHECK(r, got[H92_DL_HAS_WRITE] == 1);
    CU_CHECK(r, aclrtFree(out) == ACL_SUCCESS);
    CU_CHECK(r, aclrtDestroyStream(s) == ACL_SUCCESS);
}

static void device_functions_answer_from_a_kernel_and_through_libccl_kernel(void **state)
{
    HcclRootInfo root;
    struct cu_rank ranks[2];
    aclrtBinHandle bin = NULL;
    (void)state;

    assert_int_equal(aclrtBinaryLoadFromFile(KERNEL_DIR "/hccl92_probe.json", NULL, &bin), 0);
    assert_int_equal(aclrtBinaryGetFunction(bin, "hccl92_probe", &probe), 0);
    assert_int_equal(HcclGetRootInfo(&root), HCCL_SUCCESS);
    memset(ranks, 0, sizeof(ranks));
    cu_run_ranks(ranks, 2, &root, run_probe, NULL);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(ranks[i].init_rc, 0);
        assert_int_equal(ranks[i].failures, 0);
        assert_int_equal(ranks[i].destroy_rc, 0);
    }
    assert_int_equal(aclrtBinaryUnLoad(bin), 0);
}

static void host_answers(struct cu_rank *r)
{
    char name[COMM_NAME_MAX_LENGTH] = {0};
    HcclConfigTypeOpExpansionMode mode = HCCL_OP_EXPANSION_MODE_INVALID;
    HcclCommStatus st = HCCL_COMM_STATUS_RESERVED;
    HcclCommSymWindow w = &st;
    size_t off = 99;

    CU_CHECK(r, HcclConfigGetInfo(r->comm, HCCL_CONFIG_TYPE_OP_EXPANSION_MODE, sizeof(mode),
                                  &mode) == HCCL_SUCCESS);
    CU_CHECK(r, mode == HCCL_OP_EXPANSION_MODE_AI_CPU);
    CU_CHECK(r, HcclConfigGetInfo(r->comm, HCCL_CONFIG_TYPE_OP_EXPANSION_MODE, 8, &mode) ==
                    HCCL_E_PARA);
    CU_CHECK(r, HcclGetCommName(r->comm, name) == HCCL_SUCCESS);
    CU_CHECK(r, HcclCommGetStatus(name, &st) == HCCL_SUCCESS);
    CU_CHECK(r, st == HCCL_COMM_STATUS_READY);
    CU_CHECK(r, HcclCommSymWinGet(r->comm, name, 8, &w, &off) == HCCL_E_NOT_FOUND);
    CU_CHECK(r, w == NULL && off == 0);
}

static void host_answers_for_a_live_communicator(void **state)
{
    HcclRootInfo root;
    struct cu_rank ranks[2];
    bool group = true;
    (void)state;

    assert_int_equal(HcclGetRootInfo(&root), HCCL_SUCCESS);
    memset(ranks, 0, sizeof(ranks));
    cu_run_ranks(ranks, 2, &root, host_answers, NULL);
    for (int i = 0; i < 2; i++)
        assert_int_equal(ranks[i].failures, 0);
    assert_int_equal(HcclGroupStatusGet(&group), HCCL_SUCCESS);
    assert_false(group);
}

/* Each rank gathers 4 ints of value rank*100+i through HcclAllGatherInner, then sums through
 * HcclAllReduceInner: the inner names run the built-in collectives. */
static void inner_collectives(struct cu_rank *r)
{
    enum { N = 4 };
    int32_t in[N], out[2 * N], sum[N];
    void *d_in = NULL, *d_out = NULL;
    aclrtStream s = NULL;

    for (int i = 0; i < N; i++)
        in[i] = r->rank * 100 + i;
    CU_CHECK(r, aclrtCreateStream(&s) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&d_in, sizeof(in), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&d_out, sizeof(out), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMemcpy(d_in, sizeof(in), in, sizeof(in), ACL_MEMCPY_HOST_TO_DEVICE) ==
                    ACL_SUCCESS);
    CU_CHECK(r, HcclAllGatherInner(d_in, d_out, N, HCCL_DATA_TYPE_INT32, r->comm, s) ==
                    HCCL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(s) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMemcpy(out, sizeof(out), d_out, sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST) ==
                    ACL_SUCCESS);
    for (int i = 0; i < 2 * N; i++)
        CU_CHECK(r, out[i] == (i / N) * 100 + i % N);
    CU_CHECK(r, HcclAllReduceInner(d_in, d_out, N, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, r->comm,
                                   s) == HCCL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(s) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMemcpy(sum, sizeof(sum), d_out, sizeof(sum), ACL_MEMCPY_DEVICE_TO_HOST) ==
                    ACL_SUCCESS);
    for (int i = 0; i < N; i++)
        CU_CHECK(r, sum[i] == 100 + 2 * i);
    aclrtFree(d_in);
    aclrtFree(d_out);
    aclrtDestroyStream(s);
}

static void inner_collectives_are_the_built_in_ones(void **state)
{
    HcclRootInfo root;
    struct cu_rank ranks[2];
    (void)state;

    assert_int_equal(HcclGetRootInfo(&root), HCCL_SUCCESS);
    memset(ranks, 0, sizeof(ranks));
    cu_run_ranks(ranks, 2, &root, inner_collectives, NULL);
    for (int i = 0; i < 2; i++)
        assert_int_equal(ranks[i].failures, 0);
}

static void runtime_answers_versions_ids_and_capture_state(void **state)
{
    char pkg[] = "hcomm";
    int32_t v = 0, logic = -1, id0 = -1, id1 = -1;
    int64_t attr = -1;
    aclrtStream s0 = NULL, s1 = NULL;
    aclmdlRICaptureStatus cs = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    aclmdlRI model = &v;
    aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    aclrtEvent ev = NULL;
    uint32_t task = 9, stream = 9;
    uint64_t topo = 0;
    (void)state;

    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclsysGetVersionNum(pkg, &v), ACL_SUCCESS);
    assert_int_equal(v, 90200000); /* >= 9.0.0: hcomm and HCCL take their current paths */
    assert_int_equal(aclrtGetLogicDevIdByPhyDevId(1, &logic), ACL_SUCCESS);
    assert_int_equal(logic, 1);
    assert_int_equal(aclrtGetDeviceInfo(1, ACL_DEV_ATTR_PHY_CHIP_ID, &attr), ACL_SUCCESS);
    assert_int_equal(attr, 1);
    assert_int_equal(aclrtGetDeviceInfo(1, ACL_DEV_ATTR_SUPER_POD_ID, &attr), ACL_SUCCESS);
    assert_int_equal(attr, 0);
    assert_int_equal(aclrtGetDeviceInfo(1, ACL_DEV_ATTR_CUST_OP_PRIVILEGE, &attr), ACL_SUCCESS);
    assert_int_equal(attr, 0);
    assert_int_equal(aclrtGetDevicesTopo(0, 1, &topo), ACL_SUCCESS);
    assert_int_equal(topo, ACL_RT_DEVS_TOPOLOGY_HCCS);
    assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &task), ACL_SUCCESS);
    assert_int_equal(task, 0); /* no emulated vector cores */
    task = 9;
    assert_int_equal(aclrtCreateStream(&s0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&s1), ACL_SUCCESS);
    assert_int_equal(aclrtStreamGetId(s0, &id0), ACL_SUCCESS);
    assert_int_equal(aclrtStreamGetId(s1, &id1), ACL_SUCCESS);
    assert_true(id0 >= 0 && id1 >= 0 && id0 != id1);
    assert_int_equal(aclmdlRICaptureGetInfo(s0, &cs, &model), ACL_SUCCESS);
    assert_int_equal(cs, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    assert_null(model);
    assert_int_equal(aclmdlRICaptureThreadExchangeMode(&mode), ACL_SUCCESS);
    assert_int_equal(mode, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
    mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
    assert_int_equal(aclmdlRICaptureThreadExchangeMode(&mode), ACL_SUCCESS);
    assert_int_equal(mode, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
    assert_int_equal(aclrtCreateEventExWithFlag(&ev, 0x8), ACL_SUCCESS);
    assert_int_equal(aclrtRecordEvent(ev, s0), ACL_SUCCESS);
    assert_int_equal(aclrtSynchronizeEvent(ev), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyEvent(ev), ACL_SUCCESS);
    assert_int_equal(rtGetTaskIdAndStreamID(&task, &stream), 0);
    assert_int_equal(aclrtDestroyStream(s0), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(s1), ACL_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_functions_answer_from_a_kernel_and_through_libccl_kernel),
        cmocka_unit_test(host_answers_for_a_live_communicator),
        cmocka_unit_test(inner_collectives_are_the_built_in_ones),
        cmocka_unit_test(runtime_answers_versions_ids_and_capture_state),
    };
    cu_job_begin(job, sizeof(job), "2", "4");
    return cu_job_end(job,
                      cmocka_run_group_tests_name("hccl92", tests, cu_acl_setup, cu_acl_teardown));
}
