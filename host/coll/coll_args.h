/* coll_args.h - the built-in collective operators behind api_coll.c: each checks its
 * arguments (one log line per refusal), builds the operator's plan and queues it on the
 * stream; same parameters as the hccl.h operator of the same name. */
#ifndef HCEMU_HOST_COLL_COLL_ARGS_H
#define HCEMU_HOST_COLL_COLL_ARGS_H

#include <hccl/hccl.h>

#include "common/contract/status.h"

emu_status emu_coll_args_allreduce(void *sendBuf, void *recvBuf, uint64_t count,
                                   HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                   aclrtStream stream) EMU_MUST_CHECK;
emu_status emu_coll_args_reduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                HcclReduceOp op, uint32_t root, HcclComm comm,
                                aclrtStream stream) EMU_MUST_CHECK;
emu_status emu_coll_args_reduce_scatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                                        HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                        aclrtStream stream) EMU_MUST_CHECK;
emu_status emu_coll_args_reduce_scatter_v(void *sendBuf, const void *sendCounts,
                                          const void *sendDispls, void *recvBuf, uint64_t recvCount,
                                          HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                          aclrtStream stream) EMU_MUST_CHECK;
emu_status emu_coll_args_broadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,
                                   HcclComm comm, aclrtStream stream) EMU_MUST_CHECK;
emu_status emu_coll_args_scatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                                 HcclDataType dataType, uint32_t root, HcclComm comm,
                                 aclrtStream stream) EMU_MUST_CHECK;
emu_status emu_coll_args_allgather(void *sendBuf, void *recvBuf, uint64_t sendCount,
                                   HcclDataType dataType, HcclComm comm,
                                   aclrtStream stream) EMU_MUST_CHECK;
emu_status emu_coll_args_allgather_v(void *sendBuf, uint64_t sendCount, void *recvBuf,
                                     const void *recvCounts, const void *recvDispls,
                                     HcclDataType dataType, HcclComm comm,
                                     aclrtStream stream) EMU_MUST_CHECK;
emu_status emu_coll_args_alltoall(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                                  const void *recvBuf, uint64_t recvCount, HcclDataType recvType,
                                  HcclComm comm, aclrtStream stream) EMU_MUST_CHECK;
emu_status emu_coll_args_alltoall_v(const void *sendBuf, const void *sendCounts,
                                    const void *sdispls, HcclDataType sendType, const void *recvBuf,
                                    const void *recvCounts, const void *rdispls,
                                    HcclDataType recvType, HcclComm comm,
                                    aclrtStream stream) EMU_MUST_CHECK;
emu_status emu_coll_args_alltoall_vc(const void *sendBuf, const void *sendCountMatrix,
                                     HcclDataType sendType, const void *recvBuf,
                                     HcclDataType recvType, HcclComm comm,
                                     aclrtStream stream) EMU_MUST_CHECK;
emu_status emu_coll_args_batch_send_recv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum,
                                         HcclComm comm, aclrtStream stream) EMU_MUST_CHECK;
emu_status emu_coll_args_barrier(HcclComm comm, aclrtStream stream) EMU_MUST_CHECK;

#endif
