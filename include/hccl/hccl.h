/* hccl.h - umbrella header: every HCCL control-plane declaration, the HCOMM data plane, and
 * the built-in collective operators (HcclAllReduce ...), which hcemu runs as its own AICPU
 * kernel image on the emulated primitives. Buffers are device memory of the rank's device;
 * every call is asynchronous on `stream`. */
#ifndef HCEMU_HCCL_H
#define HCEMU_HCCL_H

#include "hccl_types.h"
#include "hccl_comm.h"
#include "hccl_res.h"
#include "hccl_res_expt.h"
#include "hccl_channel.h"
#include "hccl_rank_graph.h"
#include "hcomm_primitives.h"
#include "../hcomm/hcomm_primitives_expt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* HcclSendRecvItem, one entry of HcclBatchSendRecv, is in hccl_types.h. */

/* Collective operators. Counts are elements of dataType; the V variants take uint64_t
 * arrays of rankSize entries in host memory (AlltoAllVC: a rankSize x rankSize matrix,
 * row = sender). HcclBarrier and HcclGroupStart/End are declared in hccl_comm.h. */
HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                         HcclReduceOp op, HcclComm comm, aclrtStream stream);
HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,
                         HcclComm comm, aclrtStream stream);
HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                             HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                             aclrtStream stream);
HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls,
                              void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                              HcclReduceOp op, HcclComm comm, aclrtStream stream);
HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                       uint32_t root, HcclComm comm, aclrtStream stream);
HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                         HcclComm comm, aclrtStream stream);
HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf,
                          const void *recvCounts, const void *recvDispls, HcclDataType dataType,
                          HcclComm comm, aclrtStream stream);
HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                    HcclComm comm, aclrtStream stream);
HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                    HcclComm comm, aclrtStream stream);
HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix, HcclDataType sendType,
                          const void *recvBuf, HcclDataType recvType, HcclComm comm,
                          aclrtStream stream);
HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                         HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                         const void *rdispls, HcclDataType recvType, HcclComm comm,
                         aclrtStream stream);
HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                        const void *recvBuf, uint64_t recvCount, HcclDataType recvType,
                        HcclComm comm, aclrtStream stream);
HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                      HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream);
HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
