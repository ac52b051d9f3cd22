/* placement.h - which cores an executor's workers run on.
 *
 * While a job has more executors than the cores it may use, the devices take turns on the
 * cores, and every hand-off inside a device (a kernel queueing tasks for a worker, a worker
 * starting or joining a kernel's threads, the scheduler's lock and queues) crossed between
 * cores whenever the kernel scheduler put the device's two workers on different ones: the
 * task's lines, the lock's line and the wake-up all travel. Binding each device's workers to
 * one core, the devices spread evenly over the cores, keeps those hand-offs within a core's
 * caches; what crosses cores is then only what crosses devices. Measured on 2 cores, 8 rank
 * processes, 1 KiB allreduce: see docs/ARCHITECTURE.md, "Core placement".
 *
 * With exactly as many executors as cores, each device gets a core of its own the same way,
 * but only for a worker that is its device's one busy worker: one that wakes while another
 * worker of its device runs stays unbound, so a lone busy device running several streams
 * still has every core (bound unconditionally, bench_dataplane's small tasks of one device
 * fell from 5.6-8.5 to 3.7-4.7 M/s). A 2-rank job's two devices then no longer share a core
 * while the other idles: docs/ARCHITECTURE.md, "Core placement".
 *
 * A worker calls emu_place_worker() when it starts and each time it wakes from an idle wait;
 * the binding follows the job's executor count (emu_spin_executors) both ways, so a job that
 * shrinks below as many executors as cores runs unbound again. HCEMU_BIND=0 turns it off. */
#ifndef HCEMU_COMMON_PLACEMENT_H
#define HCEMU_COMMON_PLACEMENT_H

#include <stdbool.h>

/* Bind the calling thread to the core of device `dev` while the job has more executors than
 * allowed cores, or as many and the thread is not `crowded` (another worker of its device is
 * busy), else give it back every core the process may use. Cheap when nothing changes (a
 * load and a compare); a system call only when the binding flips. */
void emu_place_worker(unsigned dev, bool crowded);
/* Whether the calling thread is bound now (tests/test_placement.c). */
bool emu_place_bound(void);

#endif
