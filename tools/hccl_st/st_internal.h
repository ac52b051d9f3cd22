/* st_internal.h - state shared by the harness's parts: the case (topology, ranks, marked
 * buffers, recorded operator calls), the INPUT pattern and element codecs. */
#ifndef HCEMU_HCCL_ST_INTERNAL_H
#define HCEMU_HCCL_ST_INTERNAL_H

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include <acl/acl.h>
#include <hccl/hccl.h>

#include "sim_world.h"

namespace HcclSim {

enum class StOp {
    ALL_REDUCE, ALL_GATHER, ALL_GATHER_V, REDUCE_SCATTER, REDUCE_SCATTER_V, BROADCAST, SCATTER,
    REDUCE, ALL_TO_ALL, ALL_TO_ALL_V, ALL_TO_ALL_VC, SEND, RECV, BATCH_SEND_RECV
};
const char *st_op_name(StOp op);

/* How an INPUT buffer is filled: distinct bytes per element (data movement), or small
 * numbers whose reduction is exact in the element type (sums, products, max, min). */
enum class StFill { MOVE, SUM, PROD, MAXMIN };

/* A marked buffer: a placeholder address range handed to the case (never touched), backed
 * by device memory once an operator uses it. Offsets into it are scaled like the counts. */
struct StBuffer {
    uint32_t rank;
    int32_t dev;
    bool input;          /* BUFFER_INPUT_MARK, else output */
    uint32_t index;      /* n-th input (or output) buffer of this rank */
    uintptr_t fake;      /* placeholder address */
    uint64_t size;       /* bytes asked for */
    void *real = nullptr;
    uint64_t real_size = 0;
    HcclDataType fill_type = HCCL_DATA_TYPE_RESERVED;
    StFill fill = StFill::MOVE;
    bool result = false;        /* an operator writes into it: read back for the checks */
    std::vector<uint8_t> bytes; /* device contents after the rank's last HcclCommDestroy */
    bool captured = false;
};

/* Where an operator argument points: buffer id (index into StCase::bufs) and byte offset
 * into the real memory; buf < 0 for memory the harness did not mark. */
struct StRef {
    int buf = -1;
    uint64_t off = 0;
};

struct StItem { /* one HcclSendRecvItem */
    bool send;
    StRef ref;
    uint64_t count;
    HcclDataType type;
    uint32_t peer;
};

/* One operator call of one rank, arguments as HCCL got them (scaled). */
struct StCall {
    StOp op;
    uint32_t rank;
    HcclDataType type = HCCL_DATA_TYPE_RESERVED;
    HcclReduceOp red = HCCL_REDUCE_SUM;
    uint32_t root = 0; /* root, or peer of Send/Recv */
    uint64_t count = 0, count2 = 0;
    std::vector<uint64_t> v1, v2, v3, v4; /* counts/displacements, matrix */
    StRef in, out;
    std::vector<StItem> items;
    HcclResult result = HCCL_SUCCESS;
    int stream_error = 0; /* aclError of the stream synchronisation that followed */
};

struct StCase {
    std::mutex lock;
    std::condition_variable cv;
    TopoMeta topo;
    HcclDevType dev_type = HcclDevType::DEV_TYPE_950;
    uint32_t nranks = 0;
    std::vector<uint32_t> server_of; /* rank -> global server index */
    std::vector<uint32_t> pod_of;    /* rank -> super-pod */
    std::deque<StBuffer> bufs; /* a deque: a rank fills its buffer without the lock */
    std::vector<StCall> calls;
    std::vector<uint32_t> inputs_of, outputs_of; /* per rank: marked buffers so far */
    /* Scaling: decided once, when every rank reached its first operator. */
    uint64_t budget = 0;
    uint64_t scale = 0; /* 0: not decided yet */
    uint32_t arrived = 0;
    uint64_t demand = 0;
    std::vector<std::string> notes; /* "scaled ...", failures before the check */
    std::string dir;                /* the case's folder: rank table, topology file */
};

/* The case in progress (nullptr outside Init..Deinit). */
std::shared_ptr<StCase> st_case();

/* Element codec. */
size_t st_type_size(HcclDataType t);
const char *st_type_name(HcclDataType t);
const char *st_red_name(HcclReduceOp r);
/* Whether the harness can make and check exact numbers of this type for reductions. */
bool st_numeric(HcclDataType t);
StFill st_fill_for(HcclReduceOp r);
/* The pattern: element `i` of input buffer `index` of `rank`, written to `out`
 * (st_type_size bytes). */
void st_pattern(HcclDataType t, StFill f, uint32_t nranks, uint32_t rank, uint32_t index,
                uint64_t i, uint8_t *out);
/* The same element as a number (numeric types, numeric fills). */
double st_pattern_value(HcclDataType t, StFill f, uint32_t nranks, uint32_t rank,
                        uint32_t index, uint64_t i);
/* Blocks of the same: elements first..first+n-1 as bytes (n * st_type_size), and as numbers
 * (what st_decode of those bytes gives). These are what fills and checks use: one call per
 * block, not one per element. */
void st_pattern_block(HcclDataType t, StFill f, uint32_t nranks, uint32_t rank, uint32_t index,
                      uint64_t first, uint64_t n, uint8_t *out);
void st_pattern_values(HcclDataType t, StFill f, uint32_t nranks, uint32_t rank, uint32_t index,
                       uint64_t first, uint64_t n, double *out);
void st_encode_block(HcclDataType t, const double *v, uint64_t n, uint8_t *out);
double st_decode(HcclDataType t, const uint8_t *p);
void st_encode(HcclDataType t, double v, uint8_t *out);
std::string st_hex(const uint8_t *p, size_t n);

constexpr uint8_t ST_POISON = 0xa5;

} // namespace HcclSim

#endif
