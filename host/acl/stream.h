/* stream.h - host streams: slots in the device's stream table, fed through the device's
 * submission ring, synchronised on the `completed` counter in shared memory. */
#ifndef HCEMU_HOST_STREAM_H
#define HCEMU_HOST_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "args_ring.h"
#include "common/contract/status.h"
#include "common/contract/wire.h"
#include "registry.h"
#include "runtime.h"

#define EMU_STREAM_USES 32u

struct emu_stream_use {
    uint64_t addr; /* start of an allocation a queued task uses */
    uint32_t seq;  /* the stream's submission count after that task */
};

struct emu_hstream {
    struct emu_registry_entry reg; /* first: the user's aclrtStream points here */
    uint32_t dev;
    uint32_t slot;
    uint32_t gen;
    bool is_default;
    struct emu_hdev *d;
    pthread_mutex_t use_lock;
    struct emu_stream_use uses[EMU_STREAM_USES];
    uint32_t n_uses;
    struct emu_args_ring args; /* launches' packed arguments (args_ring.c) */
};

/* Create a stream on device d (device slot + registry entry). */
emu_status emu_stream_create(struct emu_hdev *d, bool is_default,
                             struct emu_hstream **out) EMU_MUST_CHECK;
/* Wait for the stream's tasks, then free its slot (the caller validated `s`). */
void emu_stream_destroy(struct emu_hstream *s);
/* Give device d its default stream unless it has one (aclrtSetDevice). */
emu_status emu_stream_default_create(struct emu_hdev *d) EMU_MUST_CHECK;
/* Validate a user's aclrtStream (NULL = the current device's default stream). */
emu_status emu_stream_resolve(void *user, struct emu_hstream **out) EMU_MUST_CHECK;
/* Like emu_stream_resolve() for a non-NULL user stream, but silent: false when `user` is not
 * a live stream (callers log with their own context). */
bool emu_stream_lookup(void *user, struct emu_hstream **out);
/* Append a task to the stream (fills stream/gen). Never blocks on the task itself. */
emu_status emu_stream_submit(struct emu_hstream *s, struct emu_wire_task *w) EMU_MUST_CHECK;
/* What emu_stream_submit does first with every task: a capturing stream records it in its
 * graph (*taken = true) instead of queueing it. Set by acl_graph.c when the first capture
 * begins, so streams never call up into the graphs built on them; unset, nothing is taken. */
typedef emu_status (*emu_stream_capture_fn)(struct emu_hstream *s, const struct emu_wire_task *w,
                                            bool *taken);
void emu_stream_set_capture(emu_stream_capture_fn fn);
/* Queue what stream `slot` of device d owes (stream_owed.h), oldest first: the first error,
 * or EMU_OK. Every submission to the stream and every synchronisation of it does this first,
 * unless the submitting thread defers it. */
emu_status emu_stream_settle(struct emu_hdev *d, uint32_t slot) EMU_MUST_CHECK;
/* Queue what `owner` owes on every stream of this process (before it is destroyed). */
void emu_stream_settle_owner(const void *owner);
/* From on to off, this OS thread's submissions settle nothing: its caller queues a task that
 * must go in before what the stream owes, and orders the debts itself. */
void emu_stream_owed_defer(bool on);
/* Remember that the task just submitted uses the allocation starting at `addr`. */
void emu_stream_note_use(struct emu_hstream *s, uint64_t addr);
/* Whether a queued task of any stream still uses the allocation starting at `addr`. */
bool emu_stream_memory_busy(uint64_t addr);
/* Wait until every task submitted so far has retired; returns and clears the stream's
 * error. deadline as emu_os_now_ns(); UINT64_MAX = forever. */
emu_status emu_stream_sync(struct emu_hstream *s, uint64_t deadline) EMU_MUST_CHECK;
/* Wait until the stream's `completed` count reaches `target` (a launch retired), at most
 * until `deadline`: EMU_OK, EMU_ETIMEOUT, or the device's error. Errors stay on the stream. */
emu_status emu_stream_wait_retired(struct emu_hstream *s, uint32_t target,
                                   uint64_t deadline) EMU_MUST_CHECK;
/* Synchronise every stream of this process on device d. */
emu_status emu_stream_sync_device(struct emu_hdev *d) EMU_MUST_CHECK;
/* Wait for the tasks of s (or of every stream of d); their errors stay unreported here. */
void emu_stream_drain(struct emu_hstream *s);
void emu_stream_drain_device(struct emu_hdev *d);

/* Call site of the public API function that called us (for task reports). */
#define EMU_CALLSITE() ((uint64_t)(uintptr_t)__builtin_return_address(0))

#endif
