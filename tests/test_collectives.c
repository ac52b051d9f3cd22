/* test_collectives.c - the built-in collectives of hccl.h against a host reference: every
 * operator at 1, 2, 3, 5 and 8 ranks (threads), every data type for every operator and every
 * reduce op for the reductions, in-place forms, counts not divisible by the rank count, zero
 * counts, a size that needs several rounds of the HCCL buffer (HCCL_BUFFSIZE=1), groups and
 * bad arguments. TEST_COLL_QUICK=1 runs only the algorithm-sensitive operators (ctest runs it
 * once per HCEMU_ALGO setting). Started by hcemu-run (HCEMU_RANK set), the program is one
 * rank process of the job and runs the same checks (exit 0 when all pass). */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include <acl/acl.h>
#include <hccl/hccl.h>

#include "test_comm_util.h"

static char job[CU_PATH];
static bool quick;

static const HcclDataType all_types[] = {
    HCCL_DATA_TYPE_INT8,   HCCL_DATA_TYPE_INT16,  HCCL_DATA_TYPE_INT32, HCCL_DATA_TYPE_INT64,
    HCCL_DATA_TYPE_UINT8,  HCCL_DATA_TYPE_UINT16, HCCL_DATA_TYPE_UINT32, HCCL_DATA_TYPE_UINT64,
    HCCL_DATA_TYPE_FP16,   HCCL_DATA_TYPE_BFP16,  HCCL_DATA_TYPE_FP32,  HCCL_DATA_TYPE_FP64,
};
/* The operators that only move data take these too, as bytes (HCCL accepts them there and
 * refuses them in reductions). */
static const HcclDataType one_byte_floats[] = {HCCL_DATA_TYPE_HIF8, HCCL_DATA_TYPE_FP8E4M3,
                                               HCCL_DATA_TYPE_FP8E5M2, HCCL_DATA_TYPE_FP8E8M0};
static const HcclReduceOp all_ops[] = {HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX,
                                       HCCL_REDUCE_MIN};

/* ---- typed values (all test values are small integers, exact in every type) --------------- */

static size_t esz(HcclDataType t)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8:
    case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3:
    case HCCL_DATA_TYPE_FP8E5M2:
    case HCCL_DATA_TYPE_FP8E8M0: return 1;
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16: return 2;
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_FP32: return 4;
    default: return 8;
    }
}

static bool is_signed(HcclDataType t)
{
    return t != HCCL_DATA_TYPE_UINT8 && t != HCCL_DATA_TYPE_UINT16 &&
           t != HCCL_DATA_TYPE_UINT32 && t != HCCL_DATA_TYPE_UINT64;
}

static uint16_t f2h(float f) /* exact small integers only */
{
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) == 0)
        return (uint16_t)(x >> 16);
    uint32_t e = ((x >> 23) & 0xff) - 127 + 15;
    return (uint16_t)(((x >> 16) & 0x8000) | (e << 10) | ((x >> 13) & 0x3ff));
}

static float h2f(uint16_t h)
{
    uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
    float f;
    if (e == 0)
        x = (uint32_t)(h & 0x8000) << 16; /* zero (no subnormals in the test values) */
    else
        x = ((uint32_t)(h & 0x8000) << 16) | ((e - 15 + 127) << 23) | (m << 13);
    memcpy(&f, &x, 4);
    return f;
}

static void put(void *buf, HcclDataType t, uint64_t i, double v)
{
    uint8_t *p = (uint8_t *)buf + i * esz(t);
    float f = (float)v;
    uint32_t fb;
    uint16_t h;

    switch (t) {
    case HCCL_DATA_TYPE_INT8: *(int8_t *)p = (int8_t)(int64_t)v; break;
    case HCCL_DATA_TYPE_UINT8: *(uint8_t *)p = (uint8_t)(int64_t)v; break;
    case HCCL_DATA_TYPE_INT16: { int16_t x = (int16_t)(int64_t)v; memcpy(p, &x, 2); } break;
    case HCCL_DATA_TYPE_UINT16: { uint16_t x = (uint16_t)(int64_t)v; memcpy(p, &x, 2); } break;
    case HCCL_DATA_TYPE_INT32: { int32_t x = (int32_t)(int64_t)v; memcpy(p, &x, 4); } break;
    case HCCL_DATA_TYPE_UINT32: { uint32_t x = (uint32_t)(int64_t)v; memcpy(p, &x, 4); } break;
    case HCCL_DATA_TYPE_INT64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); } break;
    case HCCL_DATA_TYPE_UINT64: { uint64_t x = (uint64_t)(int64_t)v; memcpy(p, &x, 8); } break;
    case HCCL_DATA_TYPE_FP32: memcpy(p, &f, 4); break;
    case HCCL_DATA_TYPE_FP64: memcpy(p, &v, 8); break;
    case HCCL_DATA_TYPE_FP16: h = f2h(f); memcpy(p, &h, 2); break;
    default: memcpy(&fb, &f, 4); h = (uint16_t)(fb >> 16); memcpy(p, &h, 2); break;
    }
}

static double get(const void *buf, HcclDataType t, uint64_t i)
{
    const uint8_t *p = (const uint8_t *)buf + i * esz(t);
    union { int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32;
            int64_t i64; uint64_t u64; float f; double d; } u;

    memcpy(&u, p, esz(t));
    switch (t) {
    case HCCL_DATA_TYPE_INT8: return u.i8;
    case HCCL_DATA_TYPE_UINT8: return u.u8;
    case HCCL_DATA_TYPE_INT16: return u.i16;
    case HCCL_DATA_TYPE_UINT16: return u.u16;
    case HCCL_DATA_TYPE_INT32: return u.i32;
    case HCCL_DATA_TYPE_UINT32: return u.u32;
    case HCCL_DATA_TYPE_INT64: return (double)u.i64;
    case HCCL_DATA_TYPE_UINT64: return (double)u.u64;
    case HCCL_DATA_TYPE_FP32: return u.f;
    case HCCL_DATA_TYPE_FP64: return u.d;
    case HCCL_DATA_TYPE_FP16: return h2f(u.u16);
    default: { uint32_t x = (uint32_t)u.u16 << 16; float f; memcpy(&f, &x, 4); return f; }
    }
}

/* The value rank r contributes at element i: 1 or 2 for PROD, -2..2 (0..4 unsigned) else. */
static double value(HcclDataType t, HcclReduceOp op, uint32_t r, uint64_t i)
{
    if (op == HCCL_REDUCE_PROD)
        return 1 + (double)((r * 7 + i) % 2);
    return (double)((r * 7 + i * 3) % 5) - (is_signed(t) ? 2 : 0);
}

static double apply(HcclReduceOp op, double a, double b)
{
    switch (op) {
    case HCCL_REDUCE_SUM: return a + b + 0.0;
    case HCCL_REDUCE_PROD: return a * b;
    case HCCL_REDUCE_MAX: return a > b ? a : b;
    default: return a < b ? a : b;
    }
}

/* Reduced value over n ranks, wrapped to the type like the device does (via put/get). */
static double reduced(HcclDataType t, HcclReduceOp op, uint32_t n, uint64_t i)
{
    double acc = value(t, op, 0, i);
    uint8_t tmp[8];

    for (uint32_t r = 1; r < n; r++)
        acc = apply(op, acc, value(t, op, r, i));
    put(tmp, t, 0, acc);
    return get(tmp, t, 0);
}

/* ---- device buffers ------------------------------------------------------------------------ */

struct dbuf {
    void *d;
    uint8_t *h;
    uint64_t bytes;
};

static void dalloc(struct cu_rank *r, struct dbuf *b, uint64_t bytes)
{
    b->bytes = bytes ? bytes : 8;
    CU_CHECK(r, aclrtMalloc(&b->d, b->bytes, ACL_MEM_MALLOC_HUGE_ONLY) == ACL_SUCCESS);
    b->h = calloc(1, b->bytes);
}

static void dfree(struct dbuf *b)
{
    aclrtFree(b->d);
    free(b->h);
}

static void upload(struct cu_rank *r, struct dbuf *b)
{
    CU_CHECK(r, aclrtMemcpy(b->d, b->bytes, b->h, b->bytes, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
}

static void download(struct cu_rank *r, struct dbuf *b)
{
    CU_CHECK(r, aclrtMemcpy(b->h, b->bytes, b->d, b->bytes, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
}

static void poison(struct cu_rank *r, struct dbuf *b)
{
    CU_CHECK(r, aclrtMemset(b->d, b->bytes, 0x5a, b->bytes) == ACL_SUCCESS);
}

/* Compares n elements of `got` at `off` with `want(i)`; reports the first difference. */
static void expect_elems(struct cu_rank *r, const char *what, HcclDataType t, const void *got,
                         uint64_t n, double (*want)(void *, uint64_t), void *ctx)
{
    for (uint64_t i = 0; i < n; i++) {
        double g = get(got, t, i), w = want(ctx, i);
        if (g != w) {
            fprintf(stderr, "rank %d/%d: %s type %d: element %llu is %g, want %g\n", r->rank, r->n,
                    what, (int)t, (unsigned long long)i, g, w);
            r->failures++;
            return;
        }
    }
}

struct body {
    aclrtStream stream;
    uint64_t count; /* elements per case */
};

static void sync(struct cu_rank *r, aclrtStream s)
{
    aclError e = aclrtSynchronizeStream(s);
    if (e != ACL_SUCCESS)
        fprintf(stderr, "rank %d: aclrtSynchronizeStream: %d\n", r->rank, e);
    CU_CHECK(r, e == ACL_SUCCESS);
}

/* ---- the reductions ------------------------------------------------------------------------ */

struct red_ctx {
    HcclDataType t;
    HcclReduceOp op;
    uint32_t n;
    uint64_t base;
};

static double want_reduced(void *p, uint64_t i)
{
    const struct red_ctx *c = p;
    return reduced(c->t, c->op, c->n, c->base + i);
}

static void fill(struct dbuf *b, HcclDataType t, HcclReduceOp op, uint32_t rank, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        put(b->h, t, i, value(t, op, rank, i));
}

static void allreduce_case(struct cu_rank *r, aclrtStream s, HcclDataType t, HcclReduceOp op,
                           uint64_t count, bool in_place)
{
    struct dbuf in, out;
    struct red_ctx c = {t, op, (uint32_t)r->n, 0};

    dalloc(r, &in, count * esz(t));
    dalloc(r, &out, count * esz(t));
    fill(&in, t, op, (uint32_t)r->rank, count);
    upload(r, &in);
    poison(r, &out);
    HcclResult rc = HcclAllReduce(in.d, in_place ? in.d : out.d, count, t, op, r->comm, s);
    CU_CHECK(r, rc == HCCL_SUCCESS);
    sync(r, s);
    struct dbuf *res = in_place ? &in : &out;
    download(r, res);
    expect_elems(r, in_place ? "allreduce in place" : "allreduce", t, res->h, count, want_reduced,
                 &c);
    dfree(&in);
    dfree(&out);
}

static void reduce_scatter_case(struct cu_rank *r, aclrtStream s, HcclDataType t,
                                HcclReduceOp op, uint64_t count, bool in_place)
{
    struct dbuf in, out;
    uint32_t n = (uint32_t)r->n;
    uint64_t mine = (uint64_t)r->rank * count * esz(t);
    struct red_ctx c = {t, op, n, (uint64_t)r->rank * count};

    dalloc(r, &in, count * n * esz(t));
    dalloc(r, &out, count * esz(t));
    fill(&in, t, op, (uint32_t)r->rank, count * n);
    upload(r, &in);
    poison(r, &out);
    void *dst = in_place ? (uint8_t *)in.d + mine : out.d;
    CU_CHECK(r, HcclReduceScatter(in.d, dst, count, t, op, r->comm, s) == HCCL_SUCCESS);
    sync(r, s);
    download(r, in_place ? &in : &out);
    expect_elems(r, in_place ? "reduce_scatter in place" : "reduce_scatter", t,
                 in_place ? in.h + mine : out.h, count, want_reduced, &c);
    dfree(&in);
    dfree(&out);
}

static void reduce_case(struct cu_rank *r, aclrtStream s, HcclDataType t, HcclReduceOp op,
                        uint64_t count, uint32_t root, bool in_place)
{
    struct dbuf in, out;
    struct red_ctx c = {t, op, (uint32_t)r->n, 0};

    dalloc(r, &in, count * esz(t));
    dalloc(r, &out, count * esz(t));
    fill(&in, t, op, (uint32_t)r->rank, count);
    upload(r, &in);
    poison(r, &out);
    struct dbuf *res = in_place ? &in : &out;
    CU_CHECK(r, HcclReduce(in.d, res->d, count, t, op, root, r->comm, s) == HCCL_SUCCESS);
    sync(r, s);
    if ((uint32_t)r->rank == root) {
        download(r, res);
        expect_elems(r, in_place ? "reduce in place" : "reduce", t, res->h, count, want_reduced,
                     &c);
    }
    dfree(&in);
    dfree(&out);
}

static void reduce_scatter_v_case(struct cu_rank *r, aclrtStream s, HcclDataType t,
                                  HcclReduceOp op)
{
    uint32_t n = (uint32_t)r->n, me = (uint32_t)r->rank;
    uint64_t counts[64], displs[64], total = 0;
    struct dbuf in, out;

    for (uint32_t p = 0; p < n; p++) { /* rank p gets 3p+1 elements, with a gap of 2 */
        counts[p] = 3 * p + 1;
        displs[p] = total;
        total += counts[p] + 2;
    }
    struct red_ctx c = {t, op, n, displs[me]};
    dalloc(r, &in, total * esz(t));
    dalloc(r, &out, counts[me] * esz(t));
    fill(&in, t, op, me, total);
    upload(r, &in);
    poison(r, &out);
    CU_CHECK(r, HcclReduceScatterV(in.d, counts, displs, out.d, counts[me], t, op, r->comm, s) ==
                    HCCL_SUCCESS);
    sync(r, s);
    download(r, &out);
    expect_elems(r, "reduce_scatter_v", t, out.h, counts[me], want_reduced, &c);
    dfree(&in);
    dfree(&out);
}

/* ---- the moving operators: element value = 1000 * source rank + index (int32) ------------- */

static double src_val(uint32_t rank, uint64_t i)
{
    return (double)(1000 * rank + i % 1000);
}

struct mv_ctx {
    uint32_t n;
    uint64_t count;
    uint32_t root;
    const uint64_t *displs;
};

static double want_gathered(void *p, uint64_t i)
{
    const struct mv_ctx *c = p;
    return src_val((uint32_t)(i / c->count), i % c->count);
}

static double want_root(void *p, uint64_t i)
{
    const struct mv_ctx *c = p;
    return src_val(c->root, i);
}

static void fill_src(struct dbuf *b, uint32_t rank, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        put(b->h, HCCL_DATA_TYPE_INT32, i, src_val(rank, i));
}

static void allgather_case(struct cu_rank *r, aclrtStream s, uint64_t count, bool in_place)
{
    const HcclDataType t = HCCL_DATA_TYPE_INT32;
    uint32_t n = (uint32_t)r->n, me = (uint32_t)r->rank;
    struct dbuf in, out;
    struct mv_ctx c = {n, count, 0, NULL};

    dalloc(r, &in, count * 4);
    dalloc(r, &out, count * n * 4);
    poison(r, &out);
    fill_src(&in, me, count);
    upload(r, &in);
    void *send = in.d;
    if (in_place) {
        send = (uint8_t *)out.d + me * count * 4;
        CU_CHECK(r, aclrtMemcpy(send, count * 4, in.h, count * 4, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    }
    CU_CHECK(r, HcclAllGather(send, out.d, count, t, r->comm, s) == HCCL_SUCCESS);
    sync(r, s);
    download(r, &out);
    expect_elems(r, in_place ? "allgather in place" : "allgather", t, out.h, count * n,
                 want_gathered, &c);
    dfree(&in);
    dfree(&out);
}

static void broadcast_case(struct cu_rank *r, aclrtStream s, uint64_t count, uint32_t root)
{
    struct dbuf b;
    struct mv_ctx c = {(uint32_t)r->n, count, root, NULL};

    dalloc(r, &b, count * 4);
    poison(r, &b);
    if ((uint32_t)r->rank == root) {
        fill_src(&b, root, count);
        upload(r, &b);
    }
    CU_CHECK(r, HcclBroadcast(b.d, count, HCCL_DATA_TYPE_INT32, root, r->comm, s) ==
                    HCCL_SUCCESS);
    sync(r, s);
    download(r, &b);
    expect_elems(r, "broadcast", HCCL_DATA_TYPE_INT32, b.h, count, want_root, &c);
    dfree(&b);
}

static double want_scattered(void *p, uint64_t i)
{
    const struct mv_ctx *c = p;
    return src_val(c->root, c->count + i); /* count = my block's first index here */
}

/* In place: the root's recvBuf is its own block of sendBuf. */
static void scatter_case(struct cu_rank *r, aclrtStream s, uint64_t count, uint32_t root,
                         bool in_place)
{
    uint32_t n = (uint32_t)r->n, me = (uint32_t)r->rank;
    struct dbuf in, out;
    struct mv_ctx c = {n, me * count, root, NULL};

    dalloc(r, &in, count * n * 4);
    dalloc(r, &out, count * 4);
    poison(r, &out);
    fill_src(&in, root, count * n);
    upload(r, &in);
    bool here = in_place && me == root;
    void *dst = here ? (uint8_t *)in.d + me * count * 4 : out.d;
    CU_CHECK(r, HcclScatter(me == root ? in.d : NULL, dst, count, HCCL_DATA_TYPE_INT32, root,
                            r->comm, s) == HCCL_SUCCESS);
    sync(r, s);
    download(r, here ? &in : &out);
    expect_elems(r, here ? "scatter in place" : "scatter", HCCL_DATA_TYPE_INT32,
                 here ? in.h + me * count * 4 : out.h, count, want_scattered, &c);
    dfree(&in);
    dfree(&out);
}

/* Alltoall family: rank p sends (p+q)%3+1 elements (count 1: `count`) to rank q; element j
 * of that message is 1000*p + 10*q + j. */
static uint64_t a2a_len(uint32_t p, uint32_t q, uint64_t fixed)
{
    return fixed ? fixed : (p + q) % 3 + 1 + (p == q ? 0 : q % 2 * 5);
}

static void alltoall_variant(struct cu_rank *r, aclrtStream s, int variant, uint64_t fixed)
{
    uint32_t n = (uint32_t)r->n, me = (uint32_t)r->rank;
    uint64_t sc[64], sd[64], rc[64], rd[64], st = 0, rt = 0, matrix[64 * 64];
    struct dbuf in, out;

    for (uint32_t q = 0; q < n; q++) {
        sc[q] = a2a_len(me, q, fixed);
        rc[q] = a2a_len(q, me, fixed);
        sd[q] = st;
        rd[q] = rt;
        st += sc[q];
        rt += rc[q];
        for (uint32_t p = 0; p < n; p++)
            matrix[p * n + q] = a2a_len(p, q, fixed);
    }
    dalloc(r, &in, st * 4);
    dalloc(r, &out, rt * 4);
    poison(r, &out);
    for (uint32_t q = 0; q < n; q++)
        for (uint64_t j = 0; j < sc[q]; j++)
            put(in.h, HCCL_DATA_TYPE_INT32, sd[q] + j, 1000.0 * me + 10 * q + (double)j);
    upload(r, &in);
    HcclResult rc_ = variant == 0   ? HcclAlltoAll(in.d, fixed, HCCL_DATA_TYPE_INT32, out.d, fixed,
                                                   HCCL_DATA_TYPE_INT32, r->comm, s)
                     : variant == 1 ? HcclAlltoAllV(in.d, sc, sd, HCCL_DATA_TYPE_INT32, out.d, rc,
                                                    rd, HCCL_DATA_TYPE_INT32, r->comm, s)
                                    : HcclAlltoAllVC(in.d, matrix, HCCL_DATA_TYPE_INT32, out.d,
                                                     HCCL_DATA_TYPE_INT32, r->comm, s);
    CU_CHECK(r, rc_ == HCCL_SUCCESS);
    sync(r, s);
    download(r, &out);
    for (uint32_t p = 0; p < n; p++)
        for (uint64_t j = 0; j < rc[p]; j++) {
            double g = get(out.h, HCCL_DATA_TYPE_INT32, rd[p] + j);
            if (g != 1000.0 * p + 10 * me + (double)j) {
                fprintf(stderr, "rank %u: alltoall variant %d: from %u element %llu is %g\n", me,
                        variant, p, (unsigned long long)j, g);
                r->failures++;
                p = n;
                break;
            }
        }
    dfree(&in);
    dfree(&out);
}

static void allgatherv_case(struct cu_rank *r, aclrtStream s)
{
    uint32_t n = (uint32_t)r->n, me = (uint32_t)r->rank;
    uint64_t counts[64], displs[64], total = 0;
    struct dbuf in, out;

    for (uint32_t p = 0; p < n; p++) {
        counts[p] = 2 * p + 1;
        displs[p] = total + 1; /* a hole before each block */
        total += counts[p] + 1;
    }
    dalloc(r, &in, counts[me] * 4);
    dalloc(r, &out, total * 4);
    poison(r, &out);
    fill_src(&in, me, counts[me]);
    upload(r, &in);
    CU_CHECK(r, HcclAllGatherV(in.d, counts[me], out.d, counts, displs, HCCL_DATA_TYPE_INT32,
                               r->comm, s) == HCCL_SUCCESS);
    sync(r, s);
    download(r, &out);
    for (uint32_t p = 0; p < n; p++)
        for (uint64_t j = 0; j < counts[p]; j++)
            if (get(out.h, HCCL_DATA_TYPE_INT32, displs[p] + j) != src_val(p, j)) {
                fprintf(stderr, "rank %u: allgatherv from %u element %llu wrong\n", me, p,
                        (unsigned long long)j);
                r->failures++;
                return;
            }
    dfree(&in);
    dfree(&out);
}

/* A ring of sends and receives in a group (would deadlock as plain calls), then a
 * BatchSendRecv the other way round, then plain Send/Recv between ranks 0 and n-1. */
static void p2p_case(struct cu_rank *r, aclrtStream s, uint64_t count)
{
    uint32_t n = (uint32_t)r->n, me = (uint32_t)r->rank, right = (me + 1) % n,
             left = (me + n - 1) % n;
    struct dbuf in, out;
    struct mv_ctx c = {n, count, left, NULL};

    if (n < 2)
        return;
    dalloc(r, &in, count * 4);
    dalloc(r, &out, count * 4);
    fill_src(&in, me, count);
    upload(r, &in);
    poison(r, &out);
    CU_CHECK(r, HcclGroupStart() == HCCL_SUCCESS);
    CU_CHECK(r, HcclSend(in.d, count, HCCL_DATA_TYPE_INT32, right, r->comm, s) == HCCL_SUCCESS);
    CU_CHECK(r, HcclRecv(out.d, count, HCCL_DATA_TYPE_INT32, left, r->comm, s) == HCCL_SUCCESS);
    CU_CHECK(r, HcclGroupEnd() == HCCL_SUCCESS);
    sync(r, s);
    download(r, &out);
    expect_elems(r, "group send/recv", HCCL_DATA_TYPE_INT32, out.h, count, want_root, &c);
    HcclSendRecvItem items[2] = {{HCCL_SEND, in.d, count, HCCL_DATA_TYPE_INT32, left},
                                 {HCCL_RECV, out.d, count, HCCL_DATA_TYPE_INT32, right}};
    poison(r, &out);
    CU_CHECK(r, HcclBatchSendRecv(items, 2, r->comm, s) == HCCL_SUCCESS);
    sync(r, s);
    download(r, &out);
    c.root = right;
    expect_elems(r, "batch send/recv", HCCL_DATA_TYPE_INT32, out.h, count, want_root, &c);
    if (me == 0)
        CU_CHECK(r, HcclSend(in.d, count, HCCL_DATA_TYPE_INT32, n - 1, r->comm, s) == 0);
    if (me == n - 1) {
        poison(r, &out);
        CU_CHECK(r, HcclRecv(out.d, count, HCCL_DATA_TYPE_INT32, 0, r->comm, s) == 0);
        sync(r, s);
        download(r, &out);
        c.root = 0;
        expect_elems(r, "send/recv", HCCL_DATA_TYPE_INT32, out.h, count, want_root, &c);
    }
    sync(r, s);
    dfree(&in);
    dfree(&out);
}

/* Every type moves its bytes unchanged: allgather, alltoall and broadcast of 7 elements. */
static void typed_moves_case(struct cu_rank *r, aclrtStream s, HcclDataType t)
{
    uint32_t n = (uint32_t)r->n, me = (uint32_t)r->rank;
    uint64_t cnt = 7, b = cnt * esz(t);
    struct dbuf in, out;

    dalloc(r, &in, b * n);
    dalloc(r, &out, b * n);
    for (uint64_t i = 0; i < b * n; i++)
        in.h[i] = (uint8_t)(me * 37 + i);
    upload(r, &in);
    for (int op = 0; op < 3; op++) {
        poison(r, &out);
        HcclResult rc = op == 0 ? HcclAllGather(in.d, out.d, cnt, t, r->comm, s)
                        : op == 1 ? HcclAlltoAll(in.d, cnt, t, out.d, cnt, t, r->comm, s)
                                  : HcclBroadcast(in.d, cnt * n, t, 0, r->comm, s);
        CU_CHECK(r, rc == HCCL_SUCCESS);
        sync(r, s);
        download(r, op == 2 ? &in : &out);
        for (uint64_t i = 0; i < b * n; i++) {
            uint64_t src = op == 2 ? 0 : i / b, idx = op == 1 ? me * b + i % b : i % b;
            if (op == 2)
                idx = i;
            uint8_t want = (uint8_t)(src * 37 + idx);
            if ((op == 2 ? in.h[i] : out.h[i]) != want) {
                fprintf(stderr, "rank %u: type %d op %d byte %llu wrong\n", me, (int)t, op,
                        (unsigned long long)i);
                r->failures++;
                break;
            }
        }
    }
    dfree(&in);
    dfree(&out);
}

/* The variable and point-to-point moves for every type: byte j of what rank `src` sends to
 * rank `dst` is pat(src, dst, j), so each received block names where it came from. */
static uint8_t pat(uint32_t src, uint32_t dst, uint64_t j)
{
    return (uint8_t)(src * 37 + dst * 11 + j);
}

/* Compares `len` bytes at `got` with pat(src, dst, first + j). */
static void expect_pat(struct cu_rank *r, const char *what, HcclDataType t, const uint8_t *got,
                       uint64_t len, uint32_t src, uint32_t dst, uint64_t first)
{
    for (uint64_t j = 0; j < len; j++)
        if (got[j] != pat(src, dst, first + j)) {
            fprintf(stderr, "rank %d/%d: %s type %d: byte %llu from rank %u is %u\n", r->rank,
                    r->n, what, (int)t, (unsigned long long)j, src, got[j]);
            r->failures++;
            return;
        }
}

/* Scatter from the last rank (byte j of the root's input is pat(root, 0, j)). */
static void typed_scatter(struct cu_rank *r, aclrtStream s, HcclDataType t)
{
    uint32_t n = (uint32_t)r->n, me = (uint32_t)r->rank, root = n - 1;
    uint64_t cnt = 5, b = cnt * esz(t);
    struct dbuf in, out;

    dalloc(r, &in, b * n);
    dalloc(r, &out, b);
    for (uint64_t j = 0; j < b * n; j++)
        in.h[j] = pat(root, 0, j);
    upload(r, &in);
    poison(r, &out);
    CU_CHECK(r, HcclScatter(in.d, out.d, cnt, t, root, r->comm, s) == HCCL_SUCCESS);
    sync(r, s);
    download(r, &out);
    expect_pat(r, "scatter", t, out.h, b, root, 0, me * b);
    dfree(&in);
    dfree(&out);
}

/* AllGatherV: rank p contributes p+1 elements, placed after a one-element hole. */
static void typed_allgatherv(struct cu_rank *r, aclrtStream s, HcclDataType t)
{
    uint32_t n = (uint32_t)r->n, me = (uint32_t)r->rank;
    uint64_t counts[64], displs[64], total = 0, e = esz(t);
    struct dbuf in, out;

    for (uint32_t p = 0; p < n; p++) {
        counts[p] = p + 1;
        displs[p] = total + 1;
        total += counts[p] + 1;
    }
    dalloc(r, &in, counts[me] * e);
    dalloc(r, &out, total * e);
    for (uint64_t j = 0; j < counts[me] * e; j++)
        in.h[j] = pat(me, 0, j);
    upload(r, &in);
    poison(r, &out);
    CU_CHECK(r, HcclAllGatherV(in.d, counts[me], out.d, counts, displs, t, r->comm, s) ==
                    HCCL_SUCCESS);
    sync(r, s);
    download(r, &out);
    for (uint32_t p = 0; p < n; p++)
        expect_pat(r, "allgatherv", t, out.h + displs[p] * e, counts[p] * e, p, 0, 0);
    dfree(&in);
    dfree(&out);
}

/* AlltoAllV (variant 0) and AlltoAllVC (1) with a2a_len's uneven counts. */
static void typed_alltoallv(struct cu_rank *r, aclrtStream s, HcclDataType t, int variant)
{
    uint32_t n = (uint32_t)r->n, me = (uint32_t)r->rank;
    uint64_t sc[64], sd[64], rc[64], rd[64], st = 0, rt = 0, matrix[64 * 64], e = esz(t);
    struct dbuf in, out;

    for (uint32_t q = 0; q < n; q++) {
        sc[q] = a2a_len(me, q, 0);
        rc[q] = a2a_len(q, me, 0);
        sd[q] = st;
        rd[q] = rt;
        st += sc[q];
        rt += rc[q];
        for (uint32_t p = 0; p < n; p++)
            matrix[p * n + q] = a2a_len(p, q, 0);
    }
    dalloc(r, &in, st * e);
    dalloc(r, &out, rt * e);
    for (uint32_t q = 0; q < n; q++)
        for (uint64_t j = 0; j < sc[q] * e; j++)
            in.h[sd[q] * e + j] = pat(me, q, j);
    upload(r, &in);
    poison(r, &out);
    HcclResult rc_ = variant == 0
                         ? HcclAlltoAllV(in.d, sc, sd, t, out.d, rc, rd, t, r->comm, s)
                         : HcclAlltoAllVC(in.d, matrix, t, out.d, t, r->comm, s);
    CU_CHECK(r, rc_ == HCCL_SUCCESS);
    sync(r, s);
    download(r, &out);
    for (uint32_t p = 0; p < n; p++)
        expect_pat(r, variant == 0 ? "alltoallv" : "alltoallvc", t, out.h + rd[p] * e, rc[p] * e,
                   p, me, 0);
    dfree(&in);
    dfree(&out);
}

/* Send right, receive from the left, as one BatchSendRecv. */
static void typed_sendrecv(struct cu_rank *r, aclrtStream s, HcclDataType t)
{
    uint32_t n = (uint32_t)r->n, me = (uint32_t)r->rank, right = (me + 1) % n,
             left = (me + n - 1) % n;
    uint64_t cnt = 6, b = cnt * esz(t);
    struct dbuf in, out;

    if (n < 2)
        return;
    dalloc(r, &in, b);
    dalloc(r, &out, b);
    for (uint64_t j = 0; j < b; j++)
        in.h[j] = pat(me, right, j);
    upload(r, &in);
    poison(r, &out);
    HcclSendRecvItem items[2] = {{HCCL_SEND, in.d, cnt, t, right},
                                 {HCCL_RECV, out.d, cnt, t, left}};
    CU_CHECK(r, HcclBatchSendRecv(items, 2, r->comm, s) == HCCL_SUCCESS);
    sync(r, s);
    download(r, &out);
    expect_pat(r, "batch send/recv", t, out.h, b, left, me, 0);
    dfree(&in);
    dfree(&out);
}

/* AlltoAllV in which rank 0 neither sends nor receives (it queues nothing) while the other
 * ranks exchange a2a_len's counts among themselves. */
static void alltoall_partial(struct cu_rank *r, aclrtStream s)
{
    uint32_t n = (uint32_t)r->n, me = (uint32_t)r->rank;
    uint64_t sc[64], sd[64], rc[64], rd[64], st = 0, rt = 0;
    struct dbuf in, out;

    for (uint32_t q = 0; q < n; q++) {
        sc[q] = me == 0 || q == 0 ? 0 : a2a_len(me, q, 0);
        rc[q] = me == 0 || q == 0 ? 0 : a2a_len(q, me, 0);
        sd[q] = st;
        rd[q] = rt;
        st += sc[q];
        rt += rc[q];
    }
    dalloc(r, &in, st);
    dalloc(r, &out, rt);
    for (uint32_t q = 0; q < n; q++)
        for (uint64_t j = 0; j < sc[q]; j++)
            in.h[sd[q] + j] = pat(me, q, j);
    upload(r, &in);
    poison(r, &out);
    CU_CHECK(r, HcclAlltoAllV(st ? in.d : NULL, sc, sd, HCCL_DATA_TYPE_UINT8, rt ? out.d : NULL,
                              rc, rd, HCCL_DATA_TYPE_UINT8, r->comm, s) == HCCL_SUCCESS);
    sync(r, s);
    download(r, &out);
    for (uint32_t p = 0; p < n; p++)
        expect_pat(r, "alltoallv without rank 0", HCCL_DATA_TYPE_UINT8, out.h + rd[p], rc[p], p,
                   me, 0);
    dfree(&in);
    dfree(&out);
}

/* Every operator with zero elements (NULL buffers) succeeds and queues nothing; then an
 * AlltoAllV where rank 0 neither sends nor receives while the others exchange. */
static void zero_counts_case(struct cu_rank *r, aclrtStream s)
{
    const HcclDataType f = HCCL_DATA_TYPE_FP32;
    const HcclReduceOp sum = HCCL_REDUCE_SUM;
    uint64_t z[64] = {0}, zm[64 * 64] = {0};
    uint32_t root = (uint32_t)r->n - 1;
    HcclComm c = r->comm;
    HcclSendRecvItem none = {HCCL_SEND, NULL, 0, f, (uint32_t)(r->rank + 1) % (uint32_t)r->n};

    CU_CHECK(r, HcclAllReduce(NULL, NULL, 0, f, sum, c, s) == HCCL_SUCCESS);
    CU_CHECK(r, HcclAllGather(NULL, NULL, 0, f, c, s) == HCCL_SUCCESS);
    CU_CHECK(r, HcclBroadcast(NULL, 0, f, root, c, s) == HCCL_SUCCESS);
    CU_CHECK(r, HcclReduce(NULL, NULL, 0, f, sum, root, c, s) == HCCL_SUCCESS);
    CU_CHECK(r, HcclReduceScatter(NULL, NULL, 0, f, sum, c, s) == HCCL_SUCCESS);
    CU_CHECK(r, HcclReduceScatterV(NULL, z, z, NULL, 0, f, sum, c, s) == HCCL_SUCCESS);
    CU_CHECK(r, HcclScatter(NULL, NULL, 0, f, root, c, s) == HCCL_SUCCESS);
    CU_CHECK(r, HcclAllGatherV(NULL, 0, NULL, z, z, f, c, s) == HCCL_SUCCESS);
    CU_CHECK(r, HcclAlltoAll(NULL, 0, f, NULL, 0, f, c, s) == HCCL_SUCCESS);
    CU_CHECK(r, HcclAlltoAllV(NULL, z, z, f, NULL, z, z, f, c, s) == HCCL_SUCCESS);
    CU_CHECK(r, HcclAlltoAllVC(NULL, zm, f, NULL, f, c, s) == HCCL_SUCCESS);
    CU_CHECK(r, HcclBatchSendRecv(NULL, 0, c, s) == HCCL_SUCCESS);
    if (r->n > 1) {
        CU_CHECK(r, HcclBatchSendRecv(&none, 1, c, s) == HCCL_SUCCESS);
        CU_CHECK(r, HcclGroupStart() == HCCL_SUCCESS);
        CU_CHECK(r, HcclSend(NULL, 0, f, none.remoteRank, c, s) == HCCL_SUCCESS);
        CU_CHECK(r, HcclRecv(NULL, 0, f, (uint32_t)(r->rank + r->n - 1) % (uint32_t)r->n, c,
                             s) == HCCL_SUCCESS);
        CU_CHECK(r, HcclGroupEnd() == HCCL_SUCCESS);
    }
    sync(r, s);
    alltoall_partial(r, s);
}

/* ---- bodies ---------------------------------------------------------------------------------- */

static void algo_body(struct cu_rank *r)
{
    aclrtStream s;
    uint32_t n = (uint32_t)r->n;

    CU_CHECK(r, aclrtCreateStream(&s) == ACL_SUCCESS);
    for (size_t k = 0; k < 3; k++) {
        uint64_t count = k == 0 ? 37 : k == 1 ? 4099 + n : 300001; /* 1.2 MB: several rounds */
        allreduce_case(r, s, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, count, false);
        allreduce_case(r, s, HCCL_DATA_TYPE_INT16, HCCL_REDUCE_MAX, count, true);
        allgather_case(r, s, count, k == 1);
        broadcast_case(r, s, count, n - 1);
        reduce_scatter_case(r, s, HCCL_DATA_TYPE_BFP16, HCCL_REDUCE_SUM, count / 4 + 1, k == 0);
    }
    /* The same allgather and allreduce three times over, alternately: launches that repeat,
     * each after the other's, which in collectives_procs_pushed_mix (pushed steps, direct
     * pairs) store other addresses into the same outboxes. */
    for (int rep = 0; rep < 3 && r->failures == 0; rep++) {
        allgather_case(r, s, 4099 + n, false);
        allreduce_case(r, s, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 40000 + n, false);
    }
    CU_CHECK(r, HcclBarrier(r->comm, s) == HCCL_SUCCESS);
    sync(r, s);
    aclrtDestroyStream(s);
}

static void full_body(struct cu_rank *r)
{
    aclrtStream s;
    uint32_t n = (uint32_t)r->n;

    CU_CHECK(r, aclrtCreateStream(&s) == ACL_SUCCESS);
    for (size_t t = 0; t < sizeof(all_types) / sizeof(all_types[0]); t++)
        for (size_t o = 0; o < sizeof(all_ops) / sizeof(all_ops[0]); o++) {
            allreduce_case(r, s, all_types[t], all_ops[o], 29, o == 2);
            reduce_scatter_case(r, s, all_types[t], all_ops[o], 5, o == 3);
            reduce_case(r, s, all_types[t], all_ops[o], 13, (uint32_t)(t + o) % n, o == 1);
            reduce_scatter_v_case(r, s, all_types[t], all_ops[o]);
        }
    size_t n_all = sizeof(all_types) / sizeof(all_types[0]);
    for (size_t k = 0; k < n_all + sizeof(one_byte_floats) / sizeof(one_byte_floats[0]); k++) {
        HcclDataType t = k < n_all ? all_types[k] : one_byte_floats[k - n_all];
        typed_moves_case(r, s, t);
        typed_scatter(r, s, t);
        typed_allgatherv(r, s, t);
        typed_alltoallv(r, s, t, 0);
        typed_alltoallv(r, s, t, 1);
        typed_sendrecv(r, s, t);
    }
    allreduce_case(r, s, HCCL_DATA_TYPE_INT64, HCCL_REDUCE_PROD, 300001, true); /* compute path */
    reduce_scatter_case(r, s, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, 70001, false);
    allgather_case(r, s, 41, true);
    broadcast_case(r, s, 77, 0);
    scatter_case(r, s, 9, n / 2, false);
    scatter_case(r, s, 100003, 0, false);
    scatter_case(r, s, 23, n - 1, true);
    alltoall_variant(r, s, 0, 11);
    alltoall_variant(r, s, 0, 90001);
    alltoall_variant(r, s, 1, 0);
    alltoall_variant(r, s, 2, 0);
    allgatherv_case(r, s);
    p2p_case(r, s, 333);
    p2p_case(r, s, 300001);
    zero_counts_case(r, s);
    CU_CHECK(r, HcclBarrier(r->comm, s) == HCCL_SUCCESS);
    sync(r, s);
    aclrtDestroyStream(s);
}

static void run_at(int n, cu_rank_fn body)
{
    struct cu_rank ranks[8];

    memset(ranks, 0, sizeof(ranks));
    HcclRootInfo ri;

    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    cu_run_ranks(ranks, n, &ri, body, NULL);
    for (int i = 0; i < n; i++) {
        assert_int_equal(ranks[i].init_rc, HCCL_SUCCESS);
        assert_int_equal(ranks[i].failures, 0);
        assert_int_equal(ranks[i].destroy_rc, HCCL_SUCCESS);
    }
}

static void every_operator_at_1_2_3_5_8_ranks(void **state)
{
    (void)state;
    int counts[] = {1, 2, 3, 5, 8};
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        run_at(counts[i], quick ? algo_body : full_body);
}

/* ---- bad arguments: each refused with its code and one error line -------------------------- */

#define BAD(r, call, code)                                                                         \
    do {                                                                                           \
        struct cu_capture cap_;                                                                    \
        cu_capture_begin(&cap_);                                                                   \
        HcclResult rc_ = (call);                                                                   \
        cu_capture_end(&cap_);                                                                     \
        if (rc_ != (code) || cap_.errors != 1) {                                                   \
            fprintf(stderr, "%s: returned %d with %d error lines, want %d and 1:\n%s\n", #call,    \
                    rc_, cap_.errors, code, cap_.text);                                            \
            (r)->failures++;                                                                       \
        }                                                                                          \
    } while (0)

static void bad_body(struct cu_rank *r)
{
    aclrtStream s;
    struct dbuf a, b;
    uint64_t v[2] = {1, 1}, d[2] = {0, 1};
    HcclComm c = r->comm;
    HcclSendRecvItem it = {HCCL_SEND, NULL, 0, HCCL_DATA_TYPE_INT8, 0};

    CU_CHECK(r, aclrtCreateStream(&s) == ACL_SUCCESS);
    dalloc(r, &a, 256);
    dalloc(r, &b, 256);
    if (r->rank == 0) { /* stderr capture is process-wide: one rank at a time */
        const HcclDataType f = HCCL_DATA_TYPE_FP32;
        BAD(r, HcclAllReduce(a.d, b.d, 4, f, HCCL_REDUCE_SUM, NULL, s), HCCL_E_PTR);
        BAD(r, HcclAllReduce(a.d, b.d, 4, f, HCCL_REDUCE_SUM, c, NULL), HCCL_E_PTR);
        BAD(r, HcclAllReduce(NULL, b.d, 4, f, HCCL_REDUCE_SUM, c, s), HCCL_E_PTR);
        BAD(r, HcclAllReduce(a.d, b.d, 4, f, (HcclReduceOp)7, c, s), HCCL_E_PARA);
        BAD(r, HcclAllReduce(a.d, b.d, 4, (HcclDataType)99, HCCL_REDUCE_SUM, c, s), HCCL_E_PARA);
        BAD(r, HcclAllReduce(a.d, b.d, 4, HCCL_DATA_TYPE_FP8E4M3, HCCL_REDUCE_SUM, c, s),
            HCCL_E_NOT_SUPPORT);
        BAD(r, HcclAllReduce(a.d, b.d, 4, HCCL_DATA_TYPE_INT128, HCCL_REDUCE_SUM, c, s),
            HCCL_E_NOT_SUPPORT);
        BAD(r, HcclAllReduce(a.d, b.d, 1000, f, HCCL_REDUCE_SUM, c, s), HCCL_E_PARA);
        BAD(r, HcclAllReduce((uint8_t *)a.d + 1, b.d, 4, f, HCCL_REDUCE_SUM, c, s), HCCL_E_PARA);
        BAD(r, HcclAllReduce(v, b.d, 2, f, HCCL_REDUCE_SUM, c, s), HCCL_E_PARA);
        BAD(r, HcclAllReduce(a.d, (uint8_t *)a.d + 4, 8, f, HCCL_REDUCE_SUM, c, s), HCCL_E_PARA);
        BAD(r, HcclBroadcast(a.d, 4, f, 9, c, s), HCCL_E_PARA);
        BAD(r, HcclReduce(a.d, b.d, 4, f, HCCL_REDUCE_SUM, 9, c, s), HCCL_E_PARA);
        BAD(r, HcclScatter(a.d, b.d, 4, f, 2, c, s), HCCL_E_PARA);
        BAD(r, HcclAllGather(a.d, b.d, 40, f, c, s), HCCL_E_PARA);
        BAD(r, HcclReduceScatter(a.d, NULL, 4, f, HCCL_REDUCE_MAX, c, s), HCCL_E_PTR);
        BAD(r, HcclReduceScatterV(a.d, NULL, d, b.d, 1, f, HCCL_REDUCE_MAX, c, s), HCCL_E_PTR);
        BAD(r, HcclReduceScatterV(a.d, v, d, b.d, 2, f, HCCL_REDUCE_MAX, c, s), HCCL_E_PARA);
        BAD(r, HcclAllGatherV(a.d, 2, b.d, v, d, f, c, s), HCCL_E_PARA);
        BAD(r, HcclAlltoAll(a.d, 4, f, b.d, 4, HCCL_DATA_TYPE_INT32, c, s), HCCL_E_PARA);
        BAD(r, HcclAlltoAll(a.d, 4, f, a.d, 4, f, c, s), HCCL_E_PARA);
        BAD(r, HcclAlltoAllV(a.d, v, d, f, b.d, NULL, d, f, c, s), HCCL_E_PTR);
        BAD(r, HcclAlltoAllVC(a.d, NULL, f, b.d, f, c, s), HCCL_E_PTR);
        BAD(r, HcclSend(a.d, 4, f, 0, c, s), HCCL_E_PARA);
        BAD(r, HcclRecv(a.d, 4, f, 5, c, s), HCCL_E_PARA);
        BAD(r, HcclBatchSendRecv(NULL, 1, c, s), HCCL_E_PTR);
        it.sendRecvType = (HcclSendRecvType)5;
        BAD(r, HcclBatchSendRecv(&it, 1, c, s), HCCL_E_PARA);
        BAD(r, HcclBarrier(c, NULL), HCCL_E_PTR);
        BAD(r, HcclGroupEnd(), HCCL_E_PARA);
        BAD(r, HcclGroupStatusGet(NULL), HCCL_E_PTR);
        BAD(r, HcclAllGather(a.d, b.d, 4, HCCL_DATA_TYPE_INT128, c, s), HCCL_E_NOT_SUPPORT);
        BAD(r, HcclAlltoAllVC(a.d, v, HCCL_DATA_TYPE_INT128, b.d, HCCL_DATA_TYPE_INT128, c, s),
            HCCL_E_NOT_SUPPORT);
        BAD(r, HcclReduceScatter(a.d, b.d, 4, HCCL_DATA_TYPE_HIF8, HCCL_REDUCE_MAX, c, s),
            HCCL_E_NOT_SUPPORT);
        BAD(r, HcclReduce(a.d, b.d, 4, HCCL_DATA_TYPE_FP8E8M0, HCCL_REDUCE_SUM, 0, c, s),
            HCCL_E_NOT_SUPPORT);
        BAD(r, HcclBroadcast(NULL, 4, f, 0, c, s), HCCL_E_PTR);
        BAD(r, HcclReduce(a.d, b.d, 4, f, HCCL_REDUCE_SUM, 0, NULL, s), HCCL_E_PTR);
        BAD(r, HcclReduceScatter(a.d, b.d, 4, f, (HcclReduceOp)9, c, s), HCCL_E_PARA);
        BAD(r, HcclAllGatherV(a.d, 1, b.d, NULL, d, f, c, s), HCCL_E_PTR);
        BAD(r, HcclScatter(a.d, NULL, 4, f, 0, c, s), HCCL_E_PTR);
        BAD(r, HcclSend(v, 2, f, 1, c, s), HCCL_E_PARA);
        BAD(r, HcclBarrier(NULL, s), HCCL_E_PTR);
        HcclSendRecvItem twice[2] = {{HCCL_SEND, a.d, 1, f, 1}, {HCCL_SEND, b.d, 1, f, 1}};
        BAD(r, HcclBatchSendRecv(twice, 2, c, s), HCCL_E_NOT_SUPPORT);
    }
    cu_barrier_wait();
    dfree(&a);
    dfree(&b);
    aclrtDestroyStream(s);
}

static void bad_arguments_get_their_code_and_one_line(void **state)
{
    (void)state;
    run_at(2, bad_body);
}

/* A rank with nothing to exchange queues nothing, even as the first collective of a
 * communicator (no peer may wait for its channels). */
static void partial_body(struct cu_rank *r)
{
    aclrtStream s;

    CU_CHECK(r, aclrtCreateStream(&s) == ACL_SUCCESS);
    alltoall_partial(r, s);
    aclrtDestroyStream(s);
}

static void an_idle_rank_first_on_a_comm(void **state)
{
    (void)state;
    run_at(3, partial_body);
}

/* ---- eager and slot exchanges on one communicator ------------------------------------------ */

/* The user's own channels to both ring neighbours, made before the first collective, with
 * two notifies: the collectives then share them (one channel per peer and protocol) and must
 * keep those pairs off the eager protocol, which needs four. */
static void user_channels(struct cu_rank *r)
{
    uint32_t n = (uint32_t)r->n, me = (uint32_t)r->rank;
    uint32_t peers[2] = {(me + 1) % n, (me + n - 1) % n};
    HcclChannelDesc d[2];
    ChannelHandle ch[2];
    uint32_t m = n == 2 ? 1 : 2;

    for (uint32_t i = 0; i < m; i++) /* the link the collectives pick: UB_CTP, else the first */
        CU_CHECK(r, cu_desc_to(r->comm, me, peers[i], COMM_PROTOCOL_UB_CTP, 2, &d[i]) ==
                            HCCL_SUCCESS ||
                        cu_desc_to(r->comm, me, peers[i], -1, 2, &d[i]) == HCCL_SUCCESS);
    CU_CHECK(r, HcclChannelAcquire(r->comm, COMM_ENGINE_AICPU_TS, d, m, ch) == HCCL_SUCCESS);
}

/* Sizes on both sides of the eager limit (64 KiB per pair at the default HCCL buffer),
 * alternating, so eager slots are reused at both parities after slot exchanges and staged
 * reads (the larger allgathers); alltoallv mixes both kinds of pair in one launch. */
static void alternate_body(struct cu_rank *r)
{
    static const uint64_t counts[] = {37, 16384, 16385, 300001, 5, 16384, 40000, 3};
    uint32_t n = (uint32_t)r->n;
    aclrtStream s;

    CU_CHECK(r, aclrtCreateStream(&s) == ACL_SUCCESS);
    if (n > 1)
        user_channels(r);
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]) && r->failures == 0; k++) {
        allreduce_case(r, s, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, counts[k], k % 2 == 1);
        allgather_case(r, s, counts[k] / n + 1, k % 3 == 0);
        alltoall_variant(r, s, 1, 0);
        alltoall_variant(r, s, 0, counts[k] / n + 1);
        reduce_scatter_case(r, s, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, counts[k] / n + 1,
                            k % 2 == 0);
        CU_CHECK(r, HcclBarrier(r->comm, s) == HCCL_SUCCESS);
    }
    sync(r, s);
    aclrtDestroyStream(s);
}

static void eager_and_slot_exchanges_alternate_on_one_comm(void **state)
{
    (void)state;
    run_at(2, alternate_body);
    run_at(5, alternate_body);
}

/* ---- replayed expansions (HCEMU_REPLAY, device/dp/dp_cache.c) ------------------------------ */

enum { REPLAY_COUNT = 256, REPLAY_CALLS = 12 }; /* 1 KiB of int32 a rank, a loop of calls */

/* Call k: rank q's element i is q * 1000 + i + 7k (allgather) or q + i + k (allreduce). */
struct replay_ctx {
    uint32_t n, k;
};

static double replay_gathered(void *p, uint64_t j)
{
    const struct replay_ctx *c = p;
    return (double)(j / REPLAY_COUNT * 1000 + j % REPLAY_COUNT + 7 * c->k);
}

static double replay_summed(void *p, uint64_t i)
{
    const struct replay_ctx *c = p;
    return (double)(c->n * (c->n - 1) / 2 + c->n * (i + c->k));
}

/* A loop of 1 KiB allgathers, then allreduces, on buffers kept between calls, new bytes each
 * call: from the third call or so a launch repeats an earlier one, its "done" notify aside,
 * and queues that one's tasks again; every call's bytes are checked. */
static void replay_body(struct cu_rank *r)
{
    const HcclDataType t = HCCL_DATA_TYPE_INT32;
    uint32_t n = (uint32_t)r->n, me = (uint32_t)r->rank;
    struct dbuf in, out;
    aclrtStream s;

    CU_CHECK(r, aclrtCreateStream(&s) == ACL_SUCCESS);
    dalloc(r, &in, REPLAY_COUNT * 4);
    dalloc(r, &out, REPLAY_COUNT * n * 4);
    for (uint32_t k = 0; k < 2 * REPLAY_CALLS && r->failures == 0; k++) {
        bool gather = k < REPLAY_CALLS;
        struct replay_ctx c = {n, k};
        for (uint64_t i = 0; i < REPLAY_COUNT; i++)
            put(in.h, t, i, gather ? me * 1000.0 + (double)i + 7.0 * k : me + (double)i + k);
        upload(r, &in);
        poison(r, &out);
        CU_CHECK(r, (gather ? HcclAllGather(in.d, out.d, REPLAY_COUNT, t, r->comm, s)
                            : HcclAllReduce(in.d, out.d, REPLAY_COUNT, t, HCCL_REDUCE_SUM,
                                            r->comm, s)) == HCCL_SUCCESS);
        sync(r, s);
        download(r, &out);
        expect_elems(r, gather ? "replayed allgather" : "replayed allreduce", t, out.h,
                     gather ? REPLAY_COUNT * n : REPLAY_COUNT,
                     gather ? replay_gathered : replay_summed, &c);
    }
    dfree(&in);
    dfree(&out);
    aclrtDestroyStream(s);
}

static uint32_t replays_of(int dev)
{
    const struct emu_devctl *ctl = cu_ctl_map(job, dev);
    uint32_t n;

    assert_non_null(ctl);
    n = atomic_load(&ctl->coll_replays);
    cu_ctl_unmap(ctl);
    return n;
}

/* Each device replays its launches once they repeat: of 24 calls, the first exchange with
 * each partner goes through the slots, the eager ones alternate two parities, and a launch
 * is recorded the second time it comes, so at least 14 replay (12 allgathers: calls 6-12 of
 * the two parities; 12 allreduces, eager from the first: calls 5-12). A second communicator,
 * built where the first was, has new threads and channels;
 * its bytes are checked alike. TEST_COLL_REPLAYS says what the environment implies: "on"
 * (the default settings), "off" (HCEMU_REPLAY=0, or a diagnostic that follows every task:
 * no launch replays); unset, only the bytes are checked. */
static void a_repeated_launch_queues_its_tasks_again(void **state)
{
    enum { N = 4 };
    const char *want = getenv("TEST_COLL_REPLAYS");
    uint32_t before[N];
    (void)state;

    for (int d = 0; d < N; d++)
        before[d] = replays_of(d);
    run_at(N, replay_body);
    for (int d = 0; d < N && want != NULL; d++) {
        uint32_t got = replays_of(d) - before[d];
        if (strcmp(want, "on") == 0 ? got < 2 * REPLAY_CALLS - 10 : got != 0)
            fail_msg("device %d replayed %u of %d launches (TEST_COLL_REPLAYS=%s)", d, got,
                     2 * REPLAY_CALLS, want);
    }
    run_at(N, replay_body); /* a new communicator in the old one's place */
}

/* Element j of allgather k's output in gather_chain: rank j / count's element j % count. */
struct chain_gather {
    int k, count;
};

static double want_chain_gathered(void *p, uint64_t j)
{
    const struct chain_gather *c = p;
    uint64_t n = (uint64_t)c->count;

    return c->k * 100000 + (double)(j / n) * 1000 + (double)(j % n);
}

/* More allgathers queued back to back than may be in flight, each from its own buffers: by
 * default their pairs go eager and the calls overlap; with HCEMU_DIRECT_KB=1
 * (collectives_direct) they read directly, and each waits for the one before it. */
static void gather_chain(struct cu_rank *r, aclrtStream s)
{
    enum { CALLS = 18, COUNT = 1000 };
    struct dbuf in[CALLS], out[CALLS];

    for (int k = 0; k < CALLS; k++) {
        dalloc(r, &in[k], COUNT * sizeof(int32_t));
        dalloc(r, &out[k], (uint64_t)r->n * COUNT * sizeof(int32_t));
        for (uint64_t i = 0; i < COUNT; i++)
            ((int32_t *)(void *)in[k].h)[i] = (int32_t)(k * 100000 + r->rank * 1000 + (int)i);
        upload(r, &in[k]);
        poison(r, &out[k]);
    }
    for (int k = 0; k < CALLS; k++)
        CU_CHECK(r, HcclAllGather(in[k].d, out[k].d, COUNT, HCCL_DATA_TYPE_INT32, r->comm, s) ==
                        HCCL_SUCCESS);
    sync(r, s);
    for (int k = 0; k < CALLS; k++) {
        struct chain_gather c = {k, COUNT};
        download(r, &out[k]);
        if (r->failures == 0)
            expect_elems(r, "chained allgather", HCCL_DATA_TYPE_INT32, out[k].h,
                         (uint64_t)r->n * COUNT, want_chain_gathered, &c);
        dfree(&in[k]);
        dfree(&out[k]);
    }
}

static double want_constant(void *p, uint64_t i)
{
    (void)i;
    return *(const double *)p;
}

/* Queued calls overlap (host/coll/coll_launch.c, "Overlapping calls"): each call's input is
 * the one before's output, more calls are queued than may be in flight at once, and a copy
 * queued between them on the same stream must see the call before it done and none after. */
static void chain_body(struct cu_rank *r)
{
    enum { COUNT = 1000, BEFORE = 12, AFTER = 7 };
    struct dbuf a, snap;
    aclrtStream s;
    double want = 1; /* exact: at most 3^19 */

    CU_CHECK(r, aclrtCreateStream(&s) == ACL_SUCCESS);
    dalloc(r, &a, COUNT * sizeof(int32_t));
    dalloc(r, &snap, COUNT * sizeof(int32_t));
    for (uint64_t i = 0; i < COUNT; i++)
        ((int32_t *)(void *)a.h)[i] = 1;
    upload(r, &a);
    poison(r, &snap);
    for (int k = 0; k < BEFORE + AFTER; k++) {
        if (k == BEFORE)
            CU_CHECK(r, aclrtMemcpyAsync(snap.d, snap.bytes, a.d, a.bytes,
                                         ACL_MEMCPY_DEVICE_TO_DEVICE, s) == ACL_SUCCESS);
        CU_CHECK(r, HcclAllReduce(a.d, a.d, COUNT, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM,
                                  r->comm, s) == HCCL_SUCCESS);
    }
    sync(r, s);
    download(r, &a);
    download(r, &snap);
    for (int k = 0; k < BEFORE; k++)
        want *= r->n;
    expect_elems(r, "copy queued between chained allreduces", HCCL_DATA_TYPE_INT32, snap.h,
                 COUNT, want_constant, &want);
    for (int k = 0; k < AFTER; k++)
        want *= r->n;
    if (r->failures == 0)
        expect_elems(r, "chained allreduces", HCCL_DATA_TYPE_INT32, a.h, COUNT, want_constant,
                     &want);
    dfree(&a);
    dfree(&snap);
    gather_chain(r, s);
    aclrtDestroyStream(s);
}

static void queued_calls_keep_the_streams_order(void **state)
{
    (void)state;
    run_at(2, chain_body);
    run_at(3, chain_body);
}

/* ---- ranks as processes: this program under hcemu-run, one rank per process --------------- */

static int run_as_rank_process(int rank, int n)
{
    struct cu_rank r = {.rank = rank, .n = n};
    HcclRootInfo ri;

    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(rank) != ACL_SUCCESS ||
        HcclGetRootInfo(&ri) != HCCL_SUCCESS ||
        HcclCommInitRootInfo((uint32_t)n, &ri, (uint32_t)rank, &r.comm) != HCCL_SUCCESS) {
        fprintf(stderr, "rank %d/%d: cannot join the communicator\n", rank, n);
        return 1;
    }
    (quick ? algo_body : full_body)(&r);
    if (!quick && n <= 3)
        chain_body(&r);
    if (HcclCommDestroy(r.comm) != HCCL_SUCCESS)
        r.failures++;
    aclrtResetDevice(rank);
    aclFinalize();
    if (r.failures == 0 && rank == 0)
        printf("collectives: every check passed at %d ranks as processes\n", n);
    return r.failures != 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_operator_at_1_2_3_5_8_ranks),
        cmocka_unit_test(bad_arguments_get_their_code_and_one_line),
        cmocka_unit_test(an_idle_rank_first_on_a_comm),
        cmocka_unit_test(eager_and_slot_exchanges_alternate_on_one_comm),
        cmocka_unit_test(a_repeated_launch_queues_its_tasks_again),
        cmocka_unit_test(queued_calls_keep_the_streams_order),
    };
    const char *rank = getenv("HCEMU_RANK"), *size = getenv("HCEMU_RANK_SIZE");

    quick = getenv("TEST_COLL_QUICK") != NULL;
    if (rank != NULL && size != NULL) /* started by hcemu-run */
        return run_as_rank_process(atoi(rank), atoi(size));
    cu_job_begin(job, sizeof(job), "8", "1");
    /* cu_job_begin inherits no SoC: TEST_COLL_SOC names one (tests/soc_matrix.cmake). */
    if (getenv("TEST_COLL_SOC") != NULL)
        setenv("HCEMU_SOC", getenv("TEST_COLL_SOC"), 1);
    /* Ranks check megabytes on the host between calls while their peers' kernels wait: on a
     * loaded two-core machine that can exceed the 2 s default of the hang watchdog. */
    setenv("HCEMU_HANG_MS", "30000", 0);
    return cu_job_end(
        job, cmocka_run_group_tests_name("collectives", tests, cu_acl_setup, cu_acl_teardown));
}
