/* sched.h - the device's TS scheduler: in-order task queues per stream, run concurrently by a
 * small pool of workers (docs/ARCHITECTURE.md, "Scheduler").
 *
 * A task is a small object with a `run` function. run() returns DONE, FAIL (with t->status
 * set) or PARK; a parked task is polled again (run() called anew) whenever the device's
 * doorbell rings, so a wait costs no OS thread. Producers are the submission ring (host
 * streams) and kernels running on this device (device threads, through emu_sched_submit). */
#ifndef HCEMU_DEVICE_SCHED_H
#define HCEMU_DEVICE_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "common/devctl.h"
#include "common/status.h"

enum emu_run_result {
    EMU_RUN_DONE = 0,
    EMU_RUN_FAIL = 1,
    EMU_RUN_PARK = 2,
};

struct emu_task;
typedef enum emu_run_result (*emu_task_run_fn)(struct emu_task *t);
typedef void (*emu_task_release_fn)(struct emu_task *t);

/* A memory range a task touches, for race checks and traces. */
struct emu_access {
    uint64_t addr; /* global device address */
    uint64_t len;
    uint32_t dev;  /* device owning the memory */
    uint32_t write;
};

enum emu_sync_op { EMU_SYNC_NONE = 0, EMU_SYNC_RECORD = 1, EMU_SYNC_WAIT = 2 };

struct emu_task {
    struct emu_task *next;
    emu_task_run_fn run;
    emu_task_release_fn release; /* frees what the payload owns; NULL when nothing */
    uint64_t callsite;           /* return address of the submitting call */
    uint64_t deadline_ns;        /* while parked: fail with `timeout_status` after this */
    uint32_t stream;             /* stream slot */
    uint16_t kind;               /* enum emu_task_kind or a data-plane kind (>= 64) */
    uint16_t park;               /* enum emu_park_kind while parked */
    uint32_t park_slot;          /* notify/event slot while parked, for reports */
    emu_status status;           /* why it failed */
    emu_status timeout_status;   /* status used when the deadline passes */
    uint32_t origin;             /* host stream that launched the kernel which made it */
    uint64_t seq;                /* device-wide submission number (traces, race checks) */
    void *priv;                  /* owned by the task kind, released by `release` */
    char note[160];              /* detail for the failure report ("kernel k returned 7") */
    /* Filled by whoever builds the task, read by the diagnostics (device/diag.h). */
    struct emu_access acc[2];    /* what the task reads and writes */
    uint32_t n_acc;
    uint8_t sync_op;             /* enum emu_sync_op: the task records or waits on a notify */
    uint32_t sync_dev;           /* device owning that notify slot */
    uint32_t sync_slot;
    uint32_t from_kernel;        /* submitted by kernel code (call site inside an image) */
    uint8_t started;             /* run() was called once (diagnostics saw the start) */
    uint64_t start_ns;           /* diagnostics: when run() was first called (traces); with
                                  * HCEMU_SEED the task's virtual start instead */
    uint64_t vt_floor;           /* HCEMU_SEED traces: virtual start of the kernel that queued it */
    uint32_t vt_index;           /* HCEMU_SEED traces: 1-based index of the task in its stream */
    void *diag;                  /* diagnostics state (race clocks); freed by emu_diag_task_free */
    union {
        struct emu_wire_task wire; /* host tasks, verbatim */
        uint8_t raw[160];          /* data-plane payloads */
    } u;
};

/* Start `workers` scheduler threads (0: choose). */
emu_status emu_sched_start(unsigned workers) EMU_MUST_CHECK;
/* Stop and join the workers; queued tasks are dropped. */
void emu_sched_stop(void);

/* A new zeroed task; NULL when out of memory. Freed by the scheduler after it retires. */
struct emu_task *emu_task_create(void);
void emu_task_destroy(struct emu_task *t);

/* Append t to stream `slot` (its generation already checked by the caller). With `wake`
 * false the workers are not woken (batch mode): call emu_sched_kick() later. Any thread. */
void emu_sched_submit(uint32_t slot, struct emu_task *t, bool wake);
void emu_sched_kick(void);
/* Append a chain of tasks (linked by `next`, in order) to stream `slot` under one lock
 * acquisition; wakes the workers once when `wake`. Any thread. */
void emu_sched_submit_list(uint32_t slot, struct emu_task *head, bool wake);
/* Whether stream `slot` has no queued or running task (for drains and joins). */
bool emu_sched_stream_is_idle(uint32_t slot);
/* Wait until stream `slot` is idle or `deadline` passes: EMU_OK or EMU_ETIMEOUT. Never call
 * from a worker. */
emu_status emu_sched_wait_idle(uint32_t slot, uint64_t deadline) EMU_MUST_CHECK;
/* Mark stream `slot` failed with `st` (first error wins) and wake everything parked so it
 * can see the error. */
void emu_sched_fail_stream(uint32_t slot, emu_status st);

/* For the hang watchdog: call cb(slot, head, arg) for every parked stream of this device,
 * with the scheduler lock held (cb may walk head->next but must not call the scheduler). */
void emu_sched_inspect_parked(void (*cb)(uint32_t slot, const struct emu_task *head, void *arg),
                              void *arg);

/* Consume a binary notify slot (1 -> 0); true when it was set. Any thread. */
bool emu_notify_try_consume(struct emu_devctl *ctl, uint32_t slot);

/* Seeded schedules (HCEMU_SEED): the next number of this device's seeded sequence, for
 * choices tasks make themselves (when to deliver a remote transfer); 0 when not seeded.
 * Call only from run() functions: in seeded mode one worker runs them all. */
uint64_t emu_sched_seed_draw(void);

/* Run functions of the host task kinds (task_host.c). */
emu_status emu_task_from_wire(const struct emu_wire_task *w, struct emu_task *t) EMU_MUST_CHECK;

#endif
