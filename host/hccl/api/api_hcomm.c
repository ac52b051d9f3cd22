/* api_hcomm.c - the Hcomm* data-plane functions of the host library (CPU_TS side).
 *
 * On the host only the calls the documented flow makes on a CPU_TS thread are emulated:
 * HcommThreadNotifyRecordOnThread / HcommThreadNotifyWaitOnThread (+WithDefaultTimeout),
 * which queue notify tasks on the thread's stream (docs/FLOW.md §2.10, §2.12), plus the
 * per-OS-thread settings (HcommSetNotifyWaitTimeOut, batch mode). Batch mode on the host is
 * validated (pairing, tag) but tasks are still queued at once: they share the user's stream
 * with kernel launches, and holding them back would reorder them. Everything else needs the
 * AICPU_TS engine (call it inside the kernel) or the host-CPU RoCE engine, which Atlas 350
 * lacks; such calls return HCCL_E_NOT_SUPPORT with one line saying so. */
#include <stdbool.h>
#include <stdint.h>

#include "host/acl/api.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm/hcomm_primitives_expt.h"
#include "host/hccl/hcomm.h"

#define HCOMM_API __attribute__((visibility("default"), noinline))
#define CALL(name)                                                                             \
    struct emu_hcomm_call c = {.side = &emu_hcomm_side,                                        \
                               .fn = (name),                                                   \
                               .callsite = (uint64_t)(uintptr_t)__builtin_return_address(0), \
                               .dev = EMU_HCOMM_NONE,                                          \
                               .thread = EMU_HCOMM_NONE,                                       \
                               .channel = EMU_HCOMM_NONE}

#define DEVICE_ONLY "device-side call: make it inside the AICPU kernel on an AICPU_TS thread"
#define ROCE_ONLY                                                                              \
    "host-CPU RoCE call (COMM_ENGINE_CPU over RoCE); Atlas 350 has no CPU engine RoCE"

static int32_t out(emu_status st)
{
    return emu_api_hccl(st);
}

static int32_t refuse(const struct emu_hcomm_call *c, const char *why)
{
    return out(emu_hcomm_not_supported(c, why));
}

HCOMM_API int32_t HcommThreadNotifyRecordOnThread(ThreadHandle thread, ThreadHandle dstThread,
                                                  uint32_t dstNotifyIdx)
{
    CALL("HcommThreadNotifyRecordOnThread");
    return out(emu_hcomm_record(&c, thread, dstThread, dstNotifyIdx));
}

HCOMM_API int32_t HcommThreadNotifyWaitOnThread(ThreadHandle thread, uint32_t notifyIdx,
                                                uint32_t timeOut)
{
    CALL("HcommThreadNotifyWaitOnThread");
    return out(emu_hcomm_wait(&c, thread, notifyIdx, timeOut));
}

HCOMM_API int32_t HcommThreadNotifyWaitOnThreadWithDefaultTimeout(ThreadHandle thread,
                                                                  uint32_t notifyIdx)
{
    CALL("HcommThreadNotifyWaitOnThreadWithDefaultTimeout");
    return out(emu_hcomm_wait(&c, thread, notifyIdx, emu_hcomm_default_wait_s()));
}

HCOMM_API int32_t HcommSetNotifyWaitTimeOut(float timeOut)
{
    CALL("HcommSetNotifyWaitTimeOut");
    return out(emu_hcomm_set_default_wait(&c, timeOut));
}

HCOMM_API int32_t HcommThreadResAcquireTimeOut(float timeOut)
{
    CALL("HcommThreadResAcquireTimeOut");
    (void)timeOut;
    return refuse(&c, "the queue-full timeout applies to AICPU_TS submission only (set it "
                      "inside the kernel)");
}

HCOMM_API int32_t HcommBatchModeStart(const char *batchTag)
{
    CALL("HcommBatchModeStart");
    return out(emu_hcomm_batch(&c, batchTag, 1));
}

HCOMM_API int32_t HcommBatchModeEnd(const char *batchTag)
{
    CALL("HcommBatchModeEnd");
    return out(emu_hcomm_batch(&c, batchTag, 0));
}

/* The rest: one line and HCCL_E_NOT_SUPPORT. */

HCOMM_API int32_t HcommLocalCopyOnThread(ThreadHandle thread, void *dst, const void *src,
                                         uint64_t len)
{
    CALL("HcommLocalCopyOnThread");
    (void)thread, (void)dst, (void)src, (void)len;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API int32_t HcommLocalReduceOnThread(ThreadHandle thread, void *dst, const void *src,
                                           uint64_t count, HcommDataType dataType,
                                           HcommReduceOp reduceOp)
{
    CALL("HcommLocalReduceOnThread");
    (void)thread, (void)dst, (void)src, (void)count, (void)dataType, (void)reduceOp;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API int32_t HcommAclrtNotifyRecordOnThread(ThreadHandle thread, uint64_t dstNotifyId)
{
    CALL("HcommAclrtNotifyRecordOnThread");
    (void)thread, (void)dstNotifyId;
    return refuse(&c, "device-side A2/A3 call; on the host use aclrtRecordNotify");
}

HCOMM_API int32_t HcommAclrtNotifyWaitOnThread(ThreadHandle thread, uint64_t notifyId,
                                               uint32_t timeOut)
{
    CALL("HcommAclrtNotifyWaitOnThread");
    (void)thread, (void)notifyId, (void)timeOut;
    return refuse(&c, "device-side A2/A3 call; on the host use aclrtWaitAndResetNotify");
}

HCOMM_API int32_t HcommWriteOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                     const void *src, uint64_t len)
{
    CALL("HcommWriteOnThread");
    (void)thread, (void)channel, (void)dst, (void)src, (void)len;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API int32_t HcommWriteReduceOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                           const void *src, uint64_t count,
                                           HcommDataType dataType, HcommReduceOp reduceOp)
{
    CALL("HcommWriteReduceOnThread");
    (void)thread, (void)channel, (void)dst, (void)src, (void)count, (void)dataType,
        (void)reduceOp;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API int32_t HcommWriteWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel,
                                               void *dst, const void *src, uint64_t len,
                                               uint32_t remoteNotifyIdx)
{
    CALL("HcommWriteWithNotifyOnThread");
    (void)thread, (void)channel, (void)dst, (void)src, (void)len, (void)remoteNotifyIdx;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API int32_t HcommWriteReduceWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel,
                                                     void *dst, const void *src, uint64_t count,
                                                     HcommDataType dataType,
                                                     HcommReduceOp reduceOp,
                                                     uint32_t remoteNotifyIdx)
{
    CALL("HcommWriteReduceWithNotifyOnThread");
    (void)thread, (void)channel, (void)dst, (void)src, (void)count, (void)dataType,
        (void)reduceOp, (void)remoteNotifyIdx;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API int32_t HcommReadOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                    const void *src, uint64_t len)
{
    CALL("HcommReadOnThread");
    (void)thread, (void)channel, (void)dst, (void)src, (void)len;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API int32_t HcommReadReduceOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                          const void *src, uint64_t count,
                                          HcommDataType dataType, HcommReduceOp reduceOp)
{
    CALL("HcommReadReduceOnThread");
    (void)thread, (void)channel, (void)dst, (void)src, (void)count, (void)dataType,
        (void)reduceOp;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API int32_t HcommBatchTransferOnThread(ThreadHandle thread, ChannelHandle channel,
                                             const HcommBatchTransferDesc *transferDescs,
                                             uint32_t transferDescNum)
{
    CALL("HcommBatchTransferOnThread");
    (void)thread, (void)channel, (void)transferDescs, (void)transferDescNum;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API int32_t HcommWriteNbiOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                        const void *src, uint64_t len)
{
    CALL("HcommWriteNbiOnThread");
    (void)thread, (void)channel, (void)dst, (void)src, (void)len;
    return refuse(&c, ROCE_ONLY);
}

HCOMM_API int32_t HcommWriteNbi(ChannelHandle channel, void *dst, const void *src, uint64_t len)
{
    CALL("HcommWriteNbi");
    (void)channel, (void)dst, (void)src, (void)len;
    return refuse(&c, ROCE_ONLY);
}

HCOMM_API int32_t HcommReadNbiOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                       const void *src, uint64_t len)
{
    CALL("HcommReadNbiOnThread");
    (void)thread, (void)channel, (void)dst, (void)src, (void)len;
    return refuse(&c, ROCE_ONLY);
}

HCOMM_API int32_t HcommReadNbi(ChannelHandle channel, void *dst, const void *src, uint64_t len)
{
    CALL("HcommReadNbi");
    (void)channel, (void)dst, (void)src, (void)len;
    return refuse(&c, ROCE_ONLY);
}

HCOMM_API int32_t HcommWriteWithNotifyNbiOnThread(ThreadHandle thread, ChannelHandle channel,
                                                  void *dst, const void *src, uint64_t len,
                                                  uint32_t remoteNotifyIdx)
{
    CALL("HcommWriteWithNotifyNbiOnThread");
    (void)thread, (void)channel, (void)dst, (void)src, (void)len, (void)remoteNotifyIdx;
    return refuse(&c, ROCE_ONLY);
}

HCOMM_API int32_t HcommWriteWithNotifyNbi(ChannelHandle channel, void *dst, const void *src,
                                          uint64_t len, uint32_t remoteNotifyIdx)
{
    CALL("HcommWriteWithNotifyNbi");
    (void)channel, (void)dst, (void)src, (void)len, (void)remoteNotifyIdx;
    return refuse(&c, ROCE_ONLY);
}

HCOMM_API int32_t HcommChannelNotifyRecordOnThread(ThreadHandle thread, ChannelHandle channel,
                                                   uint32_t remoteNotifyIdx)
{
    CALL("HcommChannelNotifyRecordOnThread");
    (void)thread, (void)channel, (void)remoteNotifyIdx;
    return refuse(&c, DEVICE_ONLY " (the host path needs RoCE, which Atlas 350 lacks)");
}

HCOMM_API int32_t HcommChannelNotifyWaitOnThread(ThreadHandle thread, ChannelHandle channel,
                                                 uint32_t localNotifyIdx, uint32_t timeOut)
{
    CALL("HcommChannelNotifyWaitOnThread");
    (void)thread, (void)channel, (void)localNotifyIdx, (void)timeOut;
    return refuse(&c, DEVICE_ONLY " (the host path needs RoCE, which Atlas 350 lacks)");
}

HCOMM_API int32_t HcommChannelNotifyWaitOnThreadWithDefaultTimeout(ThreadHandle thread,
                                                                   ChannelHandle channel,
                                                                   uint32_t localNotifyIdx)
{
    CALL("HcommChannelNotifyWaitOnThreadWithDefaultTimeout");
    (void)thread, (void)channel, (void)localNotifyIdx;
    return refuse(&c, DEVICE_ONLY " (the host library supports it only for NIC plug-in "
                                  "channels)");
}

HCOMM_API int32_t HcommChannelNotifyRecord(ChannelHandle channel, uint32_t remoteNotifyIdx)
{
    CALL("HcommChannelNotifyRecord");
    (void)channel, (void)remoteNotifyIdx;
    return refuse(&c, ROCE_ONLY);
}

HCOMM_API int32_t HcommChannelNotifyWait(ChannelHandle channel, uint32_t localNotifyIdx,
                                         uint32_t timeOut)
{
    CALL("HcommChannelNotifyWait");
    (void)channel, (void)localNotifyIdx, (void)timeOut;
    return refuse(&c, ROCE_ONLY);
}

HCOMM_API int32_t HcommChannelFenceOnThread(ThreadHandle thread, ChannelHandle channel)
{
    CALL("HcommChannelFenceOnThread");
    (void)thread, (void)channel;
    return refuse(&c, DEVICE_ONLY " (the host path fences CPU-engine channels, which Atlas 350 "
                                  "lacks)");
}

HCOMM_API int32_t HcommChannelFence(ChannelHandle channel)
{
    CALL("HcommChannelFence");
    (void)channel;
    return refuse(&c, ROCE_ONLY);
}

HCOMM_API int32_t HcommFenceOnThread(ThreadHandle thread)
{
    CALL("HcommFenceOnThread");
    (void)thread;
    return refuse(&c, ROCE_ONLY);
}

HCOMM_API int32_t HcommChannelDrainOnThread(ThreadHandle thread, ChannelHandle channel)
{
    CALL("HcommChannelDrainOnThread");
    (void)thread, (void)channel;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API int32_t HcommThreadJoin(ThreadHandle thread, uint32_t timeout)
{
    CALL("HcommThreadJoin");
    (void)thread, (void)timeout;
    return refuse(&c, DEVICE_ONLY " (on the host, synchronise the thread's stream)");
}

HCOMM_API int32_t HcommThreadSynchronize(ThreadHandle thread)
{
    CALL("HcommThreadSynchronize");
    (void)thread;
    return refuse(&c, DEVICE_ONLY " (on the host, synchronise the thread's stream)");
}

HCOMM_API int32_t HcommAcquireComm(const char *commId)
{
    CALL("HcommAcquireComm");
    (void)commId;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API int32_t HcommReleaseComm(const char *commId)
{
    CALL("HcommReleaseComm");
    (void)commId;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API HcommResult HcommAicpuTsTaskCacheLookup(const char *tag, bool *isHit)
{
    CALL("HcommAicpuTsTaskCacheLookup");
    (void)tag, (void)isHit;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API HcommResult HcommAicpuTsTaskCacheStart(const char *tag, void **addrs, uint64_t *sizes,
                                                 uint64_t count)
{
    CALL("HcommAicpuTsTaskCacheStart");
    (void)tag, (void)addrs, (void)sizes, (void)count;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API HcommResult HcommAicpuTsTaskCacheEnd(const char *tag)
{
    CALL("HcommAicpuTsTaskCacheEnd");
    (void)tag;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API HcommResult HcommAicpuTsTaskCacheExecute(const char *tag, void **addrs,
                                                   uint64_t *sizes, uint64_t count)
{
    CALL("HcommAicpuTsTaskCacheExecute");
    (void)tag, (void)addrs, (void)sizes, (void)count;
    return refuse(&c, DEVICE_ONLY);
}

HCOMM_API HcommResult HcommAicpuTsTaskCacheClear(const char *tag)
{
    CALL("HcommAicpuTsTaskCacheClear");
    (void)tag;
    return refuse(&c, DEVICE_ONLY);
}
