/* watchdog_net.c - the hang watchdog across hosts (job folders): the waits of this folder
 * whose notify a rank of another folder records bring in that folder's view of its own
 * parked waits (hang_net.h), so the wait-for graph spans the hosts and a cycle through ranks
 * of several hosts is found and named, rank and host, the same way on each of them.
 *
 * Asks go out every watchdog tick from the executor owning such a wait (it holds the UCX
 * connection to the peer); views land in diag.shm; the reporting watchdog copies the fresh
 * ones (`snap`, its thread only) and joins their waits after its own. A report with a cycle
 * through another host holds the failing of this folder's waits until that host's report
 * lists its waits of the cycle (or they end, or its watchdog is off), at most
 * max(4 x HCEMU_HANG_MS, 1 s): failing first could end this host's processes, and with them the
 * other host's waits, before that host has reported. The held waits carry their error from
 * the report on; the ring that ends the hold (or any other, such as the other host's
 * connection failing once it has reported and ended) makes them fail with it. */
#include <stdio.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/contract/host_id.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "device/exec.h"
#include "device/net/net.h"
#include "diag_priv.h"

static struct emu_hang_view snap[EMU_HANG_NET_VIEWS]; /* reporting watchdog thread only */
static uint32_t n_snap;

static struct {
    bool on;
    uint64_t until;
    uint32_t n; /* this folder's waits to fail */
    struct {
        uint32_t dev, stream;
    } fail[EMU_HANG_NET_WAITS];
    uint32_t m; /* other folders' waits of the cycle whose report is awaited */
    struct {
        uint64_t folder, since;
        uint32_t dev, stream;
    } other[EMU_HANG_NET_WAITS];
} hold; /* reporting watchdog thread only */

static uint64_t my_folder(void)
{
    return emu_folder_key(emu_host_self()->key, emu_exec_g.job_dir);
}

/* A view is used while younger than this (asks go out every tick, at most 200 ms apart). */
static uint64_t fresh_ns(void)
{
    return 1000000000ull + emu_diag_cfg.hang_ms * 1000000ull / 2;
}

/* The channel peer of this folder's wait on notify `slot` of `dev`, when that peer is in
 * another folder. */
static bool remote_peer(uint32_t dev, uint32_t slot, struct emu_diag_peer *p)
{
    return emu_diag_channel_peer(dev, slot, p) && p->remote && !p->same_folder;
}

void emu_watchdog_net_ask(uint64_t now)
{
    static uint8_t asked[EMU_MAX_PEERS];
    struct emu_devctl *ctl = emu_exec_ctl();
    uint64_t min_age = emu_diag_cfg.hang_ms * 1000000ull / 2;

    memset(asked, 0, sizeof(asked));
    for (uint32_t s = 0, span = emu_devctl_streams_span(ctl); s < span; s++) {
        const struct emu_stream_ctl *sc = &ctl->streams[s];
        struct emu_diag_peer p;
        uint64_t since = sc->parked_since_ns;
        if (emu_load_acquire(&sc->parked) != EMU_PARK_NOTIFY || now < since ||
            now - since < min_age || !remote_peer(emu_exec_g.dev, sc->parked_slot, &p) ||
            p.peer >= EMU_MAX_PEERS || asked[p.peer])
            continue;
        asked[p.peer] = 1;
        emu_net_hang_ask(p.peer);
    }
}

/* The rank (and its folder) that records wait a's notify, when that folder is not this one. */
static bool remote_recorder(const struct wait_node *a, uint32_t *rank, uint64_t *folder)
{
    struct emu_diag_peer p;

    if (a->rn != NULL) {
        *rank = a->rn->peer_rank;
        *folder = a->rn->peer_folder;
        return a->rn->peer_rank != UINT32_MAX;
    }
    if (a->park != EMU_PARK_NOTIFY || !remote_peer(a->dev, a->slot, &p))
        return false;
    *rank = p.rank;
    *folder = p.folder;
    return true;
}

static uint64_t node_folder(const struct wait_node *w)
{
    return w->rn != NULL ? snap[w->view].folder : my_folder();
}

static const char *node_host(const struct wait_node *w)
{
    return w->rn != NULL ? snap[w->view].host : emu_host_self()->name;
}

/* The fresh view of `folder` copied into snap; its index, or UINT32_MAX. */
static uint32_t snap_view(uint64_t folder, uint64_t now)
{
    uint32_t got = UINT32_MAX;

    for (uint32_t i = 0; i < n_snap; i++)
        if (snap[i].folder == folder)
            return i;
    if (n_snap == EMU_HANG_NET_VIEWS)
        return UINT32_MAX;
    emu_diag_shm_lock();
    for (uint32_t v = 0; v < EMU_HANG_NET_VIEWS && got == UINT32_MAX; v++) {
        const struct emu_hang_view *x = &emu_diag_shm->views[v];
        if (x->got_ns != 0 && x->folder == folder && x->got_ns + fresh_ns() >= now) {
            memcpy(&snap[n_snap], x, sizeof(*x));
            got = n_snap++;
        }
    }
    emu_diag_shm_unlock();
    return got;
}

uint32_t emu_watchdog_net_join(struct wait_node *w, uint32_t n, uint32_t cap, uint64_t now)
{
    uint32_t total = n;

    n_snap = 0;
    /* Nodes joined in may name further folders (three hosts): the loop runs over them too. */
    for (uint32_t i = 0; i < total; i++) {
        uint32_t rank;
        uint64_t folder;
        bool have = false;
        if (!remote_recorder(&w[i], &rank, &folder) || folder == my_folder())
            continue;
        for (uint32_t k = 0; k < n_snap; k++)
            have = have || snap[k].folder == folder;
        uint32_t v = have ? UINT32_MAX : snap_view(folder, now);
        if (v == UINT32_MAX || total + snap[v].n > cap)
            continue;
        for (uint32_t k = 0; k < snap[v].n; k++) {
            const struct emu_hang_rnode *rn = &snap[v].node[k];
            w[total + k] = (struct wait_node){.dev = rn->dev,
                                              .stream = rn->stream,
                                              .slot = UINT32_MAX,
                                              .park = rn->park,
                                              /* on this host's clock; a view that
                                               * landed after `now` is not in the future */
                                              .since = snap[v].got_ns - rn->age_ns < now
                                                           ? snap[v].got_ns - rn->age_ns
                                                           : now,
                                              .rank = rn->rank,
                                              .rn = rn,
                                              .view = v,
                                              .base = total};
        }
        total += snap[v].n;
    }
    return total;
}

bool emu_watchdog_net_edge(const struct wait_node *w, uint32_t n, uint32_t i, uint32_t j)
{
    const struct wait_node *a = &w[i], *b = &w[j];
    uint32_t rank;
    uint64_t folder;

    if (a->rn == NULL && b->rn == NULL)
        return emu_hang_graph_edge(w, n, i, j);
    if (a->rn != NULL && b->rn != NULL && a->view == b->view)
        return j - b->base < 64 && ((a->rn->edges >> (j - b->base)) & 1u) != 0;
    /* Across folders: the recorder's rank, every parked wait of it (nobody can see which of
     * its threads has the record queued: records to other hosts are messages). */
    return remote_recorder(a, &rank, &folder) && b->rank == rank && node_folder(b) == folder;
}

/* The view joined in for the folder of wait i's remote recorder, or UINT32_MAX. */
static uint32_t view_of_recorder(const struct wait_node *a)
{
    uint32_t rank;
    uint64_t folder;

    if (!remote_recorder(a, &rank, &folder))
        return UINT32_MAX;
    for (uint32_t k = 0; k < n_snap; k++)
        if (snap[k].folder == folder && (snap[k].n > 0 || snap[k].watchdog))
            return k;
    return UINT32_MAX;
}

bool emu_watchdog_net_peer_line(const struct wait_node *w, uint32_t n, uint32_t i)
{
    struct emu_diag_peer p;
    uint32_t v = view_of_recorder(&w[i]);
    char list[200] = "";
    int off = 0;

    if (v == UINT32_MAX || !remote_peer(w[i].dev, w[i].slot, &p))
        return false;
    for (uint32_t j = 0; j < n && off < (int)sizeof(list) - 16; j++)
        if (w[j].rn != NULL && emu_watchdog_net_edge(w, n, i, j))
            off += snprintf(list + off, sizeof(list) - (size_t)off, "%swait %u", off ? ", " : "",
                            j + 1);
    if (off > 0)
        EMU_LOG_ERR("      the peer (rank %u on host %s, dev %u there) records it with "
                    "HcommChannelNotifyRecordOnThread on its channel; host %s says it is parked "
                    "itself: %s", p.rank, p.host, p.dev, snap[v].host, list);
    else
        EMU_LOG_ERR("      the peer (rank %u on host %s, dev %u there) records it with "
                    "HcommChannelNotifyRecordOnThread on its channel; host %s reports no parked "
                    "wait of rank %u: it runs, or finished without recording it (no deadlock "
                    "cycle through it)", p.rank, p.host, p.dev, snap[v].host, p.rank);
    return true;
}

void emu_watchdog_net_report(const struct wait_node *w, uint32_t n, uint32_t i, uint64_t now)
{
    const struct wait_node *a = &w[i];
    const struct emu_hang_rnode *r = a->rn;
    const char *host = node_host(a);
    char who[160];
    bool any = false;

    EMU_LOG_ERR("  wait %u: %s on host %s waits on %s, at %s, for %.1f s (as host %s's executors "
                "describe it)", i + 1, r->who, host, r->what, r->site,
                (double)(now - a->since) / 1e9, host);
    if (r->park == EMU_PARK_EVENT)
        return;
    if (r->records == 0)
        EMU_LOG_ERR("      it was never recorded");
    else
        EMU_LOG_ERR("      recorded %u time(s); every record was consumed by an earlier wait",
                    r->records);
    for (uint32_t j = 0; j < n; j++) {
        if (j == i || !emu_watchdog_net_edge(w, n, i, j))
            continue;
        any = true;
        if (w[j].rn != NULL)
            snprintf(who, sizeof(who), "%s on host %s", w[j].rn->who, node_host(&w[j]));
        else
            emu_diag_thread_name(w[j].dev, w[j].stream, who, sizeof(who));
        EMU_LOG_ERR("      %s would record it but is parked itself: wait %u", who, j + 1);
    }
    if (!any && r->peer_rank != UINT32_MAX)
        EMU_LOG_ERR("      rank %u records it with HcommChannelNotifyRecordOnThread on its "
                    "channel; no thread of it is parked on a wait: it runs, or finished without "
                    "recording it", r->peer_rank);
}

static bool same_rank(const struct wait_node *a, const struct wait_node *b)
{
    return a->rank == b->rank && node_folder(a) == node_folder(b);
}

bool emu_watchdog_net_cycle(const struct wait_node *w, const uint32_t *cyc, uint32_t len)
{
    uint32_t ids[EMU_HANG_NET_WAITS * 3], m = 0, start = 0;
    bool cross = false;
    char line[900];
    int off = 0;

    for (uint32_t k = 0; k < len; k++)
        cross = cross || w[cyc[k]].rn != NULL;
    if (!cross)
        return false;
    /* One hop per rank: a rank's own threads waiting on each other are one step. */
    for (uint32_t k = 0; k < len && m < sizeof(ids) / sizeof(ids[0]); k++)
        if (m == 0 || !same_rank(&w[ids[m - 1]], &w[cyc[k]]))
            ids[m++] = cyc[k];
    while (m > 1 && same_rank(&w[ids[m - 1]], &w[ids[0]]))
        m--;
    /* Start at the lowest rank, so every host prints the same cycle. */
    for (uint32_t k = 1; k < m; k++)
        if (w[ids[k]].rank < w[ids[start]].rank ||
            (w[ids[k]].rank == w[ids[start]].rank && node_folder(&w[ids[k]]) < node_folder(&w[ids[start]])))
            start = k;
    for (uint32_t k = 0; k <= m && off < (int)sizeof(line) - 120; k++) {
        const struct wait_node *x = &w[ids[(start + k) % m]];
        off += snprintf(line + off, sizeof(line) - (size_t)off, "%srank %u on host %s",
                        k ? " waits " : "", x->rank, node_host(x));
    }
    EMU_LOG_ERR("  deadlock cycle across hosts: %s", line);
    return true;
}

void emu_watchdog_net_hold(const struct wait_node *w, uint32_t n_local, const uint32_t *cyc,
                           uint32_t len, uint64_t now)
{
    /* The other host reports within 4 x HCEMU_HANG_MS of its own quiet start (a runnable
     * thread there postpones its report up to that), which is about ours. */
    uint64_t ms = 4 * emu_diag_cfg.hang_ms > 1000 ? 4 * emu_diag_cfg.hang_ms : 1000;

    memset(&hold, 0, sizeof(hold));
    hold.on = true;
    hold.until = now + ms * 1000000ull;
    for (uint32_t i = 0; i < n_local && hold.n < EMU_HANG_NET_WAITS; i++, hold.n++) {
        hold.fail[hold.n].dev = w[i].dev;
        hold.fail[hold.n].stream = w[i].stream;
    }
    for (uint32_t k = 0; k < len && hold.m < EMU_HANG_NET_WAITS; k++) {
        const struct wait_node *x = &w[cyc[k]];
        if (x->rn == NULL || !snap[x->view].watchdog)
            continue;
        hold.other[hold.m].folder = snap[x->view].folder;
        hold.other[hold.m].since = x->rn->since_ns;
        hold.other[hold.m].dev = x->rn->dev;
        hold.other[hold.m].stream = x->rn->stream;
        hold.m++;
    }
}

/* Whether the other folder's wait k is listed by a report there, or over. */
static bool other_done(uint32_t k, uint64_t now)
{
    bool done = false, seen = false;

    emu_diag_shm_lock();
    for (uint32_t v = 0; v < EMU_HANG_NET_VIEWS && !seen; v++) {
        const struct emu_hang_view *x = &emu_diag_shm->views[v];
        if (x->got_ns == 0 || x->folder != hold.other[k].folder || x->got_ns + fresh_ns() < now)
            continue;
        seen = true;
        done = true;
        for (uint32_t i = 0; i < x->n; i++)
            if (x->node[i].dev == hold.other[k].dev && x->node[i].stream == hold.other[k].stream &&
                x->node[i].since_ns == hold.other[k].since && !x->node[i].reported)
                done = false;
    }
    emu_diag_shm_unlock();
    return done;
}

bool emu_watchdog_net_held(uint64_t now)
{
    bool waiting = false;

    if (!hold.on)
        return false;
    for (uint32_t k = 0; k < hold.m && !waiting && now < hold.until; k++)
        waiting = !other_done(k, now);
    if (waiting)
        return true;
    hold.on = false;
    for (uint32_t i = 0; i < hold.n; i++)
        emu_hang_graph_fail(hold.fail[i].dev, hold.fail[i].stream, true);
    return true;
}
