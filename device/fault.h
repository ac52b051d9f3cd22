/* fault.h - crashes and runaway kernels end the emulated device, never the host (fault.c). */
#ifndef HCEMU_DEVICE_FAULT_H
#define HCEMU_DEVICE_FAULT_H

#include "common/status.h"

/* Install the handlers for kernel crashes (executor start-up). */
emu_status emu_fault_install(void) EMU_MUST_CHECK;
/* Give the calling thread an alternate signal stack (AICPU threads). */
void emu_fault_thread_init(void);
/* Called by the executor when a kernel misbehaved beyond repair (timeout): records the
 * failure in the control block and ends the process. */
void emu_fault_device_failed(const char *kernel, int timed_out) __attribute__((noreturn));

#endif
