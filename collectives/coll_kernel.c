/* coll_kernel.c - hcemu's built-in collectives as an AICPU_TS kernel: the entry
 * hcemu_coll_run() queues, on the communicator's threads, the Hcomm*OnThread tasks of one
 * collective call described by struct hcoll_args (coll_abi.h), between the host stream's
 * start signal and its "done" notify, exactly as a user kernel does.
 *
 * The HCCL buffer is cut into `size` slots of args.slot bytes: slot p receives what peer p
 * writes to me. Every transfer into a peer is preceded by that peer's ACK on the channel ("my
 * slot for you is free") and followed by DATA ("it has landed"), so a binary notify is never
 * recorded twice before it is waited for, and no call writes into a buffer the peer still
 * reads from an earlier round or an earlier collective. Engines: PAIRS (one thread per peer,
 * every data-movement collective and the mesh reductions), STAGED (the same, reading where
 * PAIRS writes: large allgathers), RING_AR, RHD_AR, RING_AG, RHD_AG and RING_RS (the main
 * thread runs a schedule of steps).
 *
 * A pair that moves at least HCEMU_DIRECT_KB goes direct instead (coll_abi.h, direct_mask): each
 * side reads the other's bytes from its own buffer, whose address it was told, and ACKs.
 *
 * A one-round pair of a PAIRS launch that fits an eager slot (args.eager_len) skips the ACK:
 * the peer's bytes land in one of two eager slots, alternated per exchange, so a pair is one
 * write with notify (write_notify) and one wait each way, one hand-off instead of two (coll_launch.c: why
 * the alternation makes the ACK unneeded). With one eager peer the main thread does it;
 * with several, each peer's thread (args.eager_threads). */
#include <stdbool.h>
#include <stdint.h>

#include <hccl/hcomm_primitives.h>

#include "coll_abi.h"
#include "coll_key.h"
#include "coll_steps.h"

/* Any failing Hcomm call fails the kernel task; the host sees it at synchronisation. */
#define TRY(call)                                                                                  \
    do {                                                                                           \
        if ((call) != 0)                                                                           \
            return 1;                                                                              \
    } while (0)

struct run {
    const struct hcoll_args *a;
    const struct hcoll_res *r; /* read in place: a copy was 6 KiB per call, of 2 entries used */
    ThreadHandle main;
    uint32_t me, n;
    uint64_t slot;
};

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* Bytes of round k of a `len`-byte transfer cut into slot-sized rounds. */
static uint64_t part(const struct run *g, uint64_t len, uint64_t k)
{
    uint64_t off = k * g->slot;

    return off >= len ? 0 : min_u64(len - off, g->slot);
}

static uint8_t *slot_of(const struct run *g, uint32_t peer)
{
    return (uint8_t *)g->r->buf + (uint64_t)peer * g->slot;
}

/* `len` bytes from `src` to `dst` in the peer's memory behind `c`, then notify `idx` on it: one
 * task where the product has write with notify, else a write and a record on the same thread. */
static int32_t write_notify(const struct run *g, ThreadHandle t, ChannelHandle c, void *dst,
                            const void *src, uint64_t len, uint32_t idx)
{
    if (g->r->features & HCOLL_FEATURE_WRITE_NOTIFY)
        return HcommWriteWithNotifyOnThread(t, c, dst, src, len, idx);
    int32_t rc = HcommWriteOnThread(t, c, dst, src, len);
    return rc != 0 ? rc : HcommChannelNotifyRecordOnThread(t, c, idx);
}

/* ---- one exchange round with a peer, on any thread ---------------------------------------- */

/* Sends `sl` bytes from `src` into my slot of `to`'s buffer and receives `from`'s bytes into
 * my slot for `from`. `to` == `from` for pairs; they differ on a ring. */
static int exchange(const struct run *g, ThreadHandle t, uint32_t to, uint32_t from,
                    const uint8_t *src, uint64_t sl)
{
    ChannelHandle cto = g->r->chans[to], cfrom = g->r->chans[from];

    TRY(HcommChannelNotifyRecordOnThread(t, cfrom, HCOLL_ACK));
    TRY(HcommChannelNotifyWaitOnThread(t, cto, HCOLL_ACK, HCOLL_TIMEOUT_S));
    if (sl > 0)
        TRY(write_notify(g, t, cto, (uint8_t *)g->r->peer_buf[to] + g->me * g->slot, src, sl,
                         HCOLL_DATA));
    else /* nothing this round: still pass the token, to keep both sides in step */
        TRY(HcommChannelNotifyRecordOnThread(t, cto, HCOLL_DATA));
    TRY(HcommChannelNotifyWaitOnThread(t, cfrom, HCOLL_DATA, HCOLL_TIMEOUT_S));
    return 0;
}

/* ---- PAIRS -------------------------------------------------------------------------------- */

static ThreadHandle peer_thread(const struct run *g, uint32_t p)
{
    return g->r->threads[1 + (p < g->me ? p : p - 1)];
}

static uint32_t peer_join_idx(const struct run *g, uint32_t p)
{
    return p < g->me ? p : p - 1;
}

static uint64_t pair_rounds(const struct run *g, uint32_t p)
{
    const struct hcoll_pair *pr = &g->a->pairs[p];

    return ceil_div(pr->send_len > pr->recv_len ? pr->send_len : pr->recv_len, g->slot);
}

/* Whether peer p (not me) exchanges anything in round k. */
static bool in_round(const struct run *g, uint32_t p, uint64_t k)
{
    return p != g->me && pair_rounds(g, p) > k;
}

static int start_peer(const struct run *g, uint32_t p)
{
    TRY(HcommThreadNotifyRecordOnThread(g->main, peer_thread(g, p), 0));
    TRY(HcommThreadNotifyWaitOnThread(peer_thread(g, p), 0, HCOLL_TIMEOUT_S));
    return 0;
}

static int join_peer(const struct run *g, uint32_t p)
{
    uint32_t idx = peer_join_idx(g, p);

    TRY(HcommThreadNotifyRecordOnThread(peer_thread(g, p), g->main, idx));
    TRY(HcommThreadNotifyWaitOnThread(g->main, idx, HCOLL_TIMEOUT_S));
    return 0;
}

/* Round k with peer p on thread t: my part to p, p's part into my slot for p. */
static int exchange_with(const struct run *g, ThreadHandle t, uint32_t p, uint64_t k)
{
    const struct hcoll_pair *pr = &g->a->pairs[p];

    return exchange(g, t, p, p, g->a->in + pr->send_off + k * g->slot, part(g, pr->send_len, k));
}

/* COPY mode, round k with peer p on p's thread: then the landed bytes go to the output. */
static int pair_round(const struct run *g, uint32_t p, uint64_t k)
{
    const struct hcoll_pair *pr = &g->a->pairs[p];
    ThreadHandle t = peer_thread(g, p);
    uint64_t rl = part(g, pr->recv_len, k);

    TRY(exchange_with(g, t, p, k));
    if (rl > 0)
        TRY(HcommLocalCopyOnThread(t, g->a->out + pr->recv_off + k * g->slot, slot_of(g, p), rl));
    return 0;
}

static bool overlaps(const uint8_t *a, const uint8_t *b, uint64_t len)
{
    return a < b + len && b < a + len;
}

/* My own part `pr` from in to out (nothing when in place). */
static int self_copy(const struct run *g, const struct hcoll_pair *pr, const uint8_t *in,
                     uint8_t *out)
{
    const uint8_t *src = in + pr->send_off;
    uint8_t *dst = out + pr->recv_off;
    uint64_t len = min_u64(pr->send_len, pr->recv_len);

    if (len == 0 || src == dst)
        return 0;
    return HcommLocalCopyOnThread(g->main, dst, src, len) != 0;
}

/* ---- EAGER pairs: one round, no ACK -------------------------------------------------------- */

/* Whether the exchange with p in this launch is eager (never with myself). */
static bool eager(const struct run *g, uint32_t p)
{
    return p != g->me && hcoll_bit(g->a->eager_mask, p);
}

/* Where `from`'s eager bytes of parity `par` land in the HCCL buffer `buf` (mine or a peer's). */
static uint8_t *eager_at(const struct run *g, void *buf, uint32_t from, uint32_t par)
{
    return (uint8_t *)buf + g->a->eager_off + ((uint64_t)par * g->n + from) * g->a->eager_len;
}

static uint8_t *eager_landed(const struct run *g, uint32_t from)
{
    return eager_at(g, g->r->buf, from, hcoll_bit(g->a->eager_parity, from));
}

/* The thread that runs the eager exchange with p. */
static ThreadHandle eager_thread(const struct run *g, uint32_t p)
{
    return g->a->eager_threads ? peer_thread(g, p) : g->main;
}

/* My part to eager peer p, the write followed by its DATA notify (a bare notify when I send
 * nothing). */
static int eager_send(const struct run *g, uint32_t p)
{
    const struct hcoll_pair *pr = &g->a->pairs[p];
    uint32_t par = hcoll_bit(g->a->eager_parity, p), notify = HCOLL_EAGER + par;

    if (pr->send_len > 0)
        return write_notify(g, eager_thread(g, p), g->r->chans[p],
                            eager_at(g, g->r->peer_buf[p], g->me, par), g->a->in + pr->send_off,
                            pr->send_len, notify) != 0;
    return HcommChannelNotifyRecordOnThread(eager_thread(g, p), g->r->chans[p], notify) != 0;
}

static int eager_wait(const struct run *g, uint32_t p)
{
    return HcommChannelNotifyWaitOnThread(eager_thread(g, p), g->r->chans[p],
                                          HCOLL_EAGER + hcoll_bit(g->a->eager_parity, p),
                                          HCOLL_TIMEOUT_S) != 0;
}

/* On thread t, wait for notify `notify` of p's channel, then copy `len` bytes from src to dst
 * (reduce: reduce them into dst): one task where the host allows it (args.fused_waits). */
static int wait_take(const struct run *g, ThreadHandle t, uint32_t p, uint32_t notify, bool reduce,
                     uint8_t *dst, const uint8_t *src, uint64_t len)
{
    ChannelHandle c = g->r->chans[p];
    uint64_t count = len / g->a->esz;
    HcommDataType dt = (HcommDataType)g->a->dtype;
    HcommReduceOp op = (HcommReduceOp)g->a->op;

    if (g->a->fused_waits && len > 0)
        return (reduce ? hcemu_wait_reduce(t, c, notify, HCOLL_TIMEOUT_S, dst, src, count, dt, op)
                       : hcemu_wait_copy(t, c, notify, HCOLL_TIMEOUT_S, dst, src, len)) != 0;
    TRY(HcommChannelNotifyWaitOnThread(t, c, notify, HCOLL_TIMEOUT_S));
    if (len == 0)
        return 0;
    return (reduce ? HcommLocalReduceOnThread(t, dst, src, count, dt, op)
                   : HcommLocalCopyOnThread(t, dst, src, len)) != 0;
}

/* Eager peer p's bytes, once they landed, copied (or reduced) into dst. */
static int eager_take(const struct run *g, uint32_t p, bool reduce, uint8_t *dst, uint64_t len)
{
    return wait_take(g, eager_thread(g, p), p, HCOLL_EAGER + hcoll_bit(g->a->eager_parity, p),
                     reduce, dst, eager_landed(g, p), len);
}

/* Queue every eager pair's send. Main-thread form: all sends go out before the first wait,
 * so every peer's bytes are on their way while I wait for theirs (the waits come with the
 * copies or reductions). Thread form: each peer's thread is started, sends and waits; the
 * caller queues what follows on it, then joins. */
static int eager_start(const struct run *g)
{
    for (uint32_t p = 0; p < g->n; p++) {
        if (!eager(g, p))
            continue;
        if (g->a->eager_threads) {
            TRY(start_peer(g, p));
            TRY(eager_send(g, p));
            TRY(eager_wait(g, p));
        } else {
            TRY(eager_send(g, p));
        }
    }
    return 0;
}

/* Whether every eager pair fits its eager slot, and the slots the buffer (the host plans
 * nothing else). */
static bool eager_fits(const struct run *g)
{
    bool any = false;

    for (uint32_t p = 0; p < g->n; p++) {
        if (!eager(g, p))
            continue;
        any = true;
        if (g->a->pairs[p].send_len > g->a->eager_len ||
            g->a->pairs[p].recv_len > g->a->eager_len)
            return false;
    }
    bool engine = (g->a->engine == HCOLL_ENGINE_PAIRS && g->a->recv_mode != HCOLL_RECV_KEEP) ||
                  g->a->engine == HCOLL_ENGINE_RHD_AG || g->a->engine == HCOLL_ENGINE_RHD_AR ||
                  g->a->engine == HCOLL_ENGINE_RD_AR;
    return !any || (engine && g->a->eager_off + 2 * g->n * g->a->eager_len <= g->r->buf_size);
}

/* Whether the chunks a launch stages (STAGED, and RHD_AR when stage_len is set) fit my
 * buffer before the eager slots. */
static bool stage_fits(const struct run *g)
{
    const struct hcoll_args *a = g->a;

    if (a->engine == HCOLL_ENGINE_STAGED && (a->recv_mode != HCOLL_RECV_COPY || a->stage_len == 0))
        return false;
    return a->stage_len <= g->r->buf_size && (a->eager_len == 0 || a->stage_len <= a->eager_off);
}

/* ---- DIRECT pairs: read the peer's buffer, no HCCL buffer in between ------------------------ */

static bool direct(const struct run *g, uint32_t p)
{
    return p != g->me && hcoll_bit(g->a->direct_mask, p);
}

/* Whether my step with partner p is pushed (hcoll_args, pushed_mask). */
static bool pushed(const struct run *g, uint32_t p)
{
    return hcoll_bit(g->a->pushed_mask, p);
}

static uint8_t *mailbox(const struct run *g, void *buf, uint32_t idx)
{
    return (uint8_t *)buf + g->a->direct_off + (uint64_t)idx * HCOLL_ALIGN;
}

/* My outbox for peer p in this call (coll_abi.h, direct_off): the source of the write that
 * puts an address of mine in p's inbox. */
static uint8_t *outbox(const struct run *g, uint32_t p)
{
    return (uint8_t *)g->r->buf + g->a->direct_off + (uint64_t)g->n * HCOLL_ALIGN +
           ((uint64_t)g->a->done_idx * g->n + p) * HCOLL_MAIL_ENTRY;
}

/* Tell peer p an address of mine, and in a spread reduction a second one (NULL: none),
 * stored now into the outbox of `box` (p, or me for a pushed step's output, the same for every
 * partner): one write with notify DIRECT_DATA puts them in p's inbox for me. */
static int publish(const struct run *g, uint32_t p, uint32_t box, const uint8_t *addr,
                   const uint8_t *addr2)
{
    uint64_t *out = (uint64_t *)(void *)outbox(g, box);

    out[0] = (uint64_t)(uintptr_t)addr;
    out[1] = (uint64_t)(uintptr_t)addr2;
    return write_notify(g, g->main, g->r->chans[p], mailbox(g, g->r->peer_buf[p], g->me), out,
                        addr2 != NULL ? 2 * sizeof(uint64_t) : sizeof(uint64_t), HCOLL_DIRECT_DATA);
}

/* Tell every direct peer where the bytes I send it start and, in a spread reduction, where its
 * reduced part goes in my output: the same offset, in my output. */
static int direct_publish(const struct run *g)
{
    for (uint32_t p = 0; p < g->n; p++) {
        uint64_t off = g->a->pairs[p].send_off;
        if (direct(g, p))
            TRY(publish(g, p, p, g->a->in + off, g->a->spread ? g->a->out + off : NULL));
    }
    return 0;
}

static int direct_wait(const struct run *g, uint32_t p)
{
    return HcommChannelNotifyWaitOnThread(g->main, g->r->chans[p], HCOLL_DIRECT_DATA,
                                          HCOLL_TIMEOUT_S) != 0;
}

static int direct_ack(const struct run *g, uint32_t p)
{
    return HcommChannelNotifyRecordOnThread(g->main, g->r->chans[p], HCOLL_DIRECT_ACK) != 0;
}

/* The ACKs of my readers, waited for last: my input must stay as it is until every peer has
 * read it, which is what the stream's next task may change. */
static int direct_done(const struct run *g)
{
    for (uint32_t p = 0; p < g->n; p++)
        if (direct(g, p))
            TRY(HcommChannelNotifyWaitOnThread(g->main, g->r->chans[p], HCOLL_DIRECT_ACK,
                                               HCOLL_TIMEOUT_S));
    return 0;
}

/* Whether any pair of this launch goes direct. */
static bool any_direct(const struct run *g)
{
    for (uint32_t p = 0; p < g->n; p++)
        if (direct(g, p))
            return true;
    return false;
}

/* COPY: each direct peer's bytes, read from where it published them once it has, then its
 * ACK: I am done with its buffer; and my own bytes (`own`) in their place in rank order, so
 * that every rank reads the blocks in the same order (pairs_copy says why). */
static int direct_read(const struct run *g, bool own)
{
    for (uint32_t p = 0; p < g->n; p++) {
        const struct hcoll_pair *pr = &g->a->pairs[p];
        if (p == g->me && own)
            TRY(self_copy(g, pr, g->a->in, g->a->out));
        if (!direct(g, p))
            continue;
        TRY(direct_wait(g, p));
        if (pr->recv_len > 0)
            TRY(hcemu_read_published(g->main, g->r->chans[p], g->a->out + pr->recv_off,
                                     mailbox(g, g->r->buf, p), 0, pr->recv_len));
        TRY(direct_ack(g, p));
    }
    return direct_done(g);
}

/* Whether the direct pairs' mailboxes fit the buffer, in a PAIRS COPY or REDUCE launch (the
 * host plans nothing else), and no pair is both direct and eager; or those of a recursive
 * doubling allgather's pushed steps, which are neither. */
static bool direct_fits(const struct run *g)
{
    bool any = false;

    for (uint32_t p = 0; p < g->n; p++) {
        bool d = direct(g, p), s = pushed(g, p);
        if ((d || s) && eager(g, p))
            return false;
        if (g->a->spread && p != g->me && !d) /* its output would miss my part */
            return false;
        if (s && (d || g->a->engine != HCOLL_ENGINE_RHD_AG))
            return false;
        any = any || d || s;
    }
    if (g->a->spread > HCOLL_SPREAD_STREAMED)
        return false;
    if (g->a->spread &&
        (g->a->engine != HCOLL_ENGINE_PAIRS || g->a->recv_mode != HCOLL_RECV_REDUCE || !any))
        return false;
    return !any || ((g->a->engine == HCOLL_ENGINE_PAIRS || g->a->engine == HCOLL_ENGINE_RHD_AG) &&
                    g->a->recv_mode != HCOLL_RECV_KEEP && g->a->direct_off % HCOLL_ALIGN == 0 &&
                    g->a->done_idx < HCOLL_WINDOW &&
                    g->a->direct_off + HCOLL_MAIL_BYTES(g->n) <= g->r->buf_size);
}

/* ---- PAIRS ---------------------------------------------------------------------------------- */

/* COPY: eager pairs where eager_start put them (the main thread, or their peers' threads);
 * every other pair runs all its rounds on its own thread, independently of the others. */
static int pairs_copy(const struct run *g)
{
    /* With direct pairs my own block is copied among the peers' reads, in rank order: every
     * rank then reads the inputs in the same order, so ranks that run at the same time read
     * the same input together and the later one finds it in the cache. Copied first instead,
     * each rank's own block put it one input ahead of the others, and at 2 ranks they never
     * read the same one at once (2-rank 16 MiB allgather 1.10-1.27 against 0.96-0.98 ms,
     * 64 MiB 5.3-5.7 against 3.9-4.5; 4-rank 64 MiB 8.3-9.3 against 7.4-7.7; with more
     * ranks than cores, as fast either way). */
    bool in_order = any_direct(g);

    TRY(direct_publish(g));
    TRY(eager_start(g));
    if (!in_order)
        TRY(self_copy(g, &g->a->pairs[g->me], g->a->in, g->a->out));
    for (uint32_t p = 0; p < g->n; p++) {
        uint64_t rounds = p == g->me || eager(g, p) || direct(g, p) ? 0 : pair_rounds(g, p);
        if (rounds == 0)
            continue;
        TRY(start_peer(g, p));
        for (uint64_t k = 0; k < rounds; k++)
            TRY(pair_round(g, p, k));
    }
    for (uint32_t p = 0; p < g->n; p++) {
        const struct hcoll_pair *pr = &g->a->pairs[p];
        if (!eager(g, p))
            continue;
        if (!g->a->eager_threads)
            TRY(eager_take(g, p, false, g->a->out + pr->recv_off, pr->recv_len));
        else if (pr->recv_len > 0) /* its thread waited */
            TRY(HcommLocalCopyOnThread(eager_thread(g, p), g->a->out + pr->recv_off,
                                       eager_landed(g, p), pr->recv_len));
    }
    TRY(direct_read(g, in_order));
    for (uint32_t p = 0; p < g->n; p++)
        if (in_round(g, p, 0) && !direct(g, p) && (!eager(g, p) || g->a->eager_threads))
            TRY(join_peer(g, p));
    return 0;
}

/* Whether peer q takes part in this PAIRS launch: a hierarchical step exchanges with some
 * peers only (the ranks of my server, or my counterparts on the other servers). */
static bool takes_part(const struct run *g, uint32_t q)
{
    return q == g->me || pair_rounds(g, q) > 0;
}

/* Where peer q's part of round k waits to be reduced: its slot, or its eager slot. */
static const uint8_t *landed(const struct run *g, uint32_t q)
{
    return eager(g, q) ? eager_landed(g, q) : slot_of(g, q);
}

/* The next rank after q taking part in this launch (g->n: none). */
static uint32_t next_part(const struct run *g, uint32_t q)
{
    while (++q < g->n && !takes_part(g, q))
        ;
    return q;
}

/* Whether the first two parts of a reduction, `first` and `second` in rank order, are mine
 * and a direct peer's: then one task reduces the peer's straight from its buffer with mine
 * into the result, instead of a copy of the first into the result and a reduction of the
 * second into it. That saves a pass over the result: the copy read it from memory and wrote
 * it, the reduction read it back. */
static bool fused_pair(const struct run *g, uint32_t first, uint32_t second)
{
    return second < g->n && ((first == g->me && direct(g, second)) ||
                             (second == g->me && direct(g, first)));
}

/* A cached spread reduction's round at 2 ranks: my reduced part of it, `len` bytes at `res`
 * in my output, into every peer's, `off` past where the peer published it, each peer from the next
 * rank on, so that the ranks' writes of a round spread over the outputs instead of all going
 * to rank 0's first. */
static int spread_round(const struct run *g, const uint8_t *res, uint64_t off, uint64_t len)
{
    for (uint32_t i = 1; i < g->n; i++) {
        uint32_t q = (g->me + i) % g->n;
        TRY(hcemu_write_published(g->main, g->r->chans[q],
                                  mailbox(g, g->r->buf, q) + sizeof(uint64_t), off, res, len));
    }
    return 0;
}

/* REDUCE, round k: the part k of every rank taking part, in rank order, into my result, so
 * every rank that computes an element computes it with the same operations in the same
 * order. In the main-thread form an eager peer's part is waited for just before it is
 * reduced; in the thread form its thread waited, and was joined before this. */
static int reduce_round(const struct run *g, uint64_t k)
{
    const struct hcoll_pair *mine = &g->a->pairs[g->me];
    uint64_t rl = part(g, mine->recv_len, k);
    uint8_t *dst = g->a->out + mine->recv_off + k * g->slot;
    const uint8_t *own = g->a->in + mine->send_off + k * g->slot;
    uint32_t first = 0;

    if (rl == 0) { /* nothing to reduce here: still consume the eager peers' notifies */
        for (uint32_t p = 0; p < g->n; p++)
            if (eager(g, p) && !g->a->eager_threads)
                TRY(eager_wait(g, p));
        return 0;
    }
    /* A spread call: the round reduced and stored into every output in one task, a piece at
     * a time (coll_abi.h, spread). Past the cache the task reads memory while it writes it; in
     * a cached call it saves the passes over my output and a task per peer: 8 ranks 1 MiB
     * 581-630 against 768-807 us, 256 KiB 250-262 against 302-318. With one peer the form
     * below is one reduction into my output and one write, and the task's piece buffer only
     * adds a copy (2 ranks 1 MiB 68-92 against 55-62 us). */
    if (g->a->spread == HCOLL_SPREAD_STREAMED || (g->a->spread != 0 && g->n > 2))
        return hcemu_reduce_spread_published(
            g->main, g->r->chans, g->n, g->me, own, dst, mailbox(g, g->r->buf, 0), HCOLL_ALIGN,
            k * g->slot, rl / g->a->esz, (HcommDataType)g->a->dtype, (HcommReduceOp)g->a->op);
    while (!takes_part(g, first))
        first++;
    if (own != dst && overlaps(own, dst, rl))
        return 1; /* the host never plans this */
    uint32_t second = next_part(g, first), from = first;
    if (fused_pair(g, first, second)) { /* in place too: element by element */
        uint32_t q = first == g->me ? second : first;
        TRY(hcemu_read_reduce_published_into(g->main, g->r->chans[q], dst, own, first == g->me,
                                             mailbox(g, g->r->buf, q), k * g->slot,
                                             rl / g->a->esz, (HcommDataType)g->a->dtype,
                                             (HcommReduceOp)g->a->op));
        from = next_part(g, second);
    } else if (own == dst && g->me != first) { /* in place: keep my part from the first's */
        TRY(HcommLocalCopyOnThread(g->main, slot_of(g, g->me), own, rl));
        own = slot_of(g, g->me);
    }
    for (uint32_t q = from; q < g->n; q++) {
        if (!takes_part(g, q))
            continue;
        if (eager(g, q) && !g->a->eager_threads) { /* the first copied, the others reduced */
            TRY(eager_take(g, q, q > first, dst, rl));
            continue;
        }
        if (direct(g, q)) { /* straight from q's buffer, where it published its part */
            if (q == first)
                TRY(hcemu_read_published(g->main, g->r->chans[q], dst, mailbox(g, g->r->buf, q),
                                         k * g->slot, rl));
            else
                TRY(hcemu_read_reduce_published(g->main, g->r->chans[q], dst,
                                                mailbox(g, g->r->buf, q), k * g->slot,
                                                rl / g->a->esz, (HcommDataType)g->a->dtype,
                                                (HcommReduceOp)g->a->op));
            continue;
        }
        const uint8_t *src = q == g->me ? own : landed(g, q);
        if (q == first && src != dst)
            TRY(HcommLocalCopyOnThread(g->main, dst, src, rl));
        else if (q > first)
            TRY(HcommLocalReduceOnThread(g->main, dst, src, rl / g->a->esz,
                                         (HcommDataType)g->a->dtype, (HcommReduceOp)g->a->op));
    }
    return g->a->spread ? spread_round(g, dst, k * g->slot, rl) : 0;
}

/* Whether peer p exchanges through its slot (not eager, not direct) in round k. */
static bool slot_round(const struct run *g, uint32_t p, uint64_t k)
{
    return in_round(g, p, k) && !eager(g, p) && !direct(g, p);
}

/* The one peer exchanging through its slot in round k, or UINT32_MAX when there are none or
 * several. With one (2 ranks, or a hierarchical step with one counterpart) the main thread
 * exchanges with it itself: starting and joining a peer thread would add two records, two
 * waits and two hand-offs between threads to every call, and overlap nothing. */
static uint32_t lone_peer(const struct run *g, uint64_t k)
{
    uint32_t only = UINT32_MAX;

    for (uint32_t p = 0; p < g->n; p++) {
        if (!slot_round(g, p, k))
            continue;
        if (only != UINT32_MAX)
            return UINT32_MAX;
        only = p;
    }
    return only;
}

/* REDUCE and KEEP: rounds in lock-step, since the reduction needs every peer's part. Eager
 * pairs (one round only) send before the slot exchanges and are reduced as they come; direct
 * pairs publish first, are waited for before the first round and read from the peer's buffer
 * round by round, then acknowledged. */
static int pairs_reduce(const struct run *g)
{
    bool keep = g->a->recv_mode == HCOLL_RECV_KEEP;
    uint64_t rounds = 0;

    for (uint32_t p = 0; p < g->n; p++)
        if (in_round(g, p, rounds))
            rounds = pair_rounds(g, p);
    if (keep) /* the host drives the rounds, one launch each */
        rounds = rounds > g->a->round_first ? 1 : 0;
    TRY(direct_publish(g));
    TRY(eager_start(g));
    for (uint32_t p = 0; p < g->n; p++)
        if (direct(g, p))
            TRY(direct_wait(g, p));
    for (uint32_t p = 0; p < g->n && g->a->eager_threads; p++)
        if (eager(g, p))
            TRY(join_peer(g, p));
    for (uint64_t i = 0; i < rounds; i++) {
        uint64_t k = keep ? g->a->round_first : i;
        uint32_t only = lone_peer(g, k);
        if (only != UINT32_MAX) {
            TRY(exchange_with(g, g->main, only, k));
        } else {
            for (uint32_t p = 0; p < g->n; p++) {
                if (!slot_round(g, p, k))
                    continue;
                TRY(start_peer(g, p));
                TRY(exchange_with(g, peer_thread(g, p), p, k));
            }
            for (uint32_t p = 0; p < g->n; p++)
                if (slot_round(g, p, k))
                    TRY(join_peer(g, p));
        }
        if (!keep)
            TRY(reduce_round(g, k));
    }
    for (uint32_t p = 0; p < g->n; p++)
        if (direct(g, p))
            TRY(direct_ack(g, p));
    return direct_done(g);
}

/* ---- STAGED: my block copied once into my buffer, read from there by every peer ---------- */

/* The card's mesh allgather reads: each rank copies its block into its own HCCL buffer, and
 * every peer reads it from there. A block is then copied n + 1 times in the job (staged once,
 * read n - 1 times, copied to my own output once) instead of the 2n - 1 times of PAIRS, where
 * each peer's copy is written into its slot of the peer's buffer and copied out again. A
 * round stages up to stage_len bytes, in slot-sized tasks (tasks stay short, coll_launch.c);
 * then each peer's thread reads that peer's chunk between the hand-shakes of exchange():
 * ACK "my chunk is staged, read it", DATA "I have read yours". They are recorded and waited
 * in exchange()'s order, so the slot protocol's argument carries over, and launches of
 * either form can follow each other on a channel: my ACK of the next launch comes after
 * every peer's DATA of this one, so nobody writes into my buffer while a peer still reads it,
 * and I stage again only after every peer said it has read. */

/* What a staged gather moves: pair(g, p) as in struct hcoll_pair, relative to in and out:
 * the launch's own pairs (STAGED), or the blocks of an allreduce (RHD_AR). */
struct gather {
    const uint8_t *in;
    uint8_t *out;
    struct hcoll_pair (*pair)(const struct run *g, uint32_t p);
};

static struct hcoll_pair launch_pair(const struct run *g, uint32_t p)
{
    return g->a->pairs[p];
}

/* Bytes of round k of a `len`-byte block staged `cap` bytes a round. */
static uint64_t chunk(uint64_t len, uint64_t k, uint64_t cap)
{
    uint64_t off = k * cap;

    return off >= len ? 0 : min_u64(len - off, cap);
}

/* Rounds of the exchange with p: both ends count the larger of the two blocks alike. */
static uint64_t staged_rounds(const struct run *g, const struct gather *x, uint32_t p)
{
    if (p == g->me)
        return 0;
    struct hcoll_pair pr = x->pair(g, p);
    return ceil_div(pr.send_len > pr.recv_len ? pr.send_len : pr.recv_len, g->a->stage_len);
}

/* Round k with p on thread t: p's chunk k read from its buffer to where it goes in mine. */
static int read_round(const struct run *g, const struct gather *x, ThreadHandle t, uint32_t p,
                      uint64_t k)
{
    struct hcoll_pair pr = x->pair(g, p);
    ChannelHandle c = g->r->chans[p];
    uint64_t len = chunk(pr.recv_len, k, g->a->stage_len);
    uint8_t *dst = x->out + pr.recv_off + k * g->a->stage_len;
    const uint8_t *src = g->r->peer_buf[p];

    TRY(HcommChannelNotifyRecordOnThread(t, c, HCOLL_ACK));
    TRY(HcommChannelNotifyWaitOnThread(t, c, HCOLL_ACK, HCOLL_TIMEOUT_S));
    for (uint64_t o = 0; o < len; o += g->slot)
        TRY(HcommReadOnThread(t, c, dst + o, src + o, min_u64(g->slot, len - o)));
    TRY(HcommChannelNotifyRecordOnThread(t, c, HCOLL_DATA));
    TRY(HcommChannelNotifyWaitOnThread(t, c, HCOLL_DATA, HCOLL_TIMEOUT_S));
    return 0;
}

static int staged(const struct run *g, const struct gather *x)
{
    struct hcoll_pair mine = x->pair(g, g->me);
    const uint8_t *block = x->in + mine.send_off;
    uint64_t cap = g->a->stage_len, rounds = 0;
    uint32_t peers = 0, lone = 0;

    for (uint32_t p = 0; p < g->n; p++) {
        uint64_t r = staged_rounds(g, x, p);
        rounds = r > rounds ? r : rounds;
        if (r > 0) {
            peers++;
            lone = p;
        }
    }
    for (uint64_t k = 0; k < rounds; k++) {
        uint64_t sl = chunk(mine.send_len, k, cap);
        for (uint64_t o = 0; o < sl; o += g->slot)
            TRY(HcommLocalCopyOnThread(g->main, (uint8_t *)g->r->buf + o, block + k * cap + o,
                                       min_u64(g->slot, sl - o)));
        if (peers == 1) { /* as lone_peer(): no thread to start and join for one peer */
            TRY(read_round(g, x, g->main, lone, k));
            continue;
        }
        for (uint32_t p = 0; p < g->n; p++) {
            if (staged_rounds(g, x, p) <= k)
                continue;
            TRY(start_peer(g, p));
            TRY(read_round(g, x, peer_thread(g, p), p, k));
        }
        if (k == 0) /* my own block while the peers read theirs */
            TRY(self_copy(g, &mine, x->in, x->out));
        for (uint32_t p = 0; p < g->n; p++)
            if (staged_rounds(g, x, p) > k)
                TRY(join_peer(g, p));
    }
    if (rounds == 0 || peers == 1)
        TRY(self_copy(g, &mine, x->in, x->out));
    return 0;
}

/* ---- schedules on the main thread: ring and recursive halving-doubling -------------------- */

/* One step: `sl` bytes from src to `to`, `rl` bytes from `from` into dst (reduced or
 * copied), in `rounds` slot-sized rounds that both partners of each direction agree on. */
struct step {
    uint32_t to, from;
    const uint8_t *src;
    uint64_t sl;
    uint8_t *dst;
    uint64_t rl;
    bool reduce;
    uint64_t rounds;
    /* A copy of my own bytes from the input to the output that the step needs before it takes
     * the partner's (own_len 0: none). An eager step queues it between its send and its wait,
     * so the partner's hand-off starts one task earlier. */
    const uint8_t *own_src;
    uint8_t *own_dst;
    uint64_t own_len;
};

static int own_copy(const struct run *g, const struct step *s)
{
    if (s->own_len == 0)
        return 0;
    return HcommLocalCopyOnThread(g->main, s->own_dst, s->own_src, s->own_len) != 0;
}

/* Received bytes of a step, from where they landed into the step's dst. */
static int take(const struct run *g, const struct step *s, uint8_t *dst, const uint8_t *landed,
                uint64_t rl)
{
    if (s->reduce)
        return HcommLocalReduceOnThread(g->main, dst, landed, rl / g->a->esz,
                                        (HcommDataType)g->a->dtype, (HcommReduceOp)g->a->op) != 0;
    return HcommLocalCopyOnThread(g->main, dst, landed, rl) != 0;
}

/* Halving-doubling: the parity of each partner's next eager exchange in this launch, from
 * the launch's eager_parity, flipped at each (a partner may come twice: once per half). */
struct parity {
    uint8_t bits[HCOLL_MAX_RANKS / 8];
};

static struct parity parity_of(const struct run *g)
{
    struct parity q;

    for (uint32_t i = 0; i < sizeof(q.bits); i++)
        q.bits[i] = g->a->eager_parity[i];
    return q;
}

/* Whether a step with one partner (to == from) goes eager: the host marked the partner and
 * the step fits (coll_steps.h; the host counts the same steps to keep the parities). */
static bool step_eager(const struct run *g, const struct step *s)
{
    return s->to == s->from && eager(g, s->to) &&
           hcoll_step_eager(s->sl, s->rl, g->a->eager_len, g->slot);
}

/* A step as an eager exchange: my part into my eager slot of the partner's buffer with its
 * notify, the partner's out of its eager slot of mine; no ACK (coll_launch.c says why). */
static int eager_step(const struct run *g, const struct step *s, struct parity *q)
{
    uint32_t p = s->to, par = hcoll_bit(q->bits, p);
    ChannelHandle c = g->r->chans[p];

    if (s->sl > 0)
        TRY(write_notify(g, g->main, c, eager_at(g, g->r->peer_buf[p], g->me, par), s->src, s->sl,
                         HCOLL_EAGER + par));
    else
        TRY(HcommChannelNotifyRecordOnThread(g->main, c, HCOLL_EAGER + par));
    q->bits[p / 8] ^= (uint8_t)(1u << (p % 8));
    TRY(own_copy(g, s));
    return wait_take(g, g->main, p, HCOLL_EAGER + par, s->reduce, s->dst,
                     eager_at(g, g->r->buf, p, par), s->rl);
}

static int run_step(const struct run *g, const struct step *s)
{
    TRY(own_copy(g, s));
    for (uint64_t k = 0; k < s->rounds; k++) {
        uint64_t sl = part(g, s->sl, k), rl = part(g, s->rl, k);
        uint8_t *dst = s->dst + k * g->slot;

        TRY(exchange(g, g->main, s->to, s->from, s->src + k * g->slot, sl));
        if (rl > 0)
            TRY(take(g, s, dst, slot_of(g, s->from), rl));
    }
    return 0;
}

/* A step of a halving-doubling schedule: eager when it may, else through the slots. */
static int rhd_step(const struct run *g, const struct step *s, struct parity *q)
{
    return step_eager(g, s) ? eager_step(g, s, q) : run_step(g, s);
}

static int copy_in_to_out(const struct run *g, uint64_t len)
{
    if (len == 0 || g->a->in == g->a->out)
        return 0;
    return HcommLocalCopyOnThread(g->main, g->a->out, g->a->in, len) != 0;
}

/* Ring reduce-scatter then ring allgather over `out`; block b ends reduced on rank b-1. */
static int ring_allreduce(const struct run *g)
{
    uint32_t n = g->n, me = g->me, left = (me + n - 1) % n, right = (me + 1) % n;
    struct hcoll_blocks b = hcoll_blocks_of(g->a->count, n, g->a->esz);
    uint64_t rounds = ceil_div(b.block * b.esz, g->slot);

    TRY(copy_in_to_out(g, b.count * b.esz));
    for (uint32_t j = 0; j < 2 * (n - 1); j++) {
        bool rs = j < n - 1;
        uint32_t s = rs ? j : j - (n - 1);
        uint32_t sb = rs ? (me + n - s) % n : (me + 1 + n - s) % n;
        uint32_t rb = rs ? (me + 2 * n - s - 1) % n : (me + n - s) % n;
        uint8_t *send = g->a->out + hcoll_blk_off(&b, sb);
        uint8_t *recv = g->a->out + hcoll_blk_off(&b, rb);
        struct step st = {.to = right, .from = left, .src = send,
                          .sl = hcoll_blk_len(&b, sb, sb + 1), .dst = recv,
                          .rl = hcoll_blk_len(&b, rb, rb + 1), .reduce = rs, .rounds = rounds};
        TRY(run_step(g, &st));
    }
    return 0;
}

/* Block p of an allreduce beside my block: what its allgather half moves. */
static struct hcoll_pair block_pair(const struct run *g, uint32_t p)
{
    struct hcoll_pair pr;

    hcoll_block(g->a->count, g->n, g->me, g->a->esz, &pr.send_off, &pr.send_len);
    hcoll_block(g->a->count, g->n, p, g->a->esz, &pr.recv_off, &pr.recv_len);
    return pr;
}

/* Recursive halving (reduce-scatter), which leaves block `me` reduced here, then the
 * allgather of the blocks: staged reads when the host gave a stage_len (every peer reads
 * my block once: 1 + (n - 1) copies of a block instead of the 2(n - 1) of doubling's writes
 * and copies out), else recursive doubling. n is a power of two. */
static int rhd_allreduce(const struct run *g)
{
    uint32_t n = g->n, me = g->me;
    struct hcoll_blocks b = hcoll_blocks_of(g->a->count, n, g->a->esz);
    uint8_t *out = g->a->out;
    const uint8_t *from = g->a->in; /* the first step sends from the input */
    struct parity q = parity_of(g);

    for (uint32_t mask = n / 2; mask >= 1; mask /= 2) {
        uint32_t partner = me ^ mask, klo, slo;
        hcoll_halving(me, mask, &klo, &slo);
        uint64_t sl = hcoll_blk_len(&b, slo, slo + mask), rl = hcoll_blk_len(&b, klo, klo + mask);
        uint64_t koff = hcoll_blk_off(&b, klo), soff = hcoll_blk_off(&b, slo);
        /* Only the half I keep is copied to the output, to be reduced there: the half I
         * send goes from the input (half of a whole-buffer copy saved). */
        struct step st = {.to = partner, .from = partner, .src = from + soff, .sl = sl,
                          .dst = out + koff, .rl = rl, .reduce = true,
                          .rounds = ceil_div(sl > rl ? sl : rl, g->slot)};
        if (from != out && rl > 0)
            st.own_src = from + koff, st.own_dst = out + koff, st.own_len = rl;
        TRY(rhd_step(g, &st, &q));
        from = out;
    }
    if (g->a->stage_len != 0) {
        struct gather x = {out, out, block_pair};
        return staged(g, &x);
    }
    for (uint32_t mask = 1; mask < n; mask *= 2) {
        uint32_t partner = me ^ mask, mine, theirs;
        hcoll_doubling(me, mask, &mine, &theirs);
        uint64_t sl = hcoll_blk_len(&b, mine, mine + mask);
        uint64_t rl = hcoll_blk_len(&b, theirs, theirs + mask);
        struct step st = {.to = partner, .from = partner, .src = out + hcoll_blk_off(&b, mine),
                          .sl = sl, .dst = out + hcoll_blk_off(&b, theirs), .rl = rl,
                          .rounds = ceil_div(sl > rl ? sl : rl, g->slot)};
        TRY(rhd_step(g, &st, &q));
    }
    return 0;
}

/* Recursive doubling of the whole vector (n a power of two): each step swaps everything
 * reduced so far with the partner and reduces it in, so log2(n) steps leave the sum of all
 * ranks everywhere. Both partners compute the same elementwise sums (the reductions the data
 * plane runs are commutative, element by element), so every rank gets the same bits. */
static int rd_allreduce(const struct run *g)
{
    uint64_t len = g->a->count * g->a->esz;
    uint8_t *out = g->a->out;
    struct parity q = parity_of(g);

    for (uint32_t mask = 1; mask < g->n; mask *= 2) {
        uint32_t partner = g->me ^ mask;
        struct step st = {.to = partner, .from = partner, .src = out, .sl = len, .dst = out,
                          .rl = len, .reduce = true, .rounds = ceil_div(len, g->slot)};
        /* The first step sends from the input and copies it out while the partner's come. */
        if (mask == 1 && g->a->in != out)
            st.src = g->a->in, st.own_src = g->a->in, st.own_dst = out, st.own_len = len;
        TRY(rhd_step(g, &st, &q));
    }
    return 0;
}

/* Ring allgather: n-1 steps, each passing one rank's block to the right. */
static int ring_allgather(const struct run *g)
{
    uint32_t n = g->n, me = g->me, left = (me + n - 1) % n, right = (me + 1) % n;
    uint64_t len = g->a->count * g->a->esz, rounds = ceil_div(len, g->slot);
    uint8_t *out = g->a->out;

    if (g->a->in != out + me * len && len > 0)
        TRY(HcommLocalCopyOnThread(g->main, out + me * len, g->a->in, len));
    for (uint32_t s = 0; s + 1 < n; s++) {
        uint32_t sb = (me + n - s) % n, rb = (me + 2 * n - s - 1) % n;
        struct step st = {.to = right, .from = left, .src = out + sb * len, .sl = len,
                          .dst = out + rb * len, .rl = len, .rounds = rounds};
        TRY(run_step(g, &st));
    }
    return 0;
}

/* ---- Pushed steps ----------------------------------------------------------------------------
 * Recursive doubling steps that write my blocks straight into the partner's output (hcoll_args,
 * pushed_mask): each rank first publishes its output's address to the partners of those
 * steps, as a direct pair publishes its input; then each block is copied once per step instead
 * of twice (into the eager slot, then out of it). No ACK is needed: a partner writes only the
 * blocks its step owes me, into my output, which nothing else writes during the call; and its
 * next call's writes wait for my next call's address, which my main thread publishes after
 * this call's tasks. The address goes out of an outbox of its own per call of a window
 * (coll_abi.h), so calls overlap (host/coll/coll_launch.c, "Overlapping calls"): the next
 * calls' kernels run and queue their tasks while this call's steps go on. */

/* My output's address to each partner whose step is pushed, from this call's outbox. */
static int push_address(const struct run *g)
{
    for (uint32_t mask = 1; mask < g->n; mask *= 2)
        if (pushed(g, g->me ^ mask))
            TRY(publish(g, g->me ^ mask, g->me, g->a->out, NULL));
    return 0;
}

/* A pushed step with partner p: `len` bytes of `src` to `off` in its output, once it told me
 * where that is; then its bytes have landed in mine. */
static int pushed_step(const struct run *g, uint32_t p, uint64_t off, const uint8_t *src,
                       uint64_t len)
{
    ChannelHandle c = g->r->chans[p];

    TRY(HcommChannelNotifyWaitOnThread(g->main, c, HCOLL_DIRECT_DATA, HCOLL_TIMEOUT_S));
    if (len > 0)
        TRY(hcemu_write_published(g->main, c, mailbox(g, g->r->buf, p), off, src, len));
    TRY(HcommChannelNotifyRecordOnThread(g->main, c, HCOLL_PUSHED));
    return HcommChannelNotifyWaitOnThread(g->main, c, HCOLL_PUSHED, HCOLL_TIMEOUT_S) != 0;
}

/* Recursive doubling allgather (n a power of two): each step swaps everything gathered so
 * far with the partner, so log2(n) steps move the blocks. */
static int rhd_allgather(const struct run *g)
{
    uint32_t n = g->n, me = g->me;
    uint64_t len = g->a->count * g->a->esz;
    uint8_t *out = g->a->out;
    struct parity q = parity_of(g);

    TRY(push_address(g));
    for (uint32_t mask = 1; mask < n; mask *= 2) {
        uint32_t partner = me ^ mask, mine, theirs;
        hcoll_doubling(me, mask, &mine, &theirs);
        uint64_t bytes = (uint64_t)mask * len;
        struct step st = {.to = partner, .from = partner, .src = out + mine * len, .sl = bytes,
                          .dst = out + theirs * len, .rl = bytes,
                          .rounds = ceil_div(bytes, g->slot)};
        /* The first step sends my block from the input and copies it out meanwhile. */
        if (mask == 1 && g->a->in != out + me * len && len > 0)
            st.src = g->a->in, st.own_src = g->a->in, st.own_dst = out + me * len,
            st.own_len = len;
        if (pushed(g, partner)) {
            TRY(own_copy(g, &st));
            TRY(pushed_step(g, partner, mine * len, st.src, bytes));
        } else {
            TRY(rhd_step(g, &st, &q));
        }
    }
    return 0;
}

/* Ring reduce-scatter: the partial sum of one block travels once around the ring, each rank
 * adding its own input block to it in `out` (one block long), so after n-1 steps `out` holds
 * this rank's block reduced over every rank. Not in place: the host plans mesh for that. */
static int ring_reduce_scatter(const struct run *g)
{
    uint32_t n = g->n, me = g->me, left = (me + n - 1) % n, right = (me + 1) % n;
    uint64_t len = g->a->count * g->a->esz, rounds = ceil_div(len, g->slot);
    uint8_t *out = g->a->out;
    const uint8_t *in = g->a->in;
    HcommDataType t = (HcommDataType)g->a->dtype;
    HcommReduceOp op = (HcommReduceOp)g->a->op;

    TRY(HcommLocalCopyOnThread(g->main, out, in + ((me + n - 1) % n) * len, len));
    for (uint32_t s = 0; s + 1 < n; s++) {
        const uint8_t *mine = in + ((me + 2 * n - s - 2) % n) * len;
        for (uint64_t k = 0; k < rounds; k++) {
            uint64_t part_len = part(g, len, k), off = k * g->slot;
            TRY(exchange(g, g->main, right, left, out + off, part_len));
            TRY(HcommLocalCopyOnThread(g->main, out + off, mine + off, part_len));
            TRY(HcommLocalReduceOnThread(g->main, out + off, slot_of(g, left),
                                         part_len / g->a->esz, t, op));
        }
    }
    return 0;
}

/* ---- entries ------------------------------------------------------------------------------ */

static int orchestrate(const struct run *g)
{
    switch (g->a->engine) {
    case HCOLL_ENGINE_PAIRS:
        return g->a->recv_mode == HCOLL_RECV_COPY ? pairs_copy(g) : pairs_reduce(g);
    case HCOLL_ENGINE_RING_AR:
        return ring_allreduce(g);
    case HCOLL_ENGINE_RHD_AR:
        return rhd_allreduce(g);
    case HCOLL_ENGINE_RD_AR:
        return rd_allreduce(g);
    case HCOLL_ENGINE_RING_AG:
        return ring_allgather(g);
    case HCOLL_ENGINE_RHD_AG:
        return rhd_allgather(g);
    case HCOLL_ENGINE_RING_RS:
        return ring_reduce_scatter(g);
    case HCOLL_ENGINE_STAGED: {
        struct gather x = {g->a->in, g->a->out, launch_pair};
        return staged(g, &x);
    }
    default:
        return 1;
    }
}

uint32_t hcemu_coll_run(void *args)
{
    const struct hcoll_args *a = args;
    struct run g = {.a = a};

    if (a->res_size < sizeof(*g.r) || a->res == NULL || a->slot == 0 || a->esz == 0)
        return 1;
    g.r = a->res;
    if (g.r->size == 0 || g.r->size > HCOLL_MAX_RANKS || g.r->rank >= g.r->size)
        return 1;
    g.main = g.r->threads[0];
    g.me = g.r->rank;
    g.n = g.r->size;
    g.slot = a->slot;
    if (!eager_fits(&g) || !stage_fits(&g) || !direct_fits(&g))
        return 1; /* the host never plans this */
    if (HcommBatchModeStart(a->tag) != 0)
        return 1;
    /* No start wait: every task goes behind the communicator's previous call on the same
     * threads (a peer thread starts on a record of the main thread), which the launch's place
     * on the host stream orders (coll_launch.c, "Overlapping calls"). A launch like an
     * earlier one queues that one's tasks again (coll_key.h); the "done" is each call's own. */
    uint8_t key[HCOLL_KEY_MAX];
    uint32_t key_len = hcoll_launch_key(a, g.r, g.n, key);
    bool keyed = key_len > 0;
    int bad = 0;
    if (!keyed || hcemu_cache_replay(key, key_len) != 0) {
        bad = orchestrate(&g) != 0;
        if (keyed && !bad)
            bad = hcemu_cache_record_end() != 0;
    }
    bad = bad || hcemu_record_done(g.main, a->host, a->done_idx) != 0;
    bad |= HcommBatchModeEnd(a->tag) != 0;
    return bad ? 1 : 0;
}
