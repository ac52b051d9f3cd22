/* hcom.h - what HCCL's library uses of hcomm's legacy hcom interface: finding a communicator
 * by its group name (hcemu has no hcom groups and answers "not supported", see
 * host/hccl/api/api_hccl_diag.c; HCCL only asks when a caller passes a group name) and, for C++,
 * the graph-mode operator names ("HcomAllGather", ...) with their HcclCMDType. */
#ifndef HCEMU_HCCL_HCOM_H
#define HCEMU_HCCL_HCOM_H

#include "hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

HcclResult HcomGetCommHandleByGroup(const char *group, HcclComm *commHandle);

#ifdef __cplusplus
}

#include <map>
#include <string>

inline const std::map<std::string, HcclCMDType> HCCL_OPTYPE_NAME_MAP = {
    {"HcomBroadcast", HCCL_CMD_BROADCAST},
    {"HcomScatter", HCCL_CMD_SCATTER},
    {"HcomAllReduce", HCCL_CMD_ALLREDUCE},
    {"HcomReduce", HCCL_CMD_REDUCE},
    {"HcomSend", HCCL_CMD_SEND},
    {"HcomReceive", HCCL_CMD_RECEIVE},
    {"HcomAllGather", HCCL_CMD_ALLGATHER},
    {"HcomAllGatherV", HCCL_CMD_ALLGATHER_V},
    {"HcomReduceScatter", HCCL_CMD_REDUCE_SCATTER},
    {"HcomReduceScatterV", HCCL_CMD_REDUCE_SCATTER_V},
    {"HcomAllToAllV", HCCL_CMD_ALLTOALLV},
    {"HcomAllToAllVC", HCCL_CMD_ALLTOALLVC},
    {"HcomAllToAll", HCCL_CMD_ALLTOALL},
};
#endif

#endif
