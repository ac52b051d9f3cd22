/* runtime.h - the host library's process-wide state: the job folder, the devices this
 * process uses (their executors, control blocks and memory aliases), the current device of
 * each OS thread, and pinned host memory.
 *
 * Lock order: emu_rt.lock before a device's lock before the device's shared-memory locks
 * (alloc.lock, res_lock, sq.lock). */
#ifndef HCEMU_HOST_RUNTIME_H
#define HCEMU_HOST_RUNTIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/devctl.h"
#include "common/layout.h"
#include "common/status.h"

struct emu_hstream;

/* The host's view of one device. Fields below `lock` are protected by it. */
struct emu_hdev {
    uint32_t id;
    pthread_mutex_t lock;
    bool open;            /* executor connected, control block and memory mapped */
    bool failed;          /* the executor died; every call on the device fails */
    bool failure_reported;
    int sock;             /* connection to the executor: requests, and liveness */
    _Atomic uint64_t next_poll_ns; /* emu_hdev_check() polls `sock` again after this */
    int exec_pid;
    pid_t child_pid; /* executor this process started (to reap), 0 if joined */
    struct emu_devctl *ctl;
    uint8_t *alias; /* device memory as this process reaches it (never at the window) */
    uint64_t mem_size;
    uint32_t set_refs; /* aclrtSetDevice calls not yet undone */
    struct emu_hstream *default_stream;
    pthread_mutex_t rpc_lock; /* one request on the socket at a time */
};

struct emu_runtime {
    pthread_mutex_t lock;
    uint32_t init_refs; /* aclInit calls not yet finalised */
    bool job_ready;
    bool own_job_dir; /* this process made the folder and removes it */
    char job_dir[EMU_PATH_MAX];
    uint32_t ndev;
    uint64_t dev_mem;
    char soc[64];
    struct emu_hdev devs[EMU_MAX_DEVICES];
};

extern struct emu_runtime emu_rt;

/* Read configuration and create (or join) the job folder. Idempotent. */
emu_status emu_runtime_init(void) EMU_MUST_CHECK;
/* Stop using every device and remove the job folder if this process made it. */
void emu_runtime_fini(void);
bool emu_runtime_is_initialized(void);
/* Disconnect from the executors, reap them and remove the job folder if this process made
 * it. Async-signal-safe enough for exit paths: atexit, SIGINT/SIGTERM, and a host crash. */
void emu_runtime_cleanup_now(void);

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
/* The device set on this thread, opened; EMU_ENODEVICE when none is set. */
emu_status emu_runtime_current(struct emu_hdev **out) EMU_MUST_CHECK;

/* device.c: open device `id` (start or join its executor). Caller holds no lock. */
emu_status emu_hdev_open(uint32_t id, struct emu_hdev **out) EMU_MUST_CHECK;
/* The device if it is open and alive; notices (and reports once) an executor that died. */
emu_status emu_hdev_check(struct emu_hdev *d) EMU_MUST_CHECK;
/* Send one request to the executor and wait for the answer. */
emu_status emu_hdev_rpc(struct emu_hdev *d, const struct emu_rpc_req *q,
                        struct emu_rpc_rep *r) EMU_MUST_CHECK;
/* Send a request whose answer nobody needs (best effort, or clean-up whose state a dead
 * executor took with it). */
void emu_hdev_post(struct emu_hdev *d, const struct emu_rpc_req *q);
/* Disconnect (the executor ends when its last host disconnects). */
void emu_hdev_close(struct emu_hdev *d);
/* Sleep on a futex word of device d's control block while it equals `seen`, waking at least
 * every 50 ms to notice a dead executor. EMU_EDEVLOST when the device failed. */
emu_status emu_hdev_wait(struct emu_hdev *d, _Atomic uint32_t *word, uint32_t seen,
                         uint64_t deadline) EMU_MUST_CHECK;
/* Print the report of a device failure (once per process). */
void emu_hdev_report_failure(struct emu_hdev *d);

#endif
