/* hccl_thread.h - communicator threads (docs/CONTROL_PLANE.md §5): AICPU_TS threads are
 * DEVICE slots of the device's streams[] table, CPU_TS threads wrap an ACL stream; both own a
 * range of the device's notify pool. Handles per common/contract/handle.h. Call with c->lock held. */
#ifndef HCEMU_HOST_HCCL_THREAD_H
#define HCEMU_HOST_HCCL_THREAD_H

#include <stdint.h>

#include "common/contract/status.h"
#include "hccl_comm.h"
#include "hccl/hccl_res_expt.h"

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
/* emu_thread_with_stream for a caller that can do with fewer notifies than `most`: a thread c
 * already wraps around s with some keeps them, since growing moves them to a new range under
 * the handles of whoever wrapped it first. *got: the notifies the thread has for the caller. */
emu_status emu_thread_with_stream_upto(struct emu_comm *c, int32_t engine, struct emu_hstream *s,
                                       uint32_t most, ThreadHandle *out, uint32_t *got,
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
/* The same without a log line: EMU_ENOTFOUND when h is not a thread of c, EMU_ENOTSUP for an
 * AICPU_TS thread (its stream runs on the device). For callers that look through several
 * communicators (HcommThreadResGetInfo). */
emu_status emu_thread_stream_find(struct emu_comm *c, ThreadHandle h, void **stream) EMU_MUST_CHECK;
/* The notifies of thread h (a handle of any engine); EMU_ENOTFOUND, silently, when h is not
 * a thread of c. */
emu_status emu_thread_notify_num(struct emu_comm *c, ThreadHandle h, uint32_t *n) EMU_MUST_CHECK;
/* First error recorded on any of the comm's threads (not cleared), EMU_OK if none. */
emu_status emu_thread_async_error(struct emu_comm *c);
/* Destroy, step 1: wait (bounded) until every device thread's queue is empty. */
void emu_thread_quiesce(struct emu_comm *c);
/* Destroy, step 2: report notifies left set, free slots, ranges and owned streams. */
void emu_thread_release_all(struct emu_comm *c);

/* Limits of the thread calls (checked by hccl_thread_check.c). */
#define EMU_THREAD_THREADS_MAX 1984u          /* streams per 950 device */
#define EMU_THREAD_NOTIFIES_PER_THREAD 65535u /* notifyNumPerThread < 65536 */
#define EMU_THREAD_COMM_NOTIFIES_MAX 65536u   /* all threads of a communicator share this pool */
#define EMU_THREAD_DEDICATED_NOTIFIES 64u
#define EMU_THREAD_EXPORT_MAX 40u

/* hccl_thread_check.c: the checked entry points; they take c->lock themselves. */
/* HcclThreadAcquire: engine AICPU_TS or CPU_TS, n in range, per-thread notifies in range
 * and room in the communicator's notify pool. */
emu_status emu_thread_check_acquire(struct emu_comm *c, int32_t engine, uint32_t n, uint32_t per,
                                    ThreadHandle *out, const char *fn) EMU_MUST_CHECK;
/* HcclThreadAcquireWithConfig: engine CPU or AICPU (mapped to the TS engines), type TS,
 * every config initialised, room in the pool. */
emu_status emu_thread_check_acquire_config(struct emu_comm *c, int32_t engine, uint32_t threadNum,
                                           int32_t type, const ThreadConfig *config,
                                           ThreadHandle *threads, const char *fn) EMU_MUST_CHECK;
/* The engine of HcclThreadAcquireWithStream: CPU, CPU_TS or CCU, allowed on this product. */
emu_status emu_thread_check_stream_engine(struct emu_comm *c, int32_t engine,
                                          const char *fn) EMU_MUST_CHECK;
/* HcclThreadAcquireWithStream: that engine, notifies in range, a live stream of this device. */
emu_status emu_thread_check_with_stream(struct emu_comm *c, int32_t engine, void *stream,
                                        uint32_t notifyNum, ThreadHandle *thread,
                                        const char *fn) EMU_MUST_CHECK;
/* The same checks, then emu_thread_with_stream_upto. */
emu_status emu_thread_check_with_stream_upto(struct emu_comm *c, int32_t engine, void *stream,
                                             uint32_t most, ThreadHandle *thread, uint32_t *got,
                                             const char *fn) EMU_MUST_CHECK;
/* HcclDedicatedThreadAcquire: a dedicated type (0..5), notifies in range, the rank's device. */
emu_status emu_thread_check_dedicated(struct emu_comm *c, int32_t useType,
                                      uint32_t notifyNumPerThread, ThreadHandle *thread,
                                      const char *fn) EMU_MUST_CHECK;
/* HcclThreadExportToCommEngine: 1..40 threads, to an engine that can run them. */
emu_status emu_thread_check_export(struct emu_comm *c, uint32_t threadNum,
                                   const ThreadHandle *threads, int32_t dstCommEngine,
                                   ThreadHandle *exported, const char *fn) EMU_MUST_CHECK;

#endif
