/* hccl_inner.h - hcomm's own ("inner") collectives, which HCCL's library calls instead of
 * expanding an operator itself: below hcomm 9.0, or on a device it does not expand. In
 * hcemu they are the built-in collectives of hccl.h (same arguments, same checks, same
 * codes); HcclXxxInner runs exactly what HcclXxx of libhcemu runs. */
#ifndef HCEMU_HCCL_INNER_H
#define HCEMU_HCCL_INNER_H

#include "hccl_comm.h"
#include "hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

HcclResult HcclAllReduceInner(void *sendBuf, void *recvBuf, uint64_t count,
                              HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                              aclrtStream stream);
HcclResult HcclBroadcastInner(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,
                              HcclComm comm, aclrtStream stream);
HcclResult HcclReduceScatterInner(void *sendBuf, void *recvBuf, uint64_t recvCount,
                                  HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                  aclrtStream stream);
HcclResult HcclReduceScatterVInner(void *sendBuf, const void *sendCounts,
                                   const void *sendDispls, void *recvBuf, uint64_t recvCount,
                                   HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                   aclrtStream stream);
HcclResult HcclScatterInner(void *sendBuf, void *recvBuf, uint64_t recvCount,
                            HcclDataType dataType, uint32_t root, HcclComm comm,
                            aclrtStream stream);
HcclResult HcclAllGatherInner(void *sendBuf, void *recvBuf, uint64_t sendCount,
                              HcclDataType dataType, HcclComm comm, aclrtStream stream);
HcclResult HcclAllGatherVInner(void *sendBuf, uint64_t sendCount, void *recvBuf,
                               const void *recvCounts, const void *recvDispls,
                               HcclDataType dataType, HcclComm comm, aclrtStream stream);
HcclResult HcclSendInner(void *sendBuf, uint64_t count, HcclDataType dataType,
                         uint32_t destRank, HcclComm comm, aclrtStream stream);
HcclResult HcclRecvInner(void *recvBuf, uint64_t count, HcclDataType dataType,
                         uint32_t srcRank, HcclComm comm, aclrtStream stream);
HcclResult HcclAlltoAllVCInner(const void *sendBuf, const void *sendCountMatrix,
                               HcclDataType sendType, const void *recvBuf,
                               HcclDataType recvType, HcclComm comm, aclrtStream stream);
HcclResult HcclAlltoAllVInner(const void *sendBuf, const void *sendCounts, const void *sdispls,
                              HcclDataType sendType, const void *recvBuf,
                              const void *recvCounts, const void *rdispls,
                              HcclDataType recvType, HcclComm comm, aclrtStream stream);
HcclResult HcclAlltoAllInner(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                             const void *recvBuf, uint64_t recvCount, HcclDataType recvType,
                             HcclComm comm, aclrtStream stream);
HcclResult HcclReduceInner(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                           HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream);
HcclResult HcclBatchSendRecvInner(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum,
                                  HcclComm comm, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
