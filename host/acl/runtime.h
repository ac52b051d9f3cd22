/* runtime.h - the host library's process-wide state: the job folder, the devices this
 * process uses (their executors, control blocks and memory aliases), the current device of
 * each OS thread, and pinned host memory. Everything in acl/ may use it; it uses none of
 * them (starting and ending the job, which does: runtime_life.h).
 *
 * Lock order: emu_rt.lock before a device's lock before the device's shared-memory locks
 * (alloc.lock, res_lock, sq.lock). */
#ifndef HCEMU_HOST_RUNTIME_H
#define HCEMU_HOST_RUNTIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/contract/devctl.h"
#include "common/contract/layout.h"
#include "common/contract/status.h"
#include "hdev.h"

struct emu_runtime {
    pthread_mutex_t lock;
    uint32_t init_refs; /* aclInit calls not yet finalised */
    bool job_ready;
    bool own_job_dir; /* this process made the folder and removes it */
    char job_dir[EMU_PATH_MAX];
    /* Which start of the runtime in which process: a random key per process and a count of
     * aclInit calls that started it, so a communicator member left open by an earlier start
     * (not destroyed before aclFinalize) is known for what it is: gone. */
    uint64_t proc_key;
    int32_t proc_key_pid; /* a forked child makes a key of its own */
    uint32_t generation;
    uint32_t ndev;
    uint64_t dev_mem;
    char soc[64];
    struct emu_hdev devs[EMU_MAX_DEVICES];
    /* aclrtSetDevice calls still outstanding when aclFinalize closed the device. The vendor's
     * aclFinalize leaves devices set, and programs reset them afterwards: a later
     * aclrtResetDevice undoes these (docs/ACL_LIFECYCLE.md). */
    uint32_t left_refs[EMU_MAX_DEVICES];
};

extern struct emu_runtime emu_rt;

bool emu_runtime_is_initialized(void);
/* Clean-up from here on at exit and at the terminating signals (runtime_life.c's init, once
 * the job folder exists). */
void emu_runtime_arm_cleanup(void);
/* Disconnect from the executors, reap them and remove the job folder if this process made
 * it. Async-signal-safe enough for exit paths: atexit, SIGINT/SIGTERM, and a host crash. */
void emu_runtime_cleanup_now(void);
/* When a terminating signal (SIGINT, SIGTERM, ...) is shutting the job down, park the calling
 * thread until the process dies of it (bounded), so no thread sees its devices vanish, prints
 * crash-like errors or exits with a status of its own first. Returns at once otherwise. */
void emu_runtime_park_if_dying(void);

/* Called when device d is closed or its executor is gone: drop what lived in its control
 * block (slots, image ids), so later uses of those handles are refused. */
typedef void (*emu_device_lost_cb)(struct emu_hdev *d);
/* Register a callback (once per module, typically on its first object; repeats are
 * ignored). Callbacks run in registration order, with no lock of the runtime held. */
void emu_runtime_on_device_lost(emu_device_lost_cb cb);
/* Run the registered callbacks for device d (device.c, when it closes d). */
void emu_runtime_device_lost(struct emu_hdev *d);

/* Current device of the calling OS thread, or -1. */
int emu_runtime_current_device(void);
void emu_runtime_set_current_device(int dev);

#endif
