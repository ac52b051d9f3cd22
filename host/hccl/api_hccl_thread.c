/* api_hccl_thread.c - the thread boundary (hccl_res.h, hccl_res_expt.h): checks engines,
 * counts and handles (docs/CONTROL_PLANE.md §5), then hccl_thread.c works under the lock. */
#include <hccl/hccl.h>
#include <hccl/hccl_res_expt.h>

#include <stdlib.h>

#include "hccl.h"
#include "hccl_rules.h"
#include "hccl_thread.h"
#include "host/acl/stream.h"

/* The vendor names defined below are the library's exports (host/exports.map). */
#pragma GCC visibility push(default)

#define THREADS_MAX 1984u          /* streams per 950 device */
#define NOTIFIES_PER_THREAD 65535u /* notifyNumPerThread < 65536 */
#define COMM_NOTIFIES_MAX 65536u   /* all threads of a communicator share this pool */
#define DEDICATED_NOTIFIES 64u
#define EXPORT_MAX 40u

/* Whether n more threads of `each` notifies fit the communicator's notify pool. */
static emu_status pool_room(struct emu_comm *c, uint64_t more, const char *fn)
{
    uint64_t used = 0;

    for (uint32_t i = 0; i < c->n_threads; i++)
        used += c->threads[i].notify_num;
    if (used + more <= COMM_NOTIFIES_MAX)
        return EMU_OK;
    EMU_COMM_ERR(c, fn,
                 "%llu more thread notifies exceed the communicator's pool (%llu of %u "
                 "in use)",
                 (unsigned long long)more, (unsigned long long)used, COMM_NOTIFIES_MAX);
    return EMU_EUNAVAIL;
}

static emu_status locked_acquire(struct emu_comm *c, int32_t engine, uint32_t n,
                                 const uint32_t *nums, uint32_t uniform, ThreadHandle *out,
                                 uint64_t total, const char *fn)
{
    pthread_mutex_lock(&c->lock);
    emu_status s = pool_room(c, total, fn);
    if (s == EMU_OK)
        s = emu_thread_acquire(c, engine, n, nums, uniform, out, fn);
    pthread_mutex_unlock(&c->lock);
    return s;
}

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
    if (engine != COMM_ENGINE_AICPU_TS && engine != COMM_ENGINE_CPU_TS)
        s = emu_hccl_bad(c, fn, "engine %s (%d): threads are acquired for AICPU_TS or CPU_TS",
                         emu_rules_engine_name(engine), (int)engine);
    else if (threadNum == 0 || threadNum > THREADS_MAX)
        s = emu_hccl_bad(c, fn, "threadNum %u is not in [1, %u]", threadNum, THREADS_MAX);
    else if (notifyNumPerThread > NOTIFIES_PER_THREAD)
        s = emu_hccl_bad(c, fn, "notifyNumPerThread %u is above %u", notifyNumPerThread,
                         NOTIFIES_PER_THREAD);
    else
        s = locked_acquire(c, engine, threadNum, NULL, notifyNumPerThread, threads,
                           (uint64_t)threadNum * notifyNumPerThread, fn);
    return emu_hccl_leave(c, s);
}

static emu_status check_configs(struct emu_comm *c, uint32_t n, const ThreadConfig *cfg,
                                uint32_t *nums, uint64_t *total, const char *fn)
{
    *total = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (cfg[i].header.magicWord != HCOMM_THREAD_CONFIG_MAGIC_WORD)
            return emu_hccl_bad(c, fn,
                                "config[%u] was not set up by ThreadConfigInit (magic "
                                "0x%x)",
                                i, cfg[i].header.magicWord);
        nums[i] = cfg[i].notifyNumPerThread;
        *total += nums[i];
    }
    return EMU_OK;
}

HcclResult HcclThreadAcquireWithConfig(HcclComm comm, CommEngine engine, uint32_t threadNum,
                                       ThreadType type, const ThreadConfig *config,
                                       ThreadHandle *threads)
{
    static const char fn[] = "HcclThreadAcquireWithConfig";
    struct emu_comm *c;
    emu_status s;
    uint32_t *nums = NULL;
    uint64_t total = 0;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, config, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, threads, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    if (engine != COMM_ENGINE_CPU && engine != COMM_ENGINE_AICPU)
        s = emu_hccl_bad(c, fn, "engine %s (%d): TS threads are asked for with CPU or AICPU",
                         emu_rules_engine_name(engine), (int)engine);
    else if (type != THREAD_TYPE_TS)
        s = emu_hccl_bad(c, fn, "type %d is not THREAD_TYPE_TS", (int)type);
    else if (threadNum == 0 || threadNum > THREADS_MAX)
        s = emu_hccl_bad(c, fn, "threadNum %u is not in [1, %u]", threadNum, THREADS_MAX);
    else if ((nums = calloc(threadNum, sizeof(*nums))) == NULL)
        s = EMU_ENOMEM;
    else if ((s = check_configs(c, threadNum, config, nums, &total, fn)) == EMU_OK)
        /* The library maps CPU -> CPU_TS and AICPU -> AICPU_TS threads (CONTROL_PLANE.md §5); the
         * handles carry the TS engine, which is how the data plane uses them. */
        s = locked_acquire(c,
                           engine == COMM_ENGINE_AICPU ? COMM_ENGINE_AICPU_TS : COMM_ENGINE_CPU_TS,
                           threadNum, nums, 0, threads, total, fn);
    free(nums);
    return emu_hccl_leave(c, s);
}

static emu_status check_stream_engine(struct emu_comm *c, int32_t engine, const char *fn)
{
    if (engine != COMM_ENGINE_CPU && engine != COMM_ENGINE_CPU_TS && engine != COMM_ENGINE_CCU)
        return emu_hccl_bad(c, fn, "engine %s (%d): a stream is wrapped for CPU, CPU_TS or CCU",
                            emu_rules_engine_name(engine), (int)engine);
    return emu_rules_engine(fn, c->rank, engine);
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
        (s = check_stream_engine(c, engine, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    if (notifyNum > NOTIFIES_PER_THREAD)
        s = emu_hccl_bad(c, fn, "notifyNum %u is above %u", notifyNum, NOTIFIES_PER_THREAD);
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
    else if (notifyNumPerThread > DEDICATED_NOTIFIES)
        s = emu_hccl_bad(c, fn, "notifyNumPerThread %u is above %u", notifyNumPerThread,
                         DEDICATED_NOTIFIES);
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
    if (threadNum == 0 || threadNum > EXPORT_MAX)
        s = emu_hccl_bad(c, fn, "threadNum %u is not in [1, %u]", threadNum, EXPORT_MAX);
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
