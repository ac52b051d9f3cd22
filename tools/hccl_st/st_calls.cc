/* st_calls.cc - the harness's view of what a case does, by link-time wrapping
 * (-Wl,--wrap=<name>, see st_wrapped_symbols.txt): only the case's own calls come here; HCCL's
 * library and hcemu call the real functions.
 *
 *   aclrtMalloc with BUFFER_INPUT_MARK / BUFFER_OUTPUT_MARK: a placeholder address range
 *     (PROT_NONE, never backed) that the case can do pointer arithmetic on;
 *   each HCCL operator: the first one of the case waits (bounded) until every rank got there,
 *     so all agree on one scale factor; then each placeholder argument becomes real device
 *     memory (filled: INPUT with the pattern, OUTPUT with poison), counts are divided by the
 *     factor, the real operator runs and the call is recorded with its result;
 *   aclrtCreateStream: remembered per thread;
 *   HcclCommDestroy: waits for the thread's streams, copies the rank's marked memory back
 *     for the checks, then destroys the communicator. */
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstring>

#include "st_internal.h"

extern "C" {
aclError __real_aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError __real_aclrtCreateStream(aclrtStream *stream);
HcclResult __real_HcclCommDestroy(HcclComm comm);
HcclResult __real_HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm);
HcclResult __real_HcclAllReduce(void *, void *, uint64_t, HcclDataType, HcclReduceOp, HcclComm,
                                aclrtStream);
HcclResult __real_HcclBroadcast(void *, uint64_t, HcclDataType, uint32_t, HcclComm, aclrtStream);
HcclResult __real_HcclReduceScatter(void *, void *, uint64_t, HcclDataType, HcclReduceOp,
                                    HcclComm, aclrtStream);
HcclResult __real_HcclReduceScatterV(void *, const void *, const void *, void *, uint64_t,
                                     HcclDataType, HcclReduceOp, HcclComm, aclrtStream);
HcclResult __real_HcclScatter(void *, void *, uint64_t, HcclDataType, uint32_t, HcclComm,
                              aclrtStream);
HcclResult __real_HcclAllGather(void *, void *, uint64_t, HcclDataType, HcclComm, aclrtStream);
HcclResult __real_HcclAllGatherV(void *, uint64_t, void *, const void *, const void *,
                                 HcclDataType, HcclComm, aclrtStream);
HcclResult __real_HcclSend(void *, uint64_t, HcclDataType, uint32_t, HcclComm, aclrtStream);
HcclResult __real_HcclRecv(void *, uint64_t, HcclDataType, uint32_t, HcclComm, aclrtStream);
HcclResult __real_HcclAlltoAllVC(const void *, const void *, HcclDataType, const void *,
                                 HcclDataType, HcclComm, aclrtStream);
HcclResult __real_HcclAlltoAllV(const void *, const void *, const void *, HcclDataType,
                                const void *, const void *, const void *, HcclDataType, HcclComm,
                                aclrtStream);
HcclResult __real_HcclAlltoAll(const void *, uint64_t, HcclDataType, const void *, uint64_t,
                               HcclDataType, HcclComm, aclrtStream);
HcclResult __real_HcclReduce(void *, void *, uint64_t, HcclDataType, HcclReduceOp, uint32_t,
                             HcclComm, aclrtStream);
HcclResult __real_HcclBatchSendRecv(HcclSendRecvItem *, uint32_t, HcclComm, aclrtStream);
}

namespace HcclSim {
namespace {

thread_local std::vector<aclrtStream> my_streams;

constexpr auto ARRIVAL_WAIT = std::chrono::seconds(20);
constexpr uint64_t STAGE = 16ull << 20; /* host staging for fills and read-backs */

uint64_t mib(uint64_t b) { return (b + (1ull << 20) - 1) >> 20; }

/* Every rank's first operator call meets here; the factor keeps all marked memory of the case
 * within the budget. Ranks that never get here (a case that leaves some out, a rank that
 * failed earlier) are waited for ARRIVAL_WAIT at most. */
uint64_t decide_scale(StCase &c, uint32_t rank)
{
    std::unique_lock<std::mutex> lk(c.lock);
    if (c.scale != 0)
        return c.scale;
    for (const StBuffer &b : c.bufs)
        if (b.rank == rank)
            c.demand += b.size;
    c.arrived++;
    if (c.arrived < c.nranks &&
        c.cv.wait_for(lk, ARRIVAL_WAIT, [&c] { return c.scale != 0; }))
        return c.scale;
    if (c.scale == 0) {
        uint64_t s = 1;
        while (c.demand / s > c.budget)
            s *= 2;
        c.scale = s;
        if (s > 1) {
            char note[256];
            snprintf(note, sizeof note,
                     "scaled down %llux: the case marks %llu MiB of device memory, the budget "
                     "is %llu MiB (HCEMU_ST_MEM_MB); counts and offsets divided by %llu",
                     (unsigned long long)s, (unsigned long long)mib(c.demand),
                     (unsigned long long)mib(c.budget), (unsigned long long)s);
            c.notes.push_back(note);
            printf("[hcemu-st] %s\n", note);
            fflush(stdout);
        }
        c.cv.notify_all();
    }
    return c.scale;
}

/* Backs a buffer with device memory of the current device and fills it, once. Called by
 * the buffer's own rank only, without the lock. */
HcclResult materialize(StCase &c, StBuffer &b, HcclDataType t, StFill f)
{
    if (b.real != nullptr)
        return HCCL_SUCCESS;
    uint64_t n = c.scale > 1 ? (b.size + c.scale - 1) / c.scale + 64 : b.size;
    size_t es = st_type_size(t) ? st_type_size(t) : 1;
    void *p = nullptr;
    if (__real_aclrtMalloc(&p, n ? n : 32, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        printf("[hcemu-st] unsupported: rank %u cannot get %llu MiB of device memory for a "
               "marked buffer (HCEMU_DEVICE_MEM_GB)\n", b.rank, (unsigned long long)mib(n));
        return HCCL_E_MEMORY;
    }
    b.real = p;
    b.real_size = n;
    b.fill_type = t;
    b.fill = f;
    /* STAGE is a multiple of every element size: each block starts on an element. */
    std::vector<uint8_t> stage(n < STAGE ? n : STAGE);
    for (uint64_t at = 0; at < n; at += stage.size()) {
        uint64_t len = n - at < stage.size() ? n - at : stage.size();
        memset(stage.data(), ST_POISON, len);
        if (b.input)
            st_pattern_block(t, f, c.nranks, b.rank, b.index, at / es, len / es, stage.data());
        if (aclrtMemcpy((char *)p + at, len, stage.data(), len, ACL_MEMCPY_HOST_TO_DEVICE) !=
            ACL_SUCCESS)
            return HCCL_E_MEMORY;
    }
    return HCCL_SUCCESS;
}

/* The operator about to run on this thread. */
struct Prep {
    std::shared_ptr<StCase> c;
    StCall call;
    uint64_t s = 1;

    Prep(HcclComm comm, StOp op)
    {
        c = st_case();
        call.op = op;
        uint32_t r = 0;
        if (HcclGetRankId(comm, &r) == HCCL_SUCCESS)
            call.rank = r;
        if (c)
            s = decide_scale(*c, call.rank);
    }
    uint64_t sc(uint64_t n) const { return n / s; }
    std::vector<uint64_t> sc_list(const void *p, size_t n) const
    {
        std::vector<uint64_t> v(n);
        for (size_t i = 0; i < n && p != nullptr; i++)
            v[i] = sc(((const uint64_t *)p)[i]);
        return v;
    }
    /* The real address for a case pointer; records where it points. A buffer is only ever
     * used by the rank (thread) that marked it, so that thread fills it outside the lock:
     * ranks fill their inputs side by side (StCase::bufs is a deque; its elements stay put). */
    void *ref(const void *p, HcclDataType t, StFill f, StRef *out, bool result = false)
    {
        if (!c || p == nullptr)
            return const_cast<void *>(p);
        uintptr_t a = (uintptr_t)p;
        StBuffer *found = nullptr;
        size_t id = 0;
        {
            std::lock_guard<std::mutex> lk(c->lock);
            for (size_t i = 0; i < c->bufs.size() && found == nullptr; i++) {
                StBuffer &b = c->bufs[i];
                if (a >= b.fake && a < b.fake + (b.size ? b.size : 1)) {
                    found = &b;
                    id = i;
                    b.result = b.result || result;
                }
            }
        }
        if (found == nullptr)
            return const_cast<void *>(p);
        if (materialize(*c, *found, t, f) != HCCL_SUCCESS)
            return nullptr;
        size_t es = st_type_size(t) ? st_type_size(t) : 1;
        uint64_t off = a - found->fake;
        if (s > 1)
            off = off / es / s * es;
        if (out != nullptr) {
            out->buf = (int)id;
            out->off = off;
        }
        return (char *)found->real + off;
    }
    /* The common part of the data-moving operators: element type and (scaled) count. */
    void moving(HcclDataType t, uint64_t count)
    {
        call.type = t;
        call.count = sc(count);
    }
    /* The common part of the reducing operators: type, reduction, count, both buffers. */
    void reducing(HcclDataType t, HcclReduceOp op, uint64_t count, void *send, void *recv,
                  void **s_real, void **r_real)
    {
        moving(t, count);
        call.red = op;
        *s_real = ref(send, t, st_fill_for(op), &call.in);
        *r_real = ref(recv, t, st_fill_for(op), &call.out, true);
    }
    HcclResult done(HcclResult r)
    {
        call.result = r;
        if (c) {
            std::lock_guard<std::mutex> lk(c->lock);
            c->calls.push_back(call);
        }
        if (r != HCCL_SUCCESS) {
            printf("[hcemu-st] rank %u: %s returned %d%s\n", call.rank, st_op_name(call.op),
                   (int)r, r == HCCL_E_NOT_SUPPORT ? " (not supported)" : "");
            fflush(stdout);
        }
        return r;
    }
};

} // namespace

const char *st_op_name(StOp op)
{
    static const char *const names[] = {
        "HcclAllReduce", "HcclAllGather", "HcclAllGatherV", "HcclReduceScatter",
        "HcclReduceScatterV", "HcclBroadcast", "HcclScatter", "HcclReduce", "HcclAlltoAll",
        "HcclAlltoAllV", "HcclAlltoAllVC", "HcclSend", "HcclRecv", "HcclBatchSendRecv"};
    return names[(int)op];
}

} // namespace HcclSim

using namespace HcclSim;

extern "C" aclError __wrap_aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    std::shared_ptr<StCase> c = st_case();
    u32 mark = (u32)policy;
    if (!c || devPtr == nullptr || (mark != BUFFER_INPUT_MARK && mark != BUFFER_OUTPUT_MARK))
        return __real_aclrtMalloc(devPtr, size, policy);
    int32_t dev = -1;
    if (aclrtGetDevice(&dev) != ACL_SUCCESS) {
        printf("[hcemu-st] a marked aclrtMalloc on a thread without a device\n");
        return ACL_ERROR_INVALID_PARAM;
    }
    void *fake = mmap(nullptr, size ? size : 1, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (fake == MAP_FAILED) {
        printf("[hcemu-st] no address space for a marked buffer of %zu bytes\n", size);
        return ACL_ERROR_BAD_ALLOC;
    }
    std::lock_guard<std::mutex> lk(c->lock);
    StBuffer b;
    /* Rank = device: every case sets device <rank> on the rank's thread. */
    b.rank = (uint32_t)dev;
    b.dev = dev;
    b.input = mark == BUFFER_INPUT_MARK;
    if (b.rank >= c->nranks) {
        munmap(fake, size ? size : 1);
        return ACL_ERROR_INVALID_PARAM;
    }
    std::vector<uint32_t> &count = b.input ? c->inputs_of : c->outputs_of;
    b.index = count[b.rank]++;
    b.fake = (uintptr_t)fake;
    b.size = size;
    c->bufs.push_back(std::move(b));
    *devPtr = fake;
    return ACL_SUCCESS;
}

extern "C" aclError __wrap_aclrtCreateStream(aclrtStream *stream)
{
    aclError e = __real_aclrtCreateStream(stream);
    if (e == ACL_SUCCESS && stream != nullptr)
        my_streams.push_back(*stream);
    return e;
}

extern "C" HcclResult __wrap_HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank,
                                                     HcclComm *comm)
{
    HcclResult r = __real_HcclCommInitClusterInfo(clusterInfo, rank, comm);
    if (r != HCCL_SUCCESS) {
        printf("[hcemu-st] rank %u: HcclCommInitClusterInfo returned %d%s\n", rank, (int)r,
               r == HCCL_E_TIMEOUT ? " (not every rank of the rank table joined: hcemu's "
                                     "communicator needs all of them)"
                                   : "");
        fflush(stdout);
        std::shared_ptr<StCase> c = st_case();
        if (c) {
            std::lock_guard<std::mutex> lk(c->lock);
            c->notes.push_back("rank " + std::to_string(rank) +
                               ": HcclCommInitClusterInfo returned " + std::to_string((int)r));
        }
    }
    return r;
}

extern "C" HcclResult __wrap_HcclCommDestroy(HcclComm comm)
{
    std::shared_ptr<StCase> c = st_case();
    uint32_t rank = 0;
    if (!c || HcclGetRankId(comm, &rank) != HCCL_SUCCESS)
        return __real_HcclCommDestroy(comm);
    int err = 0;
    for (aclrtStream s : my_streams) {
        aclError e = aclrtSynchronizeStream(s);
        if (e != ACL_SUCCESS && err == 0)
            err = (int)e;
    }
    my_streams.clear();
    std::vector<StBuffer *> mine;
    {
        std::lock_guard<std::mutex> lk(c->lock);
        for (StCall &call : c->calls)
            if (call.rank == rank && call.stream_error == 0)
                call.stream_error = err;
        for (StBuffer &b : c->bufs)
            if (b.rank == rank && b.real != nullptr && b.result)
                mine.push_back(&b); /* inputs are known from the pattern: only outputs */
    }
    for (StBuffer *b : mine) { /* read back side by side with the other ranks */
        b->bytes.resize(b->real_size);
        if (b->real_size == 0) /* a zero-byte buffer has nothing to read back */
            b->captured = true;
        else if (aclrtMemcpy(b->bytes.data(), b->real_size, b->real, b->real_size,
                             ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS)
            b->captured = true;
    }
    if (err != 0) {
        printf("[hcemu-st] rank %u: the stream failed (aclError %d)\n", rank, err);
        fflush(stdout);
    }
    return __real_HcclCommDestroy(comm);
}

/* AllReduce, Reduce and ReduceScatter: `real(send, recv, count)` runs the operator on the
 * real buffers with the scaled count. */
template <class Real>
static HcclResult reducing_op(StOp op, HcclComm comm, HcclDataType t, HcclReduceOp red,
                              uint64_t count, void *sendBuf, void *recvBuf, uint32_t root,
                              Real real)
{
    Prep p(comm, op);
    p.call.root = root;
    void *s, *r;
    p.reducing(t, red, count, sendBuf, recvBuf, &s, &r);
    return p.done(real(s, r, p.call.count));
}

/* AllReduce and ReduceScatter take the same arguments. */
using SymmetricReduce = HcclResult (*)(void *, void *, uint64_t, HcclDataType, HcclReduceOp,
                                       HcclComm, aclrtStream);
static HcclResult symmetric(StOp op, SymmetricReduce real, void *sendBuf, void *recvBuf,
                            uint64_t count, HcclDataType t, HcclReduceOp red, HcclComm comm,
                            aclrtStream stream)
{
    auto run = [&](void *s, void *r, uint64_t n) { return real(s, r, n, t, red, comm, stream); };
    return reducing_op(op, comm, t, red, count, sendBuf, recvBuf, 0, run);
}

extern "C" HcclResult __wrap_HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count,
                                           HcclDataType t, HcclReduceOp op, HcclComm comm,
                                           aclrtStream stream)
{
    return symmetric(StOp::ALL_REDUCE, __real_HcclAllReduce, sendBuf, recvBuf, count, t, op, comm,
                     stream);
}

extern "C" HcclResult __wrap_HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t count,
                                               HcclDataType t, HcclReduceOp op, HcclComm comm,
                                               aclrtStream stream)
{
    return symmetric(StOp::REDUCE_SCATTER, __real_HcclReduceScatter, sendBuf, recvBuf, count, t,
                     op, comm, stream);
}

extern "C" HcclResult __wrap_HcclReduce(void *sendBuf, void *recvBuf, uint64_t count,
                                        HcclDataType t, HcclReduceOp op, uint32_t root,
                                        HcclComm comm, aclrtStream stream)
{
    return reducing_op(StOp::REDUCE, comm, t, op, count, sendBuf, recvBuf, root,
                       [&](void *s, void *r, uint64_t n) {
                           return __real_HcclReduce(s, r, n, t, op, root, comm, stream);
                       });
}

extern "C" HcclResult __wrap_HcclReduceScatterV(void *sendBuf, const void *sendCounts,
                                                const void *sendDispls, void *recvBuf,
                                                uint64_t recvCount, HcclDataType t,
                                                HcclReduceOp op, HcclComm comm,
                                                aclrtStream stream)
{
    Prep p(comm, StOp::REDUCE_SCATTER_V);
    uint32_t n = 0;
    HcclGetRankSize(comm, &n);
    p.moving(t, recvCount);
    p.call.red = op;
    p.call.v1 = p.sc_list(sendCounts, n);
    p.call.v2 = p.sc_list(sendDispls, n);
    void *s = p.ref(sendBuf, t, st_fill_for(op), &p.call.in);
    void *r = p.ref(recvBuf, t, st_fill_for(op), &p.call.out, true);
    return p.done(__real_HcclReduceScatterV(s, sendCounts ? p.call.v1.data() : nullptr,
                                            sendDispls ? p.call.v2.data() : nullptr, r,
                                            p.call.count, t, op, comm, stream));
}

extern "C" HcclResult __wrap_HcclBroadcast(void *buf, uint64_t count, HcclDataType t,
                                           uint32_t root, HcclComm comm, aclrtStream stream)
{
    Prep p(comm, StOp::BROADCAST);
    p.moving(t, count);
    p.call.root = root;
    void *b = p.ref(buf, t, StFill::MOVE, &p.call.in, true);
    p.call.out = p.call.in;
    return p.done(__real_HcclBroadcast(b, p.call.count, t, root, comm, stream));
}

extern "C" HcclResult __wrap_HcclScatter(void *sendBuf, void *recvBuf, uint64_t count,
                                         HcclDataType t, uint32_t root, HcclComm comm,
                                         aclrtStream stream)
{
    Prep p(comm, StOp::SCATTER);
    p.moving(t, count);
    p.call.root = root;
    void *s = p.ref(sendBuf, t, StFill::MOVE, &p.call.in);
    void *r = p.ref(recvBuf, t, StFill::MOVE, &p.call.out, true);
    return p.done(__real_HcclScatter(s, r, p.call.count, t, root, comm, stream));
}

extern "C" HcclResult __wrap_HcclAllGather(void *sendBuf, void *recvBuf, uint64_t count,
                                           HcclDataType t, HcclComm comm, aclrtStream stream)
{
    Prep p(comm, StOp::ALL_GATHER);
    p.moving(t, count);
    void *s = p.ref(sendBuf, t, StFill::MOVE, &p.call.in);
    void *r = p.ref(recvBuf, t, StFill::MOVE, &p.call.out, true);
    return p.done(__real_HcclAllGather(s, r, p.call.count, t, comm, stream));
}

extern "C" HcclResult __wrap_HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf,
                                            const void *recvCounts, const void *recvDispls,
                                            HcclDataType t, HcclComm comm, aclrtStream stream)
{
    Prep p(comm, StOp::ALL_GATHER_V);
    uint32_t n = 0;
    HcclGetRankSize(comm, &n);
    p.moving(t, sendCount);
    p.call.v1 = p.sc_list(recvCounts, n);
    p.call.v2 = p.sc_list(recvDispls, n);
    void *s = p.ref(sendBuf, t, StFill::MOVE, &p.call.in);
    void *r = p.ref(recvBuf, t, StFill::MOVE, &p.call.out, true);
    return p.done(__real_HcclAllGatherV(s, p.call.count, r, recvCounts ? p.call.v1.data() : nullptr,
                                        recvDispls ? p.call.v2.data() : nullptr, t, comm,
                                        stream));
}

/* HcclSend and HcclRecv: one buffer, the peer recorded as `root`. */
static HcclResult point_to_point(StOp op, void *buf, uint64_t count, HcclDataType t, uint32_t peer,
                                 HcclComm comm, aclrtStream stream)
{
    Prep p(comm, op);
    bool send = op == StOp::SEND;
    p.moving(t, count);
    p.call.root = peer;
    void *b = p.ref(buf, t, StFill::MOVE, send ? &p.call.in : &p.call.out, !send);
    return p.done(send ? __real_HcclSend(b, p.call.count, t, peer, comm, stream)
                       : __real_HcclRecv(b, p.call.count, t, peer, comm, stream));
}

extern "C" HcclResult __wrap_HcclSend(void *sendBuf, uint64_t count, HcclDataType t,
                                      uint32_t destRank, HcclComm comm, aclrtStream stream)
{
    return point_to_point(StOp::SEND, sendBuf, count, t, destRank, comm, stream);
}

extern "C" HcclResult __wrap_HcclRecv(void *recvBuf, uint64_t count, HcclDataType t,
                                      uint32_t srcRank, HcclComm comm, aclrtStream stream)
{
    return point_to_point(StOp::RECV, recvBuf, count, t, srcRank, comm, stream);
}

extern "C" HcclResult __wrap_HcclAlltoAll(const void *sendBuf, uint64_t sendCount,
                                          HcclDataType sendType, const void *recvBuf,
                                          uint64_t recvCount, HcclDataType recvType,
                                          HcclComm comm, aclrtStream stream)
{
    Prep p(comm, StOp::ALL_TO_ALL);
    p.moving(sendType, sendCount);
    p.call.count2 = p.sc(recvCount);
    void *s = p.ref(sendBuf, sendType, StFill::MOVE, &p.call.in);
    void *r = p.ref(recvBuf, recvType, StFill::MOVE, &p.call.out, true);
    return p.done(__real_HcclAlltoAll(s, p.call.count, sendType, r, p.call.count2, recvType, comm,
                                      stream));
}

extern "C" HcclResult __wrap_HcclAlltoAllV(const void *sendBuf, const void *sendCounts,
                                           const void *sdispls, HcclDataType sendType,
                                           const void *recvBuf, const void *recvCounts,
                                           const void *rdispls, HcclDataType recvType,
                                           HcclComm comm, aclrtStream stream)
{
    Prep p(comm, StOp::ALL_TO_ALL_V);
    uint32_t n = 0;
    HcclGetRankSize(comm, &n);
    p.call.type = sendType;
    p.call.v1 = p.sc_list(sendCounts, n);
    p.call.v2 = p.sc_list(sdispls, n);
    p.call.v3 = p.sc_list(recvCounts, n);
    p.call.v4 = p.sc_list(rdispls, n);
    void *s = p.ref(sendBuf, sendType, StFill::MOVE, &p.call.in);
    void *r = p.ref(recvBuf, recvType, StFill::MOVE, &p.call.out, true);
    return p.done(__real_HcclAlltoAllV(s, sendCounts ? p.call.v1.data() : nullptr,
                                       sdispls ? p.call.v2.data() : nullptr, sendType, r,
                                       recvCounts ? p.call.v3.data() : nullptr,
                                       rdispls ? p.call.v4.data() : nullptr, recvType, comm,
                                       stream));
}

extern "C" HcclResult __wrap_HcclAlltoAllVC(const void *sendBuf, const void *sendCountMatrix,
                                            HcclDataType sendType, const void *recvBuf,
                                            HcclDataType recvType, HcclComm comm,
                                            aclrtStream stream)
{
    Prep p(comm, StOp::ALL_TO_ALL_VC);
    uint32_t n = 0;
    HcclGetRankSize(comm, &n);
    p.call.type = sendType;
    p.call.v1 = p.sc_list(sendCountMatrix, (size_t)n * n);
    void *s = p.ref(sendBuf, sendType, StFill::MOVE, &p.call.in);
    void *r = p.ref(recvBuf, recvType, StFill::MOVE, &p.call.out, true);
    return p.done(__real_HcclAlltoAllVC(s, sendCountMatrix ? p.call.v1.data() : nullptr,
                                        sendType, r, recvType, comm, stream));
}

extern "C" HcclResult __wrap_HcclBatchSendRecv(HcclSendRecvItem *items, uint32_t itemNum,
                                               HcclComm comm, aclrtStream stream)
{
    Prep p(comm, StOp::BATCH_SEND_RECV);
    std::vector<HcclSendRecvItem> real;
    for (uint32_t i = 0; items != nullptr && i < itemNum; i++) {
        HcclSendRecvItem it = items[i];
        StItem rec;
        rec.send = it.sendRecvType == HCCL_SEND;
        rec.count = p.sc(it.count);
        rec.type = it.dataType;
        rec.peer = it.remoteRank;
        it.buf = p.ref(it.buf, it.dataType, StFill::MOVE, &rec.ref, !rec.send);
        it.count = rec.count;
        if (i == 0)
            p.call.type = it.dataType;
        p.call.items.push_back(rec);
        real.push_back(it);
    }
    return p.done(__real_HcclBatchSendRecv(real.empty() ? items : real.data(), itemNum,
                                           comm, stream));
}
