/* api_hccl_thread.c - the thread boundary (hccl_res.h, hccl_res_expt.h): forwards to
 * hccl_thread_check.c (engines, counts, configs; docs/CONTROL_PLANE.md §5) and to
 * hccl_thread.c, which works under the lock. */
#include <hccl/hccl.h>
#include <hccl/hccl_res_expt.h>

#include <stdlib.h>

#include "hccl.h"
#include "hccl_rules.h"
#include "hccl_thread.h"
#include "host/acl/stream.h"

/* The vendor names defined below are the library's exports (host/exports.map). */
#pragma GCC visibility push(default)

HcclResult HcclThreadAcquire(HcclComm comm, CommEngine engine, uint32_t threadNum,
                             uint32_t notifyNumPerThread, ThreadHandle *threads)
{
    static const char fn[] = "HcclThreadAcquire";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, threads, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    s = emu_thread_check_acquire(c, engine, threadNum, notifyNumPerThread, threads, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclThreadAcquireWithConfig(HcclComm comm, CommEngine engine, uint32_t threadNum,
                                       ThreadType type, const ThreadConfig *config,
                                       ThreadHandle *threads)
{
    static const char fn[] = "HcclThreadAcquireWithConfig";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, config, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, threads, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    s = emu_thread_check_acquire_config(c, engine, threadNum, type, config, threads, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclThreadAcquireWithStream(HcclComm comm, CommEngine engine, aclrtStream stream,
                                       uint32_t notifyNum, ThreadHandle *thread)
{
    static const char fn[] = "HcclThreadAcquireWithStream";
    struct emu_comm *c;
    struct emu_hstream *hs;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, stream, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, thread, fn)) != EMU_OK ||
        (s = emu_thread_check_stream_engine(c, engine, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    if (notifyNum > EMU_THREAD_NOTIFIES_PER_THREAD)
        s = emu_hccl_bad(c, fn, "notifyNum %u is above %u", notifyNum,
                         EMU_THREAD_NOTIFIES_PER_THREAD);
    else if (!emu_stream_lookup(stream, &hs))
        s = emu_hccl_bad(c, fn, "stream %p is not a live stream (destroyed, or never created)",
                         (void *)stream);
    else if (hs->dev != c->d->id)
        s = emu_hccl_bad(c, fn, "stream %p is on device %u but the communicator on device %u",
                         (void *)stream, hs->dev, c->d->id);
    if (s == EMU_OK) {
        pthread_mutex_lock(&c->lock);
        s = emu_thread_with_stream(c, engine, hs, notifyNum, thread, fn);
        pthread_mutex_unlock(&c->lock);
    }
    return emu_hccl_leave(c, s);
}

HcclResult HcclDedicatedThreadAcquire(HcclComm comm, HcclDedicatedThreadType useType,
                                      uint32_t notifyNumPerThread, ThreadHandle *thread)
{
    static const char fn[] = "HcclDedicatedThreadAcquire";
    struct emu_comm *c;
    struct emu_hdev *d;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, thread, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    if (useType < HCCL_DED_THREAD_TYPE_AICPU_LAUNCH ||
        useType > HCCL_DED_THREAD_TYPE_AICPU_ORDER_LAUNCH_DEVICE)
        s = emu_hccl_bad(c, fn, "useType %d is not a dedicated thread type (0..5)", (int)useType);
    else if (notifyNumPerThread > EMU_THREAD_DEDICATED_NOTIFIES)
        s = emu_hccl_bad(c, fn, "notifyNumPerThread %u is above %u", notifyNumPerThread,
                         EMU_THREAD_DEDICATED_NOTIFIES);
    else if ((s = emu_hccl_need_device(fn, c->rank, &d)) == EMU_OK) {
        pthread_mutex_lock(&c->lock);
        s = emu_thread_dedicated(c, useType, notifyNumPerThread, thread, fn);
        pthread_mutex_unlock(&c->lock);
    }
    return emu_hccl_leave(c, s);
}

HcclResult HcclThreadExportToCommEngine(HcclComm comm, uint32_t threadNum,
                                        const ThreadHandle *threads, CommEngine dstCommEngine,
                                        ThreadHandle *exportedThreads)
{
    static const char fn[] = "HcclThreadExportToCommEngine";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, threads, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, exportedThreads, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    if (threadNum == 0 || threadNum > EMU_THREAD_EXPORT_MAX)
        s = emu_hccl_bad(c, fn, "threadNum %u is not in [1, %u]", threadNum, EMU_THREAD_EXPORT_MAX);
    else if (dstCommEngine < COMM_ENGINE_CPU || dstCommEngine > COMM_ENGINE_CCU ||
             dstCommEngine == COMM_ENGINE_AIV)
        s = emu_hccl_bad(c, fn,
                         "dstCommEngine %s (%d): threads export to CPU, CPU_TS, CCU, "
                         "AICPU or AICPU_TS",
                         emu_rules_engine_name(dstCommEngine), (int)dstCommEngine);
    if (s == EMU_OK) {
        pthread_mutex_lock(&c->lock);
        s = emu_thread_export(c, threadNum, threads, dstCommEngine, exportedThreads, fn);
        pthread_mutex_unlock(&c->lock);
    }
    return emu_hccl_leave(c, s);
}

HcclResult HcclThreadResGetInfo(HcclComm comm, ThreadHandle thread, ThreadResType resType,
                                uint32_t infoLen, void **info)
{
    static const char fn[] = "HcclThreadResGetInfo";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = emu_rules_call(fn, c->rank, EMU_ON_950)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, info, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    if (resType != THREAD_RES_TYPE_STREAM) {
        EMU_COMM_ERR(c, fn, "resType %d: only THREAD_RES_TYPE_STREAM is supported", (int)resType);
        s = EMU_ENOTSUP;
    } else if (infoLen != sizeof(ThreadResTypeStream)) {
        s = emu_hccl_bad(c, fn, "infoLen %u is not sizeof(ThreadResTypeStream) = %zu", infoLen,
                         sizeof(ThreadResTypeStream));
    } else {
        pthread_mutex_lock(&c->lock);
        s = emu_thread_stream_of(c, thread, info, fn);
        pthread_mutex_unlock(&c->lock);
    }
    return emu_hccl_leave(c, s);
}

#pragma GCC visibility pop
