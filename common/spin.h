/* spin.h - whether a waiting thread (an idle executor worker, a host synchronising on a
 * stream) may spin before sleeping on a futex.
 *
 * Spinning hands work over with a memory write instead of a wake-up, but only when a core is
 * free for the thread that will ring; with more runnable threads than cores it steals the
 * core that thread needs. Every process of a job (executors and hosts) shares one small
 * counter file (cpus.shm in the job folder), so the decision sees the whole job. */
#ifndef HCEMU_COMMON_SPIN_H
#define HCEMU_COMMON_SPIN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Map the job's counters (executor start-up, host job start). Without them spinning is
 * decided per process. */
void emu_spin_open(const char *job_dir);
/* A thread of this process starts (+1) or stops (-1) running tasks or kernel code. */
void emu_spin_busy(int delta);
/* Enter a spin: false when no core is free for it or, with `gate` (a per-device word such as
 * the control block's `spinners`), when another thread already spins for the same thing.
 * emu_spin_end() with the same gate leaves it. */
bool emu_spin_begin(_Atomic uint32_t *gate);
void emu_spin_end(_Atomic uint32_t *gate);
/* For a spinner without a gate (a host synchronising, which is not on the hand-off path
 * until the last task retires): true once the job's busy threads and spinners outnumber the
 * cores, i.e. a worker that runs or passes on the job's tasks needs the core: leave the spin
 * and sleep. Workers entering a spin do not count such spinners. */
bool emu_spin_must_yield(void);
/* Whether a core is free right now: fewer of the job's threads busy or spinning, and fewer
 * runnable threads on the machine, than cores. Waking a second thread for work the caller
 * could do in turn only pays when it can run beside the caller. */
bool emu_spin_core_free(void);

#endif
