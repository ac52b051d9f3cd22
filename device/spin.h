/* spin.h - whether an idle scheduler worker may spin before sleeping.
 *
 * Spinning hands a notify over in well under a microsecond, but only when a core is free
 * for the thread that will ring; with more runnable threads than cores it steals the core
 * that thread needs. Every executor of a job shares one small counter file (cpus.shm in the
 * job folder), so the decision sees the whole job, not just this device. */
#ifndef HCEMU_DEVICE_SPIN_H
#define HCEMU_DEVICE_SPIN_H

#include <stdbool.h>

/* Map the job's counters (executor start-up). Without them spinning is decided per device. */
void emu_spin_open(const char *job_dir);
/* A thread of this executor starts (+1) or stops (-1) running tasks or kernel code. */
void emu_spin_busy(int delta);
/* Enter or leave a spin; emu_spin_begin() returns false when no core is free for it. */
bool emu_spin_begin(void);
void emu_spin_end(void);

#endif
