/* hcomm_res.h - HCOMM base-layer resources: endpoints, memory registration, threads without a
 * communicator, and the resources behind a thread.
 *
 * hcemu emulates HcommThreadResGetInfo: the stream behind a CPU_TS thread, which HCCL's own
 * collectives ask for when they launch on a stream being captured into an ACL graph. The
 * endpoint, memory and communicator-less thread calls belong to HCOMM's own channel layer,
 * below the HCCL control plane that hcemu emulates; they return HCCL_E_NOT_SUPPORT (5) with
 * one line naming themselves. */
#ifndef HCEMU_HCOMM_RES_H
#define HCEMU_HCOMM_RES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hcomm_channel.h"
#include "hcomm_res_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

HcommResult HcommEndpointCreate(const EndpointDesc *endpoint, EndpointHandle *endpointHandle);
HcommResult HcommEndpointDestroy(EndpointHandle endpointHandle);
HcommResult HcommEndpointGetDescNum(int32_t deviceLogicId, uint32_t *descNum);
HcommResult HcommEndpointGetDescs(int32_t deviceLogicId, uint32_t *descNum,
                                  EndpointDesc *endpointDescs);
HcommResult HcommMemReg(EndpointHandle endpointHandle, const char *memTag, const CommMem *mem,
                        HcommMemHandle *memHandle);
HcommResult HcommMemUnreg(EndpointHandle endpointHandle, HcommMemHandle memHandle);
HcommResult HcommMemExport(EndpointHandle endpointHandle, HcommMemHandle memHandle, void **memDesc,
                           uint32_t *memDescLen);
HcommResult HcommMemImport(EndpointHandle endpointHandle, const void *memDesc, uint32_t descLen,
                           CommMem *outMem);
HcommResult HcommMemUnimport(EndpointHandle endpointHandle, const void *memDesc, uint32_t descLen);
HcommResult HcommThreadAlloc(CommEngine engine, uint32_t threadNum,
                             const uint32_t *notifyNumPerThread, ThreadHandle *threads);
HcommResult HcommThreadFree(const ThreadHandle *threads, uint32_t threadNum);
HcommResult HcommEndpointGetListenPort(EndpointHandle endpointHandle, uint32_t *port);
/* The resource of `resType` behind `thread`; only THREAD_RES_TYPE_STREAM, with infoLen equal
 * to the size of an aclrtStream: *info becomes the stream of a CPU_TS thread of any live
 * communicator of this process. */
HcommResult HcommThreadResGetInfo(ThreadHandle thread, ThreadResType resType, uint32_t infoLen,
                                  void **info);
HcommResult HcommEndpointCheckFeature(HcommEndpointFeatureType featureType,
                                      const EndpointDesc *endpointDesc, bool *value);
HcommResult HcommMemAlloc(void **ptr, size_t size);
HcommResult HcommMemFree(void *ptr);

#ifdef __cplusplus
}
#endif

#endif
