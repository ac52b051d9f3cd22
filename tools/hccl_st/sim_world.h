/* sim_world.h - the "simulation world" of HCCL's algorithm test cases, on hcemu.
 *
 * A case describes a cluster (TopoMeta: super-pods x servers x device ids), calls
 * SimWorld::Global()->Init(topo, devType), runs every rank as a thread that sets device
 * <rank>, joins "./ranktable.json" and calls one or more HCCL operators on memory it marked
 * INPUT or OUTPUT through aclrtMalloc's policy, then asks a Check* function (hccl_verifier.h)
 * whether the operator did its job, and calls Deinit.
 *
 * Here Init writes that rank table (one server_list entry per server, rank ids in topology
 * order), sets HCEMU_DEVICES, HCEMU_SOC and HCEMU_TOPOLOGY for the case and starts hcemu;
 * the ranks run HCCL's library for real on hcemu's executors. Marked memory becomes real
 * device memory when an operator first uses it: INPUT filled with a pattern that encodes
 * (rank, buffer, element), OUTPUT with a poison byte. Check* compares every output element
 * with what the operator must produce. Deinit stops hcemu. See docs/HCCL_ST.md. */
#ifndef HCEMU_HCCL_ST_SIM_WORLD_H
#define HCEMU_HCCL_ST_SIM_WORLD_H

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "st_base.h"

/* aclrtMalloc policies that mark a buffer as an operator's input or output. */
constexpr u32 BUFFER_INPUT_MARK = 10;
constexpr u32 BUFFER_OUTPUT_MARK = 11;

namespace HcclSim {

using PhyDeviceId = uint32_t;
using ServerMeta = std::vector<PhyDeviceId>;
using SuperPodMeta = std::vector<ServerMeta>;
using PodMeta = SuperPodMeta;
using TopoMeta = std::vector<SuperPodMeta>;

/* What Check* reads: the calls every rank made and the final bytes of its marked memory.
 * A handle on the current case (copies share it). */
struct StCase;
struct AllRankTaskQueues {
    std::shared_ptr<StCase> world;
};

class SimWorld {
public:
    static SimWorld *Global();
    void Init(const TopoMeta &topoMeta, HcclDevType devType);
    void Deinit();
    TopoMeta GetTopoMetaInfo();
};

class SimTaskQueue {
public:
    static SimTaskQueue *Global();
    AllRankTaskQueues GetAllRankTaskQueues();
};

} // namespace HcclSim

/* Counts and displacements (in elements) of AllGatherV / ReduceScatterV, per rank. */
struct VDataDesTag {
    std::vector<u64> displs;
    std::vector<u64> counts;
    HcclDataType dataType;
};

#endif
