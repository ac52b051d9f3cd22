/* diag.h - hooks of the diagnostics (hang watchdog, race detector, timeline, seeded
 * schedules) into the scheduler. The scheduler calls them with no lock held, on the worker
 * that runs the task; each is cheap when its feature is off. */
#ifndef HCEMU_DEVICE_DIAG_H
#define HCEMU_DEVICE_DIAG_H

#include "sched.h"

/* Read HCEMU_* settings and start what is enabled (executor start-up). */
void emu_diag_init(void);
/* Flush traces and reports (executor exit). */
void emu_diag_fini(void);
/* A task is about to run (first time only, not on re-polls of a parked task). */
void emu_diag_task_start(struct emu_task *t);
/* A task retired (DONE or FAIL); `res` says which. */
void emu_diag_task_end(struct emu_task *t, enum emu_run_result res);

#endif
