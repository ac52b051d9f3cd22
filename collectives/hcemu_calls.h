/* hcemu_calls.h - hcemu-device's own data-plane calls (device/dp/api_hcemu.c), which no
 * product has: what hcemu's collectives kernel (coll_kernel.c) and the data-plane test kernel
 * (tests/kernels/dp_exec.c) call beside the Hcomm* primitives. Plain C, kernel side only. */
#ifndef HCEMU_HCEMU_CALLS_H
#define HCEMU_HCEMU_CALLS_H

#include <stdbool.h>
#include <stdint.h>

#include <hccl/hcomm_primitives.h>

/* Read `len` bytes (or read and reduce into `dst` `count` elements, dst[i] = op(dst[i],
 * src[i])) through `channel` from the peer's memory at `off` past the address the peer writes
 * into the 8 bytes at `mailbox` (my memory) before the task runs. */
int32_t hcemu_read_published(ThreadHandle thread, ChannelHandle channel, void *dst,
                             const void *mailbox, uint64_t off, uint64_t len);
int32_t hcemu_read_reduce_published(ThreadHandle thread, ChannelHandle channel, void *dst,
                                    const void *mailbox, uint64_t off, uint64_t count,
                                    HcommDataType dataType, HcommReduceOp reduceOp);
/* hcemu_read_reduce_published with the first operand in my memory at `own` instead of in dst:
 * dst[i] = op(own[i], src[i]), or op(src[i], own[i]) when !ownFirst, so that the reduction of
 * my part and a peer's needs no copy of either into dst first. `own` may be dst. */
int32_t hcemu_read_reduce_published_into(ThreadHandle thread, ChannelHandle channel, void *dst,
                                         const void *own, bool ownFirst, const void *mailbox,
                                         uint64_t off, uint64_t count, HcommDataType dataType,
                                         HcommReduceOp reduceOp);
/* The write counterpart: `len` bytes from `src` (my memory) through `channel` into the peer's
 * memory at `off` past the address the peer writes into the 8 bytes at `mailbox` (my memory)
 * before the task runs. */
int32_t hcemu_write_published(ThreadHandle thread, ChannelHandle channel, const void *mailbox,
                              uint64_t off, const void *src, uint64_t len);
/* The reduction of `count` elements of my part at `own` and of every peer's, in rank order,
 * written to `mine` and to every peer's output: peer q's part is `off` past the first address
 * it wrote into its mailbox (my memory, at mailbox + q * stride), its output `off` past the
 * second, 8 bytes on; chans[q] is the channel to peer q (chans[me] unused). Every peer must
 * be on this host. `own` may be `mine`. */
int32_t hcemu_reduce_spread_published(ThreadHandle thread, const ChannelHandle *chans, uint32_t n,
                                      uint32_t me, const void *own, void *mine, const void *mailbox,
                                      uint32_t stride, uint64_t off, uint64_t count,
                                      HcommDataType dataType, HcommReduceOp reduceOp);
/* HcommThreadNotifyRecordOnThread, but waking the destination's device only when nothing is
 * queued behind the record on `thread`: the kernel's "done" while calls overlap. */
int32_t hcemu_record_done(ThreadHandle thread, ThreadHandle dstThread, uint32_t dstNotifyIdx);
/* HcommChannelNotifyWaitOnThread, then HcommLocalCopyOnThread (or HcommLocalReduceOnThread,
 * count elements) on the same thread, as one task: half the tasks of an eager exchange's
 * receiving side, and one hand-off fewer through the job-wide run queue. */
int32_t hcemu_wait_copy(ThreadHandle thread, ChannelHandle channel, uint32_t localNotifyIdx,
                        uint32_t timeOut, void *dst, const void *src, uint64_t len);
int32_t hcemu_wait_reduce(ThreadHandle thread, ChannelHandle channel, uint32_t localNotifyIdx,
                          uint32_t timeOut, void *dst, const void *src, uint64_t count,
                          HcommDataType dataType, HcommReduceOp reduceOp);

/* The tasks a launch expanded into before, queued again (0), when the same `key` (`len`
 * bytes, at most HCOLL_KEY_MAX: everything the expansion depends on, coll_key.h) came before
 * on this device; 1: expand it now, then call hcemu_cache_record_end(), which keeps the tasks
 * queued meanwhile for the next launch with this key. A longer key is never replayed. */
#define HCOLL_KEY_MAX 8192u
int32_t hcemu_cache_replay(const void *key, uint64_t len);
int32_t hcemu_cache_record_end(void);

#endif
