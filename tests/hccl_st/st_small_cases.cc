/* st_small_cases.cc - small cases in the shape of HCCL's algorithm test cases (a topology,
 * every rank a thread, INPUT/OUTPUT-marked memory, a Check* afterwards), run against hcemu's
 * own collectives: they keep the harness of tools/hccl_st/ tested without an HCCL checkout.
 * The last cases make the checks compare against the wrong definition and expect them to
 * fail, so a check that passes everything does not go unnoticed. */
#include <thread>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "acl/acl_rt.h"
#include "check_utils.h"
#include "hccl.h"
#include "hccl/hccl_types.h"
#include "hccl_verifier.h"
#include "sim_world.h"
#include "st_internal.h"

using namespace HcclSim;

namespace {

/* Runs `op(rank, comm, stream)` on every rank of `topo` as threads, the way the cases do. */
template <typename Op> void RunRanks(const TopoMeta &topo, Op op)
{
    std::vector<std::thread> threads;
    for (u32 rank = 0; rank < CalRankSize(topo); rank++)
        threads.emplace_back([=]() {
            aclrtSetDevice((int32_t)rank);
            aclrtStream stream = nullptr;
            aclrtCreateStream(&stream);
            HcclComm comm = nullptr;
            CHK_RET(HcclCommInitClusterInfo("./ranktable.json", rank, &comm));
            CHK_RET(op(rank, comm, stream));
            CHK_RET(HcclCommDestroy(comm));
            return HCCL_SUCCESS;
        });
    for (auto &t : threads)
        t.join();
}

/* A whole case: the world of `topo`, `op` on every rank, then `checks(queues)`. */
template <typename Op, typename Checks> void RunCase(const TopoMeta &topo, Op op, Checks checks)
{
    SimWorld::Global()->Init(topo, HcclDevType::DEV_TYPE_950);
    RunRanks(topo, op);
    auto q = SimTaskQueue::Global()->GetAllRankTaskQueues();
    checks(q);
    SimWorld::Global()->Deinit();
}

void *Marked(u64 bytes, u32 mark)
{
    void *p = nullptr;
    aclrtMalloc(&p, bytes, static_cast<aclrtMemMallocPolicy>(mark));
    return p;
}

} // namespace

TEST(HCEMU_ST, all_reduce_sum_int32_two_servers)
{
    TopoMeta topo{{{0, 1}, {0, 1}}};
    const u64 count = 1000;
    RunCase(topo, [=](u32, HcclComm comm, aclrtStream stream) {
        void *in = Marked(count * 4, BUFFER_INPUT_MARK), *out = Marked(count * 4, BUFFER_OUTPUT_MARK);
        return HcclAllReduce(in, out, count, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, stream);
    }, [=](AllRankTaskQueues &q) {
        EXPECT_EQ(CheckAllReduce(q, 4, HCCL_DATA_TYPE_INT32, count, HCCL_REDUCE_SUM), HCCL_SUCCESS);
    });
}

TEST(HCEMU_ST, all_gather_fp16_three_ranks)
{
    TopoMeta topo;
    GenTopoMeta(topo, 1, 1, 3);
    const u64 count = 777;
    RunCase(topo, [=](u32, HcclComm comm, aclrtStream stream) {
        void *in = Marked(count * 2, BUFFER_INPUT_MARK), *out = Marked(count * 6, BUFFER_OUTPUT_MARK);
        return HcclAllGather(in, out, count, HCCL_DATA_TYPE_FP16, comm, stream);
    }, [=](AllRankTaskQueues &q) {
        EXPECT_EQ(CheckAllGather(q, 3, HCCL_DATA_TYPE_FP16, count), HCCL_SUCCESS);
        /* The wrong definition must fail: all-gather output is not an all-reduce sum. */
        EXPECT_NONFATAL_FAILURE(CheckAllReduce(q, 3, HCCL_DATA_TYPE_FP16, count, HCCL_REDUCE_SUM),
                                "made no HcclAllReduce call");
    });
}

TEST(HCEMU_ST, reduce_scatter_max_bf16)
{
    TopoMeta topo{{{0, 1, 2, 3}}};
    const u64 count = 513;
    RunCase(topo, [=](u32, HcclComm comm, aclrtStream stream) {
        void *in = Marked(count * 2 * 4, BUFFER_INPUT_MARK), *out = Marked(count * 2, BUFFER_OUTPUT_MARK);
        return HcclReduceScatter(in, out, count, HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_MAX, comm, stream);
    }, [=](AllRankTaskQueues &q) {
        EXPECT_EQ(CheckReduceScatter(q, 4, HCCL_DATA_TYPE_BFP16, count, HCCL_REDUCE_MAX), HCCL_SUCCESS);
        /* min is not max: the check must name a wrong element. */
        EXPECT_NONFATAL_FAILURE(CheckReduceScatter(q, 4, HCCL_DATA_TYPE_BFP16, count, HCCL_REDUCE_MIN),
                                "reduce op");
    });
}

TEST(HCEMU_ST, broadcast_and_alltoall)
{
    TopoMeta topo{{{0, 1}, {2, 3}}};
    const u64 count = 300;
    RunCase(topo, [=](u32, HcclComm comm, aclrtStream stream) {
        void *buf = Marked(count * 4, BUFFER_INPUT_MARK);
        CHK_RET(HcclBroadcast(buf, count, HCCL_DATA_TYPE_FP32, 2, comm, stream));
        void *in = Marked(count * 4 * 4, BUFFER_INPUT_MARK), *out = Marked(count * 4 * 4, BUFFER_OUTPUT_MARK);
        return HcclAlltoAll(in, count, HCCL_DATA_TYPE_FP32, out, count, HCCL_DATA_TYPE_FP32, comm,
                            stream);
    }, [=](AllRankTaskQueues &q) {
        EXPECT_EQ(CheckBroadcast(q, 4, HCCL_DATA_TYPE_FP32, count, 2), HCCL_SUCCESS);
        EXPECT_EQ(CheckAll2All(q, 4, HCCL_DATA_TYPE_FP32, count), HCCL_SUCCESS);
        /* Rank 1's data is not what rank 2 broadcast: the check must say whose it found. */
        EXPECT_NONFATAL_FAILURE(CheckBroadcast(q, 4, HCCL_DATA_TYPE_FP32, count, 1), "root");
    });
}

TEST(HCEMU_ST, batch_send_recv_ring)
{
    TopoMeta topo;
    GenTopoMeta(topo, 1, 1, 4);
    const u64 count = 100;
    RunCase(topo, [=](u32 rank, HcclComm comm, aclrtStream stream) {
        u8 *in = (u8 *)Marked(count * 4 * 4, BUFFER_INPUT_MARK);
        u8 *out = (u8 *)Marked(count * 4 * 4, BUFFER_OUTPUT_MARK);
        std::vector<HcclSendRecvItem> items;
        for (u32 peer = 0; peer < 4; peer++) {
            if (peer == rank) /* hcemu's own HcclBatchSendRecv refuses items to oneself */
                continue;
            items.push_back({HCCL_SEND, in + peer * count * 4, count, HCCL_DATA_TYPE_INT32, peer});
            items.push_back({HCCL_RECV, out + peer * count * 4, count, HCCL_DATA_TYPE_INT32, peer});
        }
        return HcclBatchSendRecv(items.data(), (u32)items.size(), comm, stream);
    }, [=](AllRankTaskQueues &q) {
        EXPECT_EQ(CheckBatchSendRecv(q, 4, HCCL_DATA_TYPE_INT32, count), HCCL_SUCCESS);
    });
}

TEST(HCEMU_ST, scaled_down_alltoallv)
{
    /* 3 ranks x 2 x 24 MiB under a 16 MiB budget: the harness divides every count by 16. */
    setenv("HCEMU_ST_MEM_MB", "16", 1);
    TopoMeta topo{{{0, 1, 2}}};
    std::vector<u64> m = {4u << 20, 2u << 20, 6u << 20, 1u << 20, 0, 11u << 20,
                          3u << 20, 5u << 20, 4u << 20};
    RunCase(topo, [=](u32 rank, HcclComm comm, aclrtStream stream) {
        std::vector<u64> sc(3), sd(3), rc(3), rd(3);
        u64 s = 0, r = 0;
        for (u32 i = 0; i < 3; i++) {
            sc[i] = m[rank * 3 + i];
            sd[i] = s;
            s += sc[i];
            rc[i] = m[i * 3 + rank];
            rd[i] = r;
            r += rc[i];
        }
        void *in = Marked(24u << 20, BUFFER_INPUT_MARK), *out = Marked(24u << 20, BUFFER_OUTPUT_MARK);
        return HcclAlltoAllV(in, sc.data(), sd.data(), HCCL_DATA_TYPE_INT8, out, rc.data(),
                             rd.data(), HCCL_DATA_TYPE_INT8, comm, stream);
    }, [=](AllRankTaskQueues &q) {
        EXPECT_EQ(CheckAll2AllV(q, 3, HCCL_DATA_TYPE_INT8, m), HCCL_SUCCESS);
    });
    unsetenv("HCEMU_ST_MEM_MB");
}

/* The output of `op` on `rank` as read back: the case's view of what the checks compare. */
static std::vector<uint8_t> &Output(AllRankTaskQueues &q, StOp op, u32 rank)
{
    for (const StCall &c : q.world->calls)
        if (c.op == op && c.rank == rank)
            return q.world->bufs[(size_t)c.out.buf].bytes;
    static std::vector<uint8_t> none;
    ADD_FAILURE() << "no call";
    return none;
}

TEST(HCEMU_ST, one_wrong_byte_is_found)
{
    /* Real runs, then one byte of one rank's output changed: each check must name that rank
     * and element, with what it expected. 70000 elements span two of the checks' blocks. */
    TopoMeta topo{{{0, 1, 2}}};
    const u64 count = 70000;
    RunCase(topo, [=](u32, HcclComm comm, aclrtStream stream) {
        void *in = Marked(count * 4, BUFFER_INPUT_MARK), *out = Marked(count * 12, BUFFER_OUTPUT_MARK);
        CHK_RET(HcclAllGather(in, out, count, HCCL_DATA_TYPE_INT32, comm, stream));
        void *rin = Marked(count * 4, BUFFER_INPUT_MARK), *rout = Marked(count * 4, BUFFER_OUTPUT_MARK);
        return HcclAllReduce(rin, rout, count, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, comm, stream);
    }, [=](AllRankTaskQueues &q) {
        EXPECT_EQ(CheckAllGather(q, 3, HCCL_DATA_TYPE_INT32, count), HCCL_SUCCESS);
        EXPECT_EQ(CheckAllReduce(q, 3, HCCL_DATA_TYPE_INT32, count, HCCL_REDUCE_SUM), HCCL_SUCCESS);
        Output(q, StOp::ALL_GATHER, 1)[(count + 66000) * 4] ^= 0x40;
        EXPECT_NONFATAL_FAILURE(CheckAllGather(q, 3, HCCL_DATA_TYPE_INT32, count),
                                "rank 1 output element 136000: expected rank 1 input#0 element 66000");
        Output(q, StOp::ALL_REDUCE, 2)[5 * 4] ^= 0x01;
        EXPECT_NONFATAL_FAILURE(CheckAllReduce(q, 3, HCCL_DATA_TYPE_INT32, count, HCCL_REDUCE_SUM),
                                "rank 2 output element 5: expected sum of element 5 over 3 ranks");
    });
}

TEST(HCEMU_ST, pattern_blocks_are_the_elements)
{
    /* The fills and checks make patterns a block at a time: the same bytes and numbers as
     * element by element, from any first element. */
    const HcclDataType types[] = {HCCL_DATA_TYPE_INT8,  HCCL_DATA_TYPE_UINT8, HCCL_DATA_TYPE_INT16,
                                  HCCL_DATA_TYPE_FP16,  HCCL_DATA_TYPE_BFP16, HCCL_DATA_TYPE_UINT32,
                                  HCCL_DATA_TYPE_FP32,  HCCL_DATA_TYPE_INT64, HCCL_DATA_TYPE_FP64,
                                  HCCL_DATA_TYPE_INT128, HCCL_DATA_TYPE_HIF8};
    const StFill fills[] = {StFill::MOVE, StFill::SUM, StFill::PROD, StFill::MAXMIN};
    for (HcclDataType t : types)
        for (StFill f : fills)
            for (u32 nranks : {1u, 3u, 256u})
                for (u64 first : {0ull, 12345ull}) {
                    const u64 n = 1500;
                    size_t es = st_type_size(t);
                    std::vector<uint8_t> block(n * es), one(es);
                    std::vector<double> values(n);
                    u32 rank = nranks - 1;
                    st_pattern_block(t, f, nranks, rank, 2, first, n, block.data());
                    st_pattern_values(t, f, nranks, rank, 2, first, n, values.data());
                    for (u64 k = 0; k < n; k++) {
                        st_pattern(t, f, nranks, rank, 2, first + k, one.data());
                        ASSERT_EQ(memcmp(one.data(), block.data() + k * es, es), 0)
                            << st_type_name(t) << " fill " << (int)f << " element " << first + k;
                        double v = st_decode(t, one.data());
                        ASSERT_TRUE(v == values[k] || (v != v && values[k] != values[k]))
                            << st_type_name(t) << " fill " << (int)f << " element " << first + k;
                    }
                }
}
