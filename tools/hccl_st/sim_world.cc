/* sim_world.cc - a case's cluster on hcemu: the rank table, the device count and product,
 * the hcemu runtime's start and stop, and the case state the checks read. */
#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>

#include "check_utils.h"
#include "st_internal.h"

namespace HcclSim {
namespace {

std::mutex world_lock;
std::shared_ptr<StCase> current;

const char *soc_of(HcclDevType t)
{
    switch (t) {
    case HcclDevType::DEV_TYPE_910B: return "Ascend910B1";
    case HcclDevType::DEV_TYPE_910_93: return "Ascend910_9391";
    default: return "Ascend950PR_9599";
    }
}

/* Device memory all marked buffers of a case may take together: HCEMU_ST_MEM_MB, else half
 * of the memory the machine has available. */
uint64_t memory_budget()
{
    const char *env = getenv("HCEMU_ST_MEM_MB");
    if (env != nullptr && atoll(env) > 0)
        return (uint64_t)atoll(env) << 20;
    std::ifstream f("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    while (f >> key >> kb) {
        if (key == "MemAvailable:")
            return kb * 1024 / 2;
        f.ignore(256, '\n');
    }
    return 4ull << 30;
}

/* CANN rank table: one server_list entry per server (super-pods flattened, in order), rank
 * ids in topology order, device_id the TopoMeta id. */
bool write_rank_table(const StCase &c)
{
    FILE *f = fopen("ranktable.json", "w");
    if (f == nullptr)
        return false;
    uint32_t rank = 0, server = 0;
    fprintf(f, "{\"version\": \"1.0\", \"status\": \"completed\", \"server_list\": [");
    for (const SuperPodMeta &pod : c.topo)
        for (const ServerMeta &srv : pod) {
            fprintf(f, "%s\n  {\"server_id\": \"10.0.%u.%u\", \"device\": [", server ? "," : "",
                    server / 256, server % 256);
            for (size_t d = 0; d < srv.size(); d++, rank++)
                fprintf(f, "%s\n    {\"device_id\": \"%u\", \"device_ip\": \"192.%u.%u.%u\", "
                           "\"rank_id\": \"%u\"}",
                        d ? "," : "", srv[d], 168 + server / 256, server % 256, srv[d], rank);
            fprintf(f, "]}");
            server++;
        }
    fprintf(f, "\n], \"server_count\": \"%u\"}\n", server);
    return fclose(f) == 0;
}

void stop(std::shared_ptr<StCase> &c)
{
    if (!c)
        return;
    aclFinalize();
    for (const StBuffer &b : c->bufs)
        munmap((void *)b.fake, b.size ? b.size : 1);
    c.reset();
}

} // namespace

std::shared_ptr<StCase> st_case()
{
    std::lock_guard<std::mutex> lk(world_lock);
    return current;
}

SimWorld *SimWorld::Global()
{
    static SimWorld w;
    return &w;
}

void SimWorld::Init(const TopoMeta &topoMeta, HcclDevType devType)
{
    std::lock_guard<std::mutex> lk(world_lock);
    stop(current); /* a case that forgot Deinit */
    auto c = std::make_shared<StCase>();
    c->topo = topoMeta;
    c->dev_type = devType;
    uint32_t server = 0, pod = 0;
    for (const SuperPodMeta &p : topoMeta) {
        for (const ServerMeta &s : p) {
            for (size_t d = 0; d < s.size(); d++) {
                c->server_of.push_back(server);
                c->pod_of.push_back(pod);
            }
            server++;
        }
        pod++;
    }
    c->nranks = (uint32_t)c->server_of.size();
    c->inputs_of.assign(c->nranks, 0);
    c->outputs_of.assign(c->nranks, 0);
    c->budget = memory_budget();
    if (c->nranks == 0 || c->nranks > 256) {
        ADD_FAILURE() << "[hcemu-st] unsupported: " << c->nranks
                      << " ranks (hcemu emulates 1 to 256 devices)";
        return;
    }
    if (pod > 1)
        printf("[hcemu-st] note: %u super-pods run as %u servers of one pod (hcemu has no "
               "super-pod layer)\n", pod, server);
    if (!write_rank_table(*c)) {
        ADD_FAILURE() << "[hcemu-st] cannot write ./ranktable.json";
        return;
    }
    setenv("HCEMU_DEVICES", std::to_string(c->nranks).c_str(), 1);
    setenv("HCEMU_SOC", soc_of(devType), 1);
    /* Ranks reach their channels minutes apart when a 128-rank case fills its inputs on two
     * cores beside other cases; a rank left out still fails the case within two minutes. */
    setenv("HCCL_CONNECT_TIMEOUT", "120", 0);
    if (aclInit(nullptr) != ACL_SUCCESS) {
        ADD_FAILURE() << "[hcemu-st] aclInit failed";
        return;
    }
    current = c;
}

void SimWorld::Deinit()
{
    std::shared_ptr<StCase> c;
    {
        std::lock_guard<std::mutex> lk(world_lock);
        c = current;
        current.reset();
    }
    if (!c)
        return;
    /* Operators that failed are failures even when the case checks nothing afterwards. */
    for (const StCall &call : c->calls)
        if (call.result != HCCL_SUCCESS || call.stream_error != 0)
            ADD_FAILURE() << "[hcemu-st] rank " << call.rank << ": " << st_op_name(call.op)
                          << (call.result != HCCL_SUCCESS ? " returned " : " ran, the stream failed: ")
                          << (call.result != HCCL_SUCCESS ? (int)call.result : call.stream_error);
    for (const std::string &n : c->notes)
        if (n.rfind("rank ", 0) == 0)
            ADD_FAILURE() << "[hcemu-st] " << n;
    stop(c);
}

TopoMeta SimWorld::GetTopoMetaInfo()
{
    std::shared_ptr<StCase> c = st_case();
    return c ? c->topo : TopoMeta{};
}

SimTaskQueue *SimTaskQueue::Global()
{
    static SimTaskQueue q;
    return &q;
}

AllRankTaskQueues SimTaskQueue::GetAllRankTaskQueues()
{
    return AllRankTaskQueues{st_case()};
}

} // namespace HcclSim

void GenTopoMeta(TopoMeta &topoMeta, int superPodNum, int serverNum, int rankNum)
{
    topoMeta.clear();
    for (int p = 0; p < superPodNum; p++) {
        SuperPodMeta pod;
        for (int s = 0; s < serverNum; s++) {
            ServerMeta srv;
            for (int d = 0; d < rankNum; d++)
                srv.push_back((PhyDeviceId)d);
            pod.push_back(srv);
        }
        topoMeta.push_back(pod);
    }
}

u32 CalRankSize(const TopoMeta &topoMeta)
{
    u32 n = 0;
    for (const SuperPodMeta &pod : topoMeta)
        for (const ServerMeta &srv : pod)
            n += (u32)srv.size();
    return n;
}
