/* aicpu_launch_copy.c - the kernel of test_aicpu_launch, shaped like HCCL's
 * HcclLaunchP2pAicpuKernel: HcclAicpuKernelLaunch hands it one HcclP2pKernelParam, the
 * AICPU_TS thread first, then the caller's argument bytes (struct aicpu_launch_copy_args);
 * it queues one copy on that thread. */
#include <stdint.h>

#include "hccl/hccl_launch.h"
#include "hccl/hcomm_primitives.h"

#include "aicpu_launch_copy.h"

uint32_t aicpu_launch_copy(void *args)
{
    const HcclP2pKernelParam *p = args;
    const struct aicpu_launch_copy_args *a = (const void *)p->opParams;

    return HcommLocalCopyOnThread(p->sendRecvThread, (void *)(uintptr_t)a->dst,
                                  (const void *)(uintptr_t)a->src, a->len) != 0 ? 1 : 0;
}
