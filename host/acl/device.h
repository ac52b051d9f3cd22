/* device.h - the host's view of one device: its executor (started or joined), control block
 * and memory alias, liveness checks and requests to the executor (device.c). */
#ifndef HCEMU_HOST_DEVICE_H
#define HCEMU_HOST_DEVICE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/contract/devctl.h"
#include "common/contract/status.h"
#include "common/contract/wire.h"
#include "hdev.h"

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
/* The device set on the calling thread (emu_runtime_current_device), opened and alive;
 * EMU_ENODEVICE (logged) when none is set. */
emu_status emu_device_current(struct emu_hdev **out) EMU_MUST_CHECK;
/* Disconnect (the executor ends when its last host disconnects). */
void emu_device_close(struct emu_hdev *d);
/* emu_device_close() of devs[0..n), their executors ending side by side. */
void emu_device_close_all(struct emu_hdev *devs, uint32_t n);
/* Sleep on a futex word of device d's control block while it equals `seen`, waking at least
 * every 50 ms to notice a dead executor. EMU_EDEVLOST when the device failed. */
emu_status emu_device_wait(struct emu_hdev *d, _Atomic uint32_t *word, uint32_t seen,
                           uint64_t deadline) EMU_MUST_CHECK;
#endif
