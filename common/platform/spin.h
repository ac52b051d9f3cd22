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
/* An executor of the job starts (+1) or ends (-1). With more executors than cores, threads
 * with a gate (executor workers, network progress) never spin. A crashed executor's count
 * stays: that only disables spinning. */
void emu_spin_executor(int delta);
/* How many executors of the job run now (core placement, placement.h). */
int32_t emu_spin_executors(void);
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

/* Yielding polls (HCEMU_POLL_US): when a thread may not spin (no core free) it need not go
 * to sleep at once either. It polls its word and calls sched_yield() between looks, so the
 * core goes to whichever thread of the machine can run, and a hand-off written meanwhile is
 * seen at this thread's next turn instead of after a futex wake-up and a time slice. Unlike a
 * spinner it holds no core: it is not counted in the job's budget. Bounded in time (the
 * setting, at most 10 ms per wait), after which the caller sleeps as before. */
/* When a poll starting now must end: now + HCEMU_POLL_US, at most `deadline`; 0 when the
 * setting is 0 (polling off). */
uint64_t emu_spin_poll_end(uint64_t deadline);
/* Poll *word until it differs from `seen` (true) or the clock reaches `end` (false). At most
 * two pollers per core job-wide: beyond that it returns false at once (the caller sleeps). */
bool emu_spin_poll(_Atomic uint32_t *word, uint32_t seen, uint64_t end);

#endif
