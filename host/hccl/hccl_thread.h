/* hccl_thread.h - communicator threads (docs/CONTROL_PLANE.md §5): AICPU_TS threads are
 * DEVICE slots of the device's streams[] table, CPU_TS threads wrap an ACL stream; both own a
 * range of the device's notify pool. Handles per common/handle.h. Call with c->lock held. */
#ifndef HCEMU_HOST_HCCL_THREAD_H
#define HCEMU_HOST_HCCL_THREAD_H

#include <stdint.h>

#include "common/status.h"
#include "hccl_comm.h"

/* `n` fresh threads. engine = COMM_ENGINE_AICPU_TS (device threads) or COMM_ENGINE_CPU_TS
 * (a new ACL stream each). notify_nums[i] notifies for thread i (notify_nums NULL: `uniform`
 * for all). On failure nothing stays acquired. */
emu_status emu_thread_acquire(struct emu_comm *c, int32_t engine, uint32_t n,
                              const uint32_t *notify_nums, uint32_t uniform, ThreadHandle *out,
                              const char *fn) EMU_MUST_CHECK;
/* Wrap the user's stream (same device as the comm) as a thread of `engine` with at least
 * `notify_num` notifies; calling again for the same stream returns the same thread. */
emu_status emu_thread_with_stream(struct emu_comm *c, int32_t engine, struct emu_hstream *s,
                                  uint32_t notify_num, ThreadHandle *out,
                                  const char *fn) EMU_MUST_CHECK;
/* HcclDedicatedThreadAcquire: one cached thread per type (see hccl_thread.c). */
emu_status emu_thread_dedicated(struct emu_comm *c, int32_t type, uint32_t notify_num,
                                ThreadHandle *out, const char *fn) EMU_MUST_CHECK;
/* Handles naming the same threads for code running on `dst`. */
emu_status emu_thread_export(struct emu_comm *c, uint32_t n, const ThreadHandle *in, int32_t dst,
                             ThreadHandle *out, const char *fn) EMU_MUST_CHECK;
/* The aclrtStream behind a CPU_TS thread. */
emu_status emu_thread_stream_of(struct emu_comm *c, ThreadHandle h, void **stream,
                                const char *fn) EMU_MUST_CHECK;
/* First error recorded on any of the comm's threads (not cleared), EMU_OK if none. */
emu_status emu_thread_async_error(struct emu_comm *c);
/* Destroy, step 1: wait (bounded) until every device thread's queue is empty. */
void emu_thread_quiesce(struct emu_comm *c);
/* Destroy, step 2: report notifies left set, free slots, ranges and owned streams. */
void emu_thread_release_all(struct emu_comm *c);

#endif
