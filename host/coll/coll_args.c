/* coll_args.c - the argument checks of the built-in collective operators of hccl.h
 * (HcclAllReduce, ..., HcclBatchSendRecv, HcclBarrier), with the vendor's codes and one log
 * line each, and the operator's mesh plan (struct emu_coll_op) for coll_plan.c, which picks
 * the algorithm and queues the launches on the stream. api_coll.c forwards here.
 * Codes: NULL comm/stream/buffer/array -> HCCL_E_PTR; bad count, type, op, root, rank,
 * alignment, aliasing or a buffer that is not device memory of the rank's device ->
 * HCCL_E_PARA; int128, and fp8/hif8 in a reduction -> HCCL_E_NOT_SUPPORT (the moving
 * operators take fp8/hif8 as bytes). Zero counts succeed without work. */
#include <hccl/hccl.h>

#include <stddef.h>
#include <string.h>

#include "coll.h"
#include "coll_args.h"
#include "coll_check.h"
#include "host/hccl/hccl.h"
#include "host/acl/mem.h"
#include "host/acl/stream.h"

/* ---- shared checks ------------------------------------------------------------------------ */

/* Drops the reference emu_hccl_enter took; the boundary converts the status. */
static emu_status leave(struct emu_comm *c, emu_status s)
{
    if (c != NULL)
        emu_comm_put(c);
    return s;
}

static emu_status enter(HcclComm comm, aclrtStream stream, const char *fn, struct emu_comm **c)
{
    emu_status s = emu_hccl_enter(comm, fn, c);

    if (s != EMU_OK)
        return s;
    struct emu_hstream *hs;
    if (stream == NULL)
        s = emu_hccl_null(*c, fn, "stream");
    else if (!emu_stream_lookup(stream, &hs))
        s = emu_hccl_bad(*c, fn, "stream %p is not a live stream", stream);
    else if (hs->dev != (*c)->d->id)
        s = emu_hccl_bad(*c, fn, "stream %p belongs to device %u, not to device %u of rank %u",
                         stream, hs->dev, (*c)->d->id, (*c)->rank);
    if (s != EMU_OK)
        emu_comm_put(*c);
    return s;
}

/* Bytes per element of type t. Operators that only move data take the 1-byte float formats
 * (hif8, fp8) as bytes, as HCCL does; reductions on them and int128 anywhere are refused
 * with HCCL_E_NOT_SUPPORT, as HCCL's own type check refuses them. */
static emu_status dtype_size(const struct emu_comm *c, const char *fn, const char *what,
                             HcclDataType t, bool reducing, uint32_t *esz)
{
    *esz = hcoll_dtype_size((uint32_t)t);
    if (*esz != 0)
        return EMU_OK;
    switch (t) {
    case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3:
    case HCCL_DATA_TYPE_FP8E5M2:
    case HCCL_DATA_TYPE_FP8E8M0:
        if (!reducing) {
            *esz = 1;
            return EMU_OK;
        }
        EMU_LOG_ERR("%s: rank %u: %s %d (hif8/fp8) is not supported in a reduction (HCCL "
                    "refuses it too)",
                    fn, c->rank, what, (int)t);
        return EMU_ENOTSUP;
    case HCCL_DATA_TYPE_INT128:
        EMU_LOG_ERR("%s: rank %u: %s %d (int128) is not supported (HCCL refuses it too)", fn,
                    c->rank, what, (int)t);
        return EMU_ENOTSUP;
    default:
        return emu_hccl_bad(c, fn, "%s %d is not an HcclDataType", what, (int)t);
    }
}

static emu_status check_op(const struct emu_comm *c, const char *fn, HcclReduceOp op)
{
    if (op == HCCL_REDUCE_SUM || op == HCCL_REDUCE_PROD || op == HCCL_REDUCE_MAX ||
        op == HCCL_REDUCE_MIN)
        return EMU_OK;
    return emu_hccl_bad(c, fn, "op %d is not sum, prod, max or min", (int)op);
}

static emu_status check_rank(const struct emu_comm *c, const char *fn, const char *what, uint32_t r)
{
    if (r < c->size)
        return EMU_OK;
    return emu_hccl_bad(c, fn, "%s %u is not below the rank size %u", what, r, c->size);
}

/* elems * esz (* n) without overflow. */
static emu_status bytes_of(const struct emu_comm *c, const char *fn, uint64_t elems, uint32_t esz,
                           uint64_t n, uint64_t *out)
{
    if (elems > UINT64_MAX / esz / n)
        return emu_hccl_bad(c, fn, "count %llu is too large", (unsigned long long)elems);
    *out = elems * esz * n;
    return EMU_OK;
}

/* [p, p+bytes) must be device memory of this rank's device, aligned to the element size. */
static emu_status check_buf(const struct emu_comm *c, const char *fn, const char *what,
                            const void *p, uint64_t bytes, uint32_t esz)
{
    struct emu_mem_ref ref;
    emu_status s;

    if (bytes == 0)
        return EMU_OK;
    if (p == NULL)
        return emu_hccl_null(c, fn, what);
    if ((uintptr_t)p % esz != 0)
        return emu_hccl_bad(c, fn, "%s %p is not aligned to its %u-byte elements", what, p, esz);
    if ((s = emu_mem_resolve(p, bytes, what, &ref)) != EMU_OK)
        return s;
    if (ref.dev != (int)c->d->id)
        return emu_hccl_bad(c, fn, "%s %p is not device memory of device %u (rank %u)", what, p,
                            c->d->id, c->rank);
    return EMU_OK;
}

static bool overlap(const void *a, uint64_t alen, const void *b, uint64_t blen)
{
    const uint8_t *x = a, *y = b;

    return alen > 0 && blen > 0 && x < y + blen && y < x + alen;
}

static void op_init(struct emu_coll_op *op, const struct emu_comm *c, enum emu_coll_kind kind,
                    const char *fn)
{
    memset(op, 0, offsetof(struct emu_coll_op, peers));
    emu_coll_pairs_zero(op->pairs, c->size);
    op->npeers = 0;
    op->kind = kind;
    op->fn = fn;
    for (uint32_t p = 0; p < c->size; p++)
        if (p != c->rank)
            op->peers[op->npeers++] = p;
}

static emu_status finish(struct emu_comm *c, aclrtStream stream, struct emu_coll_op *op,
                         emu_status s)
{
    if (s == EMU_OK)
        s = emu_coll_check_op(c, op);
    if (s == EMU_OK)
        s = emu_coll_execute(c, stream, op);
    return leave(c, s);
}

/* The (count, type) checks shared by the reducing and moving operators with one buffer pair:
 * type, op (when reducing), the sizes in bytes of send (count * sendMul) and recv. */
struct shape {
    uint64_t count;
    HcclDataType type;
    int op; /* -1: not reducing */
    uint64_t send_mul, recv_mul;
    uint64_t send_bytes, recv_bytes;
};

static emu_status check_shape(const struct emu_comm *c, const char *fn, struct shape *sh,
                              struct emu_coll_op *op)
{
    emu_status s;

    if ((s = dtype_size(c, fn, "dataType", sh->type, sh->op >= 0, &op->esz)) != EMU_OK ||
        (sh->op >= 0 && (s = check_op(c, fn, (HcclReduceOp)sh->op)) != EMU_OK) ||
        (s = bytes_of(c, fn, sh->count, op->esz, sh->send_mul, &sh->send_bytes)) != EMU_OK ||
        (s = bytes_of(c, fn, sh->count, op->esz, sh->recv_mul, &sh->recv_bytes)) != EMU_OK)
        return s;
    op->count = sh->count;
    op->dtype = (uint32_t)sh->type;
    op->op = sh->op >= 0 ? (uint32_t)sh->op : 0;
    return EMU_OK;
}

/* ---- reducing operators ------------------------------------------------------------------- */

emu_status emu_coll_args_allreduce(void *sendBuf, void *recvBuf, uint64_t count,
                                   HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                   aclrtStream stream)
{
    static const char fn[] = "HcclAllReduce";
    struct emu_comm *c;
    struct emu_coll_op o;
    struct shape sh = {count, dataType, (int)op, 1, 1, 0, 0};
    emu_status s;

    if ((s = enter(comm, stream, fn, &c)) != EMU_OK)
        return leave(NULL, s);
    op_init(&o, c, EMU_COLL_ALLREDUCE, fn);
    if ((s = check_shape(c, fn, &sh, &o)) != EMU_OK ||
        (s = check_buf(c, fn, "sendBuf", sendBuf, sh.send_bytes, o.esz)) != EMU_OK ||
        (s = check_buf(c, fn, "recvBuf", recvBuf, sh.recv_bytes, o.esz)) != EMU_OK)
        return leave(c, s);
    if (sendBuf != recvBuf && overlap(sendBuf, sh.send_bytes, recvBuf, sh.recv_bytes))
        return leave(c, emu_hccl_bad(c, fn, "sendBuf and recvBuf overlap partially"));
    if (count == 0)
        return leave(c, emu_coll_check_op(c, &o)); /* zero counts: checked, no work */
    o.in = sendBuf;
    o.out = recvBuf;
    return finish(c, stream, &o, EMU_OK);
}

emu_status emu_coll_args_reduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream)
{
    static const char fn[] = "HcclReduce";
    struct emu_comm *c;
    struct emu_coll_op o;
    struct shape sh = {count, dataType, (int)op, 1, 1, 0, 0};
    emu_status s;

    if ((s = enter(comm, stream, fn, &c)) != EMU_OK)
        return leave(NULL, s);
    op_init(&o, c, EMU_COLL_REDUCE, fn);
    bool is_root = root == c->rank;
    if ((s = check_shape(c, fn, &sh, &o)) != EMU_OK || (s = check_rank(c, fn, "root", root)) ||
        (s = check_buf(c, fn, "sendBuf", sendBuf, sh.send_bytes, o.esz)) != EMU_OK ||
        (is_root && (s = check_buf(c, fn, "recvBuf", recvBuf, sh.recv_bytes, o.esz)) != EMU_OK))
        return leave(c, s);
    if (is_root && sendBuf != recvBuf && overlap(sendBuf, sh.send_bytes, recvBuf, sh.recv_bytes))
        return leave(c, emu_hccl_bad(c, fn, "sendBuf and recvBuf overlap partially"));
    if (count == 0)
        return leave(c, emu_coll_check_op(c, &o)); /* zero counts: checked, no work */
    o.in = sendBuf;
    o.out = is_root ? recvBuf : NULL;
    o.root = root;
    o.reduce = true;
    for (uint32_t p = 0; p < c->size; p++)
        if (is_root)
            o.pairs[p] = (struct hcoll_pair){0, p == root ? sh.send_bytes : 0, 0, sh.recv_bytes};
        else if (p == root || p == c->rank)
            o.pairs[p] = (struct hcoll_pair){0, sh.send_bytes, 0, 0};
    return finish(c, stream, &o, EMU_OK);
}

/* Reduce-scatter with per-rank counts and offsets (elements): the plan of both variants. */
static void plan_reduce_scatter(struct emu_coll_op *o, const struct emu_comm *c,
                                const uint64_t *counts, const uint64_t *displs)
{
    uint64_t mine = counts[c->rank] * o->esz;

    for (uint32_t p = 0; p < c->size; p++)
        o->pairs[p] = (struct hcoll_pair){displs[p] * o->esz, counts[p] * o->esz, 0, mine};
    o->reduce = true;
}

emu_status emu_coll_args_reduce_scatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                                        HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                        aclrtStream stream)
{
    static const char fn[] = "HcclReduceScatter";
    struct emu_comm *c;
    struct emu_coll_op o;
    emu_status s;

    if ((s = enter(comm, stream, fn, &c)) != EMU_OK)
        return leave(NULL, s);
    struct shape sh = {recvCount, dataType, (int)op, c->size, 1, 0, 0};
    op_init(&o, c, EMU_COLL_REDUCE_SCATTER, fn);
    if ((s = check_shape(c, fn, &sh, &o)) != EMU_OK ||
        (s = check_buf(c, fn, "sendBuf", sendBuf, sh.send_bytes, o.esz)) != EMU_OK ||
        (s = check_buf(c, fn, "recvBuf", recvBuf, sh.recv_bytes, o.esz)) != EMU_OK)
        return leave(c, s);
    /* In place means recvBuf is this rank's block of sendBuf (integers: either may be NULL
     * with a zero count, and NULL + 0 is undefined in C). */
    uintptr_t mine = (uintptr_t)sendBuf + c->rank * sh.recv_bytes;
    if (mine != (uintptr_t)recvBuf && overlap(sendBuf, sh.send_bytes, recvBuf, sh.recv_bytes))
        return leave(c, emu_hccl_bad(c, fn,
                                     "recvBuf overlaps sendBuf other than at "
                                     "this rank's block"));
    if (recvCount == 0)
        return leave(c, emu_coll_check_op(c, &o)); /* zero counts: checked, no work */
    static _Thread_local uint64_t counts[HCOLL_MAX_RANKS], displs[HCOLL_MAX_RANKS];
    for (uint32_t p = 0; p < c->size; p++) {
        counts[p] = recvCount;
        displs[p] = p * recvCount;
    }
    o.in = sendBuf;
    o.out = recvBuf;
    o.count = recvCount;
    plan_reduce_scatter(&o, c, counts, displs);
    return finish(c, stream, &o, EMU_OK);
}

/* Per-rank counts and displacements (elements): each range inside a buffer of `total`
 * elements; returns the total needed in *extent. */
static emu_status check_vector(const struct emu_comm *c, const char *fn, const char *what,
                               const uint64_t *counts, const uint64_t *displs, uint64_t *extent)
{
    *extent = 0;
    for (uint32_t p = 0; p < c->size; p++) {
        if (counts[p] > UINT64_MAX / 16 || displs[p] > UINT64_MAX / 16)
            return emu_hccl_bad(c, fn, "%s[%u] is too large", what, p);
        if (counts[p] > 0 && counts[p] + displs[p] > *extent)
            *extent = counts[p] + displs[p];
    }
    return EMU_OK;
}

emu_status emu_coll_args_reduce_scatter_v(void *sendBuf, const void *sendCounts,
                                          const void *sendDispls, void *recvBuf, uint64_t recvCount,
                                          HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                          aclrtStream stream)
{
    static const char fn[] = "HcclReduceScatterV";
    const uint64_t *counts = sendCounts, *displs = sendDispls;
    struct emu_comm *c;
    struct emu_coll_op o;
    uint64_t extent = 0, send_bytes = 0;
    emu_status s;

    if ((s = enter(comm, stream, fn, &c)) != EMU_OK)
        return leave(NULL, s);
    struct shape sh = {recvCount, dataType, (int)op, 1, 1, 0, 0};
    op_init(&o, c, EMU_COLL_P2P, fn);
    if ((s = EMU_HCCL_NONNULL(c, sendCounts, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, sendDispls, fn)) != EMU_OK ||
        (s = check_shape(c, fn, &sh, &o)) != EMU_OK ||
        (s = check_vector(c, fn, "sendCounts/sendDispls", counts, displs, &extent)) != EMU_OK ||
        (s = bytes_of(c, fn, extent, o.esz, 1, &send_bytes)) != EMU_OK ||
        (s = check_buf(c, fn, "sendBuf", sendBuf, send_bytes, o.esz)) != EMU_OK ||
        (s = check_buf(c, fn, "recvBuf", recvBuf, sh.recv_bytes, o.esz)) != EMU_OK)
        return leave(c, s);
    if (counts[c->rank] != recvCount)
        return leave(c, emu_hccl_bad(c, fn,
                                     "recvCount %llu differs from sendCounts[%u] "
                                     "%llu",
                                     (unsigned long long)recvCount, c->rank,
                                     (unsigned long long)counts[c->rank]));
    if (overlap(sendBuf, send_bytes, recvBuf, sh.recv_bytes))
        return leave(c, emu_hccl_bad(c, fn, "sendBuf and recvBuf must not overlap"));
    if (extent == 0)
        return leave(c, emu_coll_check_op(c, &o)); /* zero counts: checked, no work */
    o.in = sendBuf;
    o.out = recvBuf;
    plan_reduce_scatter(&o, c, counts, displs);
    return finish(c, stream, &o, EMU_OK);
}

/* ---- moving operators --------------------------------------------------------------------- */

emu_status emu_coll_args_broadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root,
                                   HcclComm comm, aclrtStream stream)
{
    static const char fn[] = "HcclBroadcast";
    struct emu_comm *c;
    struct emu_coll_op o;
    struct shape sh = {count, dataType, -1, 1, 1, 0, 0};
    emu_status s;

    if ((s = enter(comm, stream, fn, &c)) != EMU_OK)
        return leave(NULL, s);
    op_init(&o, c, EMU_COLL_BROADCAST, fn);
    if ((s = check_shape(c, fn, &sh, &o)) != EMU_OK || (s = check_rank(c, fn, "root", root)) ||
        (s = check_buf(c, fn, "buf", buf, sh.send_bytes, o.esz)) != EMU_OK)
        return leave(c, s);
    if (count == 0)
        return leave(c, emu_coll_check_op(c, &o)); /* zero counts: checked, no work */
    o.in = o.out = buf;
    o.root = root;
    return finish(c, stream, &o, EMU_OK);
}

emu_status emu_coll_args_scatter(void *sendBuf, void *recvBuf, uint64_t recvCount,
                                 HcclDataType dataType, uint32_t root, HcclComm comm,
                                 aclrtStream stream)
{
    static const char fn[] = "HcclScatter";
    struct emu_comm *c;
    struct emu_coll_op o;
    emu_status s;

    if ((s = enter(comm, stream, fn, &c)) != EMU_OK)
        return leave(NULL, s);
    struct shape sh = {recvCount, dataType, -1, c->size, 1, 0, 0};
    op_init(&o, c, EMU_COLL_SCATTER, fn);
    bool is_root = root == c->rank;
    if ((s = check_shape(c, fn, &sh, &o)) != EMU_OK || (s = check_rank(c, fn, "root", root)) ||
        (is_root && (s = check_buf(c, fn, "sendBuf", sendBuf, sh.send_bytes, o.esz)) != EMU_OK) ||
        (s = check_buf(c, fn, "recvBuf", recvBuf, sh.recv_bytes, o.esz)) != EMU_OK)
        return leave(c, s);
    uint64_t b = sh.recv_bytes;
    if (is_root && (uintptr_t)recvBuf != (uintptr_t)sendBuf + c->rank * b &&
        overlap(sendBuf, sh.send_bytes, recvBuf, b))
        return leave(c, emu_hccl_bad(c, fn,
                                     "recvBuf overlaps sendBuf other than at "
                                     "the root's block"));
    if (recvCount == 0)
        return leave(c, emu_coll_check_op(c, &o)); /* zero counts: checked, no work */
    o.in = is_root ? sendBuf : NULL;
    o.out = recvBuf;
    o.root = root;
    for (uint32_t p = 0; p < c->size; p++)
        if (is_root)
            o.pairs[p] = (struct hcoll_pair){p * b, b, 0, p == root ? b : 0};
        else if (p == root)
            o.pairs[p] = (struct hcoll_pair){0, 0, 0, b};
    return finish(c, stream, &o, EMU_OK);
}

emu_status emu_coll_args_allgather(void *sendBuf, void *recvBuf, uint64_t sendCount,
                                   HcclDataType dataType, HcclComm comm, aclrtStream stream)
{
    static const char fn[] = "HcclAllGather";
    struct emu_comm *c;
    struct emu_coll_op o;
    emu_status s;

    if ((s = enter(comm, stream, fn, &c)) != EMU_OK)
        return leave(NULL, s);
    struct shape sh = {sendCount, dataType, -1, 1, c->size, 0, 0};
    op_init(&o, c, EMU_COLL_ALLGATHER, fn);
    if ((s = check_shape(c, fn, &sh, &o)) != EMU_OK ||
        (s = check_buf(c, fn, "sendBuf", sendBuf, sh.send_bytes, o.esz)) != EMU_OK ||
        (s = check_buf(c, fn, "recvBuf", recvBuf, sh.recv_bytes, o.esz)) != EMU_OK)
        return leave(c, s);
    if ((uintptr_t)sendBuf != (uintptr_t)recvBuf + c->rank * sh.send_bytes &&
        overlap(sendBuf, sh.send_bytes, recvBuf, sh.recv_bytes))
        return leave(c, emu_hccl_bad(c, fn,
                                     "sendBuf overlaps recvBuf other than at "
                                     "this rank's block"));
    if (sendCount == 0)
        return leave(c, emu_coll_check_op(c, &o)); /* zero counts: checked, no work */
    o.in = sendBuf;
    o.out = recvBuf;
    return finish(c, stream, &o, EMU_OK);
}

emu_status emu_coll_args_allgather_v(void *sendBuf, uint64_t sendCount, void *recvBuf,
                                     const void *recvCounts, const void *recvDispls,
                                     HcclDataType dataType, HcclComm comm, aclrtStream stream)
{
    static const char fn[] = "HcclAllGatherV";
    const uint64_t *counts = recvCounts, *displs = recvDispls;
    struct emu_comm *c;
    struct emu_coll_op o;
    uint64_t extent = 0, recv_bytes = 0;
    emu_status s;

    if ((s = enter(comm, stream, fn, &c)) != EMU_OK)
        return leave(NULL, s);
    struct shape sh = {sendCount, dataType, -1, 1, 1, 0, 0};
    op_init(&o, c, EMU_COLL_P2P, fn);
    if ((s = EMU_HCCL_NONNULL(c, recvCounts, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, recvDispls, fn)) != EMU_OK ||
        (s = check_shape(c, fn, &sh, &o)) != EMU_OK ||
        (s = check_vector(c, fn, "recvCounts/recvDispls", counts, displs, &extent)) != EMU_OK ||
        (s = bytes_of(c, fn, extent, o.esz, 1, &recv_bytes)) != EMU_OK ||
        (s = check_buf(c, fn, "sendBuf", sendBuf, sh.send_bytes, o.esz)) != EMU_OK ||
        (s = check_buf(c, fn, "recvBuf", recvBuf, recv_bytes, o.esz)) != EMU_OK)
        return leave(c, s);
    if (counts[c->rank] != sendCount)
        return leave(c, emu_hccl_bad(c, fn,
                                     "sendCount %llu differs from recvCounts[%u] "
                                     "%llu",
                                     (unsigned long long)sendCount, c->rank,
                                     (unsigned long long)counts[c->rank]));
    if (overlap(sendBuf, sh.send_bytes, recvBuf, recv_bytes))
        return leave(c, emu_hccl_bad(c, fn, "sendBuf and recvBuf must not overlap"));
    if (extent == 0)
        return leave(c, emu_coll_check_op(c, &o)); /* zero counts: checked, no work */
    o.in = sendBuf;
    o.out = recvBuf;
    for (uint32_t p = 0; p < c->size; p++)
        o.pairs[p] = (struct hcoll_pair){0, sh.send_bytes, displs[p] * o.esz, counts[p] * o.esz};
    return finish(c, stream, &o, EMU_OK);
}

/* Alltoall family: one check of both types, then per-peer counts and displacements. */
static emu_status check_a2a_types(const struct emu_comm *c, const char *fn, HcclDataType st,
                                  HcclDataType rt, struct emu_coll_op *o)
{
    emu_status s = dtype_size(c, fn, "sendType", st, false, &o->esz);

    if (s == EMU_OK && st != rt)
        s = emu_hccl_bad(c, fn, "recvType %d differs from sendType %d", (int)rt, (int)st);
    o->dtype = (uint32_t)st;
    return s;
}

/* Checks both buffers against the extents (elements) and fills the plan. */
static emu_status a2a_finish(const struct emu_comm *c, const char *fn, struct emu_coll_op *o,
                             const void *sendBuf, const void *recvBuf, const uint64_t *sc,
                             const uint64_t *sd, const uint64_t *rc, const uint64_t *rd,
                             bool *empty)
{
    uint64_t sext = 0, rext = 0, sbytes = 0, rbytes = 0;
    emu_status s;

    if ((s = check_vector(c, fn, "send counts/displacements", sc, sd, &sext)) != EMU_OK ||
        (s = check_vector(c, fn, "recv counts/displacements", rc, rd, &rext)) != EMU_OK ||
        (s = bytes_of(c, fn, sext, o->esz, 1, &sbytes)) != EMU_OK ||
        (s = bytes_of(c, fn, rext, o->esz, 1, &rbytes)) != EMU_OK ||
        (s = check_buf(c, fn, "sendBuf", sendBuf, sbytes, o->esz)) != EMU_OK ||
        (s = check_buf(c, fn, "recvBuf", recvBuf, rbytes, o->esz)) != EMU_OK)
        return s;
    if (overlap(sendBuf, sbytes, recvBuf, rbytes))
        return emu_hccl_bad(c, fn, "sendBuf and recvBuf must not overlap");
    if (sc[c->rank] != rc[c->rank])
        return emu_hccl_bad(c, fn, "this rank sends %llu elements to itself but receives %llu",
                            (unsigned long long)sc[c->rank], (unsigned long long)rc[c->rank]);
    o->in = (uint8_t *)sendBuf;
    o->out = (uint8_t *)recvBuf;
    /* Only peers with something to exchange: a rank with nothing to do queues nothing, so
     * nobody may wait for its channels (the counts are symmetric between two ranks). */
    o->npeers = 0;
    for (uint32_t p = 0; p < c->size; p++) {
        o->pairs[p] =
            (struct hcoll_pair){sd[p] * o->esz, sc[p] * o->esz, rd[p] * o->esz, rc[p] * o->esz};
        if (p != c->rank && (sc[p] > 0 || rc[p] > 0))
            o->peers[o->npeers++] = p;
    }
    *empty = sext == 0 && rext == 0;
    return EMU_OK;
}

emu_status emu_coll_args_alltoall(const void *sendBuf, uint64_t sendCount, HcclDataType sendType,
                                  const void *recvBuf, uint64_t recvCount, HcclDataType recvType,
                                  HcclComm comm, aclrtStream stream)
{
    static const char fn[] = "HcclAlltoAll";
    static _Thread_local uint64_t cnt[HCOLL_MAX_RANKS], dsp[HCOLL_MAX_RANKS];
    struct emu_comm *c;
    struct emu_coll_op o;
    bool empty = false;
    emu_status s;

    if ((s = enter(comm, stream, fn, &c)) != EMU_OK)
        return leave(NULL, s);
    op_init(&o, c, EMU_COLL_ALLTOALL, fn);
    if ((s = check_a2a_types(c, fn, sendType, recvType, &o)) != EMU_OK)
        return leave(c, s);
    if (sendCount != recvCount || sendCount > UINT64_MAX / 16 / HCOLL_MAX_RANKS)
        return leave(c, emu_hccl_bad(c, fn,
                                     "sendCount %llu and recvCount %llu must be "
                                     "equal and not too large",
                                     (unsigned long long)sendCount, (unsigned long long)recvCount));
    for (uint32_t p = 0; p < c->size; p++) {
        cnt[p] = sendCount;
        dsp[p] = p * sendCount;
    }
    s = a2a_finish(c, fn, &o, sendBuf, recvBuf, cnt, dsp, cnt, dsp, &empty);
    if (s != EMU_OK || empty)
        return leave(c, s != EMU_OK ? s : emu_coll_check_op(c, &o));
    return finish(c, stream, &o, EMU_OK);
}

emu_status emu_coll_args_alltoall_v(const void *sendBuf, const void *sendCounts,
                                    const void *sdispls, HcclDataType sendType, const void *recvBuf,
                                    const void *recvCounts, const void *rdispls,
                                    HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    static const char fn[] = "HcclAlltoAllV";
    struct emu_comm *c;
    struct emu_coll_op o;
    bool empty = false;
    emu_status s;

    if ((s = enter(comm, stream, fn, &c)) != EMU_OK)
        return leave(NULL, s);
    op_init(&o, c, EMU_COLL_P2P, fn);
    if ((s = EMU_HCCL_NONNULL(c, sendCounts, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, sdispls, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, recvCounts, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, rdispls, fn)) != EMU_OK ||
        (s = check_a2a_types(c, fn, sendType, recvType, &o)) != EMU_OK ||
        (s = a2a_finish(c, fn, &o, sendBuf, recvBuf, sendCounts, sdispls, recvCounts, rdispls,
                        &empty)) != EMU_OK ||
        empty)
        return leave(c, s != EMU_OK ? s : emu_coll_check_op(c, &o));
    return finish(c, stream, &o, EMU_OK);
}

emu_status emu_coll_args_alltoall_vc(const void *sendBuf, const void *sendCountMatrix,
                                     HcclDataType sendType, const void *recvBuf,
                                     HcclDataType recvType, HcclComm comm, aclrtStream stream)
{
    static const char fn[] = "HcclAlltoAllVC";
    static _Thread_local uint64_t sc[HCOLL_MAX_RANKS], sd[HCOLL_MAX_RANKS], rc[HCOLL_MAX_RANKS],
        rd[HCOLL_MAX_RANKS];
    const uint64_t *m = sendCountMatrix;
    struct emu_comm *c;
    struct emu_coll_op o;
    bool empty = false;
    emu_status s;

    if ((s = enter(comm, stream, fn, &c)) != EMU_OK)
        return leave(NULL, s);
    op_init(&o, c, EMU_COLL_P2P, fn);
    if ((s = EMU_HCCL_NONNULL(c, sendCountMatrix, fn)) != EMU_OK ||
        (s = check_a2a_types(c, fn, sendType, recvType, &o)) != EMU_OK)
        return leave(c, s);
    uint32_t n = c->size, me = c->rank;
    for (uint32_t p = 0; p < n; p++) {
        if (m[me * n + p] > UINT64_MAX / 16 / HCOLL_MAX_RANKS ||
            m[p * n + me] > UINT64_MAX / 16 / HCOLL_MAX_RANKS)
            return leave(c, emu_hccl_bad(c, fn, "sendCountMatrix has a count too large"));
        sc[p] = m[me * n + p];
        rc[p] = m[p * n + me];
        sd[p] = p == 0 ? 0 : sd[p - 1] + sc[p - 1];
        rd[p] = p == 0 ? 0 : rd[p - 1] + rc[p - 1];
    }
    if ((s = a2a_finish(c, fn, &o, sendBuf, recvBuf, sc, sd, rc, rd, &empty)) != EMU_OK || empty)
        return leave(c, s != EMU_OK ? s : emu_coll_check_op(c, &o));
    return finish(c, stream, &o, EMU_OK);
}

/* ---- point to point ----------------------------------------------------------------------- */

/* Items of one (comm, stream) as one launch: sends and receives with any peers, at most one
 * of each direction per peer. */
static emu_status batch(struct emu_comm *c, const HcclSendRecvItem *items, uint32_t n,
                        const char *fn, struct emu_coll_op *o)
{
    uint8_t *base = NULL;
    bool busy[2][HCOLL_MAX_RANKS] = {{false}};
    emu_status s;

    op_init(o, c, EMU_COLL_P2P, fn);
    o->npeers = 0;
    o->esz = 1;
    for (uint32_t i = 0; i < n; i++) {
        const HcclSendRecvItem *it = &items[i];
        uint32_t esz = 0;
        uint64_t bytes = 0;
        int dir = it->sendRecvType == HCCL_SEND ? 0 : 1;
        if (it->sendRecvType != HCCL_SEND && it->sendRecvType != HCCL_RECV)
            return emu_hccl_bad(c, fn,
                                "item %u: sendRecvType %d is neither HCCL_SEND nor "
                                "HCCL_RECV",
                                i, (int)it->sendRecvType);
        if ((s = check_rank(c, fn, "remoteRank", it->remoteRank)) != EMU_OK ||
            (s = dtype_size(c, fn, "dataType", it->dataType, false, &esz)) != EMU_OK ||
            (s = bytes_of(c, fn, it->count, esz, 1, &bytes)) != EMU_OK ||
            (s = check_buf(c, fn, "buf", it->buf, bytes, esz)) != EMU_OK)
            return s;
        if (it->remoteRank == c->rank)
            return emu_hccl_bad(c, fn, "item %u: remoteRank %u is this rank", i, c->rank);
        if (busy[dir][it->remoteRank]) {
            EMU_LOG_ERR("%s: rank %u: more than one %s with rank %u in one batch is not "
                        "supported by hcemu",
                        fn, c->rank, dir ? "receive" : "send", it->remoteRank);
            return EMU_ENOTSUP;
        }
        busy[dir][it->remoteRank] = true;
        if (bytes > 0 && (base == NULL || (uint8_t *)it->buf < base))
            base = it->buf;
    }
    /* Offsets relative to the lowest buffer: every item's address is in or above it. */
    o->in = o->out = base;
    for (uint32_t i = 0; i < n; i++) {
        const HcclSendRecvItem *it = &items[i];
        struct hcoll_pair *pr = &o->pairs[it->remoteRank];
        uint32_t esz = 0;
        if (dtype_size(c, fn, "dataType", it->dataType, false, &esz) != EMU_OK || it->count == 0)
            continue;
        uint64_t off = (uint64_t)((uint8_t *)it->buf - base), len = it->count * esz;
        if (it->sendRecvType == HCCL_SEND)
            pr->send_off = off, pr->send_len = len;
        else
            pr->recv_off = off, pr->recv_len = len;
        bool known = false;
        for (uint32_t k = 0; k < o->npeers; k++)
            known |= o->peers[k] == it->remoteRank;
        if (!known)
            o->peers[o->npeers++] = it->remoteRank;
    }
    return EMU_OK;
}

emu_status emu_coll_batch(HcclComm comm, aclrtStream stream, const HcclSendRecvItem *items,
                          uint32_t n, const char *fn)
{
    struct emu_comm *c;
    struct emu_coll_op o;
    emu_status s;

    if ((s = enter(comm, stream, fn, &c)) != EMU_OK)
        return s;
    if ((s = batch(c, items, n, fn, &o)) == EMU_OK && o.npeers > 0)
        s = emu_coll_execute(c, stream, &o);
    emu_comm_put(c);
    return s;
}

emu_status emu_coll_args_batch_send_recv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum,
                                         HcclComm comm, aclrtStream stream)
{
    static const char fn[] = "HcclBatchSendRecv";

    if (itemNum > 0 && sendRecvInfo == NULL) {
        struct emu_comm *c;
        emu_status s = enter(comm, stream, fn, &c);
        if (s != EMU_OK)
            return leave(NULL, s);
        return leave(c, emu_hccl_null(c, fn, "sendRecvInfo"));
    }
    return leave(NULL, emu_coll_batch(comm, stream, sendRecvInfo, itemNum, fn));
}

emu_status emu_coll_args_barrier(HcclComm comm, aclrtStream stream)
{
    static const char fn[] = "HcclBarrier";
    struct emu_comm *c;
    struct emu_coll_op o;
    emu_status s;

    if ((s = enter(comm, stream, fn, &c)) != EMU_OK)
        return leave(NULL, s);
    op_init(&o, c, EMU_COLL_BARRIER, fn);
    return finish(c, stream, &o, EMU_OK);
}
