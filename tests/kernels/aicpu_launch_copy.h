/* aicpu_launch_copy.h - the argument bytes test_aicpu_launch passes through
 * HcclAicpuKernelLaunch to its kernel (inside HcclP2pKernelParam.opParams). */
#ifndef HCEMU_TEST_AICPU_LAUNCH_COPY_H
#define HCEMU_TEST_AICPU_LAUNCH_COPY_H

#include <stdint.h>

struct aicpu_launch_copy_args {
    uint64_t dst, src, len;
};

#endif
