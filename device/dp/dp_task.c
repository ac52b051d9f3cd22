/* dp_task.c - what the data plane's task kinds (dp_kinds.h) do when the scheduler runs them.
 *
 * Copies and writes are one memcpy through mappings resolved at the call; reductions go
 * through the vectorised engine (reduce.h). Before touching memory a task re-checks that its
 * ranges are still live allocations (they may have been freed after the call): a range that
 * is not fails the task, and with it the thread's stream. Records set a binary notify (an
 * absorbed record is logged, as on hardware it is lost); waits consume one or PARK until the
 * doorbell rings or their deadline passes, so a wait never holds an OS thread. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/platform/bus_guard.h"
#include "common/platform/copy.h"
#include "common/platform/atomic.h"
#include "common/contract/layout.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "dp.h"
#include "device/inject.h"
#include "device/prov_rec.h"
#include "lost_record.h"
#include "device/net/net.h"
#include "reduce.h"
#include "device/report.h"

static inline void *ptr_of(struct emu_devmap *m, uint64_t addr, uint64_t len)
{
    return emu_devmap_at(m, addr - emu_window_base(m->dev), len);
}

static enum emu_run_result fail_range(struct emu_task *t, const char *what, uint64_t addr,
                                      uint64_t len, uint32_t dev)
{
    snprintf(t->note, sizeof(t->note),
             "%s [0x%llx, +%llu) is no longer a live allocation of device %u (freed after the "
             "call?)", what, (unsigned long long)addr, (unsigned long long)len, dev);
    t->status = EMU_EINVAL;
    return EMU_RUN_FAIL;
}

/* Pointer through which this process reaches [addr, +len) of m's device, a live allocation
 * there; NULL when it is not one or cannot be mapped. */
static void *mapped_live(struct emu_devmap *m, uint64_t addr, uint64_t len)
{
    return emu_dp_check_range_alive(m, addr, len) ? ptr_of(m, addr, len) : NULL;
}

/* mapped_live(), with the task failed naming `what` when it gives NULL. */
static void *live_at(struct emu_task *t, struct emu_devmap *m, const char *what, uint64_t addr,
                     uint64_t len)
{
    void *p = mapped_live(m, addr, len);

    if (p == NULL)
        fail_range(t, what, addr, len, m->dev);
    return p;
}

/* Seeded schedules: a transfer through a channel is delivered now or deferred by up to
 * 50 us, by a seeded choice, so that concurrent deliveries into one peer land in orders the
 * default schedule rarely produces. PARK while deferred; false when delivery may go on. */
#define DEFER_MAX_NS 50000u

static bool deferred(struct emu_task *t, const struct emu_dp_op *o)
{
    if (t->park == EMU_PARK_DEFER) {
        if (emu_os_now_ns() < t->deadline_ns)
            return true;
        t->park = 0;
        t->deadline_ns = 0;
        return false;
    }
    if (o->channel == EMU_DP_NONE || t->park != 0)
        return false;
    uint64_t r = emu_sched_seed_draw();
    if ((r & 1u) == 0)
        return false;
    t->park = EMU_PARK_DEFER;
    t->deadline_ns = emu_os_now_ns() + (r >> 1) % DEFER_MAX_NS + 1;
    return true;
}

static struct emu_devctl *home_of(const struct emu_dp_op *o)
{
    return o->home_ctl != NULL ? o->home_ctl : emu_exec_ctl();
}

struct moving {
    void *dst;
    const void *src;
    const void *own; /* a reduction's local first or second operand (may be dst), or NULL */
    const struct emu_dp_op *o;
    bool reduce;
};

/* Bytes of a streamed reduction's results between the kernel and the stream stores: the
 * L1 holds them, and each batch costs one store fence. */
#define STREAM_BATCH 8192

/* A reduction into a third buffer (hcemu_read_reduce_published_into): nothing here reads its
 * result again; the peer does, after it left this core's cache in a call too large to stay
 * cached. Ordinary stores would first read every destination line from memory, so in such a
 * call (copy mode AUTO; the built-in collectives give CACHED to calls that fit the cache) the
 * results of a whole round (half of HCEMU_COPY_STREAM_KB, coll_launch.c) go through a small
 * buffer to non-temporal stores: the 2-rank 32 MiB allreduce took 2.9-3.4 ms against 4.7-5.6
 * with ordinary stores (docs/PERFORMANCE.md, "Large calls: copies"). */
static void reduce_into(const struct moving *m)
{
    const void *a = m->o->own_first ? m->own : m->src, *b = m->o->own_first ? m->src : m->own;
    size_t es = m->o->count != 0 ? m->o->len / m->o->count : 0;

    if (m->o->copy_mode == EMU_COPY_CACHED || es == 0 || es > STREAM_BATCH || m->dst == a ||
        m->dst == b || m->o->len < emu_copy_stream_min() / 2) {
        emu_reduce_into(m->dst, a, b, m->o->count, m->o->dtype, m->o->op);
        return;
    }
    /* The operands come from memory too: the kernels for that (reduce.h). */
    emu_reduce_kernel_fn fn = emu_reduce_kernel(m->o->dtype, m->o->op, true);
    if (fn == NULL) /* logged; the builder refuses such a pair first */
        return;
    _Alignas(64) unsigned char results[STREAM_BATCH];
    uint64_t per = STREAM_BATCH / es;
    for (uint64_t i = 0; i < m->o->count; i += per) {
        uint64_t n = m->o->count - i < per ? m->o->count - i : per;
        fn(results, (const unsigned char *)a + i * es, (const unsigned char *)b + i * es, n);
        emu_copy_stream((unsigned char *)m->dst + i * es, results, n * es);
    }
}

static void move_bytes(void *ctx)
{
    const struct moving *m = ctx;

    if (m->reduce && m->own != NULL)
        reduce_into(m);
    else if (m->reduce)
        emu_reduce(m->dst, m->src, m->o->count, m->o->dtype, m->o->op);
    else
        emu_copy_shared(m->dst, m->src, m->o->len, m->o->copy_mode);
}

/* The peer wrote the address into the mailbox before the thread's earlier wait, which orders
 * it before this task; move() checks that the end is a live allocation of the peer. */
bool emu_dp_resolve_published(struct emu_task *t, struct emu_devmap *self, uint32_t peer)
{
    struct emu_dp_op *o = emu_dp_op_of(t);
    const uint64_t *box = ptr_of(self, o->mailbox, sizeof(uint64_t));
    uint64_t base = box != NULL ? __atomic_load_n(box, __ATOMIC_ACQUIRE) : 0;
    bool write = (emu_dp_kinds_flags(t->kind) & EMU_DPF_REMOTE_DST) != 0;
    uint64_t *end = write ? &o->dst : &o->src;

    *end = base + o->pub_off;
    if (box != NULL && *end >= base && emu_window_device(*end) == (int)peer) {
        o->mailbox = 0;
        return true;
    }
    snprintf(t->note, sizeof(t->note),
             "the %s address 0x%llx published at 0x%llx is not memory of device %u",
             write ? "destination" : "source", (unsigned long long)*end,
             (unsigned long long)o->mailbox, peer);
    t->status = EMU_EINVAL;
    return false;
}

/* Bytes a reduce-spread task reduces before it stores them into every output: small enough
 * that the stores follow the loads closely, so the memory is read and written at once. With
 * 1 KiB, two runs each of `hcemu-run -n N all_reduce_test -b S -e S -n 20`, the 4-rank 32 MiB
 * call took 7.6-8.0 ms and the 8-rank 16 MiB one 8.7-9.5; in pieces of 4, 16 or 64 KiB
 * 7.8-9.3 and 8.5-10.2. A round of 512 KiB reduced into a buffer and then copied out once
 * per output took 9.9-11.0 and 10.0-10.7. */
#define SPREAD_BATCH 1024u
/* Past the cache a piece is SPREAD_BATCH / n bytes, and no less than this. Every operand then
 * streams from memory, and what a piece reads from all of them together is what counts: the
 * 4- and 8-rank 64 and 32 MiB calls took 15.4-16.3 and 16.6-17.5 ms in pieces of 256 bytes,
 * 16.7-17.9 and 17.9-18.9 in pieces of a KiB; the 2-rank 128 MiB one 14.5-15.6 in pieces of
 * 512, 15.5-16.2 of a KiB and 15.2-17.1 of 256 (three alternating runs each). Smaller pieces
 * cost more in calls than they gain: 128 bytes at 8 ranks took 16.4-18.5. The machine's own
 * reduction, `coll_copy_bound -s -r`, steps alike. */
#define SPREAD_PIECE_MIN 256u

static size_t spread_piece(uint32_t n, bool stream)
{
    size_t piece = stream ? SPREAD_BATCH / n : SPREAD_BATCH;
    return piece < SPREAD_PIECE_MIN ? SPREAD_PIECE_MIN : piece;
}

/* Peer q's end of a reduce-spread task: the address it wrote at `slot` (0: its part, 1: its
 * output) of its mailbox, `pub_off` past it, inside a live allocation of a device other than
 * this one that this executor maps. NULL, with the task's status and note, when it is not. */
static unsigned char *spread_end(struct emu_task *t, uint32_t q, unsigned slot)
{
    const struct emu_dp_op *o = emu_dp_op_of(t);
    uint64_t at = o->mailbox + (uint64_t)q * o->spread_stride;
    const uint64_t *box = ptr_of(&emu_exec_g.self, at, 2 * sizeof(uint64_t));
    uint64_t base = box != NULL ? __atomic_load_n(&box[slot], __ATOMIC_ACQUIRE) : 0;
    uint64_t addr = base + o->pub_off;
    int dev = emu_window_device(addr);
    struct emu_devmap *m = dev >= 0 && dev != (int)emu_exec_g.dev && addr >= base
                               ? emu_devmem_job_find((uint32_t)dev)
                               : NULL;
    unsigned char *p = m != NULL ? mapped_live(m, addr, o->len) : NULL;

    if (p == NULL) {
        snprintf(t->note, sizeof(t->note),
                 "rank %u's %s at 0x%llx, published at 0x%llx, is not live memory of another "
                 "device of this job",
                 q, slot == 0 ? "part" : "output", (unsigned long long)addr,
                 (unsigned long long)at + slot * sizeof(uint64_t));
        t->status = EMU_EINVAL;
    }
    return p;
}

struct spreading {
    const unsigned char *src[EMU_DP_SPREAD_MAX];
    unsigned char *dst[EMU_DP_SPREAD_MAX];
    const struct emu_dp_op *o;
    bool stream;             /* non-temporal stores, the streamed set's kernel */
    emu_reduce_kernel_fn fn; /* the reduction, looked up once */
};

/* Every piece (spread_piece) reduced from each rank's part in rank order, then stored into
 * each output, mine first and then the peers' from the next rank on, as the rounds of a
 * spread call did. */
static void spread_bytes(void *ctx)
{
    const struct spreading *sp = ctx;
    const struct emu_dp_op *o = sp->o;
    uint32_t n = o->spread_n, me = o->spread_me;
    bool stream = sp->stream;
    emu_reduce_kernel_fn fn = sp->fn;
    size_t es = o->len / o->count, per = spread_piece(n, stream) / es;
    _Alignas(64) unsigned char acc[SPREAD_BATCH];

    for (uint64_t i = 0; i < o->count; i += per) {
        uint64_t k = o->count - i < per ? o->count - i : per;
        size_t at = i * es, bytes = k * es;
        fn(acc, sp->src[0] + at, sp->src[1] + at, k);
        for (uint32_t q = 2; q < n; q++)
            fn(acc, acc, sp->src[q] + at, k);
        for (uint32_t j = 0; j < n; j++) {
            unsigned char *d = sp->dst[(me + j) % n] + at;
            if (stream)
                emu_copy_stream_unfenced(d, acc, bytes);
            else
                memcpy(d, acc, bytes);
        }
    }
    if (stream) /* before the task ends, and with it any notify behind it */
        emu_copy_stream_fence();
}

/* EMU_DPF_SPREAD: resolve every rank's part and output, then reduce and store. In place (my
 * part is my output, and so are the peers'), each piece is read whole before it is written. */
static enum emu_run_result spread(struct emu_task *t)
{
    struct emu_dp_op *o = emu_dp_op_of(t);
    /* Streamed from 64 KiB unless the launch keeps its transfers cached or
     * HCEMU_COPY_STREAM_KB=0 says never: the rounds of a spread call are sized from that
     * setting already. Past the cache the operands come from memory: the kernels for that
     * (reduce.h). */
    bool stream = o->copy_mode != EMU_COPY_CACHED && o->len >= EMU_COPY_STREAM_FLOOR &&
                  emu_copy_stream_min() != SIZE_MAX;
    struct spreading sp = {.o = o, .stream = stream};
    uint32_t n = o->spread_n, me = o->spread_me;

    if (o->len == 0) /* no channel: never deferred (seeded schedules defer channel moves) */
        return EMU_RUN_DONE;
    /* The builder took a type of the reduction: a piece holds whole elements of any of them. */
    if (o->count == 0 || o->len / o->count > SPREAD_PIECE_MIN ||
        (sp.fn = emu_reduce_kernel(o->dtype, o->op, stream)) == NULL) {
        snprintf(t->note, sizeof(t->note), "a reduce-spread of %llu bytes in %llu elements",
                 (unsigned long long)o->len, (unsigned long long)o->count);
        t->status = EMU_EINTERNAL;
        return EMU_RUN_FAIL;
    }
    if ((sp.src[me] = live_at(t, &emu_exec_g.self, "own", o->src, o->len)) == NULL ||
        (sp.dst[me] = live_at(t, &emu_exec_g.self, "mine", o->dst, o->len)) == NULL)
        return EMU_RUN_FAIL;
    for (uint32_t q = 0; q < n; q++)
        if (q != me && ((sp.src[q] = spread_end(t, q, 0)) == NULL ||
                        (sp.dst[q] = spread_end(t, q, 1)) == NULL))
            return EMU_RUN_FAIL;
    if (emu_bus_guard_run(spread_bytes, &sp) != EMU_OK) {
        snprintf(t->note, sizeof(t->note),
                 "no room for the pages of the outputs of a reduce-spread of %llu bytes: the "
                 "file system of the job folder is full",
                 (unsigned long long)o->len);
        t->status = EMU_ENOMEM;
        return EMU_RUN_FAIL;
    }
    return EMU_RUN_DONE;
}

/* Move (or reduce) the payload's bytes; DONE, FAIL, or PARK while a seeded deferral lasts
 * (never after a wait of the same task, which the next run would repeat). */
static enum emu_run_result move(struct emu_task *t, uint32_t f)
{
    struct emu_dp_op *o = emu_dp_op_of(t);
    bool reduce = (f & EMU_DPF_REDUCE) != 0;

    if (!(f & EMU_DPF_WAIT) && deferred(t, o))
        return EMU_RUN_PARK;
    if (o->len == 0)
        return EMU_RUN_DONE;
    void *src = live_at(t, o->src_map, "src", o->src, o->len), *dst = NULL;
    if (src == NULL || (dst = live_at(t, o->dst_map, "dst", o->dst, o->len)) == NULL)
        return EMU_RUN_FAIL;
    const void *own = NULL;
    uint64_t own_at = emu_dp_own_of(o, f);
    if (own_at != 0 && (own = live_at(t, &emu_exec_g.self, "own", own_at, o->len)) == NULL)
        return EMU_RUN_FAIL;
    struct moving m = {.dst = dst, .src = src, .own = own, .o = o, .reduce = reduce};
    if (emu_bus_guard_run(move_bytes, &m) != EMU_OK) {
        snprintf(t->note, sizeof(t->note),
                 "no room for the pages of [0x%llx, +%llu) or [0x%llx, +%llu): the file system "
                 "of the job folder is full", (unsigned long long)o->dst,
                 (unsigned long long)o->len, (unsigned long long)o->src,
                 (unsigned long long)o->len);
        t->status = EMU_ENOMEM;
        return EMU_RUN_FAIL;
    }
    if (emu_inject_on())
        emu_inject_after_move(t, dst, o->len);
    if (emu_prov_on())
        emu_prov_rec_write(t, home_of(o), o->dst_map->job_dir, o->dst_map->dev, o->dst, o->len);
    return EMU_RUN_DONE;
}

bool (*emu_dp_task_handoff_hook)(struct emu_devctl *ctl, uint32_t slot);

static void warn_absorbed(const struct emu_task *t, const struct emu_dp_op *o)
{
    const struct emu_stream_ctl *s = &home_of(o)->streams[t->stream];

    EMU_LOG_WARN("rank %u thread %u (%.36s): %s absorbed: notify slot %u of device %u was already "
                 "set and not yet waited for, so this record is lost (notifies are binary, as "
                 "on hardware)", s->rank, s->thread_index, s->label,
                 emu_report_kind_name(t->kind), o->notify_slot, o->notify_dev);
}

static enum emu_run_result record(struct emu_task *t)
{
    struct emu_dp_op *o = emu_dp_op_of(t);

    struct emu_devctl *ctl = o->notify_ctl;

    /* Release inside: everything this thread did before (the write of a WithNotify task
     * included) is visible to the stream that consumes the notify. */
    if (emu_devctl_notify_set(ctl, o->notify_slot, (home_of(o)->dev << 24) | t->stream))
        warn_absorbed(t, o);
    /* A collective's "done" with a later call's tasks queued behind it (calls overlap,
     * host/coll/coll_launch.c): the host stream's wait needs no wake-up now. The last of
     * those calls' records wakes the device, which then retires every wait it finds set;
     * the doorbell moves, so an awake worker of the device takes it at its next look. A
     * runner marks a task with more published behind it the same way (runq.c, build).
     * The last one always rings: the host stream may be parked on an earlier call's wait,
     * not on this notify, which the job-wide run queue would take for "nobody waits". */
    if (emu_dp_kinds_flags(t->kind) & EMU_DPF_LAZY) {
        if (__atomic_load_n(&t->next, __ATOMIC_ACQUIRE) != NULL)
            emu_fetch_add_release(&ctl->doorbell, 1);
        else
            emu_devctl_ring(ctl);
        return EMU_RUN_DONE;
    }
    /* Another device's thread parked on this notify: run its published work here rather
     * than waking its executor (emu_dp_task_handoff_hook); otherwise ring it. */
    if (emu_dp_task_handoff_hook == NULL || !emu_dp_task_handoff_hook(ctl, o->notify_slot))
        emu_devctl_ring(ctl);
    return EMU_RUN_DONE;
}

static enum emu_run_result wait_notify(struct emu_task *t)
{
    struct emu_dp_op *o = emu_dp_op_of(t);

    if (emu_task_host_notify_consume(o->notify_ctl, o->notify_slot))
        return EMU_RUN_DONE;
    /* The thread that was to record it failed (lost_record.h): fail with its error now. */
    if (t->kind != EMU_DP_ACL_WAIT &&
        emu_lost_record_take(o->notify_ctl, o->notify_slot, t->note, sizeof(t->note), &t->status))
        return EMU_RUN_FAIL;
    /* A channel to another host: its records come from the peer's executor, which the
     * network declared gone - nothing will set this notify any more; or the peer refused a
     * record this channel sent (net.h): the wait is the thread's next sync point. */
    if (o->net) {
        emu_status st = emu_net_check(o->channel, emu_exec_ctl()->channels[o->channel].peer,
                                      t->note, sizeof(t->note));
        if (st != EMU_OK) {
            t->status = st;
            return EMU_RUN_FAIL;
        }
    }
    if (t->park != EMU_PARK_NOTIFY) {
        /* Kept when set: a wait taken back from the job-wide run queue keeps its deadline. */
        if (t->deadline_ns == 0)
            t->deadline_ns = emu_os_deadline_s(o->timeout_s);
        t->park = EMU_PARK_NOTIFY;
        t->park_slot = o->notify_slot;
        t->timeout_status = EMU_ETASK_TIMEOUT;
    } else if (emu_os_now_ns() >= t->deadline_ns) {
        /* The scheduler fails a wait polled past its deadline (having read the clock before
         * this poll). The note is written only then: formatted at every park, it was an
         * eighth of an executor's work in an 8-rank small allreduce. */
        snprintf(t->note, sizeof(t->note),
                 "notify slot %u of device %u was not recorded within %u s (timeOut)",
                 o->notify_slot, o->notify_dev, o->timeout_s);
    }
    return EMU_RUN_PARK;
}

/* Every data-plane task: what it does is its kind's row in dp_kinds.h. */
enum emu_run_result emu_dp_task_run(struct emu_task *t)
{
    uint32_t f = emu_dp_kinds_flags(t->kind);
    struct emu_dp_op *o = emu_dp_op_of(t);
    enum emu_inject_verdict v = emu_inject_on() ? emu_inject_before(t, f) : EMU_INJECT_GO;

    if (v == EMU_INJECT_FAIL)
        return EMU_RUN_FAIL;
    if (f & EMU_DPF_SPREAD)
        return spread(t);
    if (f & EMU_DPF_WAIT) {
        enum emu_run_result r = wait_notify(t);
        return r == EMU_RUN_DONE && (f & EMU_DPF_MOVE) ? move(t, f) : r;
    }
    if (o->net)
        return emu_net_run(t);
    if ((f & EMU_DPF_PUBLISHED) && o->mailbox != 0 &&
        !emu_dp_resolve_published(t, &emu_exec_g.self,
                                  ((f & EMU_DPF_REMOTE_DST) ? o->dst_map : o->src_map)->dev))
        return EMU_RUN_FAIL;
    if (f & EMU_DPF_MOVE) {
        enum emu_run_result r = move(t, f);
        if (r != EMU_RUN_DONE || !(f & EMU_DPF_RECORD))
            return r;
    }
    return v == EMU_INJECT_SKIP_RECORD ? EMU_RUN_DONE : record(t);
}

enum emu_run_result emu_dp_task_run_moved(struct emu_task *t)
{
    return move(t, emu_dp_kinds_flags(t->kind));
}

void emu_dp_task_init(void)
{
#define REGISTER(id, name, flags) emu_report_register_kind(EMU_DP_##id, name);
    EMU_DP_KINDS(REGISTER)
#undef REGISTER
    emu_lost_record_init();
}

struct emu_task *emu_dp_task_new(uint32_t kind)
{
    struct emu_task *t = emu_task_create();

    if (t == NULL) {
        EMU_LOG_ERR("out of memory for a data-plane task");
        return NULL;
    }
    t->kind = (uint16_t)kind;
    t->run = emu_dp_task_run;
    struct emu_dp_op *o = emu_dp_op_of(t);
    o->notify_slot = EMU_DP_NONE;
    o->channel = EMU_DP_NONE;
    return t;
}

static void add_access(struct emu_task *t, uint64_t addr, uint64_t len, uint32_t dev, uint32_t write)
{
    t->acc[t->n_acc++] = (struct emu_access){.addr = addr, .len = len, .dev = dev, .write = write};
}

void emu_dp_task_describe(struct emu_task *t)
{
    struct emu_dp_op *o = emu_dp_op_of(t);

    uint32_t f = emu_dp_kinds_flags(t->kind);

    t->n_acc = 0;
    /* The network side of a transfer to another host has no mapping: it is described with the
     * peer's device only when the peer shares this job folder (and so the race detector's and
     * the modelled clock's files); otherwise those diagnostics stop at this host. */
    /* A published end is known only when the task runs: the transfer is described by its
     * local end alone (hcemu's collectives use it only while no diagnostic is on). */
    bool pub = (f & EMU_DPF_PUBLISHED) != 0;
    if (o->len > 0 && !(pub && (f & EMU_DPF_REMOTE_SRC)) &&
        (o->src_map != NULL || (o->net_diag && (f & EMU_DPF_REMOTE_SRC))))
        add_access(t, o->src, o->len, o->src_map != NULL ? o->src_map->dev : o->net_dev, 0);
    if (o->len > 0 && emu_dp_own_of(o, f) != 0) /* a published read-reduce's local operand */
        add_access(t, o->own, o->len, emu_exec_g.dev, 0);
    if (o->len > 0 && !(pub && (f & EMU_DPF_REMOTE_DST)) &&
        (o->dst_map != NULL || (o->net_diag && (f & EMU_DPF_REMOTE_DST))))
        add_access(t, o->dst, o->len, o->dst_map != NULL ? o->dst_map->dev : o->net_dev, 1);
    t->sync_op = EMU_SYNC_NONE;
    if (o->notify_slot == EMU_DP_NONE || (o->net && !o->net_diag && !(f & EMU_DPF_WAIT)))
        return;
    t->sync_op = f & EMU_DPF_WAIT ? EMU_SYNC_WAIT : EMU_SYNC_RECORD;
    t->sync_dev = o->notify_dev;
    t->sync_slot = o->notify_slot;
}
