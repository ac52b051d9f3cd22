/* kernel.h - the emulated AICPU: kernel images loaded with dlopen, entries called through
 * libffi on AICPU worker threads, one per block of a launch. */
#ifndef HCEMU_DEVICE_KERNEL_H
#define HCEMU_DEVICE_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/contract/status.h"
#include "device/sched/sched.h"

/* What the calling AICPU thread is running; NULL outside kernel code. */
struct emu_kernel_ctx {
    uint32_t origin; /* host stream slot of the launch */
    uint32_t block;  /* block index of this call, 0..blocks-1 */
    const char *kernel;
    uint64_t launch_seq;
    uint64_t stack_hi; /* the kernel's frames lie below this: the fault handler's stack scan
                        * stops here instead of running off the top of the thread's stack */
    bool own;          /* hcemu's own collectives image: returns right after its batch */
    uint32_t copy_mode; /* enum emu_copy_mode of the transfers the kernel queues */
};

/* The kernel context of the calling thread, or NULL when not in a kernel. */
const struct emu_kernel_ctx *emu_kernel_current(void);
/* The same for the fault handler (struct emu_fault_locator): name and stack top. */
bool emu_kernel_where(const char **kernel, uint64_t *stack_hi);

/* Called when a kernel entry returns (on its AICPU thread), before the launch completes:
 * the data plane flushes batch state here. Set once at start-up. */
extern void (*emu_kernel_exit_hook)(void);

/* Load an image that passed inspection; *id names it in later calls. */
emu_status emu_kernel_load(const char *path, uint32_t *id, char *why, size_t why_len) EMU_MUST_CHECK;
emu_status emu_kernel_resolve(uint32_t image, const char *symbol, uint32_t *func) EMU_MUST_CHECK;
emu_status emu_kernel_unload(uint32_t image) EMU_MUST_CHECK;

/* Task run/release for EMU_TASK_KERNEL (used by task_host.c). */
enum emu_run_result emu_kernel_task_run(struct emu_task *t);
void emu_kernel_task_release(struct emu_task *t);
/* Name of the kernel a started EMU_TASK_KERNEL task runs (for reports); NULL before its
 * first run. Valid while the task is. */
const char *emu_kernel_task_name(const struct emu_task *t);

/* Image ranges for the fault handler: [base, end) and path of each loaded image. */
bool emu_kernel_image_of(uint64_t pc, uint64_t *base, const char **path);

#endif
