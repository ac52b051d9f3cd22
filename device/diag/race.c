/* race.c - the happens-before race detector (HCEMU_RACECHECK=1); scheduler hooks submit,
 * start, end and free, registered by emu_race_start().
 *
 * Every (device, stream) that runs a task gets a tid (job-wide, diag.shm `tids`, at most
 * EMU_RACE_MAX_TIDS) and a vector clock kept by the executor that runs the stream. Edges:
 *   - program order: a stream's clock only grows; each task ticks the stream's own entry;
 *   - notify record -> the wait that consumes it (thread, channel, write-with-notify, host
 *     records, events): the record joins its clock into the slot's entry in diag.shm before
 *     its run() sets the notify; the wait joins the entry after its run() consumed it. The
 *     entry is emptied only when every published record has finished and the notify reads
 *     0, so a wait never misses the clock of the record it consumed (no false positive);
 *   - kernel launch: a task submitted by a kernel joins the clock of the host stream running
 *     the kernel task (taken at submission, so later host-stream work is not included);
 *   - host-stream order and stream synchronisation: a task taken from the submission ring
 *     joins the device's retired frontier (the join of every task retired on the device so
 *     far): the host can only have synchronised with work that had retired.
 * Each task's acc[] ranges are checked, at its start, against the shadow of its device's
 * memory: a ring of the EMU_RACE_SHADOW most recent accesses; an overlapping access where one
 * side writes and the earlier one is not ordered before (epoch > our clock) is a race. An
 * access that covers an older ordered one replaces it. Bounds hit (tids, notify entries)
 * stop checking job-wide with a warning, so a full table never invents a race.
 *
 * Lock order: scheduler lock, clk_lock, site lock, shm lock. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "diag_priv.h"
#include "device/dp/dp.h"
#include "device/dp/dp_kinds.h"
#include "device/exec.h"
#include "device/kernel/kernel.h"
#include "device/report.h"

#define MAX_REPORTS 20u


struct stream_clk {
    struct emu_vclock *vc;
    uint32_t tid; /* EMU_DIAG_NONE: no own entry (bound hit) */
};

/* clk_lock protects sclk[] and frontier (streams run on several workers; submissions read
 * the host stream's clock). */
static pthread_mutex_t clk_lock = PTHREAD_MUTEX_INITIALIZER;
static struct stream_clk sclk[EMU_MAX_STREAMS];
static struct emu_vclock frontier;

struct race_hit {
    struct emu_race_access mine, theirs;
    uint32_t known; /* what the later task's clock knew of the earlier task's thread */
};

/* Clocks are always joined and copied whole (EMU_RACE_MAX_TIDS entries, 2 KiB): a tid
 * registered by another executor between reading a count and a join would otherwise be
 * dropped, losing an edge. */
#define NT EMU_RACE_MAX_TIDS

static void join(uint32_t *dst, const uint32_t *src, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (src[i] > dst[i])
            dst[i] = src[i];
}

/* A new tid for (this device, stream). shm lock held. */
static uint32_t new_tid(uint32_t stream)
{
    struct emu_diag_shm *m = emu_diag_shm;

    if (m->n_tids >= EMU_RACE_MAX_TIDS)
        return EMU_DIAG_NONE;
    struct emu_race_tid *id = &m->tids[m->n_tids];
    memset(id, 0, sizeof(*id));
    id->dev = emu_exec_g.dev;
    id->stream = stream;
    id->rank = UINT32_MAX;
    __atomic_store_n(&m->n_tids, m->n_tids + 1, __ATOMIC_RELEASE);
    return m->n_tids - 1;
}

/* The clock of stream s, created on first use. clk_lock held. */
static struct stream_clk *clock_of(uint32_t s)
{
    struct stream_clk *c = &sclk[s];

    if (c->vc != NULL)
        return c;
    c->vc = calloc(1, sizeof(*c->vc));
    if (c->vc == NULL)
        return NULL;
    emu_diag_shm_lock();
    c->tid = new_tid(s);
    emu_diag_shm_unlock();
    if (c->tid == EMU_DIAG_NONE)
        EMU_LOG_WARN("race checker: more than %u threads in the job; accesses of dev %u "
                     "stream %u are not checked",
                     EMU_RACE_MAX_TIDS, emu_exec_g.dev, s);
    return c;
}

static struct emu_race_snap *snap_of(const uint32_t *c, uint32_t n)
{
    struct emu_race_snap *s = malloc(sizeof(*s) + n * sizeof(uint32_t));

    if (s != NULL) {
        *s = (struct emu_race_snap){.n = n, .tid = EMU_DIAG_NONE};
        memcpy(s->c, c, n * sizeof(uint32_t));
    }
    return s;
}

/* Whether t goes through a channel to a device of another job folder: its message carries
 * its clock (race_net.c), so the clock at its start is kept. */
static bool to_other_folder(struct emu_task *t)
{
    if (t->kind < EMU_TASK_KIND_COUNT || !(emu_dp_kinds_flags(t->kind) & EMU_DPF_CHANNEL))
        return false;
    const struct emu_dp_op *o = emu_dp_op_of(t);
    return o->net && !o->net_diag;
}

static void keep_start_clock(struct emu_task *t, const uint32_t *clk, uint32_t tid)
{
    struct emu_race_snap *s = snap_of(clk, NT);

    free(t->diag);
    t->diag = s;
    if (s != NULL)
        s->tid = tid, s->at_start = 1;
}

static void on_submit(struct emu_task *t)
{
    const struct emu_kernel_ctx *k = emu_kernel_current();

    pthread_mutex_lock(&clk_lock);
    if (k != NULL && k->origin < EMU_MAX_STREAMS && sclk[k->origin].vc != NULL)
        t->diag = snap_of(sclk[k->origin].vc->c, NT); /* launch edge */
    else if (k == NULL && t->kind < EMU_TASK_KIND_COUNT && t->sync_op == EMU_SYNC_NONE &&
             t->n_acc == 0)
        t->diag = snap_of(frontier.c, NT); /* host submission: stream sync edge */
    pthread_mutex_unlock(&clk_lock);
}

static struct emu_vclock *notify_clock(const struct emu_race_notify *e)
{
    return &emu_diag_shm->notify_clk[e - emu_diag_shm->notify];
}

/* --- shadow memory (shm lock held) ------------------------------------------------------- */

static bool overlaps(const struct emu_race_access *a, uint64_t addr, uint64_t len)
{
    return a->addr < addr + len && addr < a->addr + a->len;
}

/* Check access `x` against the device's shadow, prune what it supersedes, then insert it.
 * Returns true with *hit filled for the first race found. */
static bool check_access(const struct emu_race_access *x, const uint32_t *clk, struct race_hit *hit)
{
    struct emu_race_shadow *sh = &emu_diag_shm->shadow[x->dev];
    uint32_t used = sh->next < EMU_RACE_SHADOW ? sh->next : EMU_RACE_SHADOW;
    bool found = false;

    for (uint32_t i = 0; i < used; i++) {
        struct emu_race_access *r = &sh->a[i];
        if (r->len == 0 || !overlaps(r, x->addr, x->len) || (!r->write && !x->write))
            continue;
        bool ordered = r->tid == x->tid || (r->tid < NT && r->epoch <= clk[r->tid]);
        if (!ordered && !found) {
            hit->mine = *x;
            hit->theirs = *r;
            hit->known = r->tid < NT ? clk[r->tid] : 0;
            found = true;
        } else if (ordered && r->addr >= x->addr && r->addr + r->len <= x->addr + x->len &&
                   (x->write || !r->write)) {
            r->len = 0; /* superseded: any later conflict with r also conflicts with x */
        }
    }
    /* Reads do not conflict with reads, so an ordered read covered by a read is pruned too. */
    for (uint32_t i = 0; i < used && !x->write; i++) {
        struct emu_race_access *r = &sh->a[i];
        if (r->len != 0 && !r->write && r->tid == x->tid && r->addr >= x->addr &&
            r->addr + r->len <= x->addr + x->len)
            r->len = 0;
    }
    sh->a[sh->next % EMU_RACE_SHADOW] = *x;
    sh->next++;
    return found;
}

/* Whether this site pair was already reported; remembers it. shm lock held. */
static bool seen_pair(uint32_t a, uint32_t b)
{
    struct emu_diag_shm *m = emu_diag_shm;
    uint64_t key = a < b ? ((uint64_t)a << 32 | b) : ((uint64_t)b << 32 | a);

    for (uint32_t i = 0; i < m->n_pairs; i++)
        if (m->pairs[i] == key)
            return true;
    if (m->n_pairs < EMU_RACE_MAX_PAIRS)
        m->pairs[m->n_pairs++] = key;
    return m->race_reports++ >= MAX_REPORTS;
}

/* --- reports ----------------------------------------------------------------------------- */

static const char *mem_kind(uint32_t dev, uint64_t addr, uint64_t *base)
{
    static const char *const names[] = {
        "", "device memory", "HCCL buffer", "engine context", "kernel arguments", "staging buffer"};
    struct emu_devctl *ctl = emu_diag_ctl(dev);
    const char *k = "device memory";

    *base = 0;
    if (ctl == NULL)
        return k;
    emu_devctl_lock(&ctl->alloc.lock);
    int i = emu_range_find(&ctl->alloc.set, ctl->alloc.recs, addr - emu_window_base(dev));
    if (i >= 0) {
        if (ctl->alloc.recs[i].kind < sizeof(names) / sizeof(names[0]))
            k = names[ctl->alloc.recs[i].kind];
        *base = emu_window_base(dev) + ctl->alloc.recs[i].off;
    }
    emu_devctl_unlock(&ctl->alloc.lock);
    return k;
}

static const char *missing_edge(const struct race_hit *h)
{
    const struct emu_race_access *a = &h->mine, *b = &h->theirs;
    bool a_host = a->kind < EMU_TASK_KIND_COUNT, b_host = b->kind < EMU_TASK_KIND_COUNT;

    if (a_host || b_host)
        return "no stream synchronisation, event or kernel-completion notify orders the "
               "host-stream task and the other task";
    if (a->tdev == b->tdev && !a->remote && !b->remote)
        return "no thread notify record->wait between the two threads";
    if (!a->write && b->write && h->known != 0)
        return "this reader waited for an earlier record of the writer's thread, but the "
               "writer wrote these bytes again after that record: the buffer is reused before "
               "the reader acknowledged it (the writer must wait for the reader's DONE/ACK)";
    if (!a->write && b->write)
        return "no channel notify record->wait from the writer to this reader (wait for the "
               "writer's DATA/READY record before reading)";
    if (a->write && !b->write && h->known != 0)
        return "no channel notify record->wait from the reader back to this writer since the "
               "read: the buffer is reused before the reader acknowledged it (wait for its "
               "DONE/ACK)";
    if (a->write && !b->write)
        return "no channel notify record->wait orders the two ranks' accesses: either the "
               "reader did not wait for the writer's DATA/READY record, or the buffer is "
               "reused before the reader acknowledged it (DONE/ACK)";
    return "no channel notify record->wait between the two ranks' writes";
}

/* A thread of another job folder: what its messages told (rank, label, host, device there). */
static void remote_name(const struct emu_race_access *a, char *out, size_t len)
{
    const struct emu_race_tid *id = a->tid < EMU_RACE_MAX_TIDS ? &emu_diag_shm->tids[a->tid] : NULL;
    const char *host = id != NULL && id->host[0] != '\0' ? id->host : "?";
    const char *label = id != NULL ? id->label : "";
    char rank[24] = "";

    if (a->rank != UINT32_MAX)
        snprintf(rank, sizeof(rank), "rank %u ", a->rank);
    if (strncmp(label, "rank ", 5) == 0) /* the control plane's "rank R thread i" */
        snprintf(out, len, "%s on host %s (dev %u stream %u there)", label, host, a->tdev,
                 a->stream);
    else if (label[0] != '\0')
        snprintf(out, len, "%sthread '%s' on host %s (dev %u stream %u there)", rank, label, host,
                 a->tdev, a->stream);
    else
        snprintf(out, len, "%sthread %u on host %s (dev %u stream %u there)", rank, a->stream,
                 host, a->tdev, a->stream);
}

static void describe(const struct emu_race_access *a, char *out, size_t len)
{
    char who[160];

    if (a->remote)
        remote_name(a, who, sizeof(who));
    else
        emu_diag_thread_name(a->tdev, a->stream, who, sizeof(who));
    snprintf(out, len, "%s of [0x%llx, +%llu) by %s at %s (%s)", a->write ? "write" : "read",
             (unsigned long long)a->addr, (unsigned long long)a->len, who,
             emu_diag_site_text(a->site), emu_report_kind_name(a->kind));
}

static void report(const struct race_hit *h)
{
    char mine[400], theirs[400];
    uint64_t lo = h->mine.addr > h->theirs.addr ? h->mine.addr : h->theirs.addr;
    uint64_t hi_a = h->mine.addr + h->mine.len, hi_b = h->theirs.addr + h->theirs.len;
    uint64_t hi = hi_a < hi_b ? hi_a : hi_b, base;
    const char *kind = mem_kind(h->mine.dev, lo, &base);

    describe(&h->mine, mine, sizeof(mine));
    describe(&h->theirs, theirs, sizeof(theirs));
    EMU_LOG_ERR("data race on %s of device %u at offset %llu (%llu bytes overlap):", kind,
                h->mine.dev, (unsigned long long)(base != 0 ? lo - base : lo),
                (unsigned long long)(hi - lo));
    EMU_LOG_ERR("  %s", mine);
    EMU_LOG_ERR("  is not ordered with the earlier %s", theirs);
    EMU_LOG_ERR("  missing edge: %s", missing_edge(h));
}

/* --- hooks ------------------------------------------------------------------------------- */

/* Tick stream s, join t's submission clock, and copy the clock out. Returns the tid. */
static uint32_t start_clock(struct emu_task *t, uint32_t *out, uint32_t n, bool *ok)
{
    uint32_t tid = EMU_DIAG_NONE;

    pthread_mutex_lock(&clk_lock);
    struct stream_clk *c = clock_of(t->stream);
    *ok = c != NULL;
    if (c != NULL) {
        const struct emu_race_snap *sn = t->diag;
        if (sn != NULL)
            join(c->vc->c, sn->c, sn->n < n ? sn->n : n);
        tid = c->tid;
        if (tid != EMU_DIAG_NONE)
            c->vc->c[tid]++;
        memcpy(out, c->vc->c, n * sizeof(uint32_t));
    }
    pthread_mutex_unlock(&clk_lock);
    return tid;
}

static void on_start(struct emu_task *t)
{
    struct emu_diag_desc desc, *d = &desc;
    uint32_t clk[EMU_RACE_MAX_TIDS];
    struct race_hit hits[2];
    uint32_t n_hits = 0;
    bool ok;

    if (emu_load_relaxed(&emu_diag_shm->race_off) || t->stream >= EMU_MAX_STREAMS)
        return;
    emu_diag_describe(t, d);
    uint32_t tid = start_clock(t, clk, NT, &ok);
    if (ok && to_other_folder(t))
        keep_start_clock(t, clk, tid);
    if (!ok || (d->n_acc == 0 && d->sync_op != EMU_SYNC_RECORD))
        return;
    uint32_t site = d->n_acc != 0 ? emu_diag_site(t) : EMU_DIAG_NONE;
    struct emu_stream_ctl *sc = &emu_exec_ctl()->streams[t->stream];
    emu_diag_shm_lock();
    for (uint32_t i = 0; i < d->n_acc && tid != EMU_DIAG_NONE; i++) {
        const struct emu_access *a = &d->acc[i];
        if (a->dev >= EMU_MAX_DEVICES || a->len == 0)
            continue;
        struct emu_race_access x = {.addr = a->addr,
                                    .len = a->len,
                                    .seq = t->seq,
                                    .tid = tid,
                                    .epoch = clk[tid],
                                    .site = site,
                                    .stream = (uint16_t)t->stream,
                                    .dev = (uint8_t)a->dev,
                                    .write = (uint8_t)(a->write != 0),
                                    .kind = t->kind,
                                    .tdev = (uint8_t)emu_exec_g.dev,
                                    .rank = sc->rank};
        if (check_access(&x, clk, &hits[n_hits]) &&
            !seen_pair(hits[n_hits].mine.site, hits[n_hits].theirs.site))
            n_hits++;
    }
    if (d->sync_op == EMU_SYNC_RECORD) {
        struct emu_race_notify *e =
            emu_diag_notify_entry(d->sync_dev, d->sync_slot, d->event, true);
        if (e != NULL) {
            join(notify_clock(e)->c, clk, NT);
            e->n_pub++;
        }
    }
    emu_diag_shm_unlock();
    for (uint32_t i = 0; i < n_hits; i++)
        report(&hits[i]);
}

static void on_end(struct emu_task *t, enum emu_run_result res)
{
    struct emu_diag_desc desc, *d = &desc;
    bool done = res == EMU_RUN_DONE;
    uint32_t got[EMU_RACE_MAX_TIDS];
    bool have = false;

    if (emu_load_relaxed(&emu_diag_shm->race_off) || t->stream >= EMU_MAX_STREAMS)
        return;
    emu_diag_describe(t, d);
    if (d->sync_op != EMU_SYNC_NONE) {
        emu_diag_shm_lock();
        struct emu_race_notify *e =
            emu_diag_notify_entry(d->sync_dev, d->sync_slot, d->event, false);
        if (e != NULL && d->sync_op == EMU_SYNC_RECORD) {
            e->n_done++;
        } else if (e != NULL && done) {
            memcpy(got, notify_clock(e)->c, sizeof(got));
            have = true;
            struct emu_devctl *ctl = emu_diag_ctl(d->sync_dev);
            /* Every published record has set the notify and it reads 0 again: they were all
             * consumed (or absorbed into a consumed one), so no later wait needs them. */
            if (!d->event && e->n_done == e->n_pub && ctl != NULL &&
                emu_load_acquire(&ctl->notifies[d->sync_slot].value) == 0)
                memset(notify_clock(e)->c, 0, sizeof(got));
        }
        emu_diag_shm_unlock();
    }
    pthread_mutex_lock(&clk_lock);
    struct stream_clk *c = &sclk[t->stream];
    if (c->vc != NULL) {
        if (have)
            join(c->vc->c, got, NT);
        join(frontier.c, c->vc->c, NT);
    }
    pthread_mutex_unlock(&clk_lock);
}

/* The task's clock snapshot (launch or stream-sync edge) taken by on_submit. Clocks of the
 * streams stay allocated at exit: workers may still run tasks while the executor exits. */
static void on_free(struct emu_task *t)
{
    free(t->diag);
    t->diag = NULL;
}

void emu_race_check_one(const struct emu_race_access *x, const uint32_t *clk)
{
    struct race_hit hit;
    bool found;

    emu_diag_shm_lock();
    found = check_access(x, clk, &hit) && !seen_pair(hit.mine.site, hit.theirs.site);
    emu_diag_shm_unlock();
    if (found)
        report(&hit);
}

void emu_race_record_publish(uint32_t dev, uint32_t slot, const uint32_t *clk)
{
    emu_diag_shm_lock();
    struct emu_race_notify *e = emu_diag_notify_entry(dev, slot, false, true);
    if (e != NULL) {
        join(notify_clock(e)->c, clk, NT);
        e->n_pub++;
    }
    emu_diag_shm_unlock();
}

void emu_race_record_done(uint32_t dev, uint32_t slot)
{
    emu_diag_shm_lock();
    struct emu_race_notify *e = emu_diag_notify_entry(dev, slot, false, false);
    if (e != NULL)
        e->n_done++;
    emu_diag_shm_unlock();
}

void emu_race_stop(const char *why)
{
    if (atomic_exchange(&emu_diag_shm->race_off, 1) == 0)
        EMU_LOG_WARN("race checker stopped: %s", why);
}

static const struct emu_sched_hooks race_hooks = {
    .submit = on_submit, .start = on_start, .end = on_end, .free = on_free};

bool emu_race_start(void)
{
    return emu_sched_register(&race_hooks) == EMU_OK;
}
