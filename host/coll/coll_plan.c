/* coll_plan.c - turns one checked operator call (struct emu_coll_op) into launches of the
 * collectives image: picks the algorithm (HCEMU_ALGO, else coll_cost.c: the card's rule when
 * the time is modelled, this machine's cost model otherwise), builds
 * each launch's struct hcoll_args and, for reductions the data plane cannot do, alternates
 * exchange rounds with compute launches. Everything is queued on the user's stream. */
#include "coll.h"

#include <string.h>

#include "coll_cost.h"
#include "collectives/coll_steps.h"
#include "common/platform/copy.h"
#include "common/platform/log.h"
#include "common/platform/machine.h"
#include "common/contract/settings.h"
#include "host/acl/model_time.h"

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

static bool pow2(uint32_t n)
{
    return (n & (n - 1)) == 0;
}

/* The figures of this machine, when the wall clock chooses: false when the time is modelled
 * or HCEMU_MACHINE=card (the card's rule then), and when ranks could hold different figures:
 * this process measured them alone (machine.h), or the job spans hosts (HCEMU_ROOT) without
 * an HCEMU_MACHINE given to every host alike. */
static bool read_wall_machine(struct emu_machine *m)
{
    enum emu_machine_source src;

    if (emu_model_time_on())
        return false;
    emu_machine_get(m, &src);
    if (src == EMU_MACHINE_ALONE || src == EMU_MACHINE_CARD)
        return false;
    return src == EMU_MACHINE_SETTING || *emu_settings_str(EMU_SET_ROOT) == '\0';
}

/* The answer of read_wall_machine for the communicator, read at its first call and kept in
 * its state: its executors took the clock when they started, and the figures are the
 * process's. The plan asks up to four times a call, and each read looked settings up in the
 * environment (a sixth of a 2-rank 1 KiB call's host CPU). */
static bool wall_machine(struct emu_coll_state *st, struct emu_machine *m)
{
    struct emu_coll_plan_memo *pm = emu_coll_plan_memo(st);

    if (!pm->machine_read) {
        pm->wall = read_wall_machine(&pm->m);
        pm->machine_read = true;
    }
    *m = pm->m;
    return pm->wall;
}

/* The round size of a reducing launch: on the wall clock below the size the data plane streams
 * from, so each reduction reads the lines its write just left in the cache (a 2-rank 1 MiB
 * allreduce streamed its write to memory and read it back: 3x the time of 512 KiB). The
 * modelled clock keeps the slot. */
static uint64_t reduce_slot(struct emu_coll_state *st)
{
    struct emu_machine m;

    if (!wall_machine(st, &m))
        return emu_coll_slot(st);
    return emu_coll_reduce_chunk(emu_coll_slot(st), emu_copy_stream_min());
}

/* One PAIRS launch. `disjoint`: a reduction whose ranks each reduce into a part they do not
 * send (a reduce-scatter, a reduce to a root), so peers may read their inputs directly.
 * `spread`: a reduce-scatter whose ranks also write their part into every peer's output
 * (coll_abi.h, spread; 0: not). */
static emu_status launch_pairs(struct emu_coll_state *st, aclrtStream stream,
                               const struct emu_coll_op *op, const struct hcoll_pair *pairs,
                               uint8_t *in, uint8_t *out, uint32_t mode, bool disjoint,
                               uint32_t spread)
{
    struct hcoll_args a;

    emu_coll_args_init(&a, op, st, HCOLL_ENGINE_PAIRS, mode);
    if (mode == HCOLL_RECV_REDUCE)
        a.slot = reduce_slot(st);
    a.disjoint = disjoint;
    a.spread = spread;
    a.in = in;
    a.out = out;
    emu_coll_pairs_copy(a.pairs, pairs, emu_coll_size(st));
    return emu_coll_launch_run(st, stream, &a, op->fn);
}

static emu_status run_pairs(struct emu_coll_state *st, aclrtStream stream,
                            const struct emu_coll_op *op, const struct hcoll_pair *pairs,
                            uint8_t *in, uint8_t *out, uint32_t mode)
{
    return launch_pairs(st, stream, op, pairs, in, out, mode, false, 0);
}

static uint64_t pair_rounds(const struct hcoll_pair *p, uint64_t slot)
{
    return ceil_div(p->send_len > p->recv_len ? p->send_len : p->recv_len, slot);
}

/* The stage_len of a gather whose largest block is `largest` bytes, or 0. Blocks too large
 * for the eager slots are gathered by reads of what their owner staged in its HCCL buffer
 * (coll_kernel.c: n + 1 copies of each block instead of 2n - 1); smaller ones by writes (and,
 * in halving-doubling, by doubling, whose three steps beat a mesh of reads in the modelled
 * time there). Every rank computes the same from the sizes, so both ends of every pair take
 * the same form. */
static uint64_t stage_for(const struct emu_coll_state *st, uint64_t largest)
{
    return largest > emu_coll_eager_len(st) ? emu_coll_stage_len(st) : 0;
}

/* Pairs where every peer gets the same block of mine (allgather; the second half of the
 * two-shot forms): STAGED when stage_for() says so, else PAIRS. */
static emu_status run_gather(struct emu_coll_state *st, aclrtStream stream,
                             const struct emu_coll_op *op, const struct hcoll_pair *pairs,
                             uint8_t *in, uint8_t *out)
{
    uint32_t me = emu_coll_rank(st), n = emu_coll_size(st);
    uint64_t biggest = 0;
    struct hcoll_args a;

    for (uint32_t p = 0; p < n; p++) {
        if (p == me)
            continue;
        biggest = pairs[p].send_len > biggest ? pairs[p].send_len : biggest;
        biggest = pairs[p].recv_len > biggest ? pairs[p].recv_len : biggest;
    }
    /* Blocks that go direct are read from their owner's buffer: no staging. */
    bool direct = emu_coll_direct_usable(st, stream) && biggest >= emu_coll_direct_min();
    uint64_t stage = direct ? 0 : stage_for(st, biggest);
    if (stage == 0)
        return run_pairs(st, stream, op, pairs, in, out, HCOLL_RECV_COPY);
    emu_coll_args_init(&a, op, st, HCOLL_ENGINE_STAGED, HCOLL_RECV_COPY);
    a.in = in;
    a.out = out;
    a.stage_len = stage;
    emu_coll_pairs_copy(a.pairs, pairs, emu_coll_size(st));
    return emu_coll_launch_run(st, stream, &a, op->fn);
}

/* Reductions the data plane refuses: per round, one exchange launch that leaves every
 * peer's part in the HCCL buffer, then one compute launch that reduces in rank order. */
static emu_status reduce_by_compute(struct emu_coll_state *st, aclrtStream stream,
                                    const struct emu_coll_op *op)
{
    uint32_t me = emu_coll_rank(st), n = emu_coll_size(st);
    uint64_t slot = emu_coll_slot(st), rounds = 0;
    const struct hcoll_pair *mine = &op->pairs[me];
    emu_status s;

    for (uint32_t p = 0; p < n; p++)
        if (p != me && pair_rounds(&op->pairs[p], slot) > rounds)
            rounds = pair_rounds(&op->pairs[p], slot);
    for (uint64_t k = 0; k < rounds; k++) {
        struct hcoll_args a;
        emu_coll_args_init(&a, op, st, HCOLL_ENGINE_PAIRS, HCOLL_RECV_KEEP);
        emu_coll_pairs_copy(a.pairs, op->pairs, n);
        a.round_first = (uint32_t)k;
        if ((s = emu_coll_launch_run(st, stream, &a, op->fn)) != EMU_OK)
            return s;
        uint64_t off = k * slot;
        if (off >= mine->recv_len)
            continue;
        struct hcoll_compute_args c = {.dtype = op->dtype, .op = op->op, .nsrc = n};
        uint64_t len = mine->recv_len - off < slot ? mine->recv_len - off : slot;
        c.count = len / op->esz;
        c.dst = op->out + mine->recv_off + off;
        for (uint32_t q = 0; q < n; q++)
            c.src[q] = q == me ? op->in + mine->send_off + off : emu_coll_buf(st) + q * slot;
        if ((s = emu_coll_launch_compute(st, stream, &c, op->fn)) != EMU_OK)
            return s;
    }
    return EMU_OK;
}

/* A mesh reduction (pairs already planned): in the kernel, or by compute launches.
 * `disjoint` as launch_pairs says: not the one-shot allreduce, where every rank reduces into
 * the whole buffer it also sends. */
static emu_status mesh_reduce(struct emu_coll_state *st, aclrtStream stream,
                              const struct emu_coll_op *op, bool disjoint)
{
    if (!emu_coll_prim_reducible(op->dtype, op->op))
        return reduce_by_compute(st, stream, op);
    return launch_pairs(st, stream, op, op->pairs, op->in, op->out, HCOLL_RECV_REDUCE, disjoint, 0);
}

/* HCEMU_ALGO; else the card's rule when the time is modelled or hier applies (several equal
 * servers: the inter-server ports bound the card's time, coll_hier.c); else this machine's
 * cost model (coll_cost.c). `bytes`: the buffer (allgather: output, reduce-scatter: input). */
static enum emu_coll_algo pick(const struct emu_coll_op *op, struct emu_coll_state *st,
                               uint64_t bytes, bool in_place)
{
    enum emu_coll_algo a = emu_coll_algo_setting(op->kind);
    struct emu_coll_plan_memo *pm = emu_coll_plan_memo(st);
    uint32_t n = emu_coll_size(st);
    bool hier = emu_coll_hier_applies(emu_coll_servers_of(st)) &&
                (op->kind == EMU_COLL_ALLREDUCE || op->kind == EMU_COLL_ALLGATHER);
    struct emu_machine m;

    if (a == EMU_ALGO_HIER && !hier)
        a = EMU_ALGO_DEFAULT; /* one server, or servers of unequal sizes: the usual choice */
    if (a != EMU_ALGO_DEFAULT)
        return a;
    /* The same question as the call before: everything else it depends on is the
     * communicator's (its size, servers, eager slots and mailboxes, its clock). */
    if (pm->pick_valid && pm->pick_kind == (uint32_t)op->kind && pm->pick_bytes == bytes &&
        pm->pick_in_place == in_place)
        return (enum emu_coll_algo)pm->pick_algo;
    bool wall = wall_machine(st, &m);
    struct emu_coll_shape sh = {
        .kind = op->kind,
        .n = n,
        .bytes = bytes,
        .eager = emu_coll_eager_len(st),
        .chunk = reduce_slot(st),
        .direct = emu_coll_direct_usable(st, NULL) ? emu_coll_direct_min() : 0,
        .in_place = in_place,
        .spread = emu_coll_direct_everyone(st, NULL, emu_coll_direct_min())};
    a = emu_coll_default_pick(&sh, hier, wall ? &m : NULL);
    EMU_LOG_DEBUG("%s: %u ranks, %llu bytes: %s (%s)", op->fn, n, (unsigned long long)bytes,
                  emu_coll_algo_name(a), wall && !hier ? "wall-clock cost model" : "card's rule");
    pm->pick_valid = true;
    pm->pick_kind = (uint32_t)op->kind;
    pm->pick_bytes = bytes;
    pm->pick_in_place = in_place;
    pm->pick_algo = (uint32_t)a;
    return a;
}

/* Two-shot allreduce: mesh reduce-scatter of n blocks, then mesh allgather of the blocks. */
static emu_status allreduce_twoshot(struct emu_coll_state *st, aclrtStream stream,
                                    const struct emu_coll_op *op)
{
    uint32_t me = emu_coll_rank(st), n = emu_coll_size(st);
    struct hcoll_pair rs[HCOLL_MAX_RANKS], ag[HCOLL_MAX_RANKS];
    uint64_t moff, mlen, smallest = UINT64_MAX;
    emu_status s;

    emu_coll_pairs_zero(rs, n);
    emu_coll_pairs_zero(ag, n);
    hcoll_block(op->count, n, me, op->esz, &moff, &mlen);
    for (uint32_t p = 0; p < n; p++) {
        uint64_t off, len;
        hcoll_block(op->count, n, p, op->esz, &off, &len);
        rs[p] = (struct hcoll_pair){off, len, moff, mlen};
        ag[p] = (struct hcoll_pair){moff, mlen, off, len};
        smallest = len < smallest ? len : smallest;
    }
    /* Every peer read and written directly: one launch, each rank's reduced block written into
     * every output as it is reduced (coll_abi.h, spread). Every rank sees the same block sizes
     * and peers, so all take this form or none. */
    uint32_t spread = 0;
    if (emu_coll_direct_everyone(st, stream, smallest)) {
        spread =
            emu_coll_copy_mode(st) == EMU_COPY_CACHED ? HCOLL_SPREAD_OUT : HCOLL_SPREAD_STREAMED;
    }
    s = launch_pairs(st, stream, op, rs, op->in, op->out, HCOLL_RECV_REDUCE, true, spread);
    if (s != EMU_OK || spread != 0)
        return s;
    return run_gather(st, stream, op, ag, op->out, op->out);
}

static emu_status allreduce(struct emu_coll_state *st, aclrtStream stream,
                            struct emu_coll_op *op)
{
    uint32_t n = emu_coll_size(st);
    uint64_t bytes = op->count * op->esz;
    struct hcoll_args a;

    for (uint32_t p = 0; p < n; p++)
        op->pairs[p] = (struct hcoll_pair){0, bytes, 0, bytes};
    if (n == 1)
        return run_pairs(st, stream, op, op->pairs, op->in, op->out, HCOLL_RECV_COPY);
    if (!emu_coll_prim_reducible(op->dtype, op->op))
        return reduce_by_compute(st, stream, op);
    enum emu_coll_algo algo = pick(op, st, bytes, false);
    if ((algo == EMU_ALGO_RHD || algo == EMU_ALGO_RD) && !pow2(n))
        algo = EMU_ALGO_RING; /* halving-doubling and doubling need a power of two */
    switch (algo) {
    case EMU_ALGO_HIER:
        return emu_coll_hier_allreduce(st, stream, op, emu_coll_servers_of(st));
    case EMU_ALGO_TWOSHOT:
        return allreduce_twoshot(st, stream, op);
    case EMU_ALGO_RING:
    case EMU_ALGO_RHD:
    case EMU_ALGO_RD:
        emu_coll_args_init(&a, op, st,
                           algo == EMU_ALGO_RING  ? HCOLL_ENGINE_RING_AR
                           : algo == EMU_ALGO_RHD ? HCOLL_ENGINE_RHD_AR
                                                  : HCOLL_ENGINE_RD_AR,
                           HCOLL_RECV_COPY);
        a.count = op->count;
        a.slot = reduce_slot(st);
        if (algo == EMU_ALGO_RHD) { /* its allgather half; block 0 is the largest */
            uint64_t off, len;
            hcoll_block(op->count, n, 0, op->esz, &off, &len);
            a.stage_len = stage_for(st, len);
        }
        return emu_coll_launch_run(st, stream, &a, op->fn);
    default:
        return mesh_reduce(st, stream, op, false); /* one-shot: everyone reduces everything */
    }
}

static emu_status allgather(struct emu_coll_state *st, aclrtStream stream,
                            struct emu_coll_op *op)
{
    uint32_t n = emu_coll_size(st);
    uint64_t bytes = op->count * op->esz;
    struct hcoll_args a;

    enum emu_coll_algo algo = pick(op, st, bytes * n, false);
    if (algo == EMU_ALGO_RD)
        algo = EMU_ALGO_RHD; /* an allgather's recursive doubling moves whole blocks already */
    if (algo == EMU_ALGO_RHD && !pow2(n))
        algo = EMU_ALGO_RING; /* recursive doubling needs a power of two */
    if (algo == EMU_ALGO_HIER)
        return emu_coll_hier_allgather(st, stream, op, emu_coll_servers_of(st));
    if ((algo == EMU_ALGO_RING || algo == EMU_ALGO_RHD) && n > 1) {
        emu_coll_args_init(&a, op, st,
                           algo == EMU_ALGO_RING ? HCOLL_ENGINE_RING_AG : HCOLL_ENGINE_RHD_AG,
                           HCOLL_RECV_COPY);
        a.count = op->count;
        return emu_coll_launch_run(st, stream, &a, op->fn);
    }
    for (uint32_t p = 0; p < n; p++)
        op->pairs[p] = (struct hcoll_pair){0, bytes, p * bytes, bytes};
    if (n == 1)
        return run_pairs(st, stream, op, op->pairs, op->in, op->out, HCOLL_RECV_COPY);
    return run_gather(st, stream, op, op->pairs, op->in, op->out);
}

/* Reduce-scatter: mesh (planned by the caller), or a ring when asked for and not in place. */
static emu_status reduce_scatter(struct emu_coll_state *st, aclrtStream stream,
                                 struct emu_coll_op *op)
{
    uint32_t me = emu_coll_rank(st), n = emu_coll_size(st);
    uint64_t bytes = op->count * op->esz;
    bool in_place = op->out == op->in + me * bytes;
    struct hcoll_args a;

    if (n > 1 && !in_place && emu_coll_prim_reducible(op->dtype, op->op) &&
        pick(op, st, bytes * n, in_place) == EMU_ALGO_RING) {
        emu_coll_args_init(&a, op, st, HCOLL_ENGINE_RING_RS, HCOLL_RECV_COPY);
        a.count = op->count;
        a.slot = reduce_slot(st);
        return emu_coll_launch_run(st, stream, &a, op->fn);
    }
    if (n > 1)
        return mesh_reduce(st, stream, op, true);
    return run_pairs(st, stream, op, op->pairs, op->in, op->out, HCOLL_RECV_COPY);
}

/* Broadcast two-shot: the root scatters n blocks, then an in-place allgather of them. */
static emu_status broadcast_twoshot(struct emu_coll_state *st, aclrtStream stream,
                                    const struct emu_coll_op *op)
{
    uint32_t me = emu_coll_rank(st), n = emu_coll_size(st);
    struct hcoll_pair sc[HCOLL_MAX_RANKS], ag[HCOLL_MAX_RANKS];
    uint64_t moff, mlen;
    emu_status s;

    emu_coll_pairs_zero(sc, n);
    emu_coll_pairs_zero(ag, n);
    hcoll_block(op->count, n, me, op->esz, &moff, &mlen);
    for (uint32_t p = 0; p < n; p++) {
        uint64_t off, len;
        hcoll_block(op->count, n, p, op->esz, &off, &len);
        if (me == op->root && p != me)
            sc[p] = (struct hcoll_pair){off, len, 0, 0};
        else if (p == op->root && p != me)
            sc[p] = (struct hcoll_pair){0, 0, moff, mlen};
        ag[p] = (struct hcoll_pair){moff, mlen, off, len};
    }
    if ((s = run_pairs(st, stream, op, sc, op->in, op->out, HCOLL_RECV_COPY)) != EMU_OK)
        return s;
    return run_gather(st, stream, op, ag, op->out, op->out);
}

static emu_status broadcast(struct emu_coll_state *st, aclrtStream stream,
                            struct emu_coll_op *op)
{
    uint32_t me = emu_coll_rank(st), n = emu_coll_size(st);
    uint64_t bytes = op->count * op->esz;

    if (n > 1 && pick(op, st, bytes, false) == EMU_ALGO_TWOSHOT)
        return broadcast_twoshot(st, stream, op);
    emu_coll_pairs_zero(op->pairs, n);
    for (uint32_t p = 0; p < n; p++) {
        if (p == me)
            continue;
        if (me == op->root)
            op->pairs[p] = (struct hcoll_pair){0, bytes, 0, 0};
        else if (p == op->root)
            op->pairs[p] = (struct hcoll_pair){0, 0, 0, bytes};
    }
    return run_pairs(st, stream, op, op->pairs, op->in, op->out, HCOLL_RECV_COPY);
}

/* Barrier: one 8-byte token with every peer, staged in my own (never written) slot. */
static emu_status barrier(struct emu_coll_state *st, aclrtStream stream, struct emu_coll_op *op)
{
    uint32_t me = emu_coll_rank(st), n = emu_coll_size(st);
    uint8_t *mine = emu_coll_buf(st) + me * emu_coll_slot(st);

    if (emu_coll_slot(st) < 8u * (n + 1)) /* always true: slots are >= HCOLL_ALIGN */
        return EMU_EINTERNAL;
    emu_coll_pairs_zero(op->pairs, n);
    for (uint32_t p = 0; p < n; p++)
        if (p != me)
            op->pairs[p] = (struct hcoll_pair){0, 8, 8u * (p + 1), 8};
    op->esz = 1;
    return run_pairs(st, stream, op, op->pairs, mine, mine, HCOLL_RECV_COPY);
}

/* Cached transfers. The data plane streams large transfers past the caches (copy.h), which
 * pays when the call's buffers leave the last-level cache anyway. When the buffers of every
 * rank on this machine fit in it with room to spare, the next reader finds a cached block
 * there instead, and streaming would send it to memory and back: a 2-rank 4 MiB allgather
 * took 460-620 us streamed and 190-300 cached, against OpenMPI's 175-215. On the machine with
 * a 32 MiB cache, cached transfers won up to 24 MiB of buffers (2-rank 8 MiB allgather, 24
 * MiB: 518-547 us against 755-780 streamed, a x4.8 step from 4 MiB in the cliff sweep when
 * streamed; 4-rank 4 MiB, 20 MiB: 429-493 against 685-701; at 24 MiB a 4-rank allgather ran
 * even and a 2-rank allreduce was faster streamed), and streaming from 32 MiB (2-rank 8 MiB
 * allreduce; 2-rank 16 MiB allgather, 48 MiB: 1.35-1.5 ms against 1.85-2.28 cached). So a
 * call keeps its transfers cached when its ranks' input and output buffers together take at
 * most three quarters of the cache the machine's figures give. The modelled clock and a
 * machine without figures keep the size rule. */
static uint32_t copy_mode_of(struct emu_coll_state *st, const struct emu_coll_op *op)
{
    uint32_t n = emu_coll_size(st);
    const struct emu_coll_servers *sv = emu_coll_servers_of(st);
    uint32_t here = sv->n <= 1 ? n : sv->per != 0 ? sv->per : (n + sv->n - 1) / sv->n;
    uint64_t bytes = op->count * op->esz, in = bytes, out = bytes;
    struct emu_machine m;

    if (!wall_machine(st, &m) || m.cache_mib == 0)
        return EMU_COPY_AUTO;
    switch (op->kind) {
    case EMU_COLL_ALLREDUCE:
    case EMU_COLL_BROADCAST:
        break;
    case EMU_COLL_ALLGATHER:
        out = bytes * n;
        break;
    case EMU_COLL_REDUCE_SCATTER:
        in = bytes * n;
        break;
    default: /* the planned pairs say what each rank sends and receives */
        in = out = 0;
        for (uint32_t p = 0; p < n; p++) {
            in += op->pairs[p].send_len;
            out += op->pairs[p].recv_len;
        }
    }
    uint64_t room = ((uint64_t)m.cache_mib << 20) / 4 * 3;
    return (in + out) <= room / here ? EMU_COPY_CACHED : EMU_COPY_AUTO;
}

emu_status emu_coll_execute(struct emu_comm *c, aclrtStream stream, struct emu_coll_op *op)
{
    struct emu_coll_state *st;
    emu_status s;

    if ((s = emu_coll_state_get(c, op->peers, op->npeers, op->fn, &st)) != EMU_OK)
        return s;
    emu_coll_set_copy_mode(st, copy_mode_of(st, op));
    switch (op->kind) {
    case EMU_COLL_ALLREDUCE:
        return allreduce(st, stream, op);
    case EMU_COLL_ALLGATHER:
        return allgather(st, stream, op);
    case EMU_COLL_BROADCAST:
        return broadcast(st, stream, op);
    case EMU_COLL_BARRIER:
        return barrier(st, stream, op);
    case EMU_COLL_REDUCE_SCATTER:
        return reduce_scatter(st, stream, op);
    default:
        if (op->reduce && emu_coll_size(st) > 1) /* reduce to a root, reduce-scatter V */
            return mesh_reduce(st, stream, op, true);
        return run_pairs(st, stream, op, op->pairs, op->in, op->out, HCOLL_RECV_COPY);
    }
}
