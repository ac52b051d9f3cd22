/* api_aicpu_launch.c - HcclAicpuKernelLaunch: run one entry of a loaded kernel image on an
 * AICPU_TS thread, in order with the user's stream. HCCL's library launches its Send and
 * Recv this way (kernel HcclLaunchP2pAicpuKernel of libscatter_aicpu_kernel.so), from a
 * stream of its own (opInfo->p2p.unfoldStream) while the data is ordered by the user's.
 *
 * The same steps as the vendor library, with hcemu's two notify kernels (collectives/
 * thread_notify.c) in place of its own image's:
 *   1. the user's stream, wrapped as a CPU_TS thread, records the last notify of the AICPU_TS
 *      thread: "everything before this call on the stream is done";
 *   2. on the unfold stream: hcemu_thread_wait queues the thread's wait for that notify; the
 *      entry runs with one argument block, struct HcclP2pKernelParam (the thread, then
 *      funcInfo->args zero-padded) and queues its tasks on the thread; hcemu_thread_record
 *      queues a record of notify 0 of the user's stream thread;
 *   3. the user's stream waits for that notify: it is done once the entry's tasks are.
 * The image is found among those this process loaded (aclrtBinaryLoadFromFile of the .json
 * beside it, as HCCL does before its first operator) by its file name, kernelSoName. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "common/platform/copy.h"
#include "common/platform/log.h"
#include "hccl/hccl_launch.h"
#include "host/acl/binary.h"
#include "host/acl/stream.h"
#include "host/hccl/hccl.h"
#include "host/hccl/hccl_thread.h"
#include "host/hccl/hcomm.h"

static const char fn[] = "HcclAicpuKernelLaunch";

/* The vendor's argument checks: every pointer, args when argSize says there are some, and
 * room for them in HcclP2pKernelParam. */
static emu_status check_args(struct emu_comm *c, const HcclOpDesc *opInfo,
                             const HcclKernelFuncInfo *funcInfo, aclrtStream userStream,
                             const HcclKernelLaunchCfg *cfg)
{
    emu_status s;

    if ((s = EMU_HCCL_NONNULL(c, opInfo, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, funcInfo, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, userStream, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, cfg, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, opInfo->p2p.unfoldStream, fn)) != EMU_OK)
        return s;
    if (funcInfo->argSize > 0 && funcInfo->args == NULL)
        return emu_hccl_null(c, fn, "funcInfo->args (argSize > 0)");
    if (funcInfo->argSize > P2P_MAX_ARG_SIZE)
        return emu_hccl_bad(c, fn, "funcInfo->argSize %u exceeds P2P_MAX_ARG_SIZE (%u)",
                            funcInfo->argSize, P2P_MAX_ARG_SIZE);
    if (memchr(funcInfo->kernelSoName, '\0', sizeof(funcInfo->kernelSoName)) == NULL ||
        memchr(funcInfo->kernelFuncName, '\0', sizeof(funcInfo->kernelFuncName)) == NULL)
        return emu_hccl_bad(c, fn, "kernelSoName or kernelFuncName is not terminated");
    if (emu_coll_group_open()) {
        EMU_LOG_ERR("%s: rank %u: a launch inside HcclGroupStart/HcclGroupEnd is not supported "
                    "by hcemu (the vendor library defers it to the group's end)", fn, c->rank);
        return EMU_ENOTSUP;
    }
    return EMU_OK;
}

/* The AICPU_TS thread's last notify: HCCL keeps it for the host's start signal. */
static emu_status start_notify(struct emu_comm *c, ThreadHandle thread, uint32_t *idx)
{
    uint32_t n = 0;

    pthread_mutex_lock(&c->lock);
    emu_status s = emu_thread_notify_num(c, thread, &n);
    pthread_mutex_unlock(&c->lock);
    if (s != EMU_OK || n == 0)
        return emu_hccl_bad(c, fn, "aicpuThreadHandle 0x%llx is not a thread of this "
                            "communicator with a notify", (unsigned long long)thread);
    *idx = n - 1;
    return EMU_OK;
}

static emu_status launch(struct emu_comm *c, const HcclKernelFuncInfo *funcInfo,
                         ThreadHandle thread, aclrtStream user, aclrtStream unfold,
                         uint32_t timeout_s)
{
    struct emu_binary *b;
    struct emu_function *f;
    ThreadHandle host, host_dev, thread_host;
    uint32_t start = 0;
    emu_status s;

    if (emu_binary_find_loaded(funcInfo->kernelSoName, &b) != EMU_OK) {
        EMU_LOG_ERR("%s: rank %u: no kernel image %s is loaded in this process "
                    "(aclrtBinaryLoadFromFile of its .json first)", fn, c->rank,
                    funcInfo->kernelSoName);
        return EMU_ENOTFOUND;
    }
    if ((s = emu_binary_get_function(b, funcInfo->kernelFuncName, &f)) != EMU_OK ||
        (s = start_notify(c, thread, &start)) != EMU_OK)
        return s;
    /* The user's stream as a CPU_TS thread with one notify ("done"), named on the device; the
     * AICPU_TS thread named on the host. */
    if ((s = emu_thread_check_with_stream(c, COMM_ENGINE_CPU_TS, user, 1, &host, fn)) != EMU_OK ||
        (s = emu_thread_check_export(c, 1, &host, COMM_ENGINE_AICPU_TS, &host_dev, fn)) !=
            EMU_OK ||
        (s = emu_thread_check_export(c, 1, &thread, COMM_ENGINE_CPU_TS, &thread_host, fn)) !=
            EMU_OK)
        return s;
    struct emu_hcomm_call call = emu_coll_host_call(fn, EMU_CALLSITE());
    HcclP2pKernelParam p;
    memset(&p, 0, sizeof(p));
    p.sendRecvThread = thread;
    if (funcInfo->argSize > 0)
        memcpy(p.opParams, funcInfo->args, funcInfo->argSize);
    struct hcoll_thread_notify wait = {.thread = thread, .idx = start, .timeout_s = timeout_s};
    struct hcoll_thread_notify done = {.thread = thread, .dst = host_dev, .idx = 0};
    if ((s = emu_hcomm_record(&call, host, thread_host, start)) != EMU_OK ||
        (s = emu_coll_launch_notify(unfold, &wait, true, fn)) != EMU_OK ||
        (s = emu_coll_launch_kernel(f, unfold, &p, sizeof(p), timeout_s * 1000000ull,
                                    EMU_COPY_AUTO, fn)) !=
            EMU_OK ||
        (s = emu_coll_launch_notify(unfold, &done, false, fn)) != EMU_OK)
        return s;
    return emu_hcomm_wait(&call, host, 0, timeout_s);
}

#pragma GCC visibility push(default)

HcclResult HcclAicpuKernelLaunch(HcclComm comm, const HcclOpDesc *opInfo,
                                 const HcclKernelFuncInfo *funcInfo, ThreadHandle aicpuThreadHandle,
                                 aclrtStream userStream, const HcclKernelLaunchCfg *kernelLaunchCfg)
{
    struct emu_comm *c;
    emu_status s = emu_hccl_enter(comm, fn, &c);

    if (s != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = check_args(c, opInfo, funcInfo, userStream, kernelLaunchCfg)) == EMU_OK) {
        /* Seconds, as the vendor hands it to the launch; "not set" (all ones) and 0: the
         * collectives' wait. */
        uint64_t t = kernelLaunchCfg->timeOut;
        if (t == 0 || t > UINT16_MAX)
            t = HCOLL_TIMEOUT_S;
        s = launch(c, funcInfo, aicpuThreadHandle, userStream, opInfo->p2p.unfoldStream,
                   (uint32_t)t);
    }
    return emu_hccl_leave(c, s);
}

#pragma GCC visibility pop
