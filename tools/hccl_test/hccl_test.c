/* hccl_test.c - the one driver of the hccl_test-compatible tools (all_reduce_test, ...):
 * hccl_test's options and output, run either as one process per rank under hcemu-run
 * (or mpirun, srun: ex_launch.h) or as N rank threads of this process (-t N, or -p N when not
 * under a launcher). The operator is fixed at build time (HT_OP, one executable per
 * operator). Stream events time the iterations after the warm-up (modelled time under
 * HCEMU_TIME=model); alg_bandwidth = data_size / average time; -B 1 adds nccl-tests' bus
 * bandwidth. -c 2 (or HCEMU_PROVENANCE=1) checks with provenance: inputs carry the patterns of
 * include/hcemu_provenance.h, and a wrong output names where each wrong range came from. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hcemu_provenance.h>

#include "ex_launch.h"

enum ht_op { HT_ALLREDUCE, HT_ALLGATHER, HT_REDUCE_SCATTER, HT_BROADCAST, HT_REDUCE,
             HT_ALLTOALL, HT_ALLTOALLV, HT_SCATTER, HT_SENDRECV };

#ifndef HT_OP
#error "build with -DHT_OP=<enum ht_op value>"
#endif

#define HT_MAX_RANKS 256

struct opts {
    uint64_t minb, maxb, step;
    double factor;
    int iters, warmup, check, busbw;
    uint32_t root, ranks;
    HcclReduceOp op;
    HcclDataType type;
    const char *type_name, *op_name;
};

static struct opts o = {.minb = 64, .maxb = 64, .iters = 20, .warmup = 5, .check = 1,
                        .op = HCCL_REDUCE_SUM, .type = HCCL_DATA_TYPE_FP32,
                        .type_name = "fp32", .op_name = "sum"};
static const char *prog;

/* ---- options --------------------------------------------------------------------------- */

static const struct { const char *name; HcclDataType t; uint32_t size; } types[] = {
    {"int8", HCCL_DATA_TYPE_INT8, 1},     {"int16", HCCL_DATA_TYPE_INT16, 2},
    {"int32", HCCL_DATA_TYPE_INT32, 4},   {"int64", HCCL_DATA_TYPE_INT64, 8},
    {"uint8", HCCL_DATA_TYPE_UINT8, 1},   {"uint16", HCCL_DATA_TYPE_UINT16, 2},
    {"uint32", HCCL_DATA_TYPE_UINT32, 4}, {"uint64", HCCL_DATA_TYPE_UINT64, 8},
    {"fp16", HCCL_DATA_TYPE_FP16, 2},     {"bfp16", HCCL_DATA_TYPE_BFP16, 2},
    {"bf16", HCCL_DATA_TYPE_BFP16, 2},    {"fp32", HCCL_DATA_TYPE_FP32, 4},
    {"float32", HCCL_DATA_TYPE_FP32, 4},  {"fp64", HCCL_DATA_TYPE_FP64, 8},
};

static uint32_t type_size(HcclDataType t)
{
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (types[i].t == t)
            return types[i].size;
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [-b minbytes] [-e maxbytes] [-i stepbytes] [-f stepfactor] [-n iters]\n"
            "          [-w warmup] [-o sum|prod|max|min] [-d type] [-r root] [-c 0|1|2]\n"
            "          [-p ranks] [-t threads] [-B 0|1]\n"
            "  sizes take K, M, G suffixes; -f wins over -i (default step (max-min)/10);\n"
            "  type: int8 int16 int32 int64 uint8 uint16 uint32 uint64 fp16 bfp16 fp32 fp64.\n"
            "  Under hcemu-run each process is one rank; otherwise -t N (or -p N) rank threads.\n"
            "  -B 1 adds the bus bandwidth column (nccl-tests' busbw).\n"
            "  -c 2 checks with provenance (HCEMU_PROVENANCE=1): each wrong output range is\n"
            "  named with what it holds, what it should hold and who last wrote it.\n",
            prog);
}

static bool parse_bytes(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || s[0] == '-')
        return false;
    switch (*end) {
    case 'K': case 'k': v <<= 10; end++; break;
    case 'M': case 'm': v <<= 20; end++; break;
    case 'G': case 'g': v <<= 30; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    *out = v;
    return *end == '\0';
}

static bool parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    *out = v;
    return errno == 0 && end != s && *end == '\0' && v >= lo && v <= hi;
}

static bool set_op(const char *s)
{
    static const char *const names[] = {"sum", "prod", "max", "min"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            o.op = (HcclReduceOp)i;
            o.op_name = names[i];
            return true;
        }
    return false;
}

static bool set_type(const char *s)
{
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (strcmp(s, types[i].name) == 0) {
            o.type = types[i].t;
            o.type_name = types[i].name;
            return true;
        }
    return false;
}

static int parse(int argc, char **argv)
{
    bool have_step = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n = 0;
        bool ok = v != NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        }
        if (!ok) {
        } else if (strcmp(a, "-b") == 0) {
            ok = parse_bytes(v, &o.minb);
        } else if (strcmp(a, "-e") == 0) {
            ok = parse_bytes(v, &o.maxb);
        } else if (strcmp(a, "-i") == 0) {
            ok = parse_bytes(v, &o.step);
            have_step = true;
        } else if (strcmp(a, "-f") == 0) {
            char *end;
            o.factor = strtod(v, &end);
            ok = end != v && *end == '\0' && o.factor >= 0;
        } else if (strcmp(a, "-n") == 0) {
            ok = parse_int(v, 1, 1000000, &n), o.iters = (int)n;
        } else if (strcmp(a, "-w") == 0) {
            ok = parse_int(v, 0, 1000000, &n), o.warmup = (int)n;
        } else if (strcmp(a, "-c") == 0) {
            ok = parse_int(v, 0, 2, &n), o.check = (int)n;
        } else if (strcmp(a, "-B") == 0) {
            ok = parse_int(v, 0, 1, &n), o.busbw = (int)n;
        } else if (strcmp(a, "-r") == 0) {
            ok = parse_int(v, 0, HT_MAX_RANKS - 1, &n), o.root = (uint32_t)n;
        } else if (strcmp(a, "-p") == 0 || strcmp(a, "-t") == 0) {
            ok = parse_int(v, 1, HT_MAX_RANKS, &n), o.ranks = (uint32_t)n;
        } else if (strcmp(a, "-o") == 0) {
            ok = set_op(v);
        } else if (strcmp(a, "-d") == 0) {
            ok = set_type(v);
        } else {
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "%s: bad option %s %s\n", prog, a, v ? v : "");
            usage(stderr);
            return 2;
        }
        i++;
    }
    if (o.maxb < o.minb)
        o.maxb = o.minb;
    if (!have_step)
        o.step = (o.maxb - o.minb) / 10;
    return 0;
}

/* ---- one rank ---------------------------------------------------------------------------- */

struct rank {
    uint32_t rank, n;
    int32_t dev;
    HcclComm comm;
    aclrtStream stream;
    aclrtEvent t0, t1; /* bracket the timed iterations */
    void *send, *recv;
    uint64_t send_cap, recv_cap;
    uint8_t *host;  /* every element 2, made once: the input of every size */
    uint8_t *check; /* results read back */
    const HcclRootInfo *root;
    int failed;
};

#define CHECK(r, call)                                                                             \
    do {                                                                                           \
        int rc_ = (int)(call);                                                                     \
        if (rc_ != 0) {                                                                            \
            fprintf(stderr, "rank %u: %s failed: %d\n", (r)->rank, #call, rc_);                    \
            (r)->failed = 1;                                                                       \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

/* Elements this rank moves per call for a data size of `bytes` (the size hccl_test reports):
 * the whole buffer for allreduce/broadcast/reduce/send-recv, one rank's share otherwise. */
static uint64_t count_of(uint64_t bytes, uint32_t n)
{
    uint64_t c = bytes / type_size(o.type);
    switch (HT_OP) {
    case HT_ALLGATHER:
    case HT_REDUCE_SCATTER:
    case HT_ALLTOALL:
    case HT_ALLTOALLV:
    case HT_SCATTER: return c / n;
    default: return c;
    }
}

static double busbw_factor(uint32_t n)
{
    switch (HT_OP) {
    case HT_ALLREDUCE: return 2.0 * (n - 1) / n;
    case HT_ALLGATHER:
    case HT_REDUCE_SCATTER:
    case HT_ALLTOALL:
    case HT_ALLTOALLV:
    case HT_SCATTER: return (double)(n - 1) / n;
    default: return 1.0;
    }
}

static int one_call(struct rank *r, uint64_t count)
{
    static _Thread_local uint64_t cnt[HT_MAX_RANKS], dsp[HT_MAX_RANKS];
    uint32_t n = r->n, me = r->rank;
    HcclComm c = r->comm;
    aclrtStream s = r->stream;

    switch (HT_OP) {
    case HT_ALLREDUCE: CHECK(r, HcclAllReduce(r->send, r->recv, count, o.type, o.op, c, s)); break;
    case HT_ALLGATHER: CHECK(r, HcclAllGather(r->send, r->recv, count, o.type, c, s)); break;
    case HT_REDUCE_SCATTER:
        CHECK(r, HcclReduceScatter(r->send, r->recv, count, o.type, o.op, c, s));
        break;
    case HT_BROADCAST: CHECK(r, HcclBroadcast(r->send, count, o.type, o.root, c, s)); break;
    case HT_REDUCE: CHECK(r, HcclReduce(r->send, r->recv, count, o.type, o.op, o.root, c, s)); break;
    case HT_ALLTOALL:
        CHECK(r, HcclAlltoAll(r->send, count, o.type, r->recv, count, o.type, c, s));
        break;
    case HT_ALLTOALLV:
        for (uint32_t p = 0; p < n; p++)
            cnt[p] = count, dsp[p] = p * count;
        CHECK(r, HcclAlltoAllV(r->send, cnt, dsp, o.type, r->recv, cnt, dsp, o.type, c, s));
        break;
    case HT_SCATTER: CHECK(r, HcclScatter(r->send, r->recv, count, o.type, o.root, c, s)); break;
    default: /* a ring: send right, receive from the left, as one group */
        CHECK(r, HcclGroupStart());
        CHECK(r, HcclSend(r->send, count, o.type, (me + 1) % n, c, s));
        CHECK(r, HcclRecv(r->recv, count, o.type, (me + n - 1) % n, c, s));
        CHECK(r, HcclGroupEnd());
        break;
    }
    return 0;
}

/* ---- data and check: every input element is 2 ------------------------------------------ */

static void put(uint8_t *p, double v)
{
    float f = (float)v;
    uint32_t b;
    switch (o.type) {
    case HCCL_DATA_TYPE_INT8: *(int8_t *)p = (int8_t)(int64_t)v; break;
    case HCCL_DATA_TYPE_UINT8: *p = (uint8_t)(int64_t)v; break;
    case HCCL_DATA_TYPE_INT16: { int16_t x = (int16_t)(int64_t)v; memcpy(p, &x, 2); } break;
    case HCCL_DATA_TYPE_UINT16: { uint16_t x = (uint16_t)(int64_t)v; memcpy(p, &x, 2); } break;
    case HCCL_DATA_TYPE_INT32: { int32_t x = (int32_t)(int64_t)v; memcpy(p, &x, 4); } break;
    case HCCL_DATA_TYPE_UINT32: { uint32_t x = (uint32_t)(int64_t)v; memcpy(p, &x, 4); } break;
    case HCCL_DATA_TYPE_INT64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); } break;
    case HCCL_DATA_TYPE_UINT64: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); } break;
    case HCCL_DATA_TYPE_FP64: memcpy(p, &v, 8); break;
    case HCCL_DATA_TYPE_FP32: memcpy(p, &f, 4); break;
    case HCCL_DATA_TYPE_BFP16: memcpy(&b, &f, 4); b >>= 16; memcpy(p, &b, 2); break;
    default: { /* fp16 of an exact power of two or small integer (or inf) */
        memcpy(&b, &f, 4);
        int e = (int)((b >> 23) & 0xff) - 127 + 15;
        uint16_t h = e >= 31 ? 0x7c00 : (uint16_t)((e << 10) | ((b >> 13) & 0x3ff));
        memcpy(p, &h, 2);
    } break;
    }
}

static double get(const uint8_t *p)
{
    union { int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32;
            int64_t i64; uint64_t u64; float f; double d; } u;
    uint32_t b;
    float f;
    memcpy(&u, p, type_size(o.type));
    switch (o.type) {
    case HCCL_DATA_TYPE_INT8: return u.i8;
    case HCCL_DATA_TYPE_UINT8: return u.u8;
    case HCCL_DATA_TYPE_INT16: return u.i16;
    case HCCL_DATA_TYPE_UINT16: return u.u16;
    case HCCL_DATA_TYPE_INT32: return u.i32;
    case HCCL_DATA_TYPE_UINT32: return u.u32;
    case HCCL_DATA_TYPE_INT64: return (double)u.i64;
    case HCCL_DATA_TYPE_UINT64: return (double)u.u64;
    case HCCL_DATA_TYPE_FP64: return u.d;
    case HCCL_DATA_TYPE_FP32: return u.f;
    case HCCL_DATA_TYPE_BFP16: b = (uint32_t)u.u16 << 16; memcpy(&f, &b, 4); return f;
    default: {
        uint32_t e = (u.u16 >> 10) & 0x1f, m = u.u16 & 0x3ff;
        if (e == 31)
            return m ? NAN : INFINITY;
        return e == 0 ? ldexp(m, -24) : ldexp(1024 + m, (int)e - 25);
    }
    }
}

static bool is_float(void)
{
    return o.type == HCCL_DATA_TYPE_FP16 || o.type == HCCL_DATA_TYPE_BFP16 ||
           o.type == HCCL_DATA_TYPE_FP32 || o.type == HCCL_DATA_TYPE_FP64;
}

/* What every checked output element should be (hccl_test: sum 2N, prod 2^N, max/min 2),
 * passed through the type so integer wrap-around matches. */
static double expected(uint32_t n)
{
    uint8_t tmp[8];
    double v = 2;
    bool reduces = HT_OP == HT_ALLREDUCE || HT_OP == HT_REDUCE_SCATTER || HT_OP == HT_REDUCE;
    if (reduces && o.op == HCCL_REDUCE_SUM)
        v = 2.0 * n;
    else if (reduces && o.op == HCCL_REDUCE_PROD)
        v = ldexp(1, (int)n);
    put(tmp, v);
    return get(tmp);
}

/* ---- -c 2: provenance patterns and the expected layout of each operator ---------------- */

static bool reduces(void)
{
    return HT_OP == HT_ALLREDUCE || HT_OP == HT_REDUCE_SCATTER || HT_OP == HT_REDUCE;
}

static hcemuProvSpec spec_of(const struct rank *r)
{
    return (hcemuProvSpec){o.type, reduces() ? o.op : HCCL_REDUCE_RESERVED, r->n, r->rank};
}

/* The ranges this rank's output should hold after a call with `count` elements: n blocks
 * (gathers, all-to-all), or one. */
static uint32_t layout(const struct rank *r, uint64_t count, hcemuProvRange *L)
{
    uint32_t n = r->n, me = r->rank;
    hcemuProvRange one = {.count = count, .kind = hcemuProvCopy, .rank = me};

    switch (HT_OP) {
    case HT_ALLGATHER:
    case HT_ALLTOALL:
    case HT_ALLTOALLV:
        for (uint32_t p = 0; p < n; p++)
            L[p] = (hcemuProvRange){.outElem = p * count, .count = count,
                                    .kind = hcemuProvCopy, .rank = p,
                                    .inElem = HT_OP == HT_ALLGATHER ? 0 : me * count};
        return n;
    case HT_ALLREDUCE:
    case HT_REDUCE: one.kind = hcemuProvReduce; break;
    case HT_REDUCE_SCATTER: one.kind = hcemuProvReduce, one.inElem = me * count; break;
    case HT_BROADCAST: one.rank = o.root; break;
    case HT_SCATTER: one.rank = o.root, one.inElem = me * count; break;
    default: one.rank = (me + n - 1) % n; break; /* the ring: from the left */
    }
    L[0] = one;
    return 1;
}

/* The first `bytes` of a device buffer get the input pattern (copied, not recomputed: the
 * host must not lag behind peers whose kernels already wait for it); with -c 2 this rank's
 * provenance pattern, computed per element (a check, not a timing, is what -c 2 is for). */
static int fill(struct rank *r, void *dev, uint64_t bytes)
{
    hcemuProvSpec sp = spec_of(r);
    if (bytes > 0 && o.check == 2)
        CHECK(r, hcemuProvenanceFill(dev, bytes / type_size(o.type), &sp, 0, 0));
    else if (bytes > 0)
        CHECK(r, aclrtMemcpy(dev, bytes, r->host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    return 0;
}

/* -c 2: the output starts as the poison, so what no call wrote shows as "never written". */
static int poison(struct rank *r, void *dev, uint64_t bytes)
{
    if (bytes > 0 && o.check == 2)
        CHECK(r, hcemuProvenancePoison(dev, bytes / type_size(o.type), o.type));
    return 0;
}

/* Bytes of the result this rank checks after a call with `count` elements. */
static uint64_t result_bytes(const struct rank *r, uint64_t count, void **where)
{
    uint64_t b = count * type_size(o.type);
    *where = r->recv;
    switch (HT_OP) {
    case HT_ALLGATHER:
    case HT_ALLTOALL:
    case HT_ALLTOALLV: return b * r->n;
    case HT_BROADCAST: *where = r->send; return b;
    case HT_REDUCE: return r->rank == o.root ? b : 0;
    default: return b;
    }
}

static int check_result(struct rank *r, uint64_t count, int *bad)
{
    void *where;
    uint64_t bytes = result_bytes(r, count, &where);
    uint32_t esz = type_size(o.type);
    double want = expected(r->n);

    if (o.check == 2) {
        static _Thread_local hcemuProvRange L[HT_MAX_RANKS];
        hcemuProvSpec sp = spec_of(r);
        uint64_t wrong = 0;
        uint32_t nl = layout(r, count, L);
        if (bytes > 0)
            CHECK(r, hcemuProvenanceCheck(where, bytes / esz, &sp, L, nl, &wrong, NULL, 0));
        *bad += wrong != 0;
        return 0;
    }
    if (bytes > 0)
        CHECK(r, aclrtMemcpy(r->check, bytes, where, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    for (uint64_t i = 0; i < bytes / esz; i++) {
        double g = get(r->check + i * esz);
        bool ok = is_float() ? (g == want || fabs(g - want) <= 1e-5 * fabs(want)) : g == want;
        if (!ok) {
            (*bad)++;
            break;
        }
    }
    return 0;
}

/* The verdict of every rank, combined with an allreduce of the failure counts. */
static int combine(struct rank *r, int *bad)
{
    int32_t v = *bad;
    CHECK(r, aclrtMemcpy(r->recv, 4, &v, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(r, HcclAllReduce(r->recv, r->recv, 1, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, r->comm,
                           r->stream));
    CHECK(r, aclrtSynchronizeStream(r->stream));
    CHECK(r, aclrtMemcpy(&v, 4, r->recv, 4, ACL_MEMCPY_DEVICE_TO_HOST));
    *bad = v;
    return 0;
}

static int measure(struct rank *r, uint64_t bytes)
{
    uint64_t count = count_of(bytes, r->n);
    float ms = 0;
    int bad = 0;

    uint64_t in_bytes = count * type_size(o.type) *
                        (HT_OP == HT_REDUCE_SCATTER || HT_OP == HT_ALLTOALL ||
                                 HT_OP == HT_ALLTOALLV || HT_OP == HT_SCATTER
                             ? r->n
                             : 1);
    CHECK(r, fill(r, r->send, in_bytes));
    if (HT_OP != HT_BROADCAST) {
        void *where;
        CHECK(r, poison(r, r->recv, result_bytes(r, count, &where)));
    }
    for (int i = 0; i < o.warmup; i++)
        if (one_call(r, count) != 0)
            return -1;
    CHECK(r, HcclBarrier(r->comm, r->stream));
    CHECK(r, aclrtSynchronizeStream(r->stream));
    /* Stream events bracket the timed calls, as hccl_test does: their elapsed time is wall
     * time between the two records on the device, or modelled time with HCEMU_TIME=model. */
    CHECK(r, aclrtRecordEvent(r->t0, r->stream));
    for (int i = 0; i < o.iters; i++)
        if (one_call(r, count) != 0)
            return -1;
    CHECK(r, aclrtRecordEvent(r->t1, r->stream));
    CHECK(r, aclrtSynchronizeEvent(r->t1));
    CHECK(r, aclrtEventElapsedTime(&ms, r->t0, r->t1));
    if (o.check) {
        if (HT_OP == HT_BROADCAST) { /* the buffer is both input and output: check it fresh */
            uint64_t b = count * type_size(o.type);
            if (r->rank == o.root)
                CHECK(r, fill(r, r->send, b));
            else if (b > 0 && o.check == 2)
                CHECK(r, poison(r, r->send, b));
            else if (b > 0)
                CHECK(r, aclrtMemset(r->send, r->send_cap, 0, b));
            if (one_call(r, count) != 0)
                return -1;
            CHECK(r, aclrtSynchronizeStream(r->stream));
        }
        if (check_result(r, count, &bad) != 0 || combine(r, &bad) != 0)
            return -1;
    }
    if (r->rank == 0) {
        double us = ms * 1000.0 / o.iters;
        double algbw = us > 0 ? (double)bytes / (us * 1000.0) : 0;
        const char *res = !o.check ? "NULL" : bad ? "failed" : "success";
        if (o.busbw)
            printf("%-17llu | %-14.2f | %-20.5f | %-20.5f | %s\n", (unsigned long long)bytes, us,
                   algbw, algbw * busbw_factor(r->n), res);
        else
            printf("%-17llu | %-14.2f | %-20.5f | %s\n", (unsigned long long)bytes, us, algbw,
                   res);
        fflush(stdout);
    }
    if (bad)
        r->failed = 1;
    return 0;
}

static int sweep(struct rank *r)
{
    uint64_t b = o.minb;
    for (;;) {
        if (measure(r, b) != 0)
            return -1;
        uint64_t next = o.factor > 1 ? (uint64_t)((double)b * o.factor) : b + o.step;
        if (next <= b || next > o.maxb)
            return 0;
        b = next;
    }
}

static int buffers(struct rank *r)
{
    uint64_t esz = type_size(o.type), elems = o.maxb / esz, b = elems * esz;
    r->send_cap = HT_OP == HT_ALLGATHER ? b / r->n * 1 : b;
    r->recv_cap = HT_OP == HT_ALLGATHER ? b / r->n * r->n : b;
    if (r->send_cap < 64)
        r->send_cap = 64;
    if (r->recv_cap < 64)
        r->recv_cap = 64;
    CHECK(r, aclrtMalloc(&r->send, r->send_cap, ACL_MEM_MALLOC_HUGE_ONLY));
    CHECK(r, aclrtMalloc(&r->recv, r->recv_cap, ACL_MEM_MALLOC_HUGE_ONLY));
    uint64_t cap = r->send_cap > r->recv_cap ? r->send_cap : r->recv_cap;
    r->host = malloc(cap);
    r->check = malloc(cap);
    if (r->host == NULL || r->check == NULL) {
        r->failed = 1;
        return -1;
    }
    for (uint64_t i = 0; i < cap / esz; i++)
        put(r->host + i * esz, 2);
    return 0;
}

static void rank_main(struct rank *r)
{
    if (aclrtSetDevice(r->dev) != ACL_SUCCESS ||
        HcclCommInitRootInfo(r->n, r->root, r->rank, &r->comm) != HCCL_SUCCESS) {
        fprintf(stderr, "rank %u: cannot join the communicator\n", r->rank);
        r->failed = 1;
        return;
    }
    if (aclrtCreateStream(&r->stream) == ACL_SUCCESS && aclrtCreateEvent(&r->t0) == ACL_SUCCESS &&
        aclrtCreateEvent(&r->t1) == ACL_SUCCESS && buffers(r) == 0) {
        if (r->rank == 0) {
            printf("the minbytes is %llu, maxbytes is %llu, iters is %d, warmup_iters is %d\n",
                   (unsigned long long)o.minb, (unsigned long long)o.maxb, o.iters, o.warmup);
            if (o.busbw)
                printf("data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | "
                       "bus_bandwidth(GB/s): | check_result:\n");
            else
                printf("data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | "
                       "check_result:\n");
            fflush(stdout);
        }
        sweep(r);
    } else {
        r->failed = 1;
    }
    aclrtFree(r->send);
    aclrtFree(r->recv);
    free(r->host);
    free(r->check);
    HcclCommDestroy(r->comm);
    if (r->t0 != NULL)
        aclrtDestroyEvent(r->t0);
    if (r->t1 != NULL)
        aclrtDestroyEvent(r->t1);
    if (r->stream != NULL)
        aclrtDestroyStream(r->stream);
    aclrtResetDevice(r->dev);
}

static void *rank_thread(void *p)
{
    rank_main(p);
    return NULL;
}

static int run_threads(uint32_t n)
{
    static HcclRootInfo root;
    pthread_t tid[HT_MAX_RANKS];
    struct rank *r = calloc(n, sizeof(*r));
    int failed = 0;

    if (r == NULL || aclrtSetDevice(0) != ACL_SUCCESS || HcclGetRootInfo(&root) != HCCL_SUCCESS) {
        fprintf(stderr, "%s: cannot make the root info\n", prog);
        return 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        r[i] = (struct rank){.rank = i, .n = n, .dev = (int32_t)i, .root = &root};
        if (pthread_create(&tid[i], NULL, rank_thread, &r[i]) != 0)
            exit(1);
    }
    for (uint32_t i = 0; i < n; i++) {
        pthread_join(tid[i], NULL);
        failed |= r[i].failed;
    }
    free(r);
    aclrtResetDevice(0);
    return failed;
}

static int run_process(uint32_t me, uint32_t n, uint32_t local)
{
    static HcclRootInfo root;
    struct rank r = {.rank = me, .n = n, .dev = (int32_t)local, .root = &root};

    if (aclrtSetDevice(r.dev) != ACL_SUCCESS || HcclGetRootInfo(&root) != HCCL_SUCCESS) {
        fprintf(stderr, "rank %u: cannot get the root info\n", me);
        return 1;
    }
    rank_main(&r);
    return r.failed;
}

int main(int argc, char **argv)
{
    const char *devs = getenv("HCEMU_DEVICES");
    struct ex_launch l;
    int code;

    prog = argv[0];
    if (parse(argc, argv) != 0)
        return 2;
    /* -c 2 needs the executors to record who writes where; HCEMU_PROVENANCE=1 asks for -c 2. */
    const char *prov = getenv("HCEMU_PROVENANCE");
    if (o.check == 1 && prov != NULL && strcmp(prov, "1") == 0)
        o.check = 2;
    if (o.check == 2)
        setenv("HCEMU_PROVENANCE", "1", 1);
    int launched = ex_launch_get(&l);
    if (launched < 0) {
        fprintf(stderr, "%s: the rank variables of %s are not valid\n", prog, l.via);
        return 2;
    }
    bool process_mode = launched == 1;
    uint32_t n = process_mode ? l.size : o.ranks ? o.ranks : 8;
    if (n < 1 || n > HT_MAX_RANKS || o.root >= n) {
        fprintf(stderr, "%s: %u ranks and root %u are not valid\n", prog, n, o.root);
        return 2;
    }
    if (!process_mode && devs == NULL && n > 8) {
        char v[16];
        snprintf(v, sizeof(v), "%u", n);
        setenv("HCEMU_DEVICES", v, 1);
    }
    if (aclInit(NULL) != ACL_SUCCESS) {
        fprintf(stderr, "%s: aclInit failed\n", prog);
        return 1;
    }
    code = process_mode ? run_process(l.rank, n, l.local) : run_threads(n);
    aclFinalize();
    return code;
}
