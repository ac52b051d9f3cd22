/* kernel.h - kernel launches on the host side (aclrtLaunchKernelWithConfig and friends). */
#ifndef HCEMU_HOST_KERNEL_H
#define HCEMU_HOST_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "common/contract/status.h"
#include "function.h"
#include "stream.h"

struct emu_launch_opts {
    uint32_t blocks;
    uint64_t timeout_us; /* 0 = forever */
    uint64_t callsite;
    uint32_t copy_mode; /* enum emu_copy_mode (common/platform/copy.h) of its transfers */
};

/* Launch with a finalised argument list (copied to device memory now). */
emu_status emu_kernel_launch(struct emu_function *f, struct emu_args *a, struct emu_hstream *s,
                             const struct emu_launch_opts *o) EMU_MUST_CHECK;
/* Launch with arguments already in device memory of the stream's device. */
emu_status emu_kernel_launch_raw(struct emu_function *f, const void *args, size_t size,
                                 struct emu_hstream *s,
                                 const struct emu_launch_opts *o) EMU_MUST_CHECK;

#endif
