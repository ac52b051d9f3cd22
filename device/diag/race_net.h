/* race_net.h - the race detector's clocks on the messages between job folders (hosts), for
 * the network transport (device/net/net_ucx.c; docs/DEBUGGING.md, "Races across hosts").
 *
 * Within a job folder every executor shares diag.shm: tids, notify clocks and shadows. A
 * device of another folder (another host) is reached by messages only, so a message of a
 * task that writes, reads or records on the other side carries the task's vector clock at its
 * start (a tag after the message header), and the executor applying it checks the access
 * against its own device's shadow and joins the clock into the notify slot's entry, as a task
 * of its own folder would. Tids are per folder: a tag names every entry by (folder key, tid
 * in that folder), and the receiver maps other folders' tids to local mirror tids. */
#ifndef HCEMU_DEVICE_DIAG_RACE_NET_H
#define HCEMU_DEVICE_DIAG_RACE_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/sched/task.h"

/* Sender. t's clock tag for its message (*tag_len bytes; free() it). NULL when there is
 * nothing to send (the race detector is off, stopped, or kept no clock for t); the receiver
 * then stops checking. A tag longer than `cap` bytes stops checking here (one warning). */
uint8_t *emu_race_net_tag(const struct emu_task *t, size_t cap, size_t *tag_len);

enum emu_race_net_access { EMU_RACE_NET_NONE = 0, EMU_RACE_NET_READ, EMU_RACE_NET_WRITE };

/* Receiver. A message from device `src_dev` of another job folder arrived with `tag` (`len`
 * 0: none): check its access of [addr, +bytes) of this device against the shadow with the
 * sender's clock, reporting a race. With `record`, returns what its notify record needs
 * (emu_race_net_publish before the notify is set, emu_race_net_end after), else NULL; NULL
 * too when the race detector is off here. */
struct emu_race_net_in *emu_race_net_arrive(const void *tag, size_t len, uint32_t src_dev,
                                            uint64_t addr, uint64_t bytes,
                                            enum emu_race_net_access access, bool record);
/* Join the sender's clock into notify `slot` of this device (before setting it). */
void emu_race_net_publish(struct emu_race_net_in *in, uint32_t slot);
/* The notify is set (or the message failed before it was): count the record done, free. */
void emu_race_net_end(struct emu_race_net_in *in);

#endif
