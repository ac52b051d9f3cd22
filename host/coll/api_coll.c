/* api_coll.c - the boundary of the built-in collective operators of hccl.h: each forwards to
 * coll_args.c (argument checks and the operator's plan; HcclSend and HcclRecv through
 * coll_group.c, which holds them back inside a group) and converts the status. */
#include <hccl/hccl.h>
#include <hccl/hccl_inner.h>

#include "coll.h"
#include "coll_args.h"
#include "host/hccl/hccl.h"

/* The vendor names defined below are the library's exports (host/exports.map). */
#pragma GCC visibility push(default)

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                         HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    return emu_hccl_leave(
        NULL, emu_coll_args_allreduce(sendBuf, recvBuf, count, dataType, op, comm, stream));
}

HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                      HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream)
{
    return emu_hccl_leave(
        NULL, emu_coll_args_reduce(sendBuf, recvBuf, count, dataType, op, root, comm, stream));
}

HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                             HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                             aclrtStream stream)
{
    return emu_hccl_leave(NULL, emu_coll_args_reduce_scatter(sendBuf, recvBuf, recvCount, dataType,
                                                             op, comm, stream));
}

HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls,
                              void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                              HcclReduceOp op, HcclComm comm, aclrtStream stream)
{
    return emu_hccl_leave(NULL,
                          emu_coll_args_reduce_scatter_v(sendBuf, sendCounts, sendDispls, recvBuf,
                                                         recvCount, dataType, op, comm, stream));
}

HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,
                         HcclComm comm, aclrtStream stream)
{
    return emu_hccl_leave(NULL, emu_coll_args_broadcast(buf, count, dataType, root, comm, stream));
}

HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                       uint32_t root, HcclComm comm, aclrtStream stream)
{
    return emu_hccl_leave(
        NULL, emu_coll_args_scatter(sendBuf, recvBuf, recvCount, dataType, root, comm, stream));
}

HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                         HcclComm comm, aclrtStream stream)
{
    return emu_hccl_leave(
        NULL, emu_coll_args_allgather(sendBuf, recvBuf, sendCount, dataType, comm, stream));
}

HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts,
                          const void *recvDispls, HcclDataType dataType, HcclComm comm,
                          aclrtStream stream)
{
    return emu_hccl_leave(NULL, emu_coll_args_allgather_v(sendBuf, sendCount, recvBuf, recvCounts,
                                                          recvDispls, dataType, comm, stream));
}

HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                        const void *recvBuf, uint64_t recvCount, HcclDataType recvType,
                        HcclComm comm, aclrtStream stream)
{
    return emu_hccl_leave(NULL, emu_coll_args_alltoall(sendBuf, sendCount, sendType, recvBuf,
                                                       recvCount, recvType, comm, stream));
}

HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                         HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                         const void *rdispls, HcclDataType recvType, HcclComm comm,
                         aclrtStream stream)
{
    return emu_hccl_leave(NULL,
                          emu_coll_args_alltoall_v(sendBuf, sendCounts, sdispls, sendType, recvBuf,
                                                   recvCounts, rdispls, recvType, comm, stream));
}

HcclResult HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix, HcclDataType sendType,
                          const void *recvBuf, HcclDataType recvType, HcclComm comm,
                          aclrtStream stream)
{
    return emu_hccl_leave(NULL, emu_coll_args_alltoall_vc(sendBuf, sendCountMatrix, sendType,
                                                          recvBuf, recvType, comm, stream));
}

HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                             aclrtStream stream)
{
    return emu_hccl_leave(NULL, emu_coll_args_batch_send_recv(sendRecvInfo, itemNum, comm, stream));
}

HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                    HcclComm comm, aclrtStream stream)
{
    return emu_hccl_leave(NULL, emu_coll_group_p2p(HCCL_SEND, sendBuf, count, dataType, destRank,
                                                   comm, stream, "HcclSend"));
}

HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                    HcclComm comm, aclrtStream stream)
{
    return emu_hccl_leave(NULL, emu_coll_group_p2p(HCCL_RECV, recvBuf, count, dataType, srcRank,
                                                   comm, stream, "HcclRecv"));
}

HcclResult HcclBarrier(HcclComm comm, aclrtStream stream)
{
    return emu_hccl_leave(NULL, emu_coll_args_barrier(comm, stream));
}

/* ---- hcomm's inner collectives (hccl_inner.h) ---------------------------------------------- */

/* HCCL's library falls back to these when it does not expand an operator itself. Each is an
 * alias of the operator above: the same code, not a call through the exported HcclXxx name,
 * which HCCL's own libhccl takes over when a program links it. */
#define INNER(name) __typeof__(Hccl##name) Hccl##name##Inner __attribute__((alias("Hccl" #name)));
INNER(AllReduce)
INNER(Broadcast)
INNER(ReduceScatter)
INNER(ReduceScatterV)
INNER(Scatter)
INNER(AllGather)
INNER(AllGatherV)
INNER(Send)
INNER(Recv)
INNER(AlltoAllVC)
INNER(AlltoAllV)
INNER(AlltoAll)
INNER(Reduce)
INNER(BatchSendRecv)

#pragma GCC visibility pop
