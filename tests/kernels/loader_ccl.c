/* loader_ccl.c - a kernel linked -lccl_kernel: DT_NEEDED libccl_kernel.so, the device API
 * library every executor has loaded. */
#include <stdbool.h>
#include <stdint.h>

#include "hccl/hccl_comm.h"

uint32_t loader_ccl(void *args)
{
    bool on = true;

    (void)args;
    return HcclGroupStatusGet(&on) == HCCL_SUCCESS && !on ? 0 : 1;
}
