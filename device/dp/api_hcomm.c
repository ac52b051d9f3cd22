/* api_hcomm.c - the device-side Hcomm* functions AICPU kernels call (docs/DATA_PLANE.md).
 *
 * The boundary: each function names itself and its call site, checks its handles, lets a
 * builder (dp_build.c) check the rest and make the task, queues it (dp_submit.c) and converts
 * the status to an HcclResult once, on the way out. A call never blocks except the documented
 * drains (HcommThreadJoin, HcommThreadSynchronize, HcommChannelDrainOnThread). Functions the
 * product lacks (common/contract/product.h) return HCCL_E_NOT_SUPPORT with one line saying why. Every
 * name here is exported from hcemu-device with default visibility, so dlopen'ed kernels bind
 * to it (tests/test_dataplane_exports.c checks the list against loader/device_api_names.h).
 *
 * Choices where the vendor documents leave room (docs/DECISIONS.md):
 * - len / count 0 is accepted: a task that moves nothing (the WithNotify forms still record);
 * - local copy with overlapping dst/src is refused (HCCL_E_PARA), except dst == src;
 * - reduce op PROD is refused (HCCL_E_PARA), following the docs (reduce.h);
 * - invalid handles (stale, foreign device, wrong engine or kind) give HCCL_E_PARA, a 0
 *   handle or NULL pointer HCCL_E_PTR. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/contract/product.h"
#include "dp.h"
#include "device/net/net.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm/hcomm_primitives_expt.h"

static int32_t out(emu_status st)
{
    return emu_status_to_hccl(st);
}

static bool is_950(void)
{
    return emu_product_current() == EMU_PRODUCT_950;
}

static int32_t not_supported(const struct emu_hcomm_call *c, const char *what)
{
    return out(emu_dp_check_not_supported(c, what));
}

#define NBI_WHY                                                                                \
    "host-CPU RoCE call (COMM_ENGINE_CPU over RoCE); an AICPU kernel cannot use it, and "      \
    "Atlas 350 has no CPU engine RoCE"

/* --- local operations (DATA_PLANE.md §3) ----------------------------------------------- */

EMU_DP_API int32_t HcommLocalCopyOnThread(ThreadHandle thread, void *dst, const void *src,
                                          uint64_t len)
{
    EMU_DP_CALL("HcommLocalCopyOnThread");
    struct emu_task *t = NULL;
    uint32_t slot;
    emu_status st = emu_dp_check_thread(&c, thread, &slot);

    if (st == EMU_OK)
        st = emu_dp_build_local(&c, false, dst, src, len, 0, 0, &t);
    return emu_dp_submit_built(&c, slot, st, t);
}

EMU_DP_API int32_t HcommLocalReduceOnThread(ThreadHandle thread, void *dst, const void *src,
                                            uint64_t count, HcommDataType dataType,
                                            HcommReduceOp reduceOp)
{
    EMU_DP_CALL("HcommLocalReduceOnThread");
    struct emu_task *t = NULL;
    uint32_t slot;
    emu_status st = emu_dp_check_thread(&c, thread, &slot);

    if (st == EMU_OK)
        st = emu_dp_build_local(&c, true, dst, src, count, (int)dataType, (int)reduceOp, &t);
    return emu_dp_submit_built(&c, slot, st, t);
}

int32_t emu_dp_record_on_thread(struct emu_hcomm_call *c, uint32_t kind, uint64_t thread,
                                uint64_t dst, uint32_t idx)
{
    struct emu_task *t = NULL;
    uint32_t slot;
    emu_status st = emu_dp_check_thread(c, thread, &slot);

    if (st == EMU_OK)
        st = emu_dp_build_thread_record(c, kind, dst, idx, &t);
    return emu_dp_submit_built(c, slot, st, t);
}

EMU_DP_API int32_t HcommThreadNotifyRecordOnThread(ThreadHandle thread, ThreadHandle dstThread,
                                                   uint32_t dstNotifyIdx)
{
    EMU_DP_CALL("HcommThreadNotifyRecordOnThread");
    return emu_dp_record_on_thread(&c, EMU_DP_THREAD_RECORD, thread, dstThread, dstNotifyIdx);
}

static int32_t thread_wait(struct emu_hcomm_call *c, ThreadHandle thread, uint32_t idx,
                           uint32_t timeout_s)
{
    struct emu_task *t = NULL;
    uint32_t slot;
    emu_status st = emu_dp_check_thread(c, thread, &slot);

    if (st == EMU_OK)
        st = emu_dp_build_thread_wait(c, slot, idx, timeout_s, &t);
    return emu_dp_submit_built(c, slot, st, t);
}

EMU_DP_API int32_t HcommThreadNotifyWaitOnThread(ThreadHandle thread, uint32_t notifyIdx,
                                                 uint32_t timeOut)
{
    EMU_DP_CALL("HcommThreadNotifyWaitOnThread");
    return thread_wait(&c, thread, notifyIdx, timeOut);
}

EMU_DP_API int32_t HcommThreadNotifyWaitOnThreadWithDefaultTimeout(ThreadHandle thread,
                                                                   uint32_t notifyIdx)
{
    EMU_DP_CALL("HcommThreadNotifyWaitOnThreadWithDefaultTimeout");
    return thread_wait(&c, thread, notifyIdx, emu_dp_submit_default_wait_s());
}

static int32_t acl_notify(struct emu_hcomm_call *c, ThreadHandle thread, uint64_t id, bool wait,
                          uint32_t timeout_s)
{
    struct emu_task *t = NULL;
    uint32_t slot;

    if (is_950())
        return not_supported(c, "runtime-notify record/wait inside a kernel is an A2/A3 "
                                "feature; on Atlas 350 hand-shake with exported thread "
                                "notifies (HcclThreadExportToCommEngine)");
    emu_status st = emu_dp_check_thread(c, thread, &slot);
    if (st == EMU_OK)
        st = emu_dp_build_acl(c, id, wait, timeout_s, &t);
    return emu_dp_submit_built(c, slot, st, t);
}

EMU_DP_API int32_t HcommAclrtNotifyRecordOnThread(ThreadHandle thread, uint64_t dstNotifyId)
{
    EMU_DP_CALL("HcommAclrtNotifyRecordOnThread");
    return acl_notify(&c, thread, dstNotifyId, false, 0);
}

EMU_DP_API int32_t HcommAclrtNotifyWaitOnThread(ThreadHandle thread, uint64_t notifyId,
                                                uint32_t timeOut)
{
    EMU_DP_CALL("HcommAclrtNotifyWaitOnThread");
    return acl_notify(&c, thread, notifyId, true, timeOut);
}

/* --- remote data movement (DATA_PLANE.md §4) ------------------------------------------- */

static int32_t remote(struct emu_hcomm_call *c, ThreadHandle thread, ChannelHandle channel,
                      uint32_t kind, void *dst, const void *src, uint64_t n, int dtype, int op,
                      uint32_t idx)
{
    struct emu_task *t = NULL;
    uint32_t slot, ch;
    emu_status st = emu_dp_check_thread_channel(c, thread, channel, &slot, &ch);

    if (st == EMU_OK)
        st = emu_dp_build_remote(c, ch, kind, dst, src, n, dtype, op, idx, &t);
    return emu_dp_submit_built(c, slot, st, t);
}

EMU_DP_API int32_t HcommWriteOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                      const void *src, uint64_t len)
{
    EMU_DP_CALL("HcommWriteOnThread");
    return remote(&c, thread, channel, EMU_DP_WRITE, dst, src, len, 0, 0, 0);
}

EMU_DP_API int32_t HcommWriteReduceOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                            const void *src, uint64_t count, HcommDataType dataType,
                                            HcommReduceOp reduceOp)
{
    EMU_DP_CALL("HcommWriteReduceOnThread");
    return remote(&c, thread, channel, EMU_DP_WRITE_REDUCE, dst, src, count, (int)dataType,
                  (int)reduceOp, 0);
}

EMU_DP_API int32_t HcommWriteWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel,
                                                void *dst, const void *src, uint64_t len,
                                                uint32_t remoteNotifyIdx)
{
    EMU_DP_CALL("HcommWriteWithNotifyOnThread");
    if (!is_950())
        return not_supported(&c, "write with notify is an Atlas 350 (A5) feature; write, then "
                                 "HcommChannelNotifyRecordOnThread on the same thread");
    return remote(&c, thread, channel, EMU_DP_WRITE_NOTIFY, dst, src, len, 0, 0,
                  remoteNotifyIdx);
}

EMU_DP_API int32_t HcommWriteReduceWithNotifyOnThread(ThreadHandle thread, ChannelHandle channel,
                                                      void *dst, const void *src, uint64_t count,
                                                      HcommDataType dataType,
                                                      HcommReduceOp reduceOp,
                                                      uint32_t remoteNotifyIdx)
{
    EMU_DP_CALL("HcommWriteReduceWithNotifyOnThread");
    if (!is_950())
        return not_supported(&c, "write-reduce with notify is an Atlas 350 (A5) feature; "
                                 "write-reduce, then HcommChannelNotifyRecordOnThread");
    return remote(&c, thread, channel, EMU_DP_WRITE_REDUCE_NOTIFY, dst, src, count,
                  (int)dataType, (int)reduceOp, remoteNotifyIdx);
}

EMU_DP_API int32_t HcommReadOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                     const void *src, uint64_t len)
{
    EMU_DP_CALL("HcommReadOnThread");
    return remote(&c, thread, channel, EMU_DP_READ, dst, src, len, 0, 0, 0);
}

EMU_DP_API int32_t HcommReadReduceOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                           const void *src, uint64_t count, HcommDataType dataType,
                                           HcommReduceOp reduceOp)
{
    EMU_DP_CALL("HcommReadReduceOnThread");
    return remote(&c, thread, channel, EMU_DP_READ_REDUCE, dst, src, count, (int)dataType,
                  (int)reduceOp, 0);
}

/* One batch entry into one task; refusals are logged with the entry's index. */
static emu_status batch_entry(struct emu_hcomm_call *c, uint32_t ch,
                              const HcommBatchTransferDesc *d, struct emu_task **t)
{
    bool a5 = is_950();

    switch (d->transType) {
    case HCOMM_TRANSFER_TYPE_WRITE:
        return emu_dp_build_remote(c, ch, EMU_DP_WRITE, d->transferInfo.write.dst,
                                   d->transferInfo.write.src, d->transferInfo.write.len, 0, 0, 0,
                                   t);
    case HCOMM_TRANSFER_TYPE_READ:
        return emu_dp_build_remote(c, ch, EMU_DP_READ, d->transferInfo.read.dst,
                                   d->transferInfo.read.src, d->transferInfo.read.len, 0, 0, 0, t);
    case HCOMM_TRANSFER_TYPE_WRITE_REDUCE:
    case HCOMM_TRANSFER_TYPE_READ_REDUCE:
        if (!a5)
            break;
        return emu_dp_build_remote(
            c, ch, d->transType == HCOMM_TRANSFER_TYPE_WRITE_REDUCE ? EMU_DP_WRITE_REDUCE
                                                                     : EMU_DP_READ_REDUCE,
            d->transferInfo.reduce.dst, d->transferInfo.reduce.src, d->transferInfo.reduce.count,
            (int)d->transferInfo.reduce.dataType, (int)d->transferInfo.reduce.reduceOp, 0, t);
    case HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY:
        if (!a5)
            break;
        if (d->transferInfo.writeWithNotify.notifyIdx == UINT32_MAX) {
            emu_hcomm_check_refuse(c, "notifyIdx is 0xFFFFFFFF (unset)");
            return EMU_EINVAL;
        }
        return emu_dp_build_remote(c, ch, EMU_DP_WRITE_NOTIFY, d->transferInfo.writeWithNotify.dst,
                                   d->transferInfo.writeWithNotify.src,
                                   d->transferInfo.writeWithNotify.len, 0, 0,
                                   d->transferInfo.writeWithNotify.notifyIdx, t);
    case HCOMM_TRANSFER_TYPE_WRITE_REDUCE_WITH_NOTIFY:
        if (!a5)
            break;
        if (d->transferInfo.writeReduceWithNotify.notifyIdx == UINT32_MAX) {
            emu_hcomm_check_refuse(c, "notifyIdx is 0xFFFFFFFF (unset)");
            return EMU_EINVAL;
        }
        return emu_dp_build_remote(c, ch, EMU_DP_WRITE_REDUCE_NOTIFY,
                                   d->transferInfo.writeReduceWithNotify.dst,
                                   d->transferInfo.writeReduceWithNotify.src,
                                   d->transferInfo.writeReduceWithNotify.count,
                                   (int)d->transferInfo.writeReduceWithNotify.dataType,
                                   (int)d->transferInfo.writeReduceWithNotify.reduceOp,
                                   d->transferInfo.writeReduceWithNotify.notifyIdx, t);
    case HCOMM_TRANSFER_TYPE_NOTIFY_RECORD:
        if (!a5)
            break;
        if (d->transferInfo.notifyRecord.notifyIdx == UINT32_MAX) {
            emu_hcomm_check_refuse(c, "notifyIdx is 0xFFFFFFFF (unset)");
            return EMU_EINVAL;
        }
        return emu_dp_build_channel_record(c, ch, d->transferInfo.notifyRecord.notifyIdx, t);
    default:
        emu_hcomm_check_refuse(c, "transType %d is not a transfer type", (int)d->transType);
        return EMU_ENOTSUP;
    }
    return emu_dp_check_not_supported(c, "batch entries other than WRITE and READ are Atlas 350 "
                                         "(A5) only");
}

static void free_tasks(struct emu_task **ts, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        emu_task_destroy(ts[i]);
}

EMU_DP_API int32_t HcommBatchTransferOnThread(ThreadHandle thread, ChannelHandle channel,
                                              const HcommBatchTransferDesc *transferDescs,
                                              uint32_t transferDescNum)
{
    EMU_DP_CALL("HcommBatchTransferOnThread");
    uint32_t slot, ch;
    emu_status st;

    if ((st = emu_dp_check_thread(&c, thread, &slot)) != EMU_OK ||
        (st = emu_hcomm_check_channel(&c, channel, &ch)) != EMU_OK ||
        (st = emu_dp_check_ptr(&c, "transferDescs", transferDescs)) != EMU_OK)
        return out(st);
    if (transferDescNum == 0) {
        emu_hcomm_check_refuse(&c, "transferDescNum is 0");
        return out(EMU_EINVAL);
    }
    if (!is_950() && emu_exec_ctl()->channels[ch].protocol != 1 /* COMM_PROTOCOL_ROCE */)
        return not_supported(&c, "batch transfer needs a RoCE channel on A2/A3");
    struct emu_task *small[64];
    struct emu_task **ts = transferDescNum <= 64 ? small : calloc(transferDescNum, sizeof(*ts));
    if (ts == NULL) {
        emu_hcomm_check_refuse(&c, "out of memory for %u entries", transferDescNum);
        return out(EMU_EINTERNAL);
    }
    /* Validate every entry before queuing any (docs/DATA_PLANE.md §5). */
    uint32_t n = 0;
    for (; n < transferDescNum; n++) {
        char fn[64];
        struct emu_hcomm_call ec = c;
        snprintf(fn, sizeof(fn), "HcommBatchTransferOnThread entry %u", n);
        ec.fn = fn;
        if ((st = batch_entry(&ec, ch, &transferDescs[n], &ts[n])) != EMU_OK)
            break;
    }
    if (st == EMU_OK) {
        for (uint32_t i = 0; i < n; i++)
            emu_dp_submit_task(&c, slot, ts[i]);
    } else {
        free_tasks(ts, n);
    }
    if (ts != small)
        free(ts);
    return out(st);
}

/* --- host-CPU RoCE Nbi variants: never inside a kernel (DATA_PLANE.md §8) -------------- */

EMU_DP_API int32_t HcommWriteNbiOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                         const void *src, uint64_t len)
{
    EMU_DP_CALL("HcommWriteNbiOnThread");
    (void)thread, (void)channel, (void)dst, (void)src, (void)len;
    return not_supported(&c, NBI_WHY);
}

EMU_DP_API int32_t HcommWriteNbi(ChannelHandle channel, void *dst, const void *src, uint64_t len)
{
    EMU_DP_CALL("HcommWriteNbi");
    (void)channel, (void)dst, (void)src, (void)len;
    return not_supported(&c, NBI_WHY);
}

EMU_DP_API int32_t HcommReadNbiOnThread(ThreadHandle thread, ChannelHandle channel, void *dst,
                                        const void *src, uint64_t len)
{
    EMU_DP_CALL("HcommReadNbiOnThread");
    (void)thread, (void)channel, (void)dst, (void)src, (void)len;
    return not_supported(&c, NBI_WHY);
}

EMU_DP_API int32_t HcommReadNbi(ChannelHandle channel, void *dst, const void *src, uint64_t len)
{
    EMU_DP_CALL("HcommReadNbi");
    (void)channel, (void)dst, (void)src, (void)len;
    return not_supported(&c, NBI_WHY);
}

EMU_DP_API int32_t HcommWriteWithNotifyNbiOnThread(ThreadHandle thread, ChannelHandle channel,
                                                   void *dst, const void *src, uint64_t len,
                                                   uint32_t remoteNotifyIdx)
{
    EMU_DP_CALL("HcommWriteWithNotifyNbiOnThread");
    (void)thread, (void)channel, (void)dst, (void)src, (void)len, (void)remoteNotifyIdx;
    return not_supported(&c, NBI_WHY);
}

EMU_DP_API int32_t HcommWriteWithNotifyNbi(ChannelHandle channel, void *dst, const void *src,
                                           uint64_t len, uint32_t remoteNotifyIdx)
{
    EMU_DP_CALL("HcommWriteWithNotifyNbi");
    (void)channel, (void)dst, (void)src, (void)len, (void)remoteNotifyIdx;
    return not_supported(&c, NBI_WHY);
}

/* --- channel notifies (DATA_PLANE.md §2) ----------------------------------------------- */

EMU_DP_API int32_t HcommChannelNotifyRecordOnThread(ThreadHandle thread, ChannelHandle channel,
                                                    uint32_t remoteNotifyIdx)
{
    EMU_DP_CALL("HcommChannelNotifyRecordOnThread");
    struct emu_task *t = NULL;
    uint32_t slot, ch;
    emu_status st = emu_dp_check_thread_channel(&c, thread, channel, &slot, &ch);

    if (st == EMU_OK)
        st = emu_dp_build_channel_record(&c, ch, remoteNotifyIdx, &t);
    return emu_dp_submit_built(&c, slot, st, t);
}

static int32_t channel_wait(struct emu_hcomm_call *c, ThreadHandle thread, ChannelHandle channel,
                            uint32_t idx, uint32_t timeout_s)
{
    struct emu_task *t = NULL;
    uint32_t slot, ch;
    emu_status st = emu_dp_check_thread_channel(c, thread, channel, &slot, &ch);

    if (st == EMU_OK)
        st = emu_dp_build_channel_wait(c, ch, idx, timeout_s, &t);
    return emu_dp_submit_built(c, slot, st, t);
}

EMU_DP_API int32_t HcommChannelNotifyWaitOnThread(ThreadHandle thread, ChannelHandle channel,
                                                  uint32_t localNotifyIdx, uint32_t timeOut)
{
    EMU_DP_CALL("HcommChannelNotifyWaitOnThread");
    return channel_wait(&c, thread, channel, localNotifyIdx, timeOut);
}

EMU_DP_API int32_t HcommChannelNotifyWaitOnThreadWithDefaultTimeout(ThreadHandle thread,
                                                                    ChannelHandle channel,
                                                                    uint32_t localNotifyIdx)
{
    EMU_DP_CALL("HcommChannelNotifyWaitOnThreadWithDefaultTimeout");
    return channel_wait(&c, thread, channel, localNotifyIdx, emu_dp_submit_default_wait_s());
}

EMU_DP_API int32_t HcommChannelNotifyRecord(ChannelHandle channel, uint32_t remoteNotifyIdx)
{
    EMU_DP_CALL("HcommChannelNotifyRecord");
    (void)channel, (void)remoteNotifyIdx;
    return not_supported(&c, NBI_WHY);
}

EMU_DP_API int32_t HcommChannelNotifyWait(ChannelHandle channel, uint32_t localNotifyIdx,
                                          uint32_t timeOut)
{
    EMU_DP_CALL("HcommChannelNotifyWait");
    (void)channel, (void)localNotifyIdx, (void)timeOut;
    return not_supported(&c, NBI_WHY);
}

/* --- fences and drains (DATA_PLANE.md §7) ---------------------------------------------- */

EMU_DP_API int32_t HcommChannelFenceOnThread(ThreadHandle thread, ChannelHandle channel)
{
    EMU_DP_CALL("HcommChannelFenceOnThread");
    uint32_t slot, ch;
    emu_status st;

    if (!is_950())
        return not_supported(&c, "channel fences are an Atlas 350 (A5) feature");
    /* Tasks of a thread already complete in order (a transfer is in place before the next
     * task starts), so a fence adds no ordering: validate and accept, queue nothing. */
    if ((st = emu_dp_check_thread(&c, thread, &slot)) != EMU_OK ||
        (st = emu_hcomm_check_channel(&c, channel, &ch)) != EMU_OK)
        return out(st);
    return 0;
}

EMU_DP_API int32_t HcommChannelFence(ChannelHandle channel)
{
    EMU_DP_CALL("HcommChannelFence");
    (void)channel;
    return not_supported(&c, "thread-less channel fence is a host-CPU engine call; an AICPU "
                             "kernel cannot use it");
}

EMU_DP_API int32_t HcommFenceOnThread(ThreadHandle thread)
{
    EMU_DP_CALL("HcommFenceOnThread");
    (void)thread;
    return not_supported(&c, "HcommFenceOnThread flushes host-CPU engine resources; an AICPU "
                             "kernel cannot use it");
}

EMU_DP_API int32_t HcommChannelDrainOnThread(ThreadHandle thread, ChannelHandle channel)
{
    EMU_DP_CALL("HcommChannelDrainOnThread");
    uint32_t slot, ch;
    emu_status st;

    if ((st = emu_dp_check_thread(&c, thread, &slot)) != EMU_OK ||
        (st = emu_hcomm_check_channel(&c, channel, &ch)) != EMU_OK)
        return out(st);
    /* The drain waits for the whole thread (a superset of its transfers on the channel),
     * bounded by this OS thread's default notify-wait timeout. To another host, its records
     * completed when sent: the peer then confirms it handled them (device/net/net.h). */
    uint32_t wait_s = emu_dp_submit_default_wait_s();
    if ((st = emu_dp_drain_join(&c, slot, wait_s)) != EMU_OK)
        return out(st);
    uint32_t peer = emu_exec_ctl()->channels[ch].peer;
    if (!emu_net_is_remote(peer))
        return 0;
    char why[200];
    if ((st = emu_net_flush(ch, peer, wait_s, why, sizeof(why))) != EMU_OK)
        emu_hcomm_check_refuse(&c, "%s", why);
    return out(st);
}

EMU_DP_API int32_t HcommThreadJoin(ThreadHandle thread, uint32_t timeout)
{
    EMU_DP_CALL("HcommThreadJoin");
    uint32_t slot;
    emu_status st;

    if (!is_950())
        return not_supported(&c, "HcommThreadJoin exists only in the A5 device library");
    if ((st = emu_dp_check_thread(&c, thread, &slot)) != EMU_OK)
        return out(st);
    return out(emu_dp_drain_join(&c, slot, timeout));
}

EMU_DP_API int32_t HcommThreadSynchronize(ThreadHandle thread)
{
    EMU_DP_CALL("HcommThreadSynchronize");
    uint32_t slot;
    emu_status st;

    if (!is_950())
        return 0; /* other devices: success without waiting, as the vendor library */
    if ((st = emu_dp_check_thread(&c, thread, &slot)) != EMU_OK)
        return out(st);
    return out(emu_dp_drain_join(&c, slot, 0));
}

/* --- timeouts (DATA_PLANE.md §6) ------------------------------------------------------- */

EMU_DP_API int32_t HcommSetNotifyWaitTimeOut(float timeOut)
{
    EMU_DP_CALL("HcommSetNotifyWaitTimeOut");
    uint32_t s;
    emu_status st = emu_hcomm_check_timeout(&c, timeOut, &s);

    if (st == EMU_OK)
        emu_dp_submit_set_default_wait_s(s);
    return out(st);
}

EMU_DP_API int32_t HcommThreadResAcquireTimeOut(float timeOut)
{
    EMU_DP_CALL("HcommThreadResAcquireTimeOut");
    uint32_t s;
    emu_status st = emu_hcomm_check_timeout(&c, timeOut, &s);

    if (st == EMU_OK)
        emu_dp_submit_set_res_timeout_s(s);
    return out(st);
}

/* --- batch mode (DATA_PLANE.md §6) ----------------------------------------------------- */

EMU_DP_API int32_t HcommBatchModeStart(const char *batchTag)
{
    EMU_DP_CALL("HcommBatchModeStart");
    return out(emu_dp_submit_batch_start(&c, batchTag));
}

EMU_DP_API int32_t HcommBatchModeEnd(const char *batchTag)
{
    EMU_DP_CALL("HcommBatchModeEnd");
    return out(emu_dp_submit_batch_end(&c, batchTag));
}

/* --- communicator lock (DATA_PLANE.md §9) ---------------------------------------------- */

EMU_DP_API int32_t HcommAcquireComm(const char *commId)
{
    EMU_DP_CALL("HcommAcquireComm");
    emu_status st = emu_dp_check_ptr(&c, "commId", commId);

    return out(st != EMU_OK ? st : emu_dp_drain_comm_acquire(&c, commId));
}

EMU_DP_API int32_t HcommReleaseComm(const char *commId)
{
    EMU_DP_CALL("HcommReleaseComm");
    emu_status st = emu_dp_check_ptr(&c, "commId", commId);

    if (st == EMU_OK)
        emu_dp_drain_comm_release(commId);
    return out(st);
}

/* --- AICPU_TS task cache (DATA_PLANE.md §10) ------------------------------------------- */

#define CACHE_WHY "the AICPU_TS task cache is an Atlas 350 (A5) feature"

EMU_DP_API HcommResult HcommAicpuTsTaskCacheLookup(const char *tag, bool *isHit)
{
    EMU_DP_CALL("HcommAicpuTsTaskCacheLookup");
    emu_status st;

    if (!is_950())
        return not_supported(&c, CACHE_WHY);
    if ((st = emu_dp_check_ptr(&c, "isHit", isHit)) != EMU_OK)
        return out(st);
    return out(emu_dp_cache_lookup(&c, tag, isHit));
}

EMU_DP_API HcommResult HcommAicpuTsTaskCacheStart(const char *tag, void **addrs, uint64_t *sizes,
                                                  uint64_t count)
{
    EMU_DP_CALL("HcommAicpuTsTaskCacheStart");
    if (!is_950())
        return not_supported(&c, CACHE_WHY);
    return out(emu_dp_cache_start(&c, tag, addrs, sizes, count));
}

EMU_DP_API HcommResult HcommAicpuTsTaskCacheEnd(const char *tag)
{
    EMU_DP_CALL("HcommAicpuTsTaskCacheEnd");
    if (!is_950())
        return not_supported(&c, CACHE_WHY);
    return out(emu_dp_cache_end(&c, tag));
}

EMU_DP_API HcommResult HcommAicpuTsTaskCacheExecute(const char *tag, void **addrs, uint64_t *sizes,
                                                    uint64_t count)
{
    EMU_DP_CALL("HcommAicpuTsTaskCacheExecute");
    if (!is_950())
        return not_supported(&c, CACHE_WHY);
    return out(emu_dp_cache_execute(&c, tag, addrs, sizes, count));
}

EMU_DP_API HcommResult HcommAicpuTsTaskCacheClear(const char *tag)
{
    EMU_DP_CALL("HcommAicpuTsTaskCacheClear");
    if (!is_950())
        return not_supported(&c, CACHE_WHY);
    return out(emu_dp_cache_clear(&c, tag));
}
