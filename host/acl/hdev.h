/* hdev.h - the host's view of one device (struct emu_hdev): what the process state
 * (runtime.h) holds per device and device.c maintains. Its own header so the runtime state
 * sits below device.c, which uses it. */
#ifndef HCEMU_HOST_HDEV_H
#define HCEMU_HOST_HDEV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/contract/devctl.h"

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


/* How long an executor may take to end after its hosts hung up: closing a device waits that
 * long for it (then leaves it to the process exit), the exit's clean-up too (then kills it). */
#define EMU_DEVICE_REAP_MS 2000

#endif
