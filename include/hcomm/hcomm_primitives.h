/* hcomm_primitives.h - the HCOMM data plane of the CPU / CPU_TS / AICPU_TS engines: local
 * copies and reductions, thread and channel notifies, one-sided remote transfers, fences,
 * timeouts, batch mode, the device-side communicator lock and the AICPU_TS task cache.
 *
 * Contract shared by every ...OnThread call (docs/DATA_PLANE.md §1): the call validates
 * and appends a task to `thread`'s in-order queue, then returns; success means "accepted",
 * never "done". Tasks of one thread run in order, threads run concurrently and are ordered
 * only by notifies. Timeouts are seconds, 0 = forever. Return values are HcclResult numbers.
 * hcemu's own rendition of the vendor header. Like it, it includes <securec.h>: CANN code
 * calls sprintf_s and memcpy_s having included only this header (libc_sec implements them). */
#ifndef HCEMU_HCOMM_PRIMITIVES_H
#define HCEMU_HCOMM_PRIMITIVES_H

#include <stdbool.h>
#include <stdint.h>

#include "../acl/acl_rt.h"
#include "../securec.h"
#include "hcomm_res_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CHANNEL_HANDLE_DEFINED
#define CHANNEL_HANDLE_DEFINED
typedef uint64_t ChannelHandle;
#endif
#ifndef THREAD_HANDLE_DEFINED
#define THREAD_HANDLE_DEFINED
typedef uint64_t ThreadHandle;
#endif

/* Marks the ABI where the two timeout setters take float seconds (uint32_t before June 2026). */
#ifndef HCOMM_TIMEOUT_FLOAT_TYPE
#define HCOMM_TIMEOUT_FLOAT_TYPE 1
#endif

typedef enum {
    HCOMM_REDUCE_SUM = 0,
    HCOMM_REDUCE_PROD = 1,
    HCOMM_REDUCE_MAX = 2,
    HCOMM_REDUCE_MIN = 3,
    HCOMM_REDUCE_RESERVED = 255
} HcommReduceOp;

/* Same numbering as HcclDataType; 13 is unassigned. */
typedef enum {
    HCOMM_DATA_TYPE_INT8 = 0,
    HCOMM_DATA_TYPE_INT16 = 1,
    HCOMM_DATA_TYPE_INT32 = 2,
    HCOMM_DATA_TYPE_FP16 = 3,
    HCOMM_DATA_TYPE_FP32 = 4,
    HCOMM_DATA_TYPE_INT64 = 5,
    HCOMM_DATA_TYPE_UINT64 = 6,
    HCOMM_DATA_TYPE_UINT8 = 7,
    HCOMM_DATA_TYPE_UINT16 = 8,
    HCOMM_DATA_TYPE_UINT32 = 9,
    HCOMM_DATA_TYPE_FP64 = 10,
    HCOMM_DATA_TYPE_BFP16 = 11,
    HCOMM_DATA_TYPE_INT128 = 12,
    HCOMM_DATA_TYPE_HIF8 = 14,
    HCOMM_DATA_TYPE_FP8E4M3 = 15,
    HCOMM_DATA_TYPE_FP8E5M2 = 16,
    HCOMM_DATA_TYPE_FP8E8M0 = 17,
    HCOMM_DATA_TYPE_RESERVED = 255
} HcommDataType;

typedef enum {
    HCOMM_TRANSFER_TYPE_INVALID = -1,
    HCOMM_TRANSFER_TYPE_WRITE = 0,
    HCOMM_TRANSFER_TYPE_WRITE_REDUCE = 1,
    HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY = 2,
    HCOMM_TRANSFER_TYPE_WRITE_REDUCE_WITH_NOTIFY = 3,
    HCOMM_TRANSFER_TYPE_READ = 4,
    HCOMM_TRANSFER_TYPE_READ_REDUCE = 5,
    HCOMM_TRANSFER_TYPE_NOTIFY_RECORD = 6
} HcommTransferType;

/* 64 bytes. Write-type entries: dst remote, src local. Read-type entries (including
 * READ_REDUCE's use of `reduce`): dst local, src remote. */
typedef struct {
    HcommTransferType transType;
    uint8_t reserved[4];
    union {
        uint8_t raws[56];
        struct {
            uint64_t len;
            void *dst;
            void *src;
        } write;
        struct {
            uint64_t len;
            void *dst;
            void *src;
        } read;
        struct {
            uint64_t count;
            void *dst;
            void *src;
            HcommReduceOp reduceOp;
            HcommDataType dataType;
        } reduce;
        struct {
            uint32_t notifyIdx;
        } notifyRecord;
        struct {
            uint64_t len;
            void *dst;
            void *src;
            uint32_t notifyIdx;
        } writeWithNotify;
        struct {
            uint64_t count;
            void *dst;
            void *src;
            HcommReduceOp reduceOp;
            HcommDataType dataType;
            uint32_t notifyIdx;
        } writeReduceWithNotify;
    } transferInfo;
} HcommBatchTransferDesc;

/* --- local operations ------------------------------------------------------------------- */

/* Copies len bytes between local device buffers. */
int32_t HcommLocalCopyOnThread(ThreadHandle thread, void *dst, const void *src, uint64_t len);
/* dst[i] = op(dst[i], src[i]) for count elements of dataType (SUM/MAX/MIN). */
int32_t HcommLocalReduceOnThread(ThreadHandle thread, void *dst, const void *src, uint64_t count,
                                 HcommDataType dataType, HcommReduceOp reduceOp);
/* Sets notify dstNotifyIdx of dstThread (a thread of this engine or one exported to it). */
int32_t HcommThreadNotifyRecordOnThread(ThreadHandle thread, ThreadHandle dstThread,
                                        uint32_t dstNotifyIdx);
/* Stalls thread's queue until its own notify notifyIdx is set, then clears it. */
int32_t HcommThreadNotifyWaitOnThread(ThreadHandle thread, uint32_t notifyIdx, uint32_t timeOut);
/* As above with this OS thread's default timeout (HcommSetNotifyWaitTimeOut). */
int32_t HcommThreadNotifyWaitOnThreadWithDefaultTimeout(ThreadHandle thread, uint32_t notifyIdx);
/* Runtime-notify record/wait by aclrtGetNotifyId id (A2/A3 hand-shake; not on 950). */
int32_t HcommAclrtNotifyRecordOnThread(ThreadHandle thread, uint64_t dstNotifyId);
int32_t HcommAclrtNotifyWaitOnThread(ThreadHandle thread, uint64_t notifyId, uint32_t timeOut);

/* --- remote data movement through a channel --------------------------------------------- */

/* One-sided write of len bytes from local src to peer address dst. */
int32_t HcommWriteOnThread(ThreadHandle thread, ChannelHandle channel, void *dst, const void *src,
                           uint64_t len);
/* peer_dst[i] = op(peer_dst[i], local_src[i]). */
int32_t HcommWriteReduceOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                 const void *src, uint64_t count, HcommDataType dataType,
                                 HcommReduceOp reduceOp);
/* A write then, as one task, a record of the peer's channel notify remoteNotifyIdx. */
int32_t HcommWriteWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                     const void *src, uint64_t len, uint32_t remoteNotifyIdx);
int32_t HcommWriteReduceWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                           const void *src, uint64_t count,
                                           HcommDataType dataType, HcommReduceOp reduceOp,
                                           uint32_t remoteNotifyIdx);
/* One-sided read of len bytes from peer address src into local dst. */
int32_t HcommReadOnThread(ThreadHandle thread, ChannelHandle channel, void *dst, const void *src,
                          uint64_t len);
/* local_dst[i] = op(local_dst[i], peer_src[i]). */
int32_t HcommReadReduceOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                const void *src, uint64_t count, HcommDataType dataType,
                                HcommReduceOp reduceOp);
/* transferDescNum (> 0) entries in array order, as the matching single calls; all entries
 * are validated before any is submitted. */
int32_t HcommBatchTransferOnThread(ThreadHandle thread, ChannelHandle channel,
                                   const HcommBatchTransferDesc *transferDescs,
                                   uint32_t transferDescNum);

/* --- host-CPU RoCE non-blocking variants (thread ignored; not on Atlas 350) -------------- */

int32_t HcommWriteNbiOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                              const void *src, uint64_t len);
int32_t HcommWriteNbi(ChannelHandle channel, void *dst, const void *src, uint64_t len);
int32_t HcommReadNbiOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                             const void *src, uint64_t len);
int32_t HcommReadNbi(ChannelHandle channel, void *dst, const void *src, uint64_t len);
int32_t HcommWriteWithNotifyNbiOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                        const void *src, uint64_t len, uint32_t remoteNotifyIdx);
int32_t HcommWriteWithNotifyNbi(ChannelHandle channel, void *dst, const void *src, uint64_t len,
                                uint32_t remoteNotifyIdx);

/* --- channel notifies ------------------------------------------------------------------- */

/* Sets the PEER's channel notify remoteNotifyIdx after all earlier tasks of thread. */
int32_t HcommChannelNotifyRecordOnThread(ThreadHandle thread, ChannelHandle channel,
                                         uint32_t remoteNotifyIdx);
/* Waits for THIS side's channel notify localNotifyIdx, then clears it. */
int32_t HcommChannelNotifyWaitOnThread(ThreadHandle thread, ChannelHandle channel,
                                       uint32_t localNotifyIdx, uint32_t timeOut);
int32_t HcommChannelNotifyWaitOnThreadWithDefaultTimeout(ThreadHandle thread,
                                                         ChannelHandle channel,
                                                         uint32_t localNotifyIdx);
/* Thread-less host-CPU RoCE forms; the wait blocks the caller (timeOut > 0 required). */
int32_t HcommChannelNotifyRecord(ChannelHandle channel, uint32_t remoteNotifyIdx);
int32_t HcommChannelNotifyWait(ChannelHandle channel, uint32_t localNotifyIdx, uint32_t timeOut);

/* --- fences and drains ------------------------------------------------------------------ */

int32_t HcommChannelFenceOnThread(ThreadHandle thread, ChannelHandle channel);
int32_t HcommChannelFence(ChannelHandle channel);
int32_t HcommFenceOnThread(ThreadHandle thread);
/* Blocks the caller until all reads/writes submitted on thread + channel have finished. */
int32_t HcommChannelDrainOnThread(ThreadHandle thread, ChannelHandle channel);

/* --- timeouts (per OS thread) ----------------------------------------------------------- */

/* Default for the ...WithDefaultTimeout waits, seconds; 0 = forever; fractions truncated;
 * NaN, negative or > UINT32_MAX -> HCCL_E_PARA. */
int32_t HcommSetNotifyWaitTimeOut(float timeOut);
/* How long submission may wait for a full hardware queue; same rules, default 1856 s. */
int32_t HcommThreadResAcquireTimeOut(float timeOut);

/* --- batch mode (per OS thread) --------------------------------------------------------- */

/* Between Start and End tasks are only queued; End hands all of them to the scheduler and
 * does not wait. batchTag may be NULL or ""; pair Start/End with the same tag. */
int32_t HcommBatchModeStart(const char *batchTag);
int32_t HcommBatchModeEnd(const char *batchTag);

/* --- device-side communicator lock ------------------------------------------------------ */

/* commId is the name from HcclGetCommName. */
int32_t HcommAcquireComm(const char *commId);
int32_t HcommReleaseComm(const char *commId);

/* --- AICPU_TS task cache (950, inside the kernel) --------------------------------------- */

HcommResult HcommAicpuTsTaskCacheLookup(const char *tag, bool *isHit);
HcommResult HcommAicpuTsTaskCacheStart(const char *tag, void **addrs, uint64_t *sizes,
                                       uint64_t count);
HcommResult HcommAicpuTsTaskCacheEnd(const char *tag);
HcommResult HcommAicpuTsTaskCacheExecute(const char *tag, void **addrs, uint64_t *sizes,
                                         uint64_t count);
HcommResult HcommAicpuTsTaskCacheClear(const char *tag);

#ifdef __cplusplus
}
#endif

#endif
