/* hccl_res.h - communicator-owned resources: the HCCL buffer, threads (stream + notifies),
 * engine contexts and memory registration (docs/CONTROL_PLANE.md §5, §7-§9).
 *
 * Everything returned here is owned by the communicator and released by HcclCommDestroy;
 * callers never free it. Calls must come from an OS thread that ran aclrtSetDevice for the
 * communicator's device. */
#ifndef HCEMU_HCCL_RES_H
#define HCEMU_HCCL_RES_H

#include <stdint.h>

#include "../acl/acl_rt.h"
#include "hccl_types.h"
#include "hcomm_res_defs.h"
#include "hccl_channel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What HcclThreadResGetInfo(THREAD_RES_TYPE_STREAM) writes: the thread's runtime stream. */
typedef aclrtStream ThreadResTypeStream;

typedef enum {
    HCCL_DED_THREAD_TYPE_INVALID = -1,
    HCCL_DED_THREAD_TYPE_AICPU_LAUNCH = 0,
    HCCL_DED_THREAD_TYPE_AICPU_LAUNCH_GE = 1,
    HCCL_DED_THREAD_TYPE_AICPU_ORDER_LAUNCH_OPBASE = 2,
    HCCL_DED_THREAD_TYPE_AICPU_ORDER_LAUNCH_ACLGRAPH = 3,
    HCCL_DED_THREAD_TYPE_AICPU_ORDER_LAUNCH_GE = 4,
    HCCL_DED_THREAD_TYPE_AICPU_ORDER_LAUNCH_DEVICE = 5
} HcclDedicatedThreadType;

/* --- HCCL buffer ------------------------------------------------------------------------ */

/* This rank's HCCL buffer (allocated on first call, same block afterwards); content not
 * cleared. Always use the returned size. */
HcclResult HcclGetHcclBuffer(HcclComm comm, void **buffer, uint64_t *size);
/* Same buffer, zero-filled synchronously before returning. */
HcclResult HcclGetHcclBufferCleared(HcclComm comm, void **buffer, uint64_t *size);
/* The peer's HCCL buffer as addressed through `channel`: valid as the remote address of
 * Write/Read on that channel, not dereferenceable locally. */
HcclResult HcclChannelGetHcclBuffer(HcclComm comm, ChannelHandle channel, void **buffer,
                                    uint64_t *size);

/* --- threads ---------------------------------------------------------------------------- */

/* threadNum (> 0) fresh threads with notifyNumPerThread (< 65536) notifies each.
 * engine: COMM_ENGINE_AICPU_TS (handles valid inside the kernel) or COMM_ENGINE_CPU_TS. */
HcclResult HcclThreadAcquire(HcclComm comm, CommEngine engine, uint32_t threadNum,
                             uint32_t notifyNumPerThread, ThreadHandle *threads);
/* Per-thread notify counts from config[0..threadNum), each set up by ThreadConfigInit.
 * engine COMM_ENGINE_CPU or COMM_ENGINE_AICPU with type THREAD_TYPE_TS. */
HcclResult HcclThreadAcquireWithConfig(HcclComm comm, CommEngine engine, uint32_t threadNum,
                                       ThreadType type, const ThreadConfig *config,
                                       ThreadHandle *threads);
/* Wraps an existing stream as a thread with notifyNum notifies; its tasks are ordered with
 * the stream's other work. The 950 flow uses COMM_ENGINE_CPU_TS with notifyNum = 1. */
HcclResult HcclThreadAcquireWithStream(HcclComm comm, CommEngine engine, aclrtStream stream,
                                       uint32_t notifyNum, ThreadHandle *thread);
/* A cached special-purpose launch thread (notifies 0..64). */
HcclResult HcclDedicatedThreadAcquire(HcclComm comm, HcclDedicatedThreadType useType,
                                      uint32_t notifyNumPerThread, ThreadHandle *thread);
/* Only THREAD_RES_TYPE_STREAM: *info receives the stream; infoLen must be
 * sizeof(ThreadResTypeStream). */
HcclResult HcclThreadResGetInfo(HcclComm comm, ThreadHandle thread, ThreadResType resType,
                                uint32_t infoLen, void **info);

/* --- engine contexts -------------------------------------------------------------------- */

/* A tagged memory block per (comm, ctxTag, engine): device memory for AICPU/AICPU_TS/AIV,
 * host memory for CPU/CPU_TS/CCU. ctxTag may be NULL (= "") and is <= HCCL_RES_TAG_MAX_LEN.
 * Get returns HCCL_E_NOT_FOUND when absent (the operators' cache-miss test). Note that Copy
 * takes the engine before the tag. */
HcclResult HcclEngineCtxCreate(HcclComm comm, const char *ctxTag, CommEngine engine,
                               uint64_t size, void **ctx);
HcclResult HcclEngineCtxGet(HcclComm comm, const char *ctxTag, CommEngine engine, void **ctx,
                            uint64_t *size);
HcclResult HcclEngineCtxCopy(HcclComm comm, CommEngine engine, const char *ctxTag,
                             const void *srcCtx, uint64_t size, uint64_t dstCtxOffset);
HcclResult HcclEngineCtxDestroy(HcclComm comm, const char *ctxTag, CommEngine engine);

/* --- memory registration ---------------------------------------------------------------- */

/* Registers an allocated region under memTag (one region per tag); the handle may be listed
 * in HcclChannelDesc.memHandles so the region is exchanged at channel creation. */
HcclResult HcclCommMemReg(HcclComm comm, const char *memTag, const CommMem *mem,
                          HcclMemHandle *memHandle);

#ifdef __cplusplus
}
#endif

#endif
