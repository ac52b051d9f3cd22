/* hccl_matrix_check.c - runs every collective of hccl.h (AllReduce, AllGather, AllGatherV,
 * ReduceScatter, ReduceScatterV, Broadcast, Scatter, Reduce, AlltoAll, AlltoAllV, AlltoAllVC,
 * Send/Recv, BatchSendRecv) over every HcclDataType and, for the reducing ones, every
 * HcclReduceOp, on rank threads, through whatever libhccl it is linked with: HCCL's own
 * (compat-hccl-ops) or hcemu's built-in collectives. The same source is compiled against
 * both; scripts/compat-hccl-check runs the two and prints the matrix.
 *
 * Inputs: operators that only move data get a byte pattern that encodes (rank, element,
 * byte), compared byte for byte, so every type moves including the 1-byte float formats.
 * Reducing operators get small integers whose sums, products, maxima and minima are exact in
 * every type (a product has at most n/4 factors of 2), encoded in the type (fp16, bf16 and
 * the IEEE types written bit by bit), and the expected bytes are the exact result encoded
 * the same way. Every output element of every rank is compared; the first mismatch names the
 * rank, element, expected and actual bytes.
 *
 * One row per case on stdout, `<lib> <op> <dtype> <redop> <n> ranks: <verdict>`, where the
 * verdict is `ok`, `wrong bytes (...)`, `refused: code N` (the call returned N on every rank
 * before running), `error: ...` (a rank's call or stream failed otherwise). Exit 0 when every
 * case is ok or refused the same way by every rank.
 *
 *   hccl_matrix_check -t ranks [-o op,...] [-d type,...] [-r sum,prod,max,min] [-c count]
 *                     [-T rank table]   (rank i on device i; -T joins by HcclCommInitClusterInfo)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <acl/acl.h>
#include <hccl/hccl.h>

#define MAX_RANKS 64
#define SYNC_MS 120000 /* a case whose stream does not finish in 2 minutes is an error */

enum op {
    OP_ALLREDUCE,
    OP_REDUCE,
    OP_REDUCESCATTER,
    OP_REDUCESCATTERV,
    OP_ALLGATHER,
    OP_ALLGATHERV,
    OP_BROADCAST,
    OP_SCATTER,
    OP_ALLTOALL,
    OP_ALLTOALLV,
    OP_ALLTOALLVC,
    OP_SENDRECV,
    OP_BATCHSENDRECV,
    OP_N
};
static const char *const op_names[OP_N] = {
    "AllReduce",  "Reduce",    "ReduceScatter", "ReduceScatterV", "AllGather",
    "AllGatherV", "Broadcast", "Scatter",       "AlltoAll",       "AlltoAllV",
    "AlltoAllVC", "SendRecv",  "BatchSendRecv"};

static bool reduces(enum op op)
{
    return op <= OP_REDUCESCATTERV;
}

/* How a type holds the small integers of the reducing cases. */
enum kind { K_SINT, K_UINT, K_FP16, K_BF16, K_FP32, K_FP64, K_BYTES };

struct dtype {
    HcclDataType type;
    const char *name;
    size_t size;
    enum kind kind;
};
static const struct dtype types[] = {
    {HCCL_DATA_TYPE_INT8, "int8", 1, K_SINT},
    {HCCL_DATA_TYPE_INT16, "int16", 2, K_SINT},
    {HCCL_DATA_TYPE_INT32, "int32", 4, K_SINT},
    {HCCL_DATA_TYPE_FP16, "fp16", 2, K_FP16},
    {HCCL_DATA_TYPE_FP32, "fp32", 4, K_FP32},
    {HCCL_DATA_TYPE_INT64, "int64", 8, K_SINT},
    {HCCL_DATA_TYPE_UINT64, "uint64", 8, K_UINT},
    {HCCL_DATA_TYPE_UINT8, "uint8", 1, K_UINT},
    {HCCL_DATA_TYPE_UINT16, "uint16", 2, K_UINT},
    {HCCL_DATA_TYPE_UINT32, "uint32", 4, K_UINT},
    {HCCL_DATA_TYPE_FP64, "fp64", 8, K_FP64},
    {HCCL_DATA_TYPE_BFP16, "bfp16", 2, K_BF16},
    {HCCL_DATA_TYPE_INT128, "int128", 16, K_SINT},
    {HCCL_DATA_TYPE_HIF8, "hif8", 1, K_BYTES},
    {HCCL_DATA_TYPE_FP8E4M3, "fp8e4m3", 1, K_BYTES},
    {HCCL_DATA_TYPE_FP8E5M2, "fp8e5m2", 1, K_BYTES},
    {HCCL_DATA_TYPE_FP8E8M0, "fp8e8m0", 1, K_BYTES},
};
#define N_TYPES (sizeof(types) / sizeof(types[0]))

static const char *const redop_names[] = {"sum", "prod", "max", "min"};
static const HcclReduceOp redops[] = {HCCL_REDUCE_SUM, HCCL_REDUCE_PROD, HCCL_REDUCE_MAX,
                                      HCCL_REDUCE_MIN};
#define N_REDOPS 4

/* ---- values ------------------------------------------------------------------------------- */

/* The small integer element i of rank r holds for a reducing case: 0..7 for sum (16 ranks
 * stay below 128 in int8), factors 1 and 2 (one rank in four) with some signs negative for
 * prod, -50..49 (0..99 unsigned) for max and min. */
static int64_t small_value(const struct dtype *t, int redop, uint32_t r, uint64_t i)
{
    bool sign = t->kind != K_UINT;

    switch (redop) {
    case 1: { /* prod */
        int64_t v = (r + i) % 4 == 0 ? 2 : 1;
        return sign && (r * 3 + i) % 5 == 0 ? -v : v;
    }
    case 2:
    case 3: {
        int64_t v = (int64_t)((r * 37 + i * 11) % 100);
        return sign ? v - 50 : v;
    }
    default:
        return (int64_t)((r * 3 + i) % 8);
    }
}

static uint16_t fp16_of(int64_t v) /* exact for |v| <= 2048 */
{
    uint16_t s = v < 0 ? 0x8000 : 0;
    uint64_t a = (uint64_t)(v < 0 ? -v : v);
    int e = 0;

    if (a == 0)
        return s;
    while ((a >> (e + 1)) != 0)
        e++;
    return (uint16_t)(s | (uint16_t)((e + 15) << 10) | (uint16_t)((a << (10 - e)) & 0x3ff));
}

static void encode(const struct dtype *t, void *p, uint64_t i, int64_t v)
{
    uint8_t *b = (uint8_t *)p + i * t->size;

    switch (t->kind) {
    case K_FP16: {
        uint16_t h = fp16_of(v);
        memcpy(b, &h, 2);
        break;
    }
    case K_BF16: { /* the upper half of the fp32: exact for small integers */
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        uint16_t h = (uint16_t)(u >> 16);
        memcpy(b, &h, 2);
        break;
    }
    case K_FP32: {
        float f = (float)v;
        memcpy(b, &f, 4);
        break;
    }
    case K_FP64: {
        double d = (double)v;
        memcpy(b, &d, 8);
        break;
    }
    default: { /* two's complement, little endian, sign-extended to the width */
        uint64_t u = (uint64_t)v;
        for (size_t k = 0; k < t->size; k++)
            b[k] = k < 8 ? (uint8_t)(u >> (8 * k)) : (v < 0 ? 0xff : 0);
        break;
    }
    }
}

/* Byte k of element i of rank r's input for a moving case: differs per rank, element and
 * byte, so a block from the wrong rank or place shows. */
static uint8_t move_byte(uint32_t r, uint64_t i, size_t k)
{
    return (uint8_t)(r * 73 + i * 5 + k * 29 + 1);
}

static int64_t reduce_ranks(const struct dtype *t, int redop, uint32_t n, uint64_t i)
{
    int64_t acc = small_value(t, redop, 0, i);

    for (uint32_t k = 1; k < n; k++) {
        int64_t v = small_value(t, redop, k, i);
        acc = redop == 0   ? acc + v
              : redop == 1 ? acc * v
              : redop == 2 ? (v > acc ? v : acc)
                           : (v < acc ? v : acc);
    }
    return acc;
}

/* ---- one case ----------------------------------------------------------------------------- */

/* Per-rank element counts of the V operators: uneven, one rank with none (a hole) when there
 * are more than two. */
static uint64_t vcount(uint64_t count, uint32_t n, uint32_t k)
{
    return n > 2 && k == 1 ? 0 : count / 2 + k * 3 + 1;
}

/* AlltoAllV(C): elements rank s sends to rank d. */
static uint64_t a2a_count(uint64_t count, uint32_t s, uint32_t d)
{
    return (s + 2 * d) % 3 == 2 ? 0 : count / 4 + s + d * 2 + 1;
}

struct shared {
    uint32_t n;
    uint64_t count;
    HcclRootInfo root;
    pthread_barrier_t bar;
    /* the verdicts of the current case, per rank */
    int rc[MAX_RANKS];   /* HcclResult the call returned */
    int sync[MAX_RANKS]; /* aclError of the stream, or -1 setup failure */
    char why[MAX_RANKS][200];
};

struct rank {
    uint32_t rank;
    struct shared *sh;
    HcclComm comm;
    aclrtStream stream;
    int failed;
};

/* Where element i of a rank's input and output lives, and what it must hold: the layout of
 * each operator's buffers. */
struct layout {
    uint64_t in_n, out_n; /* elements */
    uint64_t sc[MAX_RANKS], sd[MAX_RANKS], rc[MAX_RANKS], rd[MAX_RANKS];
    uint64_t matrix[MAX_RANKS * MAX_RANKS];
    uint32_t root;
};

static void make_layout(enum op op, uint32_t r, uint32_t n, uint64_t c, struct layout *l)
{
    memset(l, 0, sizeof(*l));
    l->in_n = l->out_n = c;
    l->root = op == OP_BROADCAST ? n - 1 : op == OP_SCATTER ? n / 2 : op == OP_REDUCE ? 1 : 0;
    uint64_t off = 0;
    switch (op) {
    case OP_REDUCESCATTER:
        l->in_n = c * n;
        break;
    case OP_ALLGATHER:
        l->out_n = c * n;
        break;
    case OP_SCATTER:
    case OP_ALLTOALL:
        l->in_n = c * n;
        l->out_n = op == OP_ALLTOALL ? c * n : c;
        break;
    case OP_REDUCESCATTERV:
    case OP_ALLGATHERV: /* blocks in rank order, one element of gap after each */
        for (uint32_t k = 0; k < n; k++) {
            l->sc[k] = vcount(c, n, k);
            l->sd[k] = off;
            off += l->sc[k] + 1;
        }
        if (op == OP_REDUCESCATTERV) {
            l->in_n = off;
            l->out_n = l->sc[r] > 0 ? l->sc[r] : 1;
        } else {
            l->in_n = l->sc[r] > 0 ? l->sc[r] : 1;
            l->out_n = off;
        }
        break;
    case OP_ALLTOALLV:
    case OP_ALLTOALLVC: /* V: gaps of one element; VC: packed */
        for (uint32_t s = 0; s < n; s++)
            for (uint32_t d = 0; d < n; d++)
                l->matrix[s * n + d] = a2a_count(c, s, d);
        for (uint32_t k = 0; k < n; k++) {
            l->sc[k] = l->matrix[r * n + k];
            l->sd[k] = off;
            off += l->sc[k] + (op == OP_ALLTOALLV);
        }
        l->in_n = off > 0 ? off : 1;
        off = 0;
        for (uint32_t k = 0; k < n; k++) {
            l->rc[k] = l->matrix[k * n + r];
            l->rd[k] = off;
            off += l->rc[k] + (op == OP_ALLTOALLV);
        }
        l->out_n = off > 0 ? off : 1;
        break;
    case OP_BATCHSENDRECV:
        l->in_n = l->out_n = n > 2 ? 2 * c : c; /* both directions of the ring past 2 ranks */
        break;
    default:
        break;
    }
}

/* The input element i of rank r of op (as a move, bytes; as a reduction, a small integer). */
static void fill_input(enum op op, const struct dtype *t, int redop, uint32_t r,
                       const struct layout *l, uint8_t *host)
{
    for (uint64_t i = 0; i < l->in_n; i++) {
        if (reduces(op))
            encode(t, host, i, small_value(t, redop, r, i));
        else
            for (size_t k = 0; k < t->size; k++)
                host[i * t->size + k] = move_byte(r, i, k);
    }
}

/* Expected bytes of output element i of rank r, or false when the element is not written by
 * the operator (a gap, a non-root's output) and must keep its fill. */
static bool expect(enum op op, const struct dtype *t, int redop, uint32_t r, uint32_t n, uint64_t c,
                   const struct layout *l, uint64_t i, uint8_t *want)
{
    uint32_t src = r;
    uint64_t at = i;

    switch (op) {
    case OP_ALLREDUCE:
        encode(t, want, 0, reduce_ranks(t, redop, n, i));
        return true;
    case OP_REDUCE:
        if (r != l->root)
            return false;
        encode(t, want, 0, reduce_ranks(t, redop, n, i));
        return true;
    case OP_REDUCESCATTER:
        encode(t, want, 0, reduce_ranks(t, redop, n, r * c + i));
        return true;
    case OP_REDUCESCATTERV:
        if (i >= l->sc[r])
            return false;
        encode(t, want, 0, reduce_ranks(t, redop, n, l->sd[r] + i));
        return true;
    case OP_ALLGATHER:
        src = (uint32_t)(i / c);
        at = i % c;
        break;
    case OP_ALLGATHERV: {
        uint32_t k = 0;
        while (k + 1 < n && i >= l->sd[k + 1])
            k++;
        if (i - l->sd[k] >= l->sc[k])
            return false;
        src = k;
        at = i - l->sd[k];
        break;
    }
    case OP_BROADCAST:
        src = l->root;
        break;
    case OP_SCATTER:
        src = l->root;
        at = r * c + i;
        break;
    case OP_ALLTOALL:
        src = (uint32_t)(i / c);
        at = r * c + i % c;
        break;
    case OP_ALLTOALLV:
    case OP_ALLTOALLVC: {
        uint32_t k = 0;
        while (k + 1 < n && i >= l->rd[k + 1])
            k++;
        if (i < l->rd[k] || i - l->rd[k] >= l->rc[k])
            return false;
        /* block from rank k: at rank k's send offset for me */
        struct layout lk;
        make_layout(op, k, n, c, &lk);
        src = k;
        at = lk.sd[r] + (i - l->rd[k]);
        break;
    }
    case OP_SENDRECV:
        src = (r + n - 1) % n;
        break;
    case OP_BATCHSENDRECV: /* first half from the left neighbour, second from the right */
        src = i < c ? (r + n - 1) % n : (r + 1) % n;
        break;
    default:
        return false;
    }
    for (size_t k = 0; k < t->size; k++)
        want[k] = move_byte(src, at, k);
    return true;
}

static HcclResult call(enum op op, const struct dtype *t, int redop, struct rank *rk,
                       const struct layout *l, void *in, void *out)
{
    uint32_t n = rk->sh->n, r = rk->rank;
    uint64_t c = rk->sh->count;
    HcclDataType dt = t->type;
    HcclReduceOp ro = redop >= 0 ? redops[redop] : HCCL_REDUCE_SUM;
    HcclComm comm = rk->comm;
    aclrtStream s = rk->stream;

    switch (op) {
    case OP_ALLREDUCE:
        return HcclAllReduce(in, out, c, dt, ro, comm, s);
    case OP_REDUCE:
        return HcclReduce(in, out, c, dt, ro, l->root, comm, s);
    case OP_REDUCESCATTER:
        return HcclReduceScatter(in, out, c, dt, ro, comm, s);
    case OP_REDUCESCATTERV:
        return HcclReduceScatterV(in, l->sc, l->sd, out, l->sc[r], dt, ro, comm, s);
    case OP_ALLGATHER:
        return HcclAllGather(in, out, c, dt, comm, s);
    case OP_ALLGATHERV:
        return HcclAllGatherV(in, l->sc[r], out, l->sc, l->sd, dt, comm, s);
    case OP_BROADCAST: /* in place: the output buffer holds the root's input there */
        return HcclBroadcast(out, c, dt, l->root, comm, s);
    case OP_SCATTER:
        return HcclScatter(in, out, c, dt, l->root, comm, s);
    case OP_ALLTOALL:
        return HcclAlltoAll(in, c, dt, out, c, dt, comm, s);
    case OP_ALLTOALLV:
        return HcclAlltoAllV(in, l->sc, l->sd, dt, out, l->rc, l->rd, dt, comm, s);
    case OP_ALLTOALLVC:
        return HcclAlltoAllVC(in, l->matrix, dt, out, dt, comm, s);
    case OP_SENDRECV: { /* a ring: even ranks send first, odd ranks receive first */
        uint32_t next = (r + 1) % n, prev = (r + n - 1) % n;
        HcclResult h;
        if (r % 2 == 0) {
            h = HcclSend(in, c, dt, next, comm, s);
            return h != HCCL_SUCCESS ? h : HcclRecv(out, c, dt, prev, comm, s);
        }
        h = HcclRecv(out, c, dt, prev, comm, s);
        return h != HCCL_SUCCESS ? h : HcclSend(in, c, dt, next, comm, s);
    }
    case OP_BATCHSENDRECV: {
        size_t esz = t->size;
        HcclSendRecvItem it[4] = {
            {HCCL_SEND, in, c, dt, (r + 1) % n},
            {HCCL_RECV, out, c, dt, (r + n - 1) % n},
            {HCCL_SEND, (uint8_t *)in + c * esz, c, dt, (r + n - 1) % n},
            {HCCL_RECV, (uint8_t *)out + c * esz, c, dt, (r + 1) % n},
        };
        return HcclBatchSendRecv(it, n > 2 ? 4 : 2, comm, s);
    }
    default:
        return HCCL_E_PARA;
    }
}

#define FILL 0x5a /* the output's bytes before the call: a stale output must not pass */

static void one_case(struct rank *rk, enum op op, const struct dtype *t, int redop)
{
    struct shared *sh = rk->sh;
    uint32_t r = rk->rank, n = sh->n;
    struct layout l;
    void *in = NULL, *out = NULL;
    uint8_t *host = NULL, want[16];
    char *why = sh->why[r];

    sh->rc[r] = 0;
    sh->sync[r] = 0;
    why[0] = '\0';
    make_layout(op, r, n, sh->count, &l);
    size_t in_b = l.in_n * t->size, out_b = l.out_n * t->size;
    host = malloc(in_b > out_b ? in_b : out_b);
    if (host == NULL || aclrtMalloc(&in, in_b, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtMalloc(&out, out_b, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        sh->sync[r] = -1;
        snprintf(why, sizeof(sh->why[r]), "rank %u: no memory", r);
        goto out;
    }
    fill_input(op, t, redop, r, &l, host);
    aclError a = aclrtMemcpy(in, in_b, host, in_b, ACL_MEMCPY_HOST_TO_DEVICE);
    if (op == OP_BROADCAST && r == l.root) /* in place */
        a = a != ACL_SUCCESS ? a : aclrtMemcpy(out, out_b, host, out_b, ACL_MEMCPY_HOST_TO_DEVICE);
    else {
        memset(host, FILL, out_b);
        a = a != ACL_SUCCESS ? a : aclrtMemcpy(out, out_b, host, out_b, ACL_MEMCPY_HOST_TO_DEVICE);
    }
    if (a != ACL_SUCCESS) {
        sh->sync[r] = -1;
        snprintf(why, sizeof(sh->why[r]), "rank %u: copy-in failed (%d)", r, (int)a);
        goto out;
    }
    sh->rc[r] = (int)call(op, t, redop, rk, &l, in, out);
    a = aclrtSynchronizeStreamWithTimeout(rk->stream, SYNC_MS);
    if (a != ACL_SUCCESS) {
        sh->sync[r] = (int)a;
        snprintf(why, sizeof(sh->why[r]), "rank %u: stream error %d", r, (int)a);
        goto out;
    }
    if (sh->rc[r] != 0)
        goto out;
    if (aclrtMemcpy(host, out_b, out, out_b, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
        sh->sync[r] = -1;
        snprintf(why, sizeof(sh->why[r]), "rank %u: copy-out failed", r);
        goto out;
    }
    for (uint64_t i = 0; i < l.out_n; i++) {
        if (!expect(op, t, redop, r, n, sh->count, &l, i, want))
            memset(want, FILL, t->size);
        if (memcmp(host + i * t->size, want, t->size) == 0)
            continue;
        int len = snprintf(why, sizeof(sh->why[r]), "rank %u element %llu: got ", r,
                           (unsigned long long)i);
        for (size_t k = t->size; k-- > 0 && len < 150;)
            len += snprintf(why + len, sizeof(sh->why[r]) - (size_t)len, "%02x",
                            host[i * t->size + k]);
        len += snprintf(why + len, sizeof(sh->why[r]) - (size_t)len, " want ");
        for (size_t k = t->size; k-- > 0 && len < 190;)
            len += snprintf(why + len, sizeof(sh->why[r]) - (size_t)len, "%02x", want[k]);
        break;
    }
out:
    free(host);
    aclrtFree(in);
    aclrtFree(out);
}

/* Rank 0's row of the case, from every rank's verdict. Returns 1 for a failure. */
static int verdict(struct shared *sh, const char *lib, enum op op, const struct dtype *t, int redop)
{
    char v[256];
    int rc0 = sh->rc[0], same = 1, bad = 0;

    for (uint32_t r = 0; r < sh->n; r++)
        same &= sh->rc[r] == rc0;
    v[0] = '\0';
    for (uint32_t r = 0; r < sh->n && v[0] == '\0'; r++)
        if (sh->sync[r] != 0 || (sh->rc[r] == 0 && sh->why[r][0] != '\0'))
            snprintf(v, sizeof(v), "%s %s",
                     sh->sync[r] != 0 ? "error:" : "wrong bytes:", sh->why[r]);
    if (v[0] != '\0')
        bad = 1;
    else if (same && rc0 != 0)
        snprintf(v, sizeof(v), "refused: code %d", rc0);
    else if (!same) {
        int len = snprintf(v, sizeof(v), "error: ranks disagree, codes");
        for (uint32_t r = 0; r < sh->n && len < 240; r++)
            len += snprintf(v + len, sizeof(v) - (size_t)len, " %d", sh->rc[r]);
        bad = 1;
    } else
        snprintf(v, sizeof(v), "ok");
    printf("%-5s %-14s %-8s %-4s %2u ranks: %s\n", lib, op_names[op], t->name,
           redop >= 0 ? redop_names[redop] : "-", sh->n, v);
    fflush(stdout);
    return bad;
}

/* ---- the run ------------------------------------------------------------------------------ */

static bool op_on[OP_N], type_on[N_TYPES], redop_on[N_REDOPS];
static const char *lib_name = "?";
static const char *rank_table; /* -T: HcclCommInitClusterInfo instead of root info */
static int any_failed;

static void *rank_main(void *p)
{
    struct rank *rk = p;
    struct shared *sh = rk->sh;

    HcclResult h = HCCL_E_INTERNAL;
    if (aclrtSetDevice((int32_t)rk->rank) == ACL_SUCCESS)
        h = rank_table != NULL ? HcclCommInitClusterInfo(rank_table, rk->rank, &rk->comm)
                               : HcclCommInitRootInfo(sh->n, &sh->root, rk->rank, &rk->comm);
    if (h != HCCL_SUCCESS || aclrtCreateStream(&rk->stream) != ACL_SUCCESS) {
        /* the other ranks wait at the case barriers: nothing more can run */
        fprintf(stderr, "rank %u: cannot join the communicator\n", rk->rank);
        exit(1);
    }
    for (int op = 0; op < OP_N; op++) {
        if (!op_on[op])
            continue;
        for (size_t t = 0; t < N_TYPES; t++) {
            if (!type_on[t])
                continue;
            for (int ro = reduces(op) ? 0 : -1; ro < (reduces(op) ? N_REDOPS : 0); ro++) {
                if (ro >= 0 && !redop_on[ro])
                    continue;
                /* stderr from here to the next marker is this case's (the script reads
                 * who refused it from there) */
                if (rk->rank == 0) {
                    fprintf(stderr, "== case %s %s %s\n", op_names[op], types[t].name,
                            ro >= 0 ? redop_names[ro] : "-");
                    fflush(stderr);
                }
                pthread_barrier_wait(&sh->bar);
                one_case(rk, (enum op)op, &types[t], ro);
                pthread_barrier_wait(&sh->bar);
                if (rk->rank == 0 && verdict(sh, lib_name, (enum op)op, &types[t], ro) != 0)
                    any_failed = 1;
            }
        }
    }
    HcclCommDestroy(rk->comm);
    aclrtDestroyStream(rk->stream);
    aclrtResetDevice((int32_t)rk->rank);
    return NULL;
}

/* Marks the names of a comma-separated list on; "all" marks every one. */
static int select_names(char *list, const char *const *names, size_t n, bool *on)
{
    for (char *tok = strtok(list, ","); tok != NULL; tok = strtok(NULL, ",")) {
        size_t k = 0;
        if (strcmp(tok, "all") == 0) {
            for (k = 0; k < n; k++)
                on[k] = true;
            continue;
        }
        while (k < n && strcasecmp(tok, names[k]) != 0)
            k++;
        if (k == n) {
            fprintf(stderr, "unknown name %s\n", tok);
            return -1;
        }
        on[k] = true;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static struct shared sh;
    static struct rank ranks[MAX_RANKS];
    pthread_t tid[MAX_RANKS];
    const char *type_names[N_TYPES];
    char all[] = "all";
    char *ops = all, *dts = all, *ros = all;
    Dl_info info;

    sh.n = 8;
    sh.count = 1000;
    for (size_t t = 0; t < N_TYPES; t++)
        type_names[t] = types[t].name;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            sh.n = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
            sh.count = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            ops = argv[++i];
        else if (strcmp(argv[i], "-d") == 0 && i + 1 < argc)
            dts = argv[++i];
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
            ros = argv[++i];
        else if (strcmp(argv[i], "-T") == 0 && i + 1 < argc)
            rank_table = argv[++i];
        else {
            fprintf(stderr,
                    "usage: %s [-t ranks] [-c count] [-o op,...] [-d type,...] "
                    "[-r sum,prod,max,min] [-T rank table]\n",
                    argv[0]);
            return 2;
        }
    }
    if (sh.n < 2 || sh.n > MAX_RANKS || sh.count < 8 ||
        select_names(ops, op_names, OP_N, op_on) != 0 ||
        select_names(dts, type_names, N_TYPES, type_on) != 0 ||
        select_names(ros, redop_names, N_REDOPS, redop_on) != 0) {
        fprintf(stderr,
                "%s: bad arguments (2..%d ranks, count >= 8, names of ops, types, "
                "reduce ops)\n",
                argv[0], MAX_RANKS);
        return 2;
    }
    /* "hccl" when HcclAllReduce comes from HCCL's library, "hcemu" from hcemu's. */
    if (dladdr((void *)HcclAllReduce, &info) != 0 && info.dli_fname != NULL)
        lib_name = strstr(info.dli_fname, "libhccl.so") != NULL ? "hccl" : "hcemu";
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        HcclGetRootInfo(&sh.root) != HCCL_SUCCESS) {
        fprintf(stderr, "%s: cannot make the root info\n", argv[0]);
        return 1;
    }
    pthread_barrier_init(&sh.bar, NULL, sh.n);
    for (uint32_t i = 0; i < sh.n; i++) {
        ranks[i] = (struct rank){.rank = i, .sh = &sh};
        if (pthread_create(&tid[i], NULL, rank_main, &ranks[i]) != 0)
            return 1;
    }
    for (uint32_t i = 0; i < sh.n; i++) {
        pthread_join(tid[i], NULL);
        any_failed |= ranks[i].failed;
    }
    pthread_barrier_destroy(&sh.bar);
    aclrtResetDevice(0);
    aclFinalize();
    return any_failed;
}
