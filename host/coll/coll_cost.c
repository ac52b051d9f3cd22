/* coll_cost.c - the default algorithm of a built-in collective: the card's rule for the
 * modelled clock, a cost model of this machine for the wall clock (docs/COLLECTIVES.md,
 * "How the algorithm is chosen").
 *
 * The wall-clock model counts, per algorithm, what an emulated call costs on a CPU whose few
 * cores every emulated device shares:
 *   - tasks each rank's kernel queues and its executor runs (CPU: TASK_US each; a launch
 *     counts LAUNCH_TASKS more),
 *   - wake-ups of a sleeping worker (CPU: one hand-off each): LAUNCH_WAKES per rank and launch;
 *     per exchange only while every rank has a core of its own, since with more ranks than
 *     cores the job-wide run queue runs a peer's tasks in place (bench/wakes.sh: 8.8 futex
 *     wakes per 8-rank 1 KiB allreduce, whatever the algorithm's exchanges),
 *   - bytes copied and reduced by all ranks together (a reduced byte costs REDUCE_WEIGHT of a
 *     copied one: it reads two lines per line written), at RANK_COPY_SHARE of one core's copy rate,
 *   - hand-offs in sequence on the call's critical path: HOP_SHARE of a hand-off's latency
 *     each (with more ranks than cores a peer's tasks may run in place, but a step still
 *     waits for the peer's turn on a core; queued calls overlap the rest); a launch
 *     LAUNCH_HOPS x the ranks per core,
 * and takes time = max(CPU of all ranks / usable cores, CPU of the busiest rank) + hand-offs
 * in sequence. The machine's figures (copy rate, hand-off, cores: machine.h) are measured, so
 * the same counts choose differently on another machine.
 *
 * The weights were fitted on the 2-core Intel VM (docs/PERFORMANCE.md): every algorithm timed
 * at 1 KiB-2 MiB and 2-16 ranks, medians of three runs, and the weights chosen where the picks
 * lost least to the fastest algorithm of each row and the modelled times came nearest the
 * measured ones (1.4x off on average, against 2.2x with the weights before).
 * bench/picks.sh repeats the check on any machine. */
#include "coll_cost.h"

#include "collectives/coll_steps.h"

/* A task's CPU, in microseconds. bench/wakes.sh's CPU per 8-rank 1 KiB allreduce (40-51
 * CPU-us for rd, rhd and mesh, 105 for twoshot) over the tasks this model counts for them
 * gives 0.18-0.24 us. A fixed figure, not a fraction of the hand-off: the hand-off measured
 * at start-up swings with the machine's idle states and load, while a task's CPU does not. */
#define TASK_US 0.2
#define REDUCE_WEIGHT 1.5
/* What a collective's copy runs at, as a share of the machine's copy figure (one core's memcpy
 * of a block in its own cache): a rank mostly copies lines another core wrote last. At 0.4
 * every pick of the fit but one came within 5% of the fastest algorithm (the 4-rank 512 KiB
 * allgather: 124 us against mesh's 107); at 0.35 the 2- and 4-rank 128 KiB allreduces went
 * to two-shot, at 0.45 the 16-rank 256 KiB one to halving-doubling (1244 against 919 us). */
#define RANK_COPY_SHARE 0.4
/* A launch: the host's kernel launch and its wait for "done", the kernel's start on every
 * executor and its bookkeeping tasks. Every rank's executor must be woken and run before a
 * launch's exchanges end, so its hand-offs in sequence grow with the ranks per core. */
#define LAUNCH_TASKS 16.0
#define LAUNCH_WAKES 1.0
#define LAUNCH_HOPS 2.0
/* What a call's exchanges in sequence cost, in hand-offs each. Queued calls of a
 * communicator overlap (coll_launch.c), so half a hand-off each once fitted best; with
 * the cheaper tasks above a whole one does: at a half the 8-rank 8 KiB allreduce went to
 * halving-doubling (33.3 us against recursive doubling's 28.5) and the 2-rank 128 KiB one
 * to two-shot (20.6 against mesh's 18.7). */
#define HOP_SHARE 1.0

/* A launch with direct pairs: each pair publishes, reads and acknowledges, and with more
 * ranks than cores those hand-offs find the peer's process off its core: each rank pays a
 * switch to the peer and back, and the launch pays for sleeping peers in sequence. A
 * switch is the scheduler's work, not the cross-core hand-off of the machine figure, so its
 * price is a fixed one: on the Intel VM (hand-off 0.86 us) the two direct launches of a
 * 4-rank 64 KiB two-shot allreduce took 64-74 us against 39-40 through the slots
 * (HCEMU_DIRECT_KB=0), though they move fewer bytes. With a core per rank nothing sleeps. */
#define SOLO_US 5.0
#define SOLO_HOPS 1.0

/* The card's thresholds (the modelled clock's; HCEMU_TIME=model keeps them). */
#define CARD_SMALL (256u << 10) /* at or below: mesh one-shot (fewest steps) */
/* Several servers: past these (allreduce buffer, allgather output) the hierarchical forms
 * beat mesh one-shot in the modelled time at 4+4 ranks (docs/MULTIHOST.md). */
#define CARD_HIER_AR CARD_SMALL
#define CARD_HIER_AG (2u << 20)
/* Two ranks: past this an allreduce goes two-shot. One-shot makes each rank reduce the whole
 * buffer; two-shot halves that work for one more round of notifies. The modelled times of the
 * two cross near 16 MiB (mesh 444 / twoshot 428 us at 16 MiB, 1742 / 1626 us at 64 MiB). */
#define CARD_TWO_RANK_TWOSHOT (16u << 20)

const char *const emu_coll_algo_names[EMU_ALGO_COUNT] = {
    [EMU_ALGO_DEFAULT] = "default", [EMU_ALGO_MESH] = "mesh", [EMU_ALGO_TWOSHOT] = "twoshot",
    [EMU_ALGO_RING] = "ring",       [EMU_ALGO_RHD] = "rhd",
    [EMU_ALGO_HIER] = "hier",       [EMU_ALGO_RD] = "rd",
};

const char *emu_coll_algo_name(enum emu_coll_algo a)
{
    return a < EMU_ALGO_COUNT ? emu_coll_algo_names[a] : "invalid";
}

static bool pow2(uint32_t n)
{
    return n != 0 && (n & (n - 1)) == 0;
}

enum emu_coll_algo emu_coll_card_pick(enum emu_coll_kind kind, uint32_t n, uint64_t bytes,
                                      bool hier)
{
    if (hier && bytes > (kind == EMU_COLL_ALLGATHER ? CARD_HIER_AG : CARD_HIER_AR))
        return EMU_ALGO_HIER;
    if (n == 2 && kind == EMU_COLL_ALLREDUCE && bytes >= CARD_TWO_RANK_TWOSHOT)
        return EMU_ALGO_TWOSHOT;
    if (bytes <= CARD_SMALL || n <= 2)
        return EMU_ALGO_MESH;
    switch (kind) {
    case EMU_COLL_ALLREDUCE: return pow2(n) ? EMU_ALGO_RHD : EMU_ALGO_TWOSHOT;
    case EMU_COLL_BROADCAST: return EMU_ALGO_TWOSHOT;
    default: return EMU_ALGO_MESH;
    }
}

/* What one call costs, summed as the header says. tasks, wakes: per rank; hops: in
 * sequence; work: bytes (copy-equivalent) of all ranks; crit: bytes of the busiest rank. */
struct tally {
    double tasks, wakes, xwakes, hops, launches, work, crit; /* xwakes: of exchanges */
    double solo; /* launches with direct pairs (SOLO_US) */
};

static double rounds(uint64_t bytes, uint64_t chunk)
{
    chunk = chunk != 0 ? chunk : 1;
    return bytes == 0 ? 1.0 : (double)((bytes + chunk - 1) / chunk);
}

/* A launch; `solo` when it has direct pairs (SOLO_US). */
static void launch(struct tally *t, bool solo)
{
    t->tasks += LAUNCH_TASKS;
    t->wakes += LAUNCH_WAKES;
    t->launches += 1;
    t->solo += solo ? 1 : 0;
}

/* Whether a copying pair of `b` bytes reads the peer's buffer directly: one copy, 5 tasks
 * (publish, wait, read, ACK, wait) and two hand-offs. */
static bool direct(uint64_t b, uint64_t min)
{
    return min != 0 && b >= min;
}

/* One mesh launch: `per` bytes each way with each of the n - 1 peers, reduced (`red`) or
 * copied out; eager when `per` fits `eager` (one notify, no ACK), else rounds of `chunk`;
 * pairs of `dmin` bytes and more read (and reduce) the peer's buffer directly, in rounds of
 * `chunk` when reducing, with one hand-shake for all of them (the caller passes 0 where the
 * plan never goes direct: the one-shot allreduce). */
static void mesh(struct tally *t, uint32_t n, uint64_t per, uint64_t eager, uint64_t chunk,
                 uint64_t dmin, bool red)
{
    bool d = direct(per, dmin), e = !d && eager != 0 && per <= eager;
    double r = e || (d && !red) ? 1 : rounds(per, chunk), peers = n - 1;
    double bytes = peers * (double)per *
                   (d ? (red ? REDUCE_WEIGHT : 1.0) : 1.0 + (red ? REDUCE_WEIGHT : 1.0));

    launch(t, d);
    t->tasks += d ? peers * (4 + r) : r * peers * (e ? 3 : 5);
    t->xwakes += d ? 2 * peers : r * peers * (e ? 1 : 2);
    t->hops += d ? 2 : r * (e ? 1 : 2);
    t->work += n * bytes;
    t->crit += bytes;
}

/* One gather launch of n blocks of `b` (each rank's block to every peer): direct reads from
 * `dmin` bytes (n - 1 copies of each block: each peer reads it once), eager writes and copies
 * out (2(n - 1) copies), or staged reads when a block does not fit an eager slot (n copies:
 * staged once, read by each peer); plus one when each rank's block must also go from its
 * input to its output (`own`; not in the in-place second half of the two-shot forms). */
static void gather(struct tally *t, uint32_t n, uint64_t b, uint64_t eager, uint64_t dmin,
                   bool own)
{
    bool d = direct(b, dmin), e = !d && eager != 0 && b <= eager;
    double peers = n - 1, copies = (d ? peers : e ? 2.0 * peers : n) + (own ? 1 : 0);

    launch(t, d);
    t->tasks += peers * (d ? 5 : e ? 3 : 4);
    t->xwakes += peers * (e ? 1 : 2);
    t->hops += e ? 1 : 2;
    t->work += copies * (double)b * n;
    t->crit += copies * (double)b;
}

/* The copies of a spread two-shot (collectives/coll_abi.h, spread), in the launch of its
 * reduce-scatter: each round of my reduced block of `b` bytes into every peer's output, one
 * task each, with no launch and no hand-off of their own. */
static void spread(struct tally *t, uint32_t n, uint64_t b, uint64_t chunk)
{
    double peers = n - 1;

    t->tasks += rounds(b, chunk) * peers;
    t->work += peers * (double)b * n;
    t->crit += peers * (double)b;
}

/* One neighbour step (ring, halving, doubling): `bytes` each way through the slots, then
 * reduced (`red`) or copied out. A halving-doubling step that fits an eager slot of `eager`
 * bytes (0: a ring step, never eager) is one write with notify, a wait and the copy or
 * reduction: one hand-off (coll_steps.h, hcoll_step_eager). */
static void step(struct tally *t, uint32_t n, uint64_t bytes, uint64_t chunk, uint64_t eager,
                 bool red)
{
    bool e = hcoll_step_eager(bytes, bytes, eager, chunk);
    double r = e ? 1 : rounds(bytes, chunk);
    double per = (double)bytes * (1.0 + (red ? REDUCE_WEIGHT : 1.0));

    t->tasks += (e ? 3 : 5) * r;
    t->xwakes += (e ? 1 : 2) * r;
    t->hops += (e ? 1 : 2) * r;
    t->work += per * n;
    t->crit += per;
}

/* Recursive doubling's allgather with pushed steps (collectives/coll_kernel.c; where
 * hcoll_pushed says): each rank publishes its output to its log2(n) partners (one hand-off,
 * all at once), then each step writes its blocks straight into the partner's output and
 * notifies: one copy of `bytes` and 5 tasks a step (publish, wait for the address, write,
 * record, wait), two hand-offs of which one is in sequence. */
static void pushed_steps(struct tally *t, uint32_t n, uint64_t b)
{
    launch(t, false);
    t->work += (double)b * n, t->crit += (double)b; /* my block to my output */
    t->hops += 1;                                   /* the addresses */
    for (uint64_t bytes = b; bytes < (uint64_t)n * b; bytes *= 2) {
        t->tasks += 5;
        t->xwakes += 2;
        t->hops += 1;
        t->work += (double)bytes * n;
        t->crit += (double)bytes;
    }
}

static uint32_t log2u(uint32_t n)
{
    uint32_t l = 0;

    while ((1u << (l + 1)) <= n)
        l++;
    return l;
}

/* The tally of `algo` for allreduce; false when it does not apply. */
static bool allreduce(const struct emu_coll_shape *s, enum emu_coll_algo algo, struct tally *t)
{
    uint32_t n = s->n;
    uint64_t S = s->bytes, b = (S + n - 1) / n, er = s->eager < s->chunk ? s->eager : s->chunk;

    switch (algo) {
    case EMU_ALGO_MESH:
        mesh(t, n, S, er, s->chunk, 0, true);
        return true;
    case EMU_ALGO_TWOSHOT:
        mesh(t, n, b, er, s->chunk, s->direct, true);
        if (s->spread && direct(b, s->direct))
            spread(t, n, b, s->chunk);
        else
            gather(t, n, b, s->eager, s->direct, false);
        return true;
    case EMU_ALGO_RING:
        launch(t, false);
        t->work += (double)S * n, t->crit += (double)S; /* input to output */
        for (uint32_t j = 0; j < 2 * (n - 1); j++)
            step(t, n, b, s->chunk, 0, j < n - 1);
        return true;
    case EMU_ALGO_RHD:
        if (!pow2(n))
            return false;
        launch(t, false);
        for (uint32_t k = 1; k <= log2u(n); k++) {
            uint64_t half = S >> k;
            if (k == 1) /* the half I keep, input to output; later steps reduce in place */
                t->work += (double)half * n, t->crit += (double)half;
            step(t, n, half, s->chunk, s->eager, true);
        }
        if (s->eager != 0 && b <= s->eager) {
            for (uint32_t k = 0; k < log2u(n); k++)
                step(t, n, b << k, s->chunk, s->eager, false);
        } else {
            struct tally g = {0};
            gather(&g, n, b, 0, 0, false); /* staged by the kernel's schedule */
            t->tasks += g.tasks - LAUNCH_TASKS, t->wakes += g.wakes - LAUNCH_WAKES;
            t->xwakes += g.xwakes, t->hops += g.hops, t->work += g.work, t->crit += g.crit;
            t->solo += g.solo;
        }
        return true;
    case EMU_ALGO_RD: /* the whole vector each step: half the steps of halving-doubling */
        if (!pow2(n))
            return false;
        launch(t, false);
        t->work += (double)S * n, t->crit += (double)S; /* input to output */
        for (uint32_t k = 0; k < log2u(n); k++)
            step(t, n, S, s->chunk, s->eager, true);
        return true;
    default:
        return false;
    }
}

static bool allgather(const struct emu_coll_shape *s, enum emu_coll_algo algo, struct tally *t)
{
    uint32_t n = s->n;
    uint64_t b = s->bytes / n;

    switch (algo) {
    case EMU_ALGO_MESH:
        gather(t, n, b, s->eager, s->direct, true);
        return true;
    case EMU_ALGO_RING:
    case EMU_ALGO_RHD:
        /* Two ranks: one exchange with the one peer either way, which mesh does too, and
         * directly from the direct reads' size on. */
        if ((algo == EMU_ALGO_RHD && !pow2(n)) || n == 2)
            return false;
        if (algo == EMU_ALGO_RHD && hcoll_pushed(n, b, s->direct)) {
            pushed_steps(t, n, b);
            return true;
        }
        launch(t, false);
        t->work += (double)b * n, t->crit += (double)b; /* my block to my output */
        if (algo == EMU_ALGO_RING)
            for (uint32_t j = 0; j + 1 < n; j++)
                step(t, n, b, s->chunk, 0, false);
        else
            for (uint32_t k = 0; k < log2u(n); k++)
                step(t, n, b << k, s->chunk, s->eager, false);
        return true;
    default:
        return false;
    }
}

static bool broadcast(const struct emu_coll_shape *s, enum emu_coll_algo algo, struct tally *t)
{
    uint32_t n = s->n;
    uint64_t S = s->bytes, b = (S + n - 1) / n;
    bool d = direct(S, s->direct), e = !d && s->eager != 0 && S <= s->eager;
    double peers = n - 1, r = e || d ? 1 : rounds(S, s->chunk);

    switch (algo) {
    case EMU_ALGO_MESH: /* the root writes to every peer, each copies out; or each reads */
        launch(t, d);
        t->tasks += r * peers * (e ? 2 : 3);
        t->xwakes += r * peers * (e ? 1 : 2);
        t->hops += r * (e ? 1 : 2);
        t->work += (d ? 1 : 2) * peers * (double)S;
        t->crit += (d ? 1 : peers) * (double)S;
        return true;
    case EMU_ALGO_TWOSHOT: { /* the root scatters the blocks, then an allgather of them */
        struct tally sc = {0};
        mesh(&sc, n, b, s->eager, s->chunk, s->direct, false);
        t->tasks += sc.tasks, t->wakes += sc.wakes, t->xwakes += sc.xwakes, t->hops += sc.hops;
        t->launches += sc.launches, t->solo += sc.solo;
        t->work += sc.work / n * 2, t->crit += sc.crit; /* only the root sends */
        gather(t, n, b, s->eager, s->direct, false);
        return true;
    }
    default:
        return false;
    }
}

static bool reduce_scatter(const struct emu_coll_shape *s, enum emu_coll_algo algo,
                           struct tally *t)
{
    uint32_t n = s->n;
    uint64_t b = s->bytes / n, er = s->eager < s->chunk ? s->eager : s->chunk;

    switch (algo) {
    case EMU_ALGO_MESH:
        mesh(t, n, b, er, s->chunk, s->direct, true);
        return true;
    case EMU_ALGO_RING:
        if (s->in_place)
            return false;
        launch(t, false);
        t->work += (double)b * n, t->crit += (double)b;
        for (uint32_t j = 0; j + 1 < n; j++) {
            step(t, n, b, s->chunk, 0, true);
            t->tasks += rounds(b, s->chunk); /* my input block copied in */
            t->work += (double)b * n, t->crit += (double)b;
        }
        return true;
    default:
        return false;
    }
}

double emu_coll_wall_cost(const struct emu_coll_shape *s, enum emu_coll_algo algo,
                          const struct emu_machine *m)
{
    struct tally t = {0};
    bool ok;

    if (s->n < 2)
        return algo == EMU_ALGO_MESH ? 0.0 : -1.0;
    switch (s->kind) {
    case EMU_COLL_ALLREDUCE: ok = allreduce(s, algo, &t); break;
    case EMU_COLL_ALLGATHER: ok = allgather(s, algo, &t); break;
    case EMU_COLL_BROADCAST: ok = broadcast(s, algo, &t); break;
    case EMU_COLL_REDUCE_SCATTER: ok = reduce_scatter(s, algo, &t); break;
    default: ok = algo == EMU_ALGO_MESH; break;
    }
    if (!ok)
        return -1.0;
    double h = m->handoff_us, B = m->copy_gbps * 1000.0 * RANK_COPY_SHARE; /* bytes per us */
    double task = TASK_US;
    bool own_cores = s->n <= m->cores; /* else peers' tasks run in place: no sleep, no wake */
    double per_rank = t.tasks * task + (t.wakes + (own_cores ? t.xwakes : 0)) * h +
                      (own_cores ? 0 : t.solo * SOLO_US);
    double cores = m->cores < s->n ? m->cores : s->n;
    double all = (s->n * per_rank + t.work / B) / cores, busiest = per_rank + t.crit / B;
    double seq = t.hops * h * HOP_SHARE + t.launches * LAUNCH_HOPS * (s->n / cores) * h +
                 (own_cores ? 0 : t.solo * SOLO_HOPS * (s->n / cores) * h);

    return (all > busiest ? all : busiest) + seq;
}

enum emu_coll_algo emu_coll_wall_pick(const struct emu_coll_shape *s,
                                      const struct emu_machine *m)
{
    /* Ties go to the fewer launches and hand-offs in sequence. */
    static const enum emu_coll_algo order[] = {EMU_ALGO_MESH, EMU_ALGO_RD, EMU_ALGO_RHD,
                                               EMU_ALGO_RING, EMU_ALGO_TWOSHOT};
    enum emu_coll_algo best = EMU_ALGO_MESH;
    double best_us = -1;

    for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        double us = emu_coll_wall_cost(s, order[i], m);
        if (us >= 0 && (best_us < 0 || us < best_us))
            best = order[i], best_us = us;
    }
    return best;
}

uint64_t emu_coll_reduce_chunk(uint64_t slot, uint64_t stream_min)
{
    uint64_t c = stream_min / 2 / HCOLL_ALIGN * HCOLL_ALIGN;

    return c == 0 || c >= slot ? slot : c;
}

enum emu_coll_algo emu_coll_default_pick(const struct emu_coll_shape *s, bool hier,
                                         const struct emu_machine *m)
{
    if (m == NULL || hier)
        return emu_coll_card_pick(s->kind, s->n, s->bytes, hier);
    return emu_coll_wall_pick(s, m);
}
