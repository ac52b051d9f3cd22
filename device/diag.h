/* diag.h - hooks of the diagnostics (hang watchdog, race detector, timeline, seeded
 * schedules) into the scheduler. The scheduler calls them with no lock held, on the worker
 * that runs the task, except emu_diag_task_submit() (scheduler lock held). Each costs one
 * predictable branch when its feature is off. Settings: HCEMU_HANG_MS, HCEMU_RACECHECK,
 * HCEMU_TRACE, HCEMU_SEED (docs/DEBUGGING.md). */
#ifndef HCEMU_DEVICE_DIAG_H
#define HCEMU_DEVICE_DIAG_H

#include <stdbool.h>

#include "sched.h"

/* True when some feature needs emu_diag_task_submit() (race detector). Read by the
 * scheduler on every append; set once by emu_diag_init() before the workers start. */
extern bool emu_diag_submit_on;

/* Read HCEMU_* settings and start what is enabled (executor start-up, before the
 * scheduler starts). */
void emu_diag_init(void);
/* Flush traces and reports (executor exit). */
void emu_diag_fini(void);
/* A task is about to run (first time only, not on re-polls of a parked task). */
void emu_diag_task_start(struct emu_task *t);
/* A task retired (DONE or FAIL); `res` says which. */
void emu_diag_task_end(struct emu_task *t, enum emu_run_result res);
/* A task was appended to its stream (scheduler lock held; only when emu_diag_submit_on). */
void emu_diag_task_submit(struct emu_task *t);
/* Release t->diag (called by emu_task_destroy when it is set). */
void emu_diag_task_free(struct emu_task *t);
/* HCEMU_SEED: 0 when unset (the scheduler keeps its FIFO run queue). */
uint64_t emu_diag_seed(void);

/* Describe a call site of a task of this device: "function (file.c:line)" when the kernel
 * image (or host program) has debug info, else "symbol+0xoff (image)". `pc` is a return
 * address; `stream` is the stream slot (its owner names the host program). */
void emu_diag_callsite(uint64_t pc, uint32_t stream, bool from_kernel, char *out, size_t len);

#endif
