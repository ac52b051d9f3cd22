/* check_utils.h - topology helpers of HCCL's algorithm test cases (see sim_world.h). */
#ifndef HCEMU_HCCL_ST_CHECK_UTILS_H
#define HCEMU_HCCL_ST_CHECK_UTILS_H

#include "sim_world.h"

using HcclSim::PhyDeviceId;
using HcclSim::ServerMeta;
using HcclSim::SuperPodMeta;
using HcclSim::TopoMeta;

/* superPodNum super-pods of serverNum servers of rankNum devices (ids 0..rankNum-1). */
void GenTopoMeta(TopoMeta &topoMeta, int superPodNum, int serverNum, int rankNum);
/* The number of devices (ranks) of a topology. */
u32 CalRankSize(const TopoMeta &topoMeta);

#endif
