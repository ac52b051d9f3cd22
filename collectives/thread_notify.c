/* thread_notify.c - the two kernels HcclAicpuKernelLaunch (host/coll/api_aicpu_launch.c)
 * puts around the user's kernel on its AICPU_TS thread: a wait for the host stream's record
 * before the kernel's tasks, and a record back to the host stream's thread after them. The
 * vendor library does the same with kernels of its own image. */
#include <stdint.h>

#include <hccl/hcomm_primitives.h>

#include "coll_abi.h"

uint32_t hcemu_thread_wait(void *args)
{
    const struct hcoll_thread_notify *a = args;

    return HcommThreadNotifyWaitOnThread(a->thread, a->idx, a->timeout_s) != 0 ? 1 : 0;
}

uint32_t hcemu_thread_record(void *args)
{
    const struct hcoll_thread_notify *a = args;

    return HcommThreadNotifyRecordOnThread(a->thread, a->dst, a->idx) != 0 ? 1 : 0;
}
