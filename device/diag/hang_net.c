/* hang_net.c - views of parked waits exchanged between job folders (see hang_net.h).
 *
 * A view lists every parked wait of the folder that makes it: rank, thread, notify and call
 * site as texts made there (only that folder can symbolize its kernels), how long it is
 * parked, which rank records its notify (a channel notify), the edges among its own waits
 * its watchdog would draw, and whether a hang report printed there listed it. Views arrive
 * at the executor that asked (one per tick while one of its waits on that folder is parked)
 * and are kept in diag.shm, one per folder, for the folder's reporting watchdog. */
#include "hang_net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/contract/host_id.h"
#include "common/platform/os.h"
#include "device/exec.h"
#include "diag_priv.h"

#define EMU_HANG_NET_MAGIC 0x3147474e4d454348ull /* "HCEMNGG1" */

static uint64_t my_folder(void)
{
    return emu_folder_key(emu_host_self()->key, emu_exec_g.job_dir);
}

static void describe(const struct wait_node *w, uint32_t n, uint32_t i, struct emu_hang_rnode *o,
                     uint64_t now)
{
    const struct wait_node *a = &w[i];
    struct emu_devctl *ctl = emu_diag_ctl(a->dev);
    struct emu_diag_peer p;

    *o = (struct emu_hang_rnode){.rank = a->rank, .dev = a->dev, .stream = a->stream,
                                 .park = a->park, .age_ns = now - a->since, .since_ns = a->since,
                                 .peer_rank = UINT32_MAX};
    o->reported = emu_diag_shm->hang[a->dev][a->stream].reported_ns == a->since;
    if (a->park == EMU_PARK_NOTIFY && emu_diag_channel_peer(a->dev, a->slot, &p)) {
        o->peer_rank = p.rank;
        o->peer_folder = p.remote ? p.folder : my_folder();
    }
    if (ctl != NULL && a->park == EMU_PARK_NOTIFY && a->slot < EMU_MAX_NOTIFIES)
        o->records = emu_load_acquire(&ctl->notifies[a->slot].records);
    for (uint32_t j = 0; j < n; j++)
        if (emu_hang_graph_edge(w, n, i, j))
            o->edges |= 1ull << j;
    emu_diag_thread_name(a->dev, a->stream, o->who, sizeof(o->who));
    emu_diag_notify_name(a->dev, a->slot, a->park == EMU_PARK_EVENT, o->what, sizeof(o->what));
    uint64_t pc = ctl != NULL ? ctl->streams[a->stream].parked_callsite : 0;
    if (a->h != NULL)
        snprintf(o->site, sizeof(o->site), "%s", emu_diag_site_text(a->h->site));
    else if (a->dev == emu_exec_g.dev && pc != 0)
        /* Its own executor has not described it yet (it does so at half HCEMU_HANG_MS, on its
         * tick): this one is that executor, so it can name the line now. A host stream's
         * tasks come from the host program, a device thread's from kernels. */
        snprintf(o->site, sizeof(o->site), "%s",
                 emu_diag_site_text(emu_diag_site_pc(
                     pc, a->stream, ctl->streams[a->stream].kind != EMU_STREAM_ACL)));
    else
        snprintf(o->site, sizeof(o->site), "0x%llx", (unsigned long long)pc);
}

size_t emu_hang_net_answer(uint8_t **out)
{
    struct emu_hang_view *v = calloc(1, sizeof(*v));
    struct wait_node w[EMU_HANG_NET_WAITS + 1];
    uint64_t now = emu_os_now_ns();

    *out = NULL;
    if (v == NULL)
        return 0;
    v->magic = EMU_HANG_NET_MAGIC;
    v->folder = my_folder();
    snprintf(v->host, sizeof(v->host), "%s", emu_host_self()->name);
    /* Without diag.shm (every diagnostic off there) the folder's waits are not described:
     * an empty view, and the asking side names the host instead. */
    if (emu_diag_shm != NULL) {
        v->watchdog = emu_diag_cfg.hang_ms != 0;
        memset(w, 0xff, sizeof(w));
        v->n = emu_hang_graph_collect(w, EMU_HANG_NET_WAITS, now, 0);
        for (uint32_t i = 0; i < v->n; i++)
            describe(w, v->n, i, &v->node[i], now);
    }
    *out = (uint8_t *)v;
    return offsetof(struct emu_hang_view, node) + v->n * sizeof(v->node[0]);
}

void emu_hang_net_store(const void *data, size_t len)
{
    struct emu_hang_view v;
    size_t head = offsetof(struct emu_hang_view, node);

    if (emu_diag_shm == NULL || len < head || len > sizeof(v))
        return;
    memset(&v, 0, sizeof(v));
    memcpy(&v, data, len);
    if (v.magic != EMU_HANG_NET_MAGIC || v.n > EMU_HANG_NET_WAITS ||
        len != head + v.n * sizeof(v.node[0]) || v.folder == my_folder())
        return;
    v.host[sizeof(v.host) - 1] = '\0';
    for (uint32_t i = 0; i < v.n; i++) {
        struct emu_hang_rnode *r = &v.node[i];
        r->who[sizeof(r->who) - 1] = r->what[sizeof(r->what) - 1] = '\0';
        r->site[sizeof(r->site) - 1] = '\0';
    }
    v.got_ns = emu_os_now_ns();
    emu_diag_shm_lock();
    /* The folder's entry, else a free one, else the oldest. */
    struct emu_hang_view *slot = NULL;
    for (uint32_t i = 0; i < EMU_HANG_NET_VIEWS && slot == NULL; i++)
        if (emu_diag_shm->views[i].got_ns != 0 && emu_diag_shm->views[i].folder == v.folder)
            slot = &emu_diag_shm->views[i];
    for (uint32_t i = 0; i < EMU_HANG_NET_VIEWS && slot == NULL; i++)
        if (emu_diag_shm->views[i].got_ns == 0)
            slot = &emu_diag_shm->views[i];
    for (uint32_t i = 0; i < EMU_HANG_NET_VIEWS && (slot == NULL || slot->got_ns != 0); i++)
        if (slot == NULL || emu_diag_shm->views[i].got_ns < slot->got_ns)
            slot = &emu_diag_shm->views[i];
    memcpy(slot, &v, head + v.n * sizeof(v.node[0]));
    emu_diag_shm_unlock();
}
