/* diagnostics.h - the diagnostics of the executor (hang watchdog, race detector, timeline,
 * seeded schedules, modelled-time recording; docs/DEBUGGING.md). The executor only starts and
 * stops them: each feature hooks itself into the scheduler (emu_sched_register) or calls down
 * into it. Settings: HCEMU_HANG_MS, HCEMU_RACECHECK, HCEMU_TRACE, HCEMU_SEED, HCEMU_TIME. */
#ifndef HCEMU_DEVICE_DIAGNOSTICS_H
#define HCEMU_DEVICE_DIAGNOSTICS_H

/* Read the settings and start what is enabled (executor start-up, before the scheduler
 * starts). */
void emu_diagnostics_start(void);
/* Flush traces and reports (executor exit). */
void emu_diagnostics_stop(void);

#endif
