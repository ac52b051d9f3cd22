/* lost_record.h - records that will never come because the thread that queued them failed.
 *
 * When a device thread fails, the scheduler discards the rest of its queue. A notify record
 * among the discarded tasks (a thread notify record, a channel notify record or write with
 * notify to a peer of this host) would have released a wait of another thread; without it
 * that wait would sit until its timeout or the hang watchdog. Instead the discarded record
 * leaves a mark on its notify slot (emu_notify_slot.lost: who failed, and with what), and
 * the wait that would have consumed the record consumes the mark and fails with the
 * recorder's error (HCCL_E_REMOTE stays HCCL_E_REMOTE, anything else is a failed task). So a
 * failure travels along the notify edges of a kernel (a per-peer thread to the main thread's
 * join, the main thread to the host stream) at once.
 *
 * A mark nobody consumed (its waiter failed too) is forgotten when a wait on the slot is
 * discarded, when a failed thread of the slot's rank is fed a new operator, or when the slot
 * is handed out again by the notify pool. Records through the network (another host) are the
 * peer's business: its executor learns of this host's failure from the network. */
#ifndef HCEMU_DEVICE_LOST_RECORD_H
#define HCEMU_DEVICE_LOST_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/contract/devctl.h"
#include "common/contract/status.h"

/* Register the scheduler's free hook that marks discarded records (executor start-up). */
void emu_lost_record_init(void);
/* A wait on `slot` of `ctl` found no record: whether a record of it was lost; then the mark
 * is consumed, *st is the status the wait fails with and `note` says whose record it was. */
bool emu_lost_record_take(struct emu_devctl *ctl, uint32_t slot, char *note, size_t len,
                          emu_status *st);
/* A failed thread of `rank` starts a new operator: forget the marks of its own notifies
 * [base, base + n) and of the local notifies of every channel of `rank` on this device (a
 * mark its failed wait did not consume belongs to the failed operator). */
void emu_lost_record_forget(struct emu_devctl *ctl, uint32_t rank, uint32_t base, uint32_t n);

#endif
