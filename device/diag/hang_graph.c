/* hang_graph.c - the wait-for graph of one job folder, shared by the hang watchdog
 * (watchdog.c, watchdog_net.c) and the views of parked waits sent to other hosts
 * (hang_net.c): which executors are live, the folder's parked waits, their edges, and how a
 * wait is failed. Reads the control blocks and diag.shm; calls only the diagnostics core. */
#include <stdio.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "diag_priv.h"

bool emu_hang_graph_dev_live(uint32_t d, struct emu_devctl **out)
{
    uint64_t mask = emu_load_acquire(&emu_diag_shm->live_mask[d / 64u]);

    if (((mask >> (d % 64u)) & 1u) == 0)
        return false;
    struct emu_devctl *ctl = emu_diag_ctl(d);
    if (ctl == NULL || emu_load_acquire(&ctl->state) != EMU_DEV_READY)
        return false;
    *out = ctl;
    return true;
}

static uint32_t rank_of_dev(uint32_t dev)
{
    struct emu_devctl *ctl = emu_diag_ctl(dev);

    for (uint32_t c = 0; ctl != NULL && c < EMU_MAX_COMMS; c++)
        if (emu_load_relaxed(&ctl->comms[c].state) == 1)
            return ctl->comms[c].rank;
    return UINT32_MAX;
}

uint32_t emu_hang_graph_collect(struct wait_node *w, uint32_t cap, uint64_t now, uint64_t min_age_ns)
{
    uint32_t n = 0;

    for (uint32_t d = 0; d < EMU_MAX_DEVICES; d++) {
        struct emu_devctl *ctl;
        if (!emu_hang_graph_dev_live(d, &ctl))
            continue;
        for (uint32_t s = 0, span = emu_devctl_streams_span(ctl); s < span && n < cap; s++) {
            struct emu_stream_ctl *sc = &ctl->streams[s];
            uint32_t park = emu_load_acquire(&sc->parked);
            uint64_t since = sc->parked_since_ns;
            if (park != EMU_PARK_NOTIFY && park != EMU_PARK_EVENT)
                continue;
            if (now < since || now - since < min_age_ns)
                continue;
            const struct emu_diag_hang *h = &emu_diag_shm->hang[d][s];
            w[n++] = (struct wait_node){.dev = d,
                                        .stream = s,
                                        .slot = sc->parked_slot,
                                        .park = park,
                                        .since = since,
                                        .h = h->since_ns == since ? h : NULL,
                                        .rank = sc->rank != UINT32_MAX ? sc->rank : rank_of_dev(d),
                                        .view = UINT32_MAX};
        }
    }
    return n;
}

/* The device of this job folder whose threads record notify `slot` of `dev` when it is a
 * channel notify: the peer of that channel; UINT32_MAX for a thread notify, and for a peer
 * out of this folder's sight (another host: *remote is then set). */
uint32_t emu_hang_graph_peer_dev(uint32_t dev, uint32_t slot, uint32_t *peer_rank, bool *remote)
{
    struct emu_diag_peer p;

    *remote = false;
    if (!emu_diag_channel_peer(dev, slot, &p))
        return UINT32_MAX;
    *peer_rank = p.rank;
    *remote = p.remote;
    return p.remote ? UINT32_MAX : p.dev;
}

/* Edges of the wait-for graph: waits[i] can only be released by waits[j]'s stream. */
bool emu_hang_graph_edge(const struct wait_node *w, uint32_t n, uint32_t i, uint32_t j)
{
    const struct wait_node *a = &w[i], *b = &w[j];
    uint32_t peer_rank = 0;
    bool remote;

    if (b->h != NULL)
        for (uint32_t k = 0; k < b->h->n_pending; k++)
            if (b->h->pending[k].dev == a->dev && b->h->pending[k].slot == a->slot)
                return true;
    uint32_t pd = emu_hang_graph_peer_dev(a->dev, a->slot, &peer_rank, &remote);
    if (pd == UINT32_MAX || pd != b->dev)
        return false;
    /* A channel notify nobody has queued: every parked thread of the peer might be the one. */
    for (uint32_t k = 0; k < n; k++) {
        if (w[k].h == NULL)
            continue;
        for (uint32_t p = 0; p < w[k].h->n_pending; p++)
            if (w[k].h->pending[p].dev == a->dev && w[k].h->pending[p].slot == a->slot)
                return false;
    }
    return true;
}

void emu_hang_graph_fail(uint32_t dev, uint32_t stream, bool ring)
{
    struct emu_devctl *ctl = emu_diag_ctl(dev);
    int32_t zero = 0;

    /* A rank whose first failed wait already ended it may have removed its device's files by
     * now: nothing is left to fail there. */
    if (ctl == NULL)
        return;
    atomic_compare_exchange_strong(&ctl->streams[stream].error, &zero, (int32_t)EMU_ETASK_TIMEOUT);
    if (ring)
        emu_devctl_ring(ctl);
}

