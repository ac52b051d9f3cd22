/* hccl_verifier.h - the per-operator checks of HCCL's algorithm test cases, on real bytes.
 *
 * Each Check* finds the calls of its operator that the ranks made, rebuilds what every
 * element of every rank's output must hold from the operator's definition and the INPUT
 * pattern, and compares it with the bytes hcemu's executors left there. A mismatch is a
 * gtest failure naming the rank, the element, the expected source and what was found
 * (decoded back to a source when the bytes are some rank's input). Returns HCCL_SUCCESS
 * when every element is right, HCCL_E_INTERNAL otherwise. */
#ifndef HCEMU_HCCL_ST_VERIFIER_H
#define HCEMU_HCCL_ST_VERIFIER_H

#include <ostream>
#include <vector>

#include <hccl/hccl_types.h>

#include "sim_world.h"

/* Cases print with an unqualified `endl`: HCCL's own verifier headers pull in namespace std. */
using std::endl;

HcclResult CheckAllReduce(HcclSim::AllRankTaskQueues &taskQueues, u32 rankSize,
                          HcclDataType dataType, u64 dataCount, HcclReduceOp reduceOp);
HcclResult CheckAllGather(HcclSim::AllRankTaskQueues &taskQueues, u32 rankSize,
                          HcclDataType dataType, u64 dataCount);
HcclResult CheckReduceScatter(HcclSim::AllRankTaskQueues &taskQueues, u32 rankSize,
                              HcclDataType dataType, u64 dataCount, HcclReduceOp reduceOp);
HcclResult CheckBroadcast(HcclSim::AllRankTaskQueues &taskQueues, u32 rankSize,
                          HcclDataType dataType, u64 dataCount, u32 root);
HcclResult CheckReduce(HcclSim::AllRankTaskQueues &taskQueues, u32 rankSize,
                       HcclDataType dataType, u64 dataCount, HcclReduceOp reduceOp, u32 root);
HcclResult CheckScatter(HcclSim::AllRankTaskQueues &taskQueues, u32 rankSize,
                        HcclDataType dataType, u64 dataCount, u32 root);
HcclResult CheckSend(HcclSim::AllRankTaskQueues &taskQueues, u32 rankSize, HcclDataType dataType,
                     u64 dataCount, u32 srcRank, u32 dstRank);
HcclResult CheckRecv(HcclSim::AllRankTaskQueues &taskQueues, u32 rankSize, HcclDataType dataType,
                     u64 dataCount, u32 srcRank, u32 dstRank);
HcclResult CheckBatchSendRecv(HcclSim::AllRankTaskQueues &taskQueues, u32 rankSize,
                              HcclDataType dataType, u64 dataCount);
HcclResult CheckAll2All(HcclSim::AllRankTaskQueues &taskQueues, u32 rankSize,
                        HcclDataType sendType, u64 sendCount);
HcclResult CheckAll2AllV(HcclSim::AllRankTaskQueues &taskQueues, u32 rankSize,
                         HcclDataType sendType, std::vector<u64> sendCountMatrix);
HcclResult CheckAll2AllVC(HcclSim::AllRankTaskQueues &taskQueues, u32 rankSize,
                          HcclDataType sendType, std::vector<u64> sendCountMatrix);
HcclResult CheckAllGatherV(HcclSim::AllRankTaskQueues &taskQueues, u32 rankSize,
                           VDataDesTag vDataDes);
HcclResult CheckReduceScatterV(HcclSim::AllRankTaskQueues &taskQueues, u32 rankSize,
                               HcclReduceOp reduceType, VDataDesTag vDataDes);

#endif
