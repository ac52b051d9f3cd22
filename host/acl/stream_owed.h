/* stream_owed.h - a task a stream owes: complete, but queued only before the stream's next
 * task or at its next synchronisation, whichever comes first.
 *
 * A built-in collective queues its kernel launch and then waits on the stream for the
 * kernel's "done" notify. Owing that wait instead lets the next launch of the same
 * communicator go in before it, so the next kernel queues its tasks behind this call's while
 * this call still runs, and the device needs no wake-up between queued calls
 * (host/coll/coll_launch.c, "Overlapping calls"). Everything else that reaches the stream
 * (any other task, a synchronisation, a capture, the communicator's destruction) first queues
 * what the stream owes, so what the user can observe keeps the stream's order.
 *
 * Streams are named by device and slot, as the HCOMM host calls name a wrapped stream's
 * thread, so their submissions settle the debt too. A device keeps at most a few debts at
 * once; emu_stream_owe() refuses more and the caller queues its task at once. This file is
 * the table; stream.c queues what is owed (emu_stream_settle). */
#ifndef HCEMU_HOST_ACL_STREAM_OWED_H
#define HCEMU_HOST_ACL_STREAM_OWED_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/wire.h"

/* Tasks one stream may owe at once; emu_stream_owe() refuses more. */
#define EMU_STREAM_OWED_MAX 16u

struct emu_stream_owed {
    const void *owner;      /* who owes it: emu_stream_settle_owner() matches this */
    uint32_t gen;           /* the stream's generation: a reused slot owes nothing */
    uint32_t tag;           /* the owner's own datum (coll_launch.c: the notify index) */
    struct emu_wire_task w; /* the task, complete but for its stream's slot and generation */
};

/* Stream `slot` of device `dev` now owes o too, after what it owed already. false when the
 * device keeps as many debts as it can (16 on each of 4 streams): nothing is kept. */
bool emu_stream_owe(uint32_t dev, uint32_t slot, const struct emu_stream_owed *o);
/* How many tasks the stream owes; the latest into *latest (when not NULL and any). */
uint32_t emu_stream_owed(uint32_t dev, uint32_t slot, struct emu_stream_owed *latest);
/* Take the oldest task the stream owes off the table: true and *o filled when it owed one.
 * The taker queues it (emu_stream_settle in stream.h, or a caller that orders it itself). */
bool emu_stream_owed_take(uint32_t dev, uint32_t slot, struct emu_stream_owed *o);
/* The streams (device, slot) where `owner` owes something, at most cap of them. */
uint32_t emu_stream_owed_by(const void *owner, uint32_t *devs, uint32_t *slots, uint32_t cap);

#endif
