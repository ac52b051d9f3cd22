/* hccl_res_expt.h - package-internal, experimental resource calls (the vendor ships this in
 * pkg_inc/ and calls it "not stable"; docs/CONTROL_PLANE.md §5). Only
 * HcclThreadExportToCommEngine is part of the Atlas 350 custom-operator flow. */
#ifndef HCEMU_HCCL_RES_EXPT_H
#define HCEMU_HCCL_RES_EXPT_H

#include <stdbool.h>
#include <stdint.h>

#include "hccl_types.h"
#include "hccl_res.h"

#ifdef __cplusplus
extern "C" {
#endif

/* For each input thread returns a handle that code on dstCommEngine can use for the same
 * thread (as the destination of a notify record). threadNum in [1, 40]. Re-exporting returns
 * the cached handle; re-export stream-bound CPU_TS threads on every operator call. */
HcclResult HcclThreadExportToCommEngine(HcclComm comm, uint32_t threadNum,
                                        const ThreadHandle *threads, CommEngine dstCommEngine,
                                        ThreadHandle *exportedThreads);

HcclResult HcclGetRemoteIpcHcclBuf(HcclComm comm, uint64_t remoteRank, void **addr,
                                   uint64_t *size);
HcclResult HcclDevMemAcquire(HcclComm comm, const char *memTag, uint64_t *size, void **addr,
                             bool *newCreated);

/* A function type (not a pointer), as in the vendor header; parameters adjust to pointers. */
typedef int32_t(Callback)(uint64_t, int32_t);
int32_t HcclTaskRegister(HcclComm comm, const char *msgTag, Callback cb);
int32_t HcclTaskUnRegister(HcclComm comm, const char *msgTag);

HcclResult HcclCommAddExchangeInfo(HcclComm comm, const void *data, uint32_t length);
HcclResult HcclCommGetExchangeInfo(HcclComm comm, uint32_t remoteRank, uint32_t length,
                                   void *data, uint32_t *actualLength);
HcclResult HcclCommResetExchangeInfo(HcclComm comm);

#ifdef __cplusplus
}
#endif

#endif
