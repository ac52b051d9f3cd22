/* diag.h - the diagnostics of the executor (hang watchdog, race detector, timeline, seeded
 * schedules; docs/DEBUGGING.md). The executor only starts and stops them: each feature hooks
 * itself into the scheduler (emu_sched_register) or calls down into it. Settings:
 * HCEMU_HANG_MS, HCEMU_RACECHECK, HCEMU_TRACE, HCEMU_SEED. */
#ifndef HCEMU_DEVICE_DIAG_H
#define HCEMU_DEVICE_DIAG_H

/* Read HCEMU_* settings and start what is enabled (executor start-up, before the
 * scheduler starts). */
void emu_diag_init(void);
/* Flush traces and reports (executor exit). */
void emu_diag_fini(void);

#endif
