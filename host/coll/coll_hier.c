/* coll_hier.c - the hierarchical forms of the built-in collectives, for communicators whose
 * ranks span several servers (layer 0 of the rank graph has several instances: an
 * HCEMU_TOPOLOGY split, or ranks on different hosts). Links inside a server (UB) are fast and
 * one per peer; a device's inter-server port (RoCE/UBoE) is shared by all its flows to other
 * servers, so the bytes that cross it decide large calls. Both forms need every server to
 * hold the same number m of ranks (rank (s, l): local index l on server s); each is a few
 * PAIRS launches over subsets of the peers:
 *
 * allreduce: reduce-scatter inside each server (block l of m to local rank l), allreduce of
 *   block l among the ranks of local index l on every server, allgather inside each server.
 *   A device's port carries S/m bytes each way instead of (n - m) / n of S (mesh).
 * allgather: every rank swaps its block with its server peers and with its counterparts (same
 *   local index) on the other servers at once, then forwards each counterpart's block to its
 *   server peers, one launch per other server. A device's port carries one block each way per
 *   other server instead of m. */
#include "coll.h"
#include "collectives/coll_steps.h"

bool emu_coll_hier_applies(const struct emu_coll_servers *sv)
{
    return sv->n >= 2 && sv->per >= 2;
}

static emu_status pairs(struct emu_coll_state *st, aclrtStream stream, const struct emu_coll_op *op,
                        const struct hcoll_pair *p, uint8_t *in, uint8_t *out, uint32_t mode)
{
    struct hcoll_args a;

    emu_coll_args_init(&a, op, st, HCOLL_ENGINE_PAIRS, mode);
    a.in = in;
    a.out = out;
    emu_coll_pairs_copy(a.pairs, p, emu_coll_size(st));
    return emu_coll_launch_run(st, stream, &a, op->fn);
}

emu_status emu_coll_hier_allreduce(struct emu_coll_state *st, aclrtStream stream,
                                   const struct emu_coll_op *op, const struct emu_coll_servers *sv)
{
    uint32_t me = emu_coll_rank(st), n = emu_coll_size(st), m = sv->per;
    uint32_t s = sv->server[me], l = sv->local[me];
    struct hcoll_pair rs[HCOLL_MAX_RANKS], ar[HCOLL_MAX_RANKS], ag[HCOLL_MAX_RANKS];
    uint64_t moff, mlen;
    emu_status e;

    emu_coll_pairs_zero(rs, n);
    emu_coll_pairs_zero(ar, n);
    emu_coll_pairs_zero(ag, n);
    hcoll_block(op->count, m, l, op->esz, &moff, &mlen);
    for (uint32_t q = 0; q < n; q++) {
        uint64_t off, len;
        if (q == me) {
            rs[q] = (struct hcoll_pair){moff, mlen, moff, mlen};
            ar[q] = rs[q];
        } else if (sv->server[q] == s) {
            hcoll_block(op->count, m, sv->local[q], op->esz, &off, &len);
            rs[q] = (struct hcoll_pair){off, len, moff, mlen};
            ag[q] = (struct hcoll_pair){moff, mlen, off, len};
        } else if (sv->local[q] == l) {
            ar[q] = (struct hcoll_pair){moff, mlen, moff, mlen};
        }
    }
    if ((e = pairs(st, stream, op, rs, op->in, op->out, HCOLL_RECV_REDUCE)) != EMU_OK ||
        (e = pairs(st, stream, op, ar, op->out, op->out, HCOLL_RECV_REDUCE)) != EMU_OK)
        return e;
    return pairs(st, stream, op, ag, op->out, op->out, HCOLL_RECV_COPY);
}

emu_status emu_coll_hier_allgather(struct emu_coll_state *st, aclrtStream stream,
                                   const struct emu_coll_op *op, const struct emu_coll_servers *sv)
{
    uint32_t me = emu_coll_rank(st), n = emu_coll_size(st), m = sv->per;
    uint32_t s = sv->server[me], l = sv->local[me];
    uint64_t bytes = op->count * op->esz;
    struct hcoll_pair p[HCOLL_MAX_RANKS];
    emu_status e;

    /* My block to my server peers and to my counterparts; theirs to me. */
    emu_coll_pairs_zero(p, n);
    for (uint32_t q = 0; q < n; q++)
        if (q == me || sv->server[q] == s || sv->local[q] == l)
            p[q] = (struct hcoll_pair){0, bytes, q * bytes, bytes};
    if ((e = pairs(st, stream, op, p, op->in, op->out, HCOLL_RECV_COPY)) != EMU_OK)
        return e;
    /* Then, per other server t: the block of my counterpart on t to my server peers, and
     * the blocks of theirs from them. */
    for (uint32_t t = 0; t < sv->n; t++) {
        if (t == s)
            continue;
        emu_coll_pairs_zero(p, n);
        for (uint32_t q = 0; q < n; q++)
            if (q != me && sv->server[q] == s)
                p[q] = (struct hcoll_pair){sv->rank_at[t * m + l] * bytes, bytes,
                                           sv->rank_at[t * m + sv->local[q]] * bytes, bytes};
        if ((e = pairs(st, stream, op, p, op->out, op->out, HCOLL_RECV_COPY)) != EMU_OK)
            return e;
    }
    return EMU_OK;
}
