/* hccl_thread_check.c - the checks of a thread request before hccl_thread.c builds it:
 * engines, counts, thread configs and the communicator's notify pool
 * (docs/CONTROL_PLANE.md §5). Takes c->lock around hccl_thread.c. */
#include "hccl_thread.h"

#include <stdlib.h>

#include "hccl.h"
#include "hccl_rules.h"
#include "host/acl/stream.h"

/* Whether n more threads of `each` notifies fit the communicator's notify pool. */
static emu_status pool_room(struct emu_comm *c, uint64_t more, const char *fn)
{
    uint64_t used = 0;

    for (uint32_t i = 0; i < c->n_threads; i++)
        used += c->threads[i].notify_num;
    if (used + more <= EMU_THREAD_COMM_NOTIFIES_MAX)
        return EMU_OK;
    EMU_COMM_ERR(c, fn,
                 "%llu more thread notifies exceed the communicator's pool (%llu of %u "
                 "in use)",
                 (unsigned long long)more, (unsigned long long)used, EMU_THREAD_COMM_NOTIFIES_MAX);
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

emu_status emu_thread_check_stream_engine(struct emu_comm *c, int32_t engine, const char *fn)
{
    if (engine != COMM_ENGINE_CPU && engine != COMM_ENGINE_CPU_TS && engine != COMM_ENGINE_CCU)
        return emu_hccl_bad(c, fn, "engine %s (%d): a stream is wrapped for CPU, CPU_TS or CCU",
                            emu_rules_engine_name(engine), (int)engine);
    return emu_rules_engine(fn, c->rank, engine);
}

emu_status emu_thread_check_acquire(struct emu_comm *c, int32_t engine, uint32_t threadNum,
                                    uint32_t notifyNumPerThread, ThreadHandle *threads,
                                    const char *fn)
{
    emu_status s;

    if (engine != COMM_ENGINE_AICPU_TS && engine != COMM_ENGINE_CPU_TS)
        s = emu_hccl_bad(c, fn, "engine %s (%d): threads are acquired for AICPU_TS or CPU_TS",
                         emu_rules_engine_name(engine), (int)engine);
    else if (threadNum == 0 || threadNum > EMU_THREAD_THREADS_MAX)
        s = emu_hccl_bad(c, fn, "threadNum %u is not in [1, %u]", threadNum,
                         EMU_THREAD_THREADS_MAX);
    else if (notifyNumPerThread > EMU_THREAD_NOTIFIES_PER_THREAD)
        s = emu_hccl_bad(c, fn, "notifyNumPerThread %u is above %u", notifyNumPerThread,
                         EMU_THREAD_NOTIFIES_PER_THREAD);
    else
        s = locked_acquire(c, engine, threadNum, NULL, notifyNumPerThread, threads,
                           (uint64_t)threadNum * notifyNumPerThread, fn);
    return s;
}

emu_status emu_thread_check_acquire_config(struct emu_comm *c, int32_t engine, uint32_t threadNum,
                                           int32_t type, const ThreadConfig *config,
                                           ThreadHandle *threads, const char *fn)
{
    emu_status s;
    uint32_t *nums = NULL;
    uint64_t total = 0;

    if (engine != COMM_ENGINE_CPU && engine != COMM_ENGINE_AICPU)
        s = emu_hccl_bad(c, fn, "engine %s (%d): TS threads are asked for with CPU or AICPU",
                         emu_rules_engine_name(engine), (int)engine);
    else if (type != THREAD_TYPE_TS)
        s = emu_hccl_bad(c, fn, "type %d is not THREAD_TYPE_TS", (int)type);
    else if (threadNum == 0 || threadNum > EMU_THREAD_THREADS_MAX)
        s = emu_hccl_bad(c, fn, "threadNum %u is not in [1, %u]", threadNum,
                         EMU_THREAD_THREADS_MAX);
    else if ((nums = calloc(threadNum, sizeof(*nums))) == NULL)
        s = EMU_ENOMEM;
    else if ((s = check_configs(c, threadNum, config, nums, &total, fn)) == EMU_OK)
        /* The library maps CPU -> CPU_TS and AICPU -> AICPU_TS threads (CONTROL_PLANE.md §5); the
         * handles carry the TS engine, which is how the data plane uses them. */
        s = locked_acquire(c,
                           engine == COMM_ENGINE_AICPU ? COMM_ENGINE_AICPU_TS : COMM_ENGINE_CPU_TS,
                           threadNum, nums, 0, threads, total, fn);
    free(nums);
    return s;
}

/* The checks of HcclThreadAcquireWithStream: *hs the live stream, on the comm's device. */
static emu_status stream_of(struct emu_comm *c, int32_t engine, void *stream, uint32_t notifyNum,
                            struct emu_hstream **hs, const char *fn)
{
    emu_status s;

    if ((s = emu_thread_check_stream_engine(c, engine, fn)) != EMU_OK)
        return s;
    if (notifyNum > EMU_THREAD_NOTIFIES_PER_THREAD)
        return emu_hccl_bad(c, fn, "notifyNum %u is above %u", notifyNum,
                            EMU_THREAD_NOTIFIES_PER_THREAD);
    if (!emu_stream_lookup(stream, hs))
        return emu_hccl_bad(c, fn, "stream %p is not a live stream (destroyed, or never created)",
                            stream);
    if ((*hs)->dev != c->d->id)
        return emu_hccl_bad(c, fn, "stream %p is on device %u but the communicator on device %u",
                            stream, (*hs)->dev, c->d->id);
    return EMU_OK;
}

emu_status emu_thread_check_with_stream(struct emu_comm *c, int32_t engine, void *stream,
                                        uint32_t notifyNum, ThreadHandle *thread, const char *fn)
{
    struct emu_hstream *hs;
    emu_status s;

    if ((s = stream_of(c, engine, stream, notifyNum, &hs, fn)) != EMU_OK)
        return s;
    pthread_mutex_lock(&c->lock);
    s = emu_thread_with_stream(c, engine, hs, notifyNum, thread, fn);
    pthread_mutex_unlock(&c->lock);
    return s;
}

emu_status emu_thread_check_with_stream_upto(struct emu_comm *c, int32_t engine, void *stream,
                                             uint32_t most, ThreadHandle *thread, uint32_t *got,
                                             const char *fn)
{
    struct emu_hstream *hs;
    emu_status s;

    if ((s = stream_of(c, engine, stream, most, &hs, fn)) != EMU_OK)
        return s;
    pthread_mutex_lock(&c->lock);
    s = emu_thread_with_stream_upto(c, engine, hs, most, thread, got, fn);
    pthread_mutex_unlock(&c->lock);
    return s;
}

emu_status emu_thread_check_dedicated(struct emu_comm *c, int32_t useType,
                                      uint32_t notifyNumPerThread, ThreadHandle *thread,
                                      const char *fn)
{
    struct emu_hdev *d;
    emu_status s;

    if (useType < HCCL_DED_THREAD_TYPE_AICPU_LAUNCH ||
        useType > HCCL_DED_THREAD_TYPE_AICPU_ORDER_LAUNCH_DEVICE)
        return emu_hccl_bad(c, fn, "useType %d is not a dedicated thread type (0..5)",
                            (int)useType);
    if (notifyNumPerThread > EMU_THREAD_DEDICATED_NOTIFIES)
        return emu_hccl_bad(c, fn, "notifyNumPerThread %u is above %u", notifyNumPerThread,
                            EMU_THREAD_DEDICATED_NOTIFIES);
    if ((s = emu_hccl_need_device(fn, c->rank, &d)) != EMU_OK)
        return s;
    pthread_mutex_lock(&c->lock);
    s = emu_thread_dedicated(c, useType, notifyNumPerThread, thread, fn);
    pthread_mutex_unlock(&c->lock);
    return s;
}

emu_status emu_thread_check_export(struct emu_comm *c, uint32_t threadNum,
                                   const ThreadHandle *threads, int32_t dstCommEngine,
                                   ThreadHandle *exported, const char *fn)
{
    emu_status s;

    if (threadNum == 0 || threadNum > EMU_THREAD_EXPORT_MAX)
        return emu_hccl_bad(c, fn, "threadNum %u is not in [1, %u]", threadNum,
                            EMU_THREAD_EXPORT_MAX);
    if (dstCommEngine < COMM_ENGINE_CPU || dstCommEngine > COMM_ENGINE_CCU ||
        dstCommEngine == COMM_ENGINE_AIV)
        return emu_hccl_bad(c, fn,
                            "dstCommEngine %s (%d): threads export to CPU, CPU_TS, CCU, "
                            "AICPU or AICPU_TS",
                            emu_rules_engine_name(dstCommEngine), (int)dstCommEngine);
    pthread_mutex_lock(&c->lock);
    s = emu_thread_export(c, threadNum, threads, dstCommEngine, exported, fn);
    pthread_mutex_unlock(&c->lock);
    return s;
}
