/* sched.h - the device's TS scheduler: in-order task queues per stream, run concurrently by a
 * small pool of workers (docs/ARCHITECTURE.md, "Scheduler").
 *
 * Tasks (task.h) return DONE, FAIL (with t->status set) or PARK; a parked task is polled
 * again (run() called anew) whenever the device's doorbell rings, so a wait costs no OS
 * thread. Producers are the submission ring (host
 * streams) and kernels running on this device (device threads, through emu_sched_submit). */
#ifndef HCEMU_DEVICE_SCHED_H
#define HCEMU_DEVICE_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/devctl.h"
#include "common/contract/status.h"
#include "task.h"

/* Turns the wire record of a host submission into t (task_host.c in the executor). */
typedef emu_status (*emu_sched_decode_fn)(const struct emu_wire_task *w, struct emu_task *t);

/* Hook table: how the diagnostics (device/diag/) and the failure report see the scheduler
 * without the scheduler knowing them. Each registrant fills the members it needs and leaves
 * the rest NULL. Hooks run on the worker that runs the task, with no scheduler lock held,
 * except `submit`, `fail` and `pick` (lock held: they must not call the scheduler). With
 * nothing registered for an event the scheduler pays one predictable branch on a static
 * mask. */
struct emu_sched_hooks {
    /* t was appended to its stream (seq and stream set). */
    void (*submit)(struct emu_task *t);
    /* t is about to run for the first time (not on re-polls of a parked task). */
    void (*start)(struct emu_task *t);
    /* t returned PARK and its stream is about to be parked. */
    void (*park)(struct emu_task *t);
    /* t retired: res is EMU_RUN_DONE or EMU_RUN_FAIL (t->status set). */
    void (*end)(struct emu_task *t, enum emu_run_result res);
    /* t, head of stream `slot`, failed; the rest of the stream is about to be discarded. */
    void (*fail)(uint32_t slot, const struct emu_task *t);
    /* t is being destroyed (after its release), retired or discarded. */
    void (*free)(struct emu_task *t);
    /* Seeded schedules: choose which of `n` runnable streams runs next (0..n-1). Registering
     * it makes the scheduler serial: one worker, one task per turn, and the kernel gate
     * (see sched.c). At most one registrant may set it. */
    uint32_t (*pick)(uint32_t n);
    /* Seeded schedules: the next number of the sequence for choices tasks make themselves
     * (emu_sched_seed_draw). */
    uint64_t (*draw)(void);
};

/* Register a hook table (static storage; kept until exit). Only before emu_sched_start().
 * Registrants are called in registration order. EMU_EINVAL when the table is full or a
 * second `pick` is registered. */
emu_status emu_sched_register(const struct emu_sched_hooks *h) EMU_MUST_CHECK;

/* Job-wide run queue (docs/ARCHITECTURE.md "One job-wide run queue"): writes descriptors of
 * `head` and of the tasks queued behind it that any executor of the job may run into
 * out[0..cap), stopping at the first that may not; returns how many, and sets *more when
 * tasks remain behind them. `head` is a parked notify wait (0 otherwise), unless `behind`:
 * then the tasks go behind an entry already published. */
typedef uint32_t (*emu_sched_export_fn)(const struct emu_task *head, struct emu_runq_task *out,
                                        uint32_t cap, bool behind, bool *more);
/* Publish parked device threads through `fn` (before emu_sched_start). Ignored when a
 * diagnostic registered task hooks (they must see every task on its own device). */
void emu_sched_set_export(emu_sched_export_fn fn);
/* Whether this device publishes (and so may take published work of peers): the export is
 * set and no diagnostic hooks tasks. Valid once the workers started. */
bool emu_sched_runq_active(void);

/* Hand-offs served by the thread that received them (the network's progress thread,
 * device/net/net_handoff.c): a thread of this executor that is not a worker runs a parked device
 * thread's next tasks itself, under the same lock and bookkeeping as a worker, instead of
 * waking one. Only while emu_sched_runq_active() (no diagnostic hooks tasks). */
#define EMU_SCHED_BY_SLOT UINT32_MAX
struct emu_sched_server {
    /* Whether the calling thread may run t (false: t and what follows go to a worker). */
    bool (*fits)(const struct emu_task *t, void *arg);
    void *arg;
};
enum emu_sched_served {
    EMU_SCHED_IDLE = 0, /* nothing to run: the stream still waits, or none waits there */
    EMU_SCHED_SERVED,   /* the stream's tasks ran here until one parked, failed or ended */
    EMU_SCHED_WAKE,     /* a worker must look (work left over, a ring held back, or the
                         * stream is not one this thread may serve): emu_devctl_wake() */
};
/* Serve device thread `stream`, or with EMU_SCHED_BY_SLOT the one parked on notify
 * `notify_slot`: poll its parked head as a worker's scan would, and if it can go on, run it
 * and the tasks behind it on the calling thread while `srv` says they fit. */
enum emu_sched_served emu_sched_serve(uint32_t stream, uint32_t notify_slot,
                                      const struct emu_sched_server *srv);

/* Start `workers` scheduler threads (0: choose) for the device whose control block is `ctl`;
 * host submissions in its ring are decoded by `decode`. */
emu_status emu_sched_start(struct emu_devctl *ctl, unsigned workers,
                           emu_sched_decode_fn decode) EMU_MUST_CHECK;
/* Stop and join the workers; queued tasks are dropped and the shared task pool is freed (only
 * when no other thread creates or destroys tasks any more). */
void emu_sched_stop(void);

/* Append t to stream `slot` (its generation already checked by the caller). With `wake`
 * false the workers are not woken (batch mode): call emu_sched_kick() later. Any thread. */
void emu_sched_submit(uint32_t slot, struct emu_task *t, bool wake);
void emu_sched_kick(void);
/* A kick from work a worker runs for a task (emu_sched_defer: a kernel run inline), about
 * to return to the scheduler: bumps the doorbell without waking anyone, since that worker
 * scans it next. From any other thread it is emu_sched_kick(). */
void emu_sched_kick_self(void);
/* From a task's run() on a worker: run fn(arg) on this worker once the task has returned
 * PARK, its stream is parked and the lock dropped, instead of waking another thread for it
 * (a kernel started inline by the worker that took its launch). false (the caller does the
 * work elsewhere) off a worker, in a serial schedule (the `pick` hook), or when it would
 * leave no worker free for the queues. */
bool emu_sched_defer(void (*fn)(void *), void *arg);
/* Append a chain of tasks (linked by `next`, in order) to stream `slot` under one lock
 * acquisition; wakes the workers once when `wake`. Any thread. */
void emu_sched_submit_list(uint32_t slot, struct emu_task *head, bool wake);
/* Whether stream `slot` has no queued or running task (for drains and joins). */
bool emu_sched_stream_is_idle(uint32_t slot);
/* Wait until stream `slot` is idle or `deadline` passes: EMU_OK or EMU_ETIMEOUT. Never call
 * from a worker. `from_kernel`: the caller is kernel code (it opens the kernel gate of a
 * serial schedule while it waits). */
emu_status emu_sched_wait_idle(uint32_t slot, uint64_t deadline, bool from_kernel) EMU_MUST_CHECK;
/* Mark stream `slot` failed with `st` (first error wins) and wake everything parked so it
 * can see the error. */
void emu_sched_fail_stream(uint32_t slot, emu_status st);

/* For diagnostics (the hang watchdog): call cb(slot, head, arg) for every parked stream of
 * this device, with the scheduler lock held (cb may walk head->next but must not call the
 * scheduler). */
void emu_sched_inspect_parked(void (*cb)(uint32_t slot, const struct emu_task *head, void *arg),
                              void *arg);

/* Seeded schedules (HCEMU_SEED): the next number of this device's seeded sequence, for
 * choices tasks make themselves (when to deliver a remote transfer); 0 when not seeded
 * (no `draw` hook). Call only from run() functions: in seeded mode one worker runs them all. */
uint64_t emu_sched_seed_draw(void);

/* Host task kinds (task_host.c): decode a wire record (the executor's emu_sched_decode_fn). */
emu_status emu_task_host_decode(const struct emu_wire_task *w, struct emu_task *t) EMU_MUST_CHECK;
/* Consume a binary notify slot (1 -> 0); true when it was set. Any thread. */
bool emu_task_host_notify_consume(struct emu_devctl *ctl, uint32_t slot);

#endif
