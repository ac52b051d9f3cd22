/* watchdog.c - the job-wide hang watchdog (HCEMU_HANG_MS, default 2000, 0 = off).
 *
 * Every executor of the job runs one watchdog thread. Each tick it (1) describes its own
 * streams that have been parked on a notify or event wait for a while into diag.shm
 * (call site as a source line, and the notify records queued behind the wait): only the
 * executor that loaded the kernel image can symbolize its addresses; (2) the job's leader
 * (job_leader(): the lowest live, running device) sums `progress` of every live device of
 * the job. When the sum has not moved for HCEMU_HANG_MS, no kernel is
 * running, no submission is pending and some stream is parked on a wait, the first
 * executor to take the diag.shm lock with a sum not yet reported prints the one report of
 * that hang and fails every parked wait with EMU_ETASK_TIMEOUT (HCCL_E_TIMEOUT). Streams
 * queued or running a task (`busy`: copies, page faults, a starved core) are progress.
 * (3) reports, without failing it, a kernel of its own device that has run longer than
 * HCEMU_HANG_MS while no kernel of the device queued a task; (4) the leader reports an
 * executor of the job that is stopped (SIGSTOP, job control), once per stop. */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "diag_priv.h"
#include "device/exec.h"
#include "device/kernel/kernel.h"
#include "device/net/net.h"

#define MAX_WAITS 64u /* parked waits described in one report */
#define MAX_WALK 256u /* queued tasks inspected behind a parked wait */
/* Waits of this folder plus those of the other folders' views joined in. */
#define MAX_NODES (MAX_WAITS + 2u * EMU_HANG_NET_WAITS)

/* A parked stream of this device, copied under the scheduler lock by inspect_cb(). */
struct parked_copy {
    uint32_t stream;
    bool from_kernel;
    uint64_t since;
    uint64_t pc;
    uint32_t n_pending;
    struct {
        uint32_t dev, slot;
        uint64_t pc;
        bool from_kernel;
    } pending[EMU_DIAG_HANG_PENDING];
};


static pthread_t thread;
static bool running;
static _Atomic uint32_t stop_word;
static struct parked_copy copies[EMU_MAX_STREAMS]; /* watchdog thread only */
static uint32_t n_copies;
static uint64_t last_sum = UINT64_MAX, last_change;
static uint64_t last_ksub = UINT64_MAX, last_ksub_change; /* this device's kernel submits */
static uint64_t kernel_reported[EMU_MAX_STREAMS]; /* parked_since_ns of the kernel reported */

static void inspect_cb(uint32_t slot, const struct emu_task *head, void *arg)
{
    struct emu_stream_ctl *sc = &emu_exec_ctl()->streams[slot];
    uint64_t min_age = *(const uint64_t *)arg;
    uint32_t park = emu_load_acquire(&sc->parked);

    if (head == NULL || (park != EMU_PARK_NOTIFY && park != EMU_PARK_EVENT) ||
        emu_os_now_ns() - sc->parked_since_ns < min_age ||
        emu_diag_shm->hang[emu_exec_g.dev][slot].since_ns == sc->parked_since_ns)
        return;
    struct parked_copy *c = &copies[n_copies++];
    memset(c, 0, sizeof(*c));
    c->stream = slot;
    c->since = sc->parked_since_ns;
    c->pc = head->callsite;
    c->from_kernel = head->from_kernel != 0;
    uint32_t n = 0;
    for (const struct emu_task *t = head->next; t != NULL && n < MAX_WALK; t = t->next, n++) {
        struct emu_diag_desc d;
        emu_diag_describe(t, &d);
        if (d.sync_op != EMU_SYNC_RECORD || c->n_pending >= EMU_DIAG_HANG_PENDING)
            continue;
        c->pending[c->n_pending].dev = d.sync_dev;
        c->pending[c->n_pending].slot = d.sync_slot;
        c->pending[c->n_pending].pc = t->callsite;
        c->pending[c->n_pending].from_kernel = t->from_kernel != 0;
        c->n_pending++;
    }
}

/* Duty (1): describe this device's long-parked waits in diag.shm. */
static void publish_parked(void)
{
    uint64_t min_age = emu_diag_cfg.hang_ms * 1000000ull / 2;

    n_copies = 0;
    emu_sched_inspect_parked(inspect_cb, &min_age);
    for (uint32_t i = 0; i < n_copies; i++) {
        const struct parked_copy *c = &copies[i];
        struct emu_diag_hang h = {.since_ns = c->since, .n_pending = c->n_pending};
        h.site = emu_diag_site_pc(c->pc, c->stream, c->from_kernel);
        for (uint32_t k = 0; k < c->n_pending; k++) {
            h.pending[k].dev = c->pending[k].dev;
            h.pending[k].slot = c->pending[k].slot;
            h.pending[k].site =
                emu_diag_site_pc(c->pending[k].pc, c->stream, c->pending[k].from_kernel);
        }
        emu_diag_shm_lock();
        emu_diag_shm->hang[emu_exec_g.dev][c->stream] = h;
        emu_diag_shm_unlock();
    }
}

/* Sum of progress over the job; false when something is still moving on its own (a kernel
 * runs, a submission waits in a ring). */
static bool job_quiet(uint64_t *sum)
{
    *sum = 0;
    for (uint32_t d = 0; d < EMU_MAX_DEVICES; d++) {
        struct emu_devctl *ctl;
        if (!emu_hang_graph_dev_live(d, &ctl))
            continue;
        /* Submissions, notify records (doorbell), allocations and notify ranges taken by
         * host processes count as activity too: a rank still setting up is not hung (at 256
         * ranks acquiring 255 channels each takes seconds and submits nothing). */
        *sum += emu_load_acquire(&ctl->progress) + emu_load_acquire(&ctl->sq.tail) +
                emu_load_acquire(&ctl->doorbell) + ctl->alloc.set.next_gen +
                ctl->notify_ranges.set.next_gen;
        if (emu_load_acquire(&ctl->sq.head) != emu_load_acquire(&ctl->sq.tail) ||
            emu_load_acquire(&ctl->busy) != 0)
            return false;
        for (uint32_t s = 0, n = emu_devctl_streams_span(ctl); s < n; s++)
            if (emu_load_relaxed(&ctl->streams[s].parked) == EMU_PARK_KERNEL)
                return false;
    }
    return true;
}

static void node_name(const struct wait_node *w, char *out, size_t len)
{
    if (w->rank != UINT32_MAX)
        snprintf(out, len, "rank %u", w->rank);
    else
        emu_diag_thread_name(w->dev, w->stream, out, len);
}

/* The cycle w[cyc[0..len)] by rank (or by thread when a rank waits on itself). */
static void print_cycle(const struct wait_node *w, const uint32_t *cyc, uint32_t len)
{
    char line[900], name[96];
    int off = 0;
    bool by_rank = true;

    if (emu_watchdog_net_cycle(w, cyc, len))
        return;
    for (uint32_t k = 0; k < len; k++)
        by_rank = by_rank && w[cyc[k]].rank != UINT32_MAX &&
                  (k == 0 || w[cyc[k]].rank != w[cyc[k - 1]].rank);
    for (uint32_t k = 0; k <= len && off < (int)sizeof(line) - 200; k++) {
        const struct wait_node *x = &w[cyc[k % len]];
        if (by_rank)
            node_name(x, name, sizeof(name));
        else
            emu_diag_thread_name(x->dev, x->stream, name, sizeof(name));
        off += snprintf(line + off, sizeof(line) - (size_t)off, "%s%s", k ? " waits " : "", name);
    }
    EMU_LOG_ERR("  deadlock cycle: %s", line);
}

/* Depth-first search for a cycle through the wait-for graph; the first found goes to
 * cyc[0..*len). */
static bool find_cycle(const struct wait_node *w, uint32_t n, uint32_t at, uint32_t *path,
                       uint32_t depth, uint8_t *state, uint32_t *cyc, uint32_t *len)
{
    state[at] = 1;
    path[depth] = at;
    for (uint32_t j = 0; j < n; j++) {
        if (!emu_watchdog_net_edge(w, n, at, j))
            continue;
        if (state[j] == 1) {
            uint32_t from = 0;
            while (path[from] != j)
                from++;
            *len = depth - from + 1;
            memcpy(cyc, path + from, *len * sizeof(*cyc));
            return true;
        }
        if (state[j] == 0 && find_cycle(w, n, j, path, depth + 1, state, cyc, len))
            return true;
    }
    state[at] = 2;
    return false;
}

/* Sibling notifies of the same owner that are set and not waited for: a wrong index? */
static void hint_siblings(const struct wait_node *w)
{
    struct emu_devctl *ctl = emu_diag_ctl(w->dev);
    uint32_t base = 0, num = 0, span = ctl != NULL ? emu_devctl_streams_span(ctl) : 0;

    for (uint32_t s = 0; s < span && num == 0; s++) {
        const struct emu_stream_ctl *sc = &ctl->streams[s];
        if (emu_load_relaxed(&sc->kind) != EMU_STREAM_FREE && sc->notify_num != 0 &&
            w->slot >= sc->notify_base && w->slot < sc->notify_base + sc->notify_num) {
            base = sc->notify_base;
            num = sc->notify_num;
        }
    }
    for (uint32_t c = 0; ctl != NULL && c < EMU_MAX_CHANNELS && num == 0; c++) {
        const struct emu_channel_ctl *ch = &ctl->channels[c];
        if (emu_load_relaxed(&ch->state) != 0 && w->slot >= ch->local_notify_base &&
            w->slot < ch->local_notify_base + ch->notify_num) {
            base = ch->local_notify_base;
            num = ch->notify_num;
        }
    }
    for (uint32_t k = base; k < base + num; k++) {
        if (k == w->slot || emu_load_acquire(&ctl->notifies[k].value) == 0)
            continue;
        char other[200], who[96];
        emu_diag_notify_name(w->dev, k, false, other, sizeof(other));
        uint32_t r = ctl->notifies[k].last_recorder;
        emu_diag_thread_name(r >> 24, r & 0xffffffu, who, sizeof(who));
        EMU_LOG_ERR("      hint: %s is set (recorded by %s) and nobody waits for it: "
                    "wrong notify index?",
                    other, who);
    }
}

static void report_recorders(const struct wait_node *w, uint32_t n, uint32_t i)
{
    const struct wait_node *a = &w[i];
    struct emu_devctl *ctl = emu_diag_ctl(a->dev);
    const struct emu_notify_slot *ns = &ctl->notifies[a->slot];
    uint32_t records = emu_load_acquire(&ns->records), absorbed = emu_load_acquire(&ns->absorbed);
    char who[96], site[EMU_DIAG_SITE_LEN + 8];
    bool queued = false;

    if (a->park == EMU_PARK_EVENT)
        return;
    if (records == 0) {
        EMU_LOG_ERR("      it was never recorded");
    } else {
        emu_diag_thread_name(ns->last_recorder >> 24, ns->last_recorder & 0xffffffu, who,
                             sizeof(who));
        EMU_LOG_ERR("      recorded %u time(s), last by %s; %u record(s) absorbed (recorded "
                    "again while still set, so lost); every other record was consumed by an "
                    "earlier wait",
                    records, who, absorbed);
    }
    for (uint32_t j = 0; j < n; j++) {
        if (w[j].h == NULL)
            continue;
        for (uint32_t k = 0; k < w[j].h->n_pending; k++) {
            if (w[j].h->pending[k].dev != a->dev || w[j].h->pending[k].slot != a->slot)
                continue;
            queued = true;
            emu_diag_thread_name(w[j].dev, w[j].stream, who, sizeof(who));
            snprintf(site, sizeof(site), "%s", emu_diag_site_text(w[j].h->pending[k].site));
            EMU_LOG_ERR("      %s would record it (queued at %s) but is parked itself: wait %u",
                        who, site, j + 1);
        }
    }
    struct emu_diag_peer peer;
    bool remote;
    uint32_t peer_rank = 0, pd = emu_hang_graph_peer_dev(a->dev, a->slot, &peer_rank, &remote);
    if (!queued && remote && emu_watchdog_net_peer_line(w, n, i)) {
        /* Named with what the other host says of that rank. */
    } else if (!queued && remote && emu_diag_channel_peer(a->dev, a->slot, &peer)) {
        /* Its threads and queues are on the other host: that host's executors report there. */
        EMU_LOG_ERR("      the peer (rank %u on host %s, dev %u there) records it with "
                    "HcommChannelNotifyRecordOnThread on its channel; that rank runs on "
                    "another host, out of this report's sight: look at the report of host %s",
                    peer.rank, peer.host, peer.dev, peer.host);
    } else if (!queued && pd != UINT32_MAX) {
        EMU_LOG_ERR("      the peer (rank %u, dev %u) records it with "
                    "HcommChannelNotifyRecordOnThread on its channel; no such record is queued",
                    peer_rank, pd);
        bool any = false;
        for (uint32_t j = 0; j < n; j++) {
            if (w[j].dev != pd || w[j].rn != NULL)
                continue;
            any = true;
            emu_diag_thread_name(w[j].dev, w[j].stream, who, sizeof(who));
            EMU_LOG_ERR("      %s on the peer is parked itself: wait %u", who, j + 1);
        }
        char call[48];
        if (!any && emu_diag_host_call(a->dev, a->slot, pd, peer_rank, call, sizeof(call)))
            EMU_LOG_ERR("      no thread of rank %u waits: its host is still in %s (channel "
                        "set-up, waiting for its peers), so it has not launched the work that "
                        "records it",
                        peer_rank, call);
        else if (!any)
            EMU_LOG_ERR("      no thread of rank %u waits: it finished without recording it",
                        peer_rank);
    } else if (!queued) {
        EMU_LOG_ERR("      no thread has a record of it queued");
    }
    hint_siblings(a);
}

/* Print the report of the waits w[0..n_local) of this folder and w[n_local..n) of other
 * folders (their views), then fail this folder's waits, or hold them when the cycle runs
 * through another host (emu_watchdog_net_hold). shm lock held. */
static void report_and_fail(struct wait_node *w, uint32_t n_local, uint32_t n, uint64_t now)
{
    char who[96], what[200], site[EMU_DIAG_SITE_LEN + 8];
    uint32_t path[MAX_NODES + 1], cyc[MAX_NODES + 1], len = 0;
    uint8_t state[MAX_NODES + 1];

    EMU_LOG_ERR("hang: no task of the job made progress for %llu ms while %u wait(s) are "
                "parked (HCEMU_HANG_MS=%llu)%s:",
                (unsigned long long)emu_diag_cfg.hang_ms, n_local,
                (unsigned long long)emu_diag_cfg.hang_ms,
                n > n_local ? "; with the parked waits of other hosts they wait on" : "");
    for (uint32_t i = 0; i < n_local; i++) {
        const struct wait_node *a = &w[i];
        emu_diag_thread_name(a->dev, a->stream, who, sizeof(who));
        emu_diag_notify_name(a->dev, a->slot, a->park == EMU_PARK_EVENT, what, sizeof(what));
        if (a->h != NULL)
            snprintf(site, sizeof(site), "%s", emu_diag_site_text(a->h->site));
        else
            snprintf(site, sizeof(site), "0x%llx",
                     (unsigned long long)emu_diag_ctl(a->dev)->streams[a->stream].parked_callsite);
        EMU_LOG_ERR("  wait %u: %s waits on %s, at %s, for %.1f s", i + 1, who, what, site,
                    (double)(now - a->since) / 1e9);
        report_recorders(w, n, i);
        /* The other hosts learn from this mark that this host has reported its side. */
        emu_diag_shm->hang[a->dev][a->stream].reported_ns = a->since;
    }
    for (uint32_t i = n_local; i < n; i++)
        emu_watchdog_net_report(w, n, i, now);
    memset(state, 0, sizeof(state));
    bool cycle = false;
    for (uint32_t i = 0; i < n && !cycle; i++)
        if (state[i] == 0)
            cycle = find_cycle(w, n, i, path, 0, state, cyc, &len);
    if (cycle)
        print_cycle(w, cyc, len);
    EMU_LOG_ERR("  failing these waits with HCCL_E_TIMEOUT (%s); stream synchronisation "
                "returns the error",
                emu_status_str(EMU_ETASK_TIMEOUT));
    /* The error is set now and seen at the device's next doorbell: the ring at the end of a
     * hold, or a failed connection to the other host (which so ends these waits as the hang
     * they are, not as a lost peer). */
    for (uint32_t i = 0; i < n_local; i++)
        emu_hang_graph_fail(w[i].dev, w[i].stream, false);
    emu_watchdog_net_hold(w, n_local, cyc, cycle ? len : 0, now);
}

/* Whether a wait's channel peer has no running executor yet (that rank is still starting). */
static bool peer_missing(const struct wait_node *w, uint32_t n)
{
    struct emu_devctl *ctl;

    for (uint32_t i = 0; i < n; i++) {
        uint32_t peer_rank;
        bool remote;
        uint32_t pd = emu_hang_graph_peer_dev(w[i].dev, w[i].slot, &peer_rank, &remote);
        if (pd != UINT32_MAX && !emu_hang_graph_dev_live(pd, &ctl))
            return true;
    }
    return false;
}

#define MAX_PIDS 64u

/* Whether a thread of `pid` other than `self` is runnable (R: running, or waiting for a core). */
static bool tasks_runnable(int pid, int self)
{
    char path[64];
    struct dirent *e;
    bool any = false;

    snprintf(path, sizeof(path), "/proc/%d/task", pid);
    DIR *dir = opendir(path);
    while (dir != NULL && !any && (e = readdir(dir)) != NULL) {
        int tid = atoi(e->d_name);
        char st;
        if (tid <= 0 || tid == self)
            continue;
        /* /proc/<tid>/stat reads a thread of any process by its id. */
        st = emu_os_proc_state(tid);
        any = st == 'R';
    }
    if (dir != NULL)
        closedir(dir);
    return any;
}

/* Whether some thread of the job (an executor, or a host process owning a stream) is runnable:
 * a host thread starved of a core between two submissions looks exactly like a hang from
 * the control blocks. Postpones a report, never suppresses it (see check_hang). */
static bool job_runnable(void)
{
    int pids[MAX_PIDS], n = 0, self = emu_os_gettid();

    for (uint32_t d = 0; d < EMU_MAX_DEVICES; d++) {
        struct emu_devctl *ctl;
        if (!emu_hang_graph_dev_live(d, &ctl))
            continue;
        uint32_t span = emu_devctl_streams_span(ctl);
        for (uint32_t s = 0; s <= span && n < (int)MAX_PIDS; s++) {
            int pid = s == span ? ctl->exec_pid
                      : emu_load_relaxed(&ctl->streams[s].kind) != EMU_STREAM_FREE
                          ? ctl->streams[s].owner_pid
                          : 0;
            bool seen = pid <= 0;
            for (int k = 0; k < n && !seen; k++)
                seen = pids[k] == pid;
            if (!seen)
                pids[n++] = pid;
        }
    }
    for (int k = 0; k < n; k++)
        if (tasks_runnable(pids[k], self))
            return true;
    return false;
}

/* Duty (2): detect a job-wide hang and report it once. */
static void check_hang(void)
{
    uint64_t sum, now = emu_os_now_ns();
    struct wait_node w[MAX_NODES + 1];

    if (emu_watchdog_net_held(now))
        return;
    bool quiet = job_quiet(&sum);
    if (!quiet || sum != last_sum) {
        last_sum = quiet ? sum : UINT64_MAX;
        last_change = now;
        return;
    }
    uint64_t limit = emu_diag_cfg.hang_ms * 1000000ull;
    if (now - last_change < limit)
        return;
    memset(w, 0, sizeof(w));
    uint32_t n = emu_hang_graph_collect(w, MAX_WAITS, now, limit / 2);
    if (n == 0 || peer_missing(w, n) || (now - last_change < 4 * limit && job_runnable()))
        return;
    uint32_t all = emu_watchdog_net_join(w, n, MAX_NODES, now);
    bool reported = false;
    emu_diag_shm_lock();
    if (emu_diag_shm->hang_reports == 0 || emu_diag_shm->reported_sum != sum) {
        emu_diag_shm->reported_sum = sum;
        emu_diag_shm->hang_reports++;
        report_and_fail(w, n, all, now);
        reported = true;
    }
    emu_diag_shm_unlock();
    /* The other hosts may have reported already: then fail at once. */
    if (reported)
        (void)emu_watchdog_net_held(now);
}

struct long_kernel {
    uint32_t stream;
    uint64_t since;
    char name[96];
};

struct long_kernels {
    uint64_t min_age;
    uint32_t n;
    struct long_kernel k[EMU_MAX_STREAMS];
};

static void kernel_cb(uint32_t slot, const struct emu_task *head, void *arg)
{
    struct long_kernels *lk = arg;
    struct emu_stream_ctl *sc = &emu_exec_ctl()->streams[slot];

    if (head == NULL || head->kind != EMU_TASK_KERNEL ||
        emu_load_acquire(&sc->parked) != EMU_PARK_KERNEL ||
        emu_os_now_ns() - sc->parked_since_ns < lk->min_age ||
        kernel_reported[slot] == sc->parked_since_ns)
        return;
    const char *name = emu_kernel_task_name(head);
    struct long_kernel *k = &lk->k[lk->n++];
    k->stream = slot;
    k->since = sc->parked_since_ns;
    snprintf(k->name, sizeof(k->name), "%s", name != NULL ? name : "?");
}

/* Duty (3): a kernel of this device that runs on without queuing anything (a loop that never
 * ends?). Reported once per launch; only a launch timeout fails it. */
static void check_kernels(void)
{
    static struct long_kernels lk;
    struct emu_devctl *ctl = emu_exec_ctl();
    uint64_t now = emu_os_now_ns(), ksub = emu_load_relaxed(&ctl->kernel_submits);

    if (ksub != last_ksub) {
        last_ksub = ksub;
        last_ksub_change = now;
    }
    lk.min_age = emu_diag_cfg.hang_ms * 1000000ull;
    if (now - last_ksub_change < lk.min_age)
        return;
    lk.n = 0;
    emu_sched_inspect_parked(kernel_cb, &lk);
    for (uint32_t i = 0; i < lk.n; i++) {
        const struct long_kernel *k = &lk.k[i];
        char who[96];
        kernel_reported[k->stream] = k->since;
        emu_diag_thread_name(emu_exec_g.dev, k->stream, who, sizeof(who));
        EMU_LOG_WARN("hang?: kernel %s on device %u (%s) has run for %.1f s and no "
                     "kernel of the device queued a task for %llu ms (HCEMU_HANG_MS): a loop "
                     "that never ends? It is not failed; a launch timeout would fail it",
                     k->name, emu_exec_g.dev, who, (double)(now - k->since) / 1e9,
                     (unsigned long long)emu_diag_cfg.hang_ms);
    }
}

/* Duty (4): an executor of the job that is stopped makes no progress and cannot report it
 * itself; the host reports it too when it waits on that device. */
static void check_stopped(void)
{
    for (uint32_t d = 0; d < EMU_MAX_DEVICES; d++) {
        struct emu_devctl *ctl;
        if (d != emu_exec_g.dev && emu_hang_graph_dev_live(d, &ctl))
            (void)emu_devctl_check_stopped(ctl);
    }
}

/* Whether this executor does the job-wide duties (2) and (4) this tick: the lowest live
 * device whose executor neither ended nor is stopped. One scan of every control block per
 * job and tick, not one per executor: 256 executors scanning 256 blocks five times a second
 * would keep two cores busy and map every block into every executor. Leadership passes on
 * by itself when the leader dies or is stopped (the next one then reports it). */
static bool job_leader(void)
{
    for (uint32_t d = 0; d < emu_exec_g.dev; d++) {
        struct emu_devctl *ctl;
        if (!emu_hang_graph_dev_live(d, &ctl))
            continue;
        char st = emu_os_proc_state(ctl->exec_pid);
        if (st != 0 && st != 'Z' && st != 'X' && st != 'T' && st != 't')
            return false;
    }
    return true;
}

static void *watchdog_main(void *arg)
{
    uint64_t tick_ms = emu_diag_cfg.hang_ms / 4;
    (void)arg;

    if (tick_ms == 0 || tick_ms > 200)
        tick_ms = tick_ms == 0 && emu_diag_cfg.hang_ms != 0 ? 1 : 200;
    while (emu_load_acquire(&stop_word) == 0) {
        (void)emu_os_futex_wait(&stop_word, 0, emu_os_deadline_ms((int64_t)tick_ms));
        /* Woken to stop: no last scan of the job (every executor of a job ends at once). */
        if (emu_diag_cfg.hang_ms != 0 && emu_load_acquire(&stop_word) == 0) {
            publish_parked();
            check_kernels();
            if (job_leader()) {
                check_hang();
                check_stopped();
            }
            /* Last: the answer keeps the progress threads busy for a moment, which the next
             * check must not take for a runnable thread of the job (job_runnable). */
            emu_watchdog_net_ask(emu_os_now_ns());
        }
        if (emu_diag_cfg.trace)
            emu_trace_flush();
    }
    return NULL;
}

void emu_watchdog_start(void)
{
    if (emu_diag_cfg.hang_ms == 0 && !emu_diag_cfg.trace)
        return;
    if (pthread_create(&thread, NULL, watchdog_main, NULL) != 0) {
        EMU_LOG_WARN("hang watchdog off: cannot start its thread");
        return;
    }
    running = true;
}

void emu_watchdog_stop(void)
{
    if (!running)
        return;
    emu_store_release(&stop_word, 1);
    emu_os_futex_wake(&stop_word, INT32_MAX);
    pthread_join(thread, NULL);
    running = false;
}
