/* fault.h - crashes and runaway kernels end the emulated device, never the host (fault.c). */
#ifndef HCEMU_DEVICE_FAULT_H
#define HCEMU_DEVICE_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/status.h"

/* What the crash report needs to know about running kernels. kernel.c sits above this file
 * (it calls emu_fault_*), so its answers come in as callbacks; both must be
 * async-signal-safe. */
struct emu_fault_locator {
    /* The kernel of the calling thread and the top of its frames; false outside kernels. */
    bool (*current)(const char **kernel, uint64_t *stack_hi);
    /* Base and path of the loaded image that contains pc. */
    bool (*image_of)(uint64_t pc, uint64_t *base, const char **path);
};

/* Install the handlers for kernel crashes (executor start-up); `loc` must outlive them. */
emu_status emu_fault_install(const struct emu_fault_locator *loc) EMU_MUST_CHECK;
/* Give the calling thread an alternate signal stack (AICPU threads). */
void emu_fault_thread_init(void);
/* Called by the executor when a kernel misbehaved beyond repair (timeout): records the
 * failure in the control block and ends the process. */
void emu_fault_device_failed(const char *kernel, int timed_out) __attribute__((noreturn));
/* Exit code of an executor whose kernel closed the executor's own descriptors. */
#define EMU_FAULT_EXIT_FDS 125
/* Record `fd` (open) as one of the executor's own descriptors, checked by
 * emu_fault_check_fds(); at most 4. */
void emu_fault_watch_fd(int fd);
/* The executor is ending and closes its watched descriptors itself: stop checking them. */
void emu_fault_unwatch_fds(void);
/* Called after each kernel entry returns: when kernel `kernel` closed or replaced a watched
 * descriptor, the executor cannot hear its host any more; the device is marked failed at
 * once (before the kernel's task completes, so the host's wait fails) and the process ends. */
void emu_fault_check_fds(const char *kernel);
/* Called by the server when poll() finds one of its descriptors invalid: only a kernel
 * closes them, so this ends the device as emu_fault_check_fds() does, naming the kernel
 * running now. Without it the server took the lost client for a host that left and shut
 * the device down in order, and the host reported nothing. */
void emu_fault_fds_invalid(void) __attribute__((noreturn));

#endif
