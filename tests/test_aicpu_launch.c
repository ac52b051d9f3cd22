/* test_aicpu_launch.c - HcclAicpuKernelLaunch on a 2-rank communicator: each rank launches
 * aicpu_launch_copy (a kernel shaped like HCCL's HcclLaunchP2pAicpuKernel) on an AICPU_TS
 * thread from a second stream, after an asynchronous fill of the source on the user's
 * stream. The copy must see the fill (the thread waits for the user's stream) and the user's
 * stream must not finish before the copy (it waits for the thread): real bytes checked after
 * aclrtSynchronizeStream of the user's stream alone. Then the refusals, one code each. */
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
#include <hccl/hccl_launch.h>
#include <hccl/hccl_res.h>

#include "kernels/aicpu_launch_copy.h"
#include "test_comm_util.h"

#define LEN (1u << 20)

static char job[256];

static void describe(HcclOpDesc *op, HcclKernelFuncInfo *f, HcclKernelLaunchCfg *cfg,
                     aclrtStream unfold, struct aicpu_launch_copy_args *a)
{
    HcclOpDescInit(op);
    op->opDescType = 1;
    op->p2p.unfoldStream = unfold;
    memset(f, 0, sizeof(*f));
    snprintf(f->kernelSoName, sizeof(f->kernelSoName), "libaicpu_launch_copy.so");
    snprintf(f->kernelFuncName, sizeof(f->kernelFuncName), "aicpu_launch_copy");
    f->args = a;
    f->argSize = sizeof(*a);
    HcclKernelLaunchCfgInit(cfg);
    cfg->timeOut = 60;
}

static void copy_on_a_thread(struct cu_rank *r)
{
    static uint8_t want[2][LEN], got[2][LEN];
    uint8_t *w = want[r->rank], *g = got[r->rank];
    aclrtStream user = NULL, unfold = NULL;
    void *src = NULL, *dst = NULL;
    ThreadHandle thread = 0;
    HcclOpDesc op;
    HcclKernelFuncInfo f;
    HcclKernelLaunchCfg cfg;
    struct aicpu_launch_copy_args a;

    for (uint32_t i = 0; i < LEN; i++)
        w[i] = (uint8_t)(i * 7 + r->rank * 13 + 1);
    CU_CHECK(r, aclrtCreateStream(&user) == ACL_SUCCESS);
    CU_CHECK(r, aclrtCreateStream(&unfold) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&src, LEN, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&dst, LEN, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMemset(src, LEN, 0, LEN) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMemset(dst, LEN, 0, LEN) == ACL_SUCCESS);
    CU_CHECK(r, HcclThreadAcquire(r->comm, COMM_ENGINE_AICPU_TS, 1, 2, &thread) == HCCL_SUCCESS);
    a.dst = (uint64_t)(uintptr_t)dst;
    a.src = (uint64_t)(uintptr_t)src;
    a.len = LEN;
    describe(&op, &f, &cfg, unfold, &a);
    /* The fill is a task of the user's stream only: the copy must come after it. */
    CU_CHECK(r, aclrtMemcpyAsync(src, LEN, w, LEN, ACL_MEMCPY_HOST_TO_DEVICE, user) ==
                    ACL_SUCCESS);
    CU_CHECK(r, HcclAicpuKernelLaunch(r->comm, &op, &f, thread, user, &cfg) == HCCL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(user) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMemcpy(g, LEN, dst, LEN, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    CU_CHECK(r, memcmp(g, w, LEN) == 0);

    /* Refusals: nothing is launched. */
    CU_CHECK(r, HcclAicpuKernelLaunch(r->comm, NULL, &f, thread, user, &cfg) == HCCL_E_PTR);
    CU_CHECK(r, HcclAicpuKernelLaunch(r->comm, &op, &f, thread, user, NULL) == HCCL_E_PTR);
    f.argSize = P2P_MAX_ARG_SIZE + 1;
    CU_CHECK(r, HcclAicpuKernelLaunch(r->comm, &op, &f, thread, user, &cfg) == HCCL_E_PARA);
    f.argSize = sizeof(a);
    f.args = NULL;
    CU_CHECK(r, HcclAicpuKernelLaunch(r->comm, &op, &f, thread, user, &cfg) == HCCL_E_PTR);
    f.args = &a;
    snprintf(f.kernelSoName, sizeof(f.kernelSoName), "libnot_loaded.so");
    CU_CHECK(r, HcclAicpuKernelLaunch(r->comm, &op, &f, thread, user, &cfg) == HCCL_E_NOT_FOUND);
    describe(&op, &f, &cfg, unfold, &a);
    CU_CHECK(r, HcclAicpuKernelLaunch(r->comm, &op, &f, 0x1234, user, &cfg) == HCCL_E_PARA);
    CU_CHECK(r, HcclGroupStart() == HCCL_SUCCESS);
    CU_CHECK(r, HcclAicpuKernelLaunch(r->comm, &op, &f, thread, user, &cfg) ==
                    HCCL_E_NOT_SUPPORT);
    CU_CHECK(r, HcclGroupEnd() == HCCL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(user) == ACL_SUCCESS);
    CU_CHECK(r, aclrtFree(src) == ACL_SUCCESS);
    CU_CHECK(r, aclrtFree(dst) == ACL_SUCCESS);
    CU_CHECK(r, aclrtDestroyStream(unfold) == ACL_SUCCESS);
    CU_CHECK(r, aclrtDestroyStream(user) == ACL_SUCCESS);
}

static void a_kernel_runs_on_a_thread_in_order_with_the_users_stream(void **state)
{
    HcclRootInfo root;
    struct cu_rank ranks[2];
    aclrtBinHandle bin = NULL;
    (void)state;

    assert_int_equal(aclrtBinaryLoadFromFile(KERNEL_DIR "/aicpu_launch_copy.json", NULL, &bin),
                     0);
    assert_int_equal(HcclGetRootInfo(&root), HCCL_SUCCESS);
    memset(ranks, 0, sizeof(ranks));
    struct cu_capture cap;
    cu_capture_begin(&cap);
    cu_run_ranks(ranks, 2, &root, copy_on_a_thread, NULL);
    cu_capture_end(&cap);
    /* Seven refusals a rank, one line each; and every notify recorded was waited for (a
     * thread that never waited for the stream's start leaves its notify set). */
    assert_int_equal(cap.errors, 14);
    assert_null(strstr(cap.text, "never waited"));
    for (int i = 0; i < 2; i++) {
        assert_int_equal(ranks[i].init_rc, 0);
        assert_int_equal(ranks[i].failures, 0);
        assert_int_equal(ranks[i].destroy_rc, 0);
    }
    assert_int_equal(aclrtBinaryUnLoad(bin), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_kernel_runs_on_a_thread_in_order_with_the_users_stream),
    };
    /* With the race checker every task runs on one worker of the executor, later than
     * otherwise: a user's stream that did not wait for the thread is seen done before the
     * copy, and the bytes show it. */
    setenv("HCEMU_RACECHECK", "1", 1);
    cu_job_begin(job, sizeof(job), "2", "4");
    return cu_job_end(job, cmocka_run_group_tests_name("aicpu_launch", tests, cu_acl_setup,
                                                       cu_acl_teardown));
}
