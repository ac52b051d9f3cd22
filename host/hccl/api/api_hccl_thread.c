/* api_hccl_thread.c - the thread boundary (hccl_res.h, hccl_res_expt.h): forwards to
 * hccl_thread_check.c (engines, counts, configs; docs/CONTROL_PLANE.md §5) and to
 * hccl_thread.c, which works under the lock. */
#include <hccl/hccl.h>
#include <hccl/hccl_res_expt.h>

#include <stdlib.h>

#include "host/hccl/hccl.h"
#include "host/hccl/hccl_rules.h"
#include "host/hccl/hccl_thread.h"

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
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, stream, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, thread, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    s = emu_thread_check_with_stream(c, engine, stream, notifyNum, thread, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclDedicatedThreadAcquire(HcclComm comm, HcclDedicatedThreadType useType,
                                      uint32_t notifyNumPerThread, ThreadHandle *thread)
{
    static const char fn[] = "HcclDedicatedThreadAcquire";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, thread, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    s = emu_thread_check_dedicated(c, useType, notifyNumPerThread, thread, fn);
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
    s = emu_thread_check_export(c, threadNum, threads, dstCommEngine, exportedThreads, fn);
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
