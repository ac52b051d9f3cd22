/* st_check.cc - the per-operator checks (hccl_verifier.h): every output element of every rank
 * against the operator's definition, on the bytes read back after HcclCommDestroy. */
#include <cmath>
#include <cstring>
#include <sstream>

#include <gtest/gtest.h>

#include "hccl_verifier.h"
#include "st_internal.h"

namespace HcclSim {
namespace {

/* A source element: element `elem` of what `ref` points at, on `rank`. */
struct Src {
    uint32_t rank;
    StRef ref;
    uint64_t elem;
};

/* Where an operator must have written: element `out_elem` on of what `out` points at on
 * `rank`. */
struct Target {
    uint32_t rank;
    StRef out;
    uint64_t out_elem;
};

struct Checker {
    StCase &c;
    const char *what;
    HcclDataType type;
    size_t es;
    uint64_t mismatches = 0;
    bool failed = false;

    Checker(StCase &cs, const char *name, HcclDataType t)
        : c(cs), what(name), type(t), es(st_type_size(t) ? st_type_size(t) : 1)
    {
    }

    bool ok() const { return mismatches == 0 && !failed; }

    void fail(const std::string &msg)
    {
        failed = true;
        ADD_FAILURE() << "[hcemu-st] " << what << ": " << msg;
    }

    const StBuffer *buf(const StRef &r) const
    {
        return r.buf >= 0 && (size_t)r.buf < c.bufs.size() ? &c.bufs[(size_t)r.buf] : nullptr;
    }

    std::string name(const Src &s) const
    {
        const StBuffer *b = buf(s.ref);
        std::ostringstream o;
        o << "rank " << s.rank << " input#" << (b ? b->index : 0) << " element "
          << s.ref.off / es + s.elem;
        return o.str();
    }

    /* Which input element holds these bytes, if any. */
    std::string find_source(const uint8_t *p, uint64_t hint) const
    {
        bool poison = true;
        for (size_t k = 0; k < es; k++)
            poison = poison && p[k] == ST_POISON;
        if (poison)
            return "the output poison (never written)";
        std::vector<uint8_t> v(es);
        for (const StBuffer &b : c.bufs) {
            if (!b.input || b.real == nullptr || b.fill != StFill::MOVE)
                continue;
            uint64_t n = b.real_size / es;
            uint64_t lo = 0, hi = n;
            if (n > (1u << 22)) {
                lo = hint > 4096 ? hint - 4096 : 0;
                hi = hint + 4096 < n ? hint + 4096 : n;
            }
            for (uint64_t e = lo; e < hi; e++) {
                st_pattern(type, b.fill, c.nranks, b.rank, b.index, e, v.data());
                if (memcmp(v.data(), p, es) == 0) {
                    std::ostringstream o;
                    o << "rank " << b.rank << " input#" << b.index << " element " << e;
                    return o.str();
                }
            }
        }
        return "no input element";
    }

    /* Output bytes of element `elem` of what `out` points at on `rank`; nullptr if absent. */
    const uint8_t *out_bytes(uint32_t rank, const StRef &out, uint64_t elem)
    {
        const StBuffer *b = buf(out);
        if (b == nullptr) {
            fail("rank " + std::to_string(rank) + ": the output is not marked memory");
            return nullptr;
        }
        if (!b->captured) {
            fail("rank " + std::to_string(rank) +
                 ": its output was never read back (no HcclCommDestroy after the operator)");
            return nullptr;
        }
        uint64_t at = out.off + elem * es;
        if (at + es > b->bytes.size()) {
            fail("rank " + std::to_string(rank) + ": element " + std::to_string(elem) +
                 " lies beyond its output buffer");
            return nullptr;
        }
        return b->bytes.data() + at;
    }

    void report(uint32_t rank, uint64_t elem, const std::string &want, const uint8_t *got,
                const std::string &got_name)
    {
        if (mismatches++ > 0)
            return;
        std::ostringstream o;
        o << "rank " << rank << " output element " << elem << ": expected " << want
          << ", found " << st_hex(got, es) << " (" << got_name << ")";
        fail(o.str());
    }

    /* The first output byte of every target for n elements; false (a failure) when one is
     * absent or too short. */
    bool outputs(const std::vector<Target> &targets, uint64_t n, std::vector<const uint8_t *> &p)
    {
        p.clear();
        for (const Target &t : targets) {
            if (n == 0) {
                p.push_back(nullptr);
                continue;
            }
            const uint8_t *last = out_bytes(t.rank, t.out, t.out_elem + n - 1);
            if (last == nullptr)
                return false;
            p.push_back(last - (n - 1) * es);
        }
        return true;
    }

    /* Elements at..at+len-1 of a source: pattern bytes, or numbers. */
    void source_block(const Src &s, uint64_t at, uint64_t len, uint8_t *out) const
    {
        const StBuffer *b = buf(s.ref);
        if (b == nullptr)
            memset(out, 0, len * es);
        else
            st_pattern_block(type, b->fill, c.nranks, b->rank, b->index,
                             s.ref.off / es + s.elem + at, len, out);
    }
    void source_values(const Src &s, uint64_t at, uint64_t len, double *out) const
    {
        const StBuffer *b = buf(s.ref);
        if (b == nullptr)
            memset(out, 0, len * sizeof(double));
        else
            st_pattern_values(type, b->fill, c.nranks, b->rank, b->index,
                              s.ref.off / es + s.elem + at, len, out);
    }

    static constexpr uint64_t CHUNK = 1u << 16;

    /* n elements on every target: out[out_elem + k] == src[k]. The expected block is made
     * once for all targets (an all-gather's block b is the same on every rank). */
    void move_many(const std::vector<Target> &targets, Src src, uint64_t n)
    {
        std::vector<const uint8_t *> got;
        if (!outputs(targets, n, got))
            return;
        std::vector<uint8_t> want(CHUNK * es);
        for (uint64_t at = 0; at < n && ok(); at += CHUNK) {
            uint64_t len = n - at < CHUNK ? n - at : CHUNK;
            source_block(src, at, len, want.data());
            for (size_t i = 0; i < targets.size() && ok(); i++) {
                const uint8_t *g = got[i] + at * es;
                if (memcmp(g, want.data(), len * es) == 0)
                    continue;
                uint64_t k = 0;
                while (memcmp(g + k * es, want.data() + k * es, es) == 0)
                    k++;
                Src s = src;
                s.elem += at + k;
                report(targets[i].rank, targets[i].out.off / es + targets[i].out_elem + at + k,
                       name(s) + " = " + st_hex(want.data() + k * es, es), g + k * es,
                       find_source(g + k * es, s.ref.off / es + s.elem));
            }
        }
    }

    void move(uint32_t rank, const StRef &out, uint64_t out_elem, Src src, uint64_t n)
    {
        move_many({{rank, out, out_elem}}, src, n);
    }

    /* n elements on every target: out[out_elem + k] == red over srcs of src[k]. */
    void reduce_many(const std::vector<Target> &targets, const std::vector<Src> &srcs,
                     uint64_t n, HcclReduceOp red)
    {
        if (!st_numeric(type)) {
            fail(std::string("unsupported: the harness has no exact arithmetic for ") +
                 st_red_name(red) + " of " + st_type_name(type));
            return;
        }
        std::vector<const uint8_t *> got;
        if (srcs.empty() || !outputs(targets, n, got))
            return;
        std::vector<double> acc(CHUNK), v(CHUNK);
        std::vector<uint8_t> want(CHUNK * es);
        for (uint64_t at = 0; at < n && ok(); at += CHUNK) {
            uint64_t len = n - at < CHUNK ? n - at : CHUNK;
            source_values(srcs[0], at, len, acc.data());
            for (size_t j = 1; j < srcs.size(); j++) {
                source_values(srcs[j], at, len, v.data());
                double *a = acc.data();
                const double *x = v.data();
                if (red == HCCL_REDUCE_SUM)
                    for (uint64_t k = 0; k < len; k++) a[k] += x[k];
                else if (red == HCCL_REDUCE_PROD)
                    for (uint64_t k = 0; k < len; k++) a[k] *= x[k];
                else if (red == HCCL_REDUCE_MAX)
                    for (uint64_t k = 0; k < len; k++) a[k] = x[k] > a[k] ? x[k] : a[k];
                else
                    for (uint64_t k = 0; k < len; k++) a[k] = x[k] < a[k] ? x[k] : a[k];
            }
            st_encode_block(type, acc.data(), len, want.data());
            for (size_t i = 0; i < targets.size() && ok(); i++) {
                const uint8_t *g = got[i] + at * es;
                if (memcmp(g, want.data(), len * es) == 0)
                    continue;
                /* Bytes differ: compare as numbers (-0 == 0), report the first real one. */
                for (uint64_t k = 0; k < len; k++) {
                    double w = st_decode(type, want.data() + k * es);
                    double f = st_decode(type, g + k * es);
                    if (w == f)
                        continue;
                    std::ostringstream o;
                    o << st_red_name(red) << " of element " << srcs[0].ref.off / es + srcs[0].elem + at + k
                      << " over " << srcs.size() << " ranks = " << w;
                    std::ostringstream fo;
                    fo << f;
                    report(targets[i].rank,
                           targets[i].out.off / es + targets[i].out_elem + at + k, o.str(),
                           g + k * es, fo.str());
                    break;
                }
            }
        }
    }

    void reduce(uint32_t rank, const StRef &out, uint64_t out_elem, const std::vector<Src> &srcs,
                uint64_t n, HcclReduceOp red)
    {
        reduce_many({{rank, out, out_elem}}, srcs, n, red);
    }
};

/* The last call of `op` of every rank 0..n-1; a failure per rank without a good one. */
bool calls_of(Checker &k, StOp op, uint32_t rankSize, std::vector<const StCall *> &out)
{
    out.assign(rankSize, nullptr);
    if (rankSize != k.c.nranks) {
        k.fail("the check names " + std::to_string(rankSize) + " ranks, the topology has " +
               std::to_string(k.c.nranks));
        return false;
    }
    for (const StCall &call : k.c.calls)
        if (call.op == op && call.rank < rankSize)
            out[call.rank] = &call;
    for (uint32_t r = 0; r < rankSize; r++) {
        if (out[r] == nullptr) {
            k.fail("rank " + std::to_string(r) + " made no " + st_op_name(op) + " call");
            return false;
        }
        if (out[r]->result != HCCL_SUCCESS || out[r]->stream_error != 0) {
            k.fail("rank " + std::to_string(r) + ": " + st_op_name(op) + " failed (HcclResult " +
                   std::to_string((int)out[r]->result) + ", stream error " +
                   std::to_string(out[r]->stream_error) + ")");
            return false;
        }
    }
    return true;
}

bool same(Checker &k, const char *field, uint32_t rank, uint64_t got, uint64_t want)
{
    if (got == want)
        return true;
    k.fail("rank " + std::to_string(rank) + " passed " + field + " " + std::to_string(got) +
           ", the check expects " + std::to_string(want));
    return false;
}

HcclResult verdict(const Checker &k)
{
    return k.failed ? HCCL_E_INTERNAL : HCCL_SUCCESS;
}

std::shared_ptr<StCase> need_case(const AllRankTaskQueues &q)
{
    if (!q.world)
        ADD_FAILURE() << "[hcemu-st] no case: SimWorld::Init failed or was not called";
    return q.world;
}

uint64_t scaled(const StCase &c, uint64_t n) { return n / (c.scale ? c.scale : 1); }

using Calls = std::vector<const StCall *>;

/* The frame of every check: the case, a Checker named after the operator, the last good call
 * of `op` on every rank; `body` compares the outputs. The verdict of what it found. */
template <class Body>
HcclResult check_calls(AllRankTaskQueues &q, StOp op, u32 rankSize, HcclDataType t, Body body)
{
    auto c = need_case(q);
    if (!c)
        return HCCL_E_INTERNAL;
    Checker k(*c, st_op_name(op), t);
    Calls calls;
    if (calls_of(k, op, rankSize, calls))
        body(*c, k, calls);
    return verdict(k);
}

HcclResult reduce_like(AllRankTaskQueues &q, StOp op, u32 rankSize, HcclDataType t, u64 count,
                       HcclReduceOp red, bool only_root, u32 root, bool scatter)
{
    return check_calls(q, op, rankSize, t, [&](StCase &c, Checker &k, const Calls &calls) {
        uint64_t n = scaled(c, count);
        for (uint32_t r = 0; r < rankSize && !k.failed; r++)
            if (!same(k, "count", r, calls[r]->count, n) ||
                !same(k, "type", r, calls[r]->type, t) ||
                !same(k, "reduce op", r, calls[r]->red, red))
                return;
        auto sources = [&](uint64_t at) {
            std::vector<Src> srcs;
            for (uint32_t s = 0; s < rankSize; s++)
                srcs.push_back({s, calls[s]->in, at});
            return srcs;
        };
        if (!scatter) { /* AllReduce, Reduce: one result, the same on every rank that gets it */
            std::vector<Target> all;
            for (uint32_t r = 0; r < rankSize; r++)
                if (!only_root || r == root)
                    all.push_back({r, calls[r]->out, 0});
            k.reduce_many(all, sources(0), n, red);
            return;
        }
        for (uint32_t r = 0; r < rankSize && k.ok(); r++)
            k.reduce(r, calls[r]->out, 0, sources((uint64_t)r * n), n, red);
    });
}

/* AllGather (block b of every output is rank b's input) and AlltoAll (block b of rank r's
 * output is block r of rank b's input). */
HcclResult blocks(AllRankTaskQueues &q, StOp op, u32 rankSize, HcclDataType t, u64 count,
                  bool all_to_all)
{
    return check_calls(q, op, rankSize, t, [&](StCase &c, Checker &k, const Calls &calls) {
        uint64_t n = scaled(c, count);
        for (uint32_t r = 0; r < rankSize; r++)
            if (!same(k, all_to_all ? "sendCount" : "count", r, calls[r]->count, n))
                return;
        for (uint32_t b = 0; b < rankSize && k.ok(); b++) {
            if (!all_to_all) { /* block b is rank b's input on every rank */
                std::vector<Target> all;
                for (uint32_t r = 0; r < rankSize; r++)
                    all.push_back({r, calls[r]->out, (uint64_t)b * n});
                k.move_many(all, {b, calls[b]->in, 0}, n);
                continue;
            }
            for (uint32_t r = 0; r < rankSize && k.ok(); r++)
                k.move(r, calls[r]->out, (uint64_t)b * calls[r]->count2,
                       {b, calls[b]->in, (uint64_t)r * calls[b]->count}, n);
        }
    });
}

/* Broadcast (every rank gets the root's input) and Scatter (rank r gets block r of it). */
HcclResult rooted_move(AllRankTaskQueues &q, StOp op, u32 rankSize, HcclDataType t, u64 count,
                       u32 root, bool scatter)
{
    return check_calls(q, op, rankSize, t, [&](StCase &c, Checker &k, const Calls &calls) {
        if (root >= rankSize)
            return;
        uint64_t n = scaled(c, count);
        std::vector<Target> all;
        for (uint32_t r = 0; r < rankSize; r++) {
            if (!same(k, "count", r, calls[r]->count, n) ||
                !same(k, "root", r, calls[r]->root, root))
                return;
            all.push_back({r, calls[r]->out, 0});
        }
        if (!scatter) /* every rank holds the root's input */
            k.move_many(all, {root, calls[root]->in, 0}, n);
        for (uint32_t r = 0; r < rankSize && k.ok() && scatter; r++)
            k.move(r, calls[r]->out, 0, {root, calls[root]->in, (uint64_t)r * n}, n);
    });
}

} // namespace
} // namespace HcclSim

using namespace HcclSim;

HcclResult CheckAllReduce(AllRankTaskQueues &taskQueues, u32 rankSize, HcclDataType dataType,
                          u64 dataCount, HcclReduceOp reduceOp)
{
    return reduce_like(taskQueues, StOp::ALL_REDUCE, rankSize, dataType, dataCount, reduceOp,
                       false, 0, false);
}

HcclResult CheckReduce(AllRankTaskQueues &taskQueues, u32 rankSize, HcclDataType dataType,
                       u64 dataCount, HcclReduceOp reduceOp, u32 root)
{
    return reduce_like(taskQueues, StOp::REDUCE, rankSize, dataType, dataCount, reduceOp, true,
                       root, false);
}

HcclResult CheckReduceScatter(AllRankTaskQueues &taskQueues, u32 rankSize, HcclDataType dataType,
                              u64 dataCount, HcclReduceOp reduceOp)
{
    return reduce_like(taskQueues, StOp::REDUCE_SCATTER, rankSize, dataType, dataCount, reduceOp,
                       false, 0, true);
}

HcclResult CheckReduceScatterV(AllRankTaskQueues &taskQueues, u32 rankSize,
                               HcclReduceOp reduceType, VDataDesTag vDataDes)
{
    return check_calls(taskQueues, StOp::REDUCE_SCATTER_V, rankSize, vDataDes.dataType,
                       [&](StCase &c, Checker &k, const Calls &calls) {
        for (uint32_t r = 0; r < rankSize && k.ok(); r++) {
            uint64_t n = r < vDataDes.counts.size() ? scaled(c, vDataDes.counts[r]) : 0;
            if (!same(k, "recvCount", r, calls[r]->count, n))
                break;
            std::vector<Src> srcs;
            for (uint32_t s = 0; s < rankSize; s++) {
                const StCall *cs = calls[s];
                uint64_t d = r < cs->v2.size() ? cs->v2[r] : 0;
                srcs.push_back({s, cs->in, d});
            }
            k.reduce(r, calls[r]->out, 0, srcs, n, reduceType);
        }
    });
}

HcclResult CheckAllGather(AllRankTaskQueues &taskQueues, u32 rankSize, HcclDataType dataType,
                          u64 dataCount)
{
    return blocks(taskQueues, StOp::ALL_GATHER, rankSize, dataType, dataCount, false);
}

HcclResult CheckAllGatherV(AllRankTaskQueues &taskQueues, u32 rankSize, VDataDesTag vDataDes)
{
    return check_calls(taskQueues, StOp::ALL_GATHER_V, rankSize, vDataDes.dataType,
                       [&](StCase &c, Checker &k, const Calls &calls) {
        for (uint32_t r = 0; r < rankSize && k.ok(); r++)
            for (uint32_t b = 0; b < rankSize && k.ok(); b++) {
                uint64_t n = b < vDataDes.counts.size() ? scaled(c, vDataDes.counts[b]) : 0;
                uint64_t d = b < calls[r]->v2.size() ? calls[r]->v2[b] : 0;
                uint64_t asked = b < calls[r]->v1.size() ? calls[r]->v1[b] : 0;
                if (!same(k, "recvCounts entry", r, asked, n))
                    break;
                k.move(r, calls[r]->out, d, {b, calls[b]->in, 0}, n);
            }
    });
}

HcclResult CheckBroadcast(AllRankTaskQueues &taskQueues, u32 rankSize, HcclDataType dataType,
                          u64 dataCount, u32 root)
{
    return rooted_move(taskQueues, StOp::BROADCAST, rankSize, dataType, dataCount, root, false);
}

HcclResult CheckScatter(AllRankTaskQueues &taskQueues, u32 rankSize, HcclDataType dataType,
                        u64 dataCount, u32 root)
{
    return rooted_move(taskQueues, StOp::SCATTER, rankSize, dataType, dataCount, root, true);
}

HcclResult CheckAll2All(AllRankTaskQueues &taskQueues, u32 rankSize, HcclDataType sendType,
                        u64 sendCount)
{
    return blocks(taskQueues, StOp::ALL_TO_ALL, rankSize, sendType, sendCount, true);
}

HcclResult CheckAll2AllV(AllRankTaskQueues &taskQueues, u32 rankSize, HcclDataType sendType,
                         std::vector<u64> sendCountMatrix)
{
    return check_calls(taskQueues, StOp::ALL_TO_ALL_V, rankSize, sendType,
                       [&](StCase &c, Checker &k, const Calls &calls) {
        if (sendCountMatrix.size() < (size_t)rankSize * rankSize) {
            k.fail("the count matrix is smaller than ranks x ranks");
            return;
        }
        for (uint32_t r = 0; r < rankSize && k.ok(); r++)
            for (uint32_t b = 0; b < rankSize && k.ok(); b++) {
                uint64_t n = scaled(c, sendCountMatrix[(size_t)b * rankSize + r]);
                const StCall *rc = calls[r], *sc = calls[b];
                if (!same(k, "recvCounts entry", r, rc->v3.size() > b ? rc->v3[b] : 0, n) ||
                    !same(k, "sendCounts entry", b, sc->v1.size() > r ? sc->v1[r] : 0, n))
                    break;
                k.move(r, rc->out, rc->v4[b], {b, sc->in, sc->v2[r]}, n);
            }
    });
}

HcclResult CheckAll2AllVC(AllRankTaskQueues &taskQueues, u32 rankSize, HcclDataType sendType,
                          std::vector<u64> sendCountMatrix)
{
    return check_calls(taskQueues, StOp::ALL_TO_ALL_VC, rankSize, sendType,
                       [&](StCase &c, Checker &k, const Calls &calls) {
        size_t nn = (size_t)rankSize * rankSize;
        if (sendCountMatrix.size() < nn) {
            k.fail("the count matrix is smaller than ranks x ranks");
            return;
        }
        std::vector<uint64_t> m(nn);
        for (size_t i = 0; i < nn; i++)
            m[i] = scaled(c, sendCountMatrix[i]);
        for (uint32_t r = 0; r < rankSize && k.ok(); r++) {
            uint64_t roff = 0;
            for (uint32_t b = 0; b < rankSize && k.ok(); b++) {
                uint64_t soff = 0;
                for (uint32_t j = 0; j < r; j++)
                    soff += m[(size_t)b * rankSize + j];
                uint64_t n = m[(size_t)b * rankSize + r];
                k.move(r, calls[r]->out, roff, {b, calls[b]->in, soff}, n);
                roff += n;
            }
        }
    });
}

static HcclResult send_recv(AllRankTaskQueues &taskQueues, const char *what, u32 rankSize,
                            HcclDataType dataType, u64 dataCount, u32 srcRank, u32 dstRank)
{
    auto c = need_case(taskQueues);
    if (!c)
        return HCCL_E_INTERNAL;
    Checker k(*c, what, dataType);
    const StCall *send = nullptr, *recv = nullptr;
    for (const StCall &call : c->calls) {
        if (call.op == StOp::SEND && call.rank == srcRank && call.root == dstRank)
            send = &call;
        if (call.op == StOp::RECV && call.rank == dstRank && call.root == srcRank)
            recv = &call;
    }
    if (rankSize != c->nranks || send == nullptr || recv == nullptr) {
        k.fail("no HcclSend from rank " + std::to_string(srcRank) + " to " +
               std::to_string(dstRank) + " with its HcclRecv");
        return verdict(k);
    }
    for (const StCall *call : {send, recv})
        if (call->result != HCCL_SUCCESS || call->stream_error != 0) {
            k.fail("rank " + std::to_string(call->rank) + ": " + st_op_name(call->op) +
                   " failed (HcclResult " + std::to_string((int)call->result) + ")");
            return verdict(k);
        }
    uint64_t n = scaled(*c, dataCount);
    if (same(k, "count", dstRank, recv->count, n) && same(k, "count", srcRank, send->count, n))
        k.move(dstRank, recv->out, 0, {srcRank, send->in, 0}, n);
    return verdict(k);
}

HcclResult CheckSend(AllRankTaskQueues &taskQueues, u32 rankSize, HcclDataType dataType,
                     u64 dataCount, u32 srcRank, u32 dstRank)
{
    return send_recv(taskQueues, "HcclSend", rankSize, dataType, dataCount, srcRank, dstRank);
}

HcclResult CheckRecv(AllRankTaskQueues &taskQueues, u32 rankSize, HcclDataType dataType,
                     u64 dataCount, u32 srcRank, u32 dstRank)
{
    return send_recv(taskQueues, "HcclRecv", rankSize, dataType, dataCount, srcRank, dstRank);
}

HcclResult CheckBatchSendRecv(AllRankTaskQueues &taskQueues, u32 rankSize, HcclDataType dataType,
                              u64 dataCount)
{
    return check_calls(taskQueues, StOp::BATCH_SEND_RECV, rankSize, dataType,
                       [&](StCase &c, Checker &k, const Calls &calls) {
        uint64_t n = scaled(c, dataCount);
        /* The j-th receive of rank r from p pairs with the j-th send of p to r. */
        for (uint32_t r = 0; r < rankSize && k.ok(); r++) {
            std::vector<uint32_t> seen(rankSize, 0);
            for (const StItem &it : calls[r]->items) {
                if (it.send || it.peer >= rankSize)
                    continue;
                uint32_t j = seen[it.peer]++, m = 0;
                const StItem *match = nullptr;
                for (const StItem &s : calls[it.peer]->items)
                    if (s.send && s.peer == r && m++ == j) {
                        match = &s;
                        break;
                    }
                if (match == nullptr) {
                    k.fail("rank " + std::to_string(r) + " receives from " +
                           std::to_string(it.peer) + ", which sends it nothing");
                    break;
                }
                if (!same(k, "item count", r, it.count, n))
                    break;
                k.move(r, it.ref, 0, {it.peer, match->ref, 0}, n);
            }
        }
    });
}
