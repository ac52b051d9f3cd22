/* net.h - the executor's transport to devices of other hosts (docs/MULTIHOST.md).
 *
 * A channel whose peer is on another host (common/contract/host_id.h) cannot map the peer's device:
 * its transfers and notifies travel as messages to the peer's executor, which applies them
 * to its own memory and notify pool. net_ucx.c does this over UCX (active messages); without
 * UCX at build time net_none.c refuses every remote peer with one line.
 *
 * Threads: every UCX call is made under one lock, by the executor's progress thread or by
 * the thread running a data-plane task (its send). A transfer's task parks; the progress
 * thread completes it (the peer's acknowledgement, or the peer's failure). A record without
 * data completes when sent; the peer answers it only to refuse it, and the refusal fails the
 * channel's next operation, wait (emu_net_check) or drain (emu_net_flush). Incoming messages (the
 * peer's writes, reads and notifies) are applied by the progress thread: data first, then
 * the notify. Whatever thread of this device waited for either is then run by the progress
 * thread itself (net_handoff.h), or, when that is off, woken by the doorbell. */
#ifndef HCEMU_DEVICE_NET_H
#define HCEMU_DEVICE_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/contract/host_id.h"
#include "common/contract/status.h"
#include "common/contract/wire.h" /* struct emu_net_job */
#include "device/sched/task.h"

#define EMU_NET_ADDR_MAX EMU_HOST_ADDR_MAX /* a worker address in a rendezvous row */
/* This executor's address (starting the transport on first use). EMU_ENOTSUP when hcemu was
 * built without UCX; msg says why on failure. */
emu_status emu_net_address(const struct emu_net_job *job, uint8_t *buf, size_t cap,
                           uint32_t *len, char *msg, size_t msg_len) EMU_MUST_CHECK;
/* Connect peers[peer] (its host, device and folder as the control block has them now) to the
 * executor at `addr`, whose job's messages carry `token`. */
emu_status emu_net_connect(uint32_t peer, const uint8_t *addr, uint32_t len,
                           const uint8_t *token, char *msg, size_t msg_len) EMU_MUST_CHECK;
/* Whether peers[peer] is on another host (so only the network reaches it); net_peer.c. */
bool emu_net_is_remote(uint32_t peer);
/* What a wait on `channel` (whose peer is peers[peer]) must fail with, if anything:
 * EMU_EREMOTE when the connection to the peer failed (its host or executor died), the code
 * of a record of this channel the peer refused after the record had completed (taken: one
 * failure reports it), or EMU_OK. `why` gets the report. */
emu_status emu_net_check(uint32_t channel, uint32_t peer, char *why, size_t len);
/* A drain of `channel` (peer peers[peer]): returns once the peer's executor has handled every
 * message this executor sent it before (a fence request it answers; records complete at
 * their send, so this is where their delivery is confirmed), with the refusal kept for the
 * channel if any, EMU_EREMOTE for a failed peer, EMU_ETIMEOUT after timeout_s (0: the
 * operation bound). `why` gets the report. Blocks the calling (kernel) thread. */
emu_status emu_net_flush(uint32_t channel, uint32_t peer, uint32_t timeout_s, char *why,
                         size_t len) EMU_MUST_CHECK;
/* Run a data-plane task whose channel peer is remote (dp_task.c): hand the operation to the
 * progress thread on the first call, PARK until it is acknowledged, then DONE or FAIL. */
enum emu_run_result emu_net_run(struct emu_task *t);
/* Ask the executor of peers[peer] (another job folder) for its folder's parked waits; the
 * answer arrives later and is kept by diag/hang_net.c. Never blocks; nothing happens when the
 * peer is not connected or failed. Any thread (the hang watchdog's). */
void emu_net_hang_ask(uint32_t peer);
/* Stop the progress thread and close UCX (executor exit). */
void emu_net_stop(void);

#endif
