/* device.h - the host's view of one device: its executor (started or joined), control block
 * and memory alias, liveness checks and requests to the executor (device.c). */
#ifndef HCEMU_HOST_DEVICE_H
#define HCEMU_HOST_DEVICE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/devctl.h"
#include "common/status.h"
#include "common/wire.h"

struct emu_hstream;

/* The host's view of one device. Fields below `lock` are protected by it. */
struct emu_hdev {
    uint32_t id;
    pthread_mutex_t lock;
    bool open;   /* executor connected, control block and memory mapped */
    bool failed; /* the executor died; every call on the device fails */
    bool failure_reported;
    int sock;                      /* connection to the executor: requests, and liveness */
    _Atomic uint64_t next_poll_ns; /* emu_device_check() polls `sock` again after this */
    int exec_pid;
    pid_t child_pid; /* executor this process started (to reap), 0 if joined */
    struct emu_devctl *ctl;
    uint8_t *alias; /* device memory as this process reaches it (never at the window) */
    uint64_t mem_size;
    uint32_t set_refs; /* aclrtSetDevice calls not yet undone */
    struct emu_hstream *default_stream;
    pthread_mutex_t rpc_lock; /* one request on the socket at a time */
};

/* Open device `id` (start or join its executor). Caller holds no lock. */
emu_status emu_device_open(uint32_t id, struct emu_hdev **out) EMU_MUST_CHECK;
/* The device if it is open and alive; notices (and reports once) an executor that died. */
emu_status emu_device_check(struct emu_hdev *d) EMU_MUST_CHECK;
/* emu_device_check() without its poll rate limit: for calls that change the device's state
 * (allocation), so none succeeds on a device whose executor already hung up. */
emu_status emu_device_check_now(struct emu_hdev *d) EMU_MUST_CHECK;
/* Send one request to the executor and wait for the answer. */
emu_status emu_device_rpc(struct emu_hdev *d, const struct emu_rpc_req *q,
                          struct emu_rpc_rep *r) EMU_MUST_CHECK;
/* Send a request whose answer nobody needs (best effort, or clean-up whose state a dead
 * executor took with it). */
void emu_device_post(struct emu_hdev *d, const struct emu_rpc_req *q);
/* How long an executor may take to end after its hosts hung up: closing a device waits that
 * long for it (then leaves it to the process exit), the exit's clean-up too (then kills it). */
#define EMU_DEVICE_REAP_MS 2000
/* Disconnect (the executor ends when its last host disconnects). */
void emu_device_close(struct emu_hdev *d);
/* emu_device_close() of devs[0..n), their executors ending side by side. */
void emu_device_close_all(struct emu_hdev *devs, uint32_t n);
/* Sleep on a futex word of device d's control block while it equals `seen`, waking at least
 * every 50 ms to notice a dead executor. EMU_EDEVLOST when the device failed. */
emu_status emu_device_wait(struct emu_hdev *d, _Atomic uint32_t *word, uint32_t seen,
                           uint64_t deadline) EMU_MUST_CHECK;
#endif
