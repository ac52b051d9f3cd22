/* task.h - a scheduler task: a small object with a `run` function, and its memory (task.c).
 *
 * run() returns DONE, FAIL (with t->status set) or PARK; a parked task is polled again (run()
 * called anew) whenever the device's doorbell rings (sched.h). */
#ifndef HCEMU_DEVICE_TASK_H
#define HCEMU_DEVICE_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/contract/devctl.h"
#include "common/contract/status.h"

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
    /* Filled by whoever builds the task, read by the diagnostics (device/diag/). */
    struct emu_access acc[2];    /* what the task reads and writes */
    uint32_t n_acc;
    uint8_t sync_op;             /* enum emu_sync_op: the task records or waits on a notify */
    uint32_t sync_dev;           /* device owning that notify slot */
    uint32_t sync_slot;
    uint32_t from_kernel;        /* submitted by kernel code (call site inside an image) */
    uint8_t started;             /* run() was called once (the start hooks saw it) */
    /* Owned by the hooks (device/diag/); the scheduler only zeroes them. */
    uint64_t start_ns;           /* trace: when run() was first called; with HCEMU_SEED the
                                  * task's virtual start instead */
    uint64_t vt_floor;           /* HCEMU_SEED traces: virtual start of the kernel that queued it */
    uint32_t vt_index;           /* HCEMU_SEED traces: 1-based index of the task in its stream */
    void *diag;                  /* race clocks; released by the race detector's free hook */
    uint32_t model_node;         /* HCEMU_TIME=model: its node in model.shm, plus one */
    /* No larger than the wire task: every byte more would be a line more to zero, write and
     * carry to the running core for each task (the hot part ends at note's first byte). */
    union {
        struct emu_wire_task wire;                   /* host tasks, verbatim */
        uint8_t raw[sizeof(struct emu_wire_task)]; /* data-plane payloads */
    } u;
    /* Last, and only its first byte zeroed by emu_task_create: a task is built by one core
     * and run by another, and lines nobody writes do not travel between them. */
    char note[160];              /* detail for the failure report ("kernel k returned 7") */
};

/* Bytes of a task that emu_task_create zeroes and a run may touch (all but note's tail). */
#define EMU_TASK_HOT_BYTES (offsetof(struct emu_task, note) + 1)

/* Ask for the hot lines of t, built or retired last on another core, before they are needed. */
static inline void emu_task_prefetch(const struct emu_task *t)
{
    for (size_t off = 0; off < EMU_TASK_HOT_BYTES; off += 64)
        __builtin_prefetch((const char *)t + off);
}

/* The same, for lines this core is about to write (a recycled task it will build). */
static inline void emu_task_prefetch_write(const struct emu_task *t)
{
    for (size_t off = 0; off < EMU_TASK_HOT_BYTES; off += 64)
        __builtin_prefetch((const char *)t + off, 1);
}

/* A new zeroed task; NULL when out of memory. Freed by the scheduler after it retires. */
struct emu_task *emu_task_create(void);
/* Release what t owns (its `release`), tell the free hooks, and recycle it. NULL is ignored. */
void emu_task_destroy(struct emu_task *t);

/* Free the recycled tasks kept by the calling thread (a thread that stops using tasks). */
void emu_task_free_cache(void);
/* Free the recycled tasks shared by all threads (once no thread creates or destroys tasks). */
void emu_task_free_pool(void);

/* Call fn(t) for every task destroyed from now on (the scheduler's `free` hooks; before the
 * workers start). EMU_EINVAL when the list is full. */
emu_status emu_task_on_free(void (*fn)(struct emu_task *t)) EMU_MUST_CHECK;

#endif
