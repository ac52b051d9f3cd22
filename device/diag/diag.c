/* diag.c - the diagnostics core: settings, the job-wide diag.shm, task descriptions, call
 * sites interned for reports, names for reports. The features (watchdog.c, race.c, trace.c,
 * seed.c, model_rec.c) build on it; diagnostics.c starts them. The core calls none of them.
 *
 * Lock order: scheduler lock, then `site_lock`, then the shm lock. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/contract/job.h"
#include "common/contract/job_shm.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/contract/settings.h"
#include "diag_priv.h"
#include "device/exec.h"
#include "device/kernel/symbols.h"

#define SITE_CACHE 8192u /* per-process pc -> site id cache (open addressing) */

struct emu_diag_cfg emu_diag_cfg;
struct emu_diag_shm *emu_diag_shm;

struct site_ent {
    uint64_t key; /* pc ^ (pid << 48); 0 = empty */
    uint32_t site;
};
static pthread_mutex_t site_lock = PTHREAD_MUTEX_INITIALIZER;
static struct site_ent site_cache[SITE_CACHE];

void emu_diag_shm_lock(void)
{
    emu_devctl_lock(&emu_diag_shm->lock);
}

void emu_diag_shm_unlock(void)
{
    emu_devctl_unlock(&emu_diag_shm->lock);
}

/* The creator's set-up of diag.shm, before its magic is published. */
static emu_status init_shm(void *p)
{
    struct emu_diag_shm *m = p;
    pthread_mutexattr_t a;

    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    int rc = pthread_mutex_init(&m->lock, &a);
    pthread_mutexattr_destroy(&a);
    if (rc != 0)
        return EMU_ESYSCALL;
    atomic_store(&m->next_flow, 1);
    return EMU_OK;
}

/* Create diag.shm (first executor of the job) or join it. */
emu_status emu_diag_open_shm(void)
{
    void *p;
    emu_status s = emu_job_shm_open(emu_exec_g.job_dir, "diag.shm", sizeof(struct emu_diag_shm),
                                    EMU_DIAG_MAGIC, init_shm, "diagnostics off", &p);

    if (s == EMU_OK)
        emu_diag_shm = p;
    return s;
}

void emu_diag_read_cfg(void)
{
    const char *tp = emu_settings_str(EMU_SET_TRACE);

    emu_diag_cfg.hang_ms = emu_settings_u64(EMU_SET_HANG_MS);
    emu_diag_cfg.race = emu_settings_bool(EMU_SET_RACECHECK);
    if (*tp != '\0') {
        emu_diag_cfg.trace = true;
        snprintf(emu_diag_cfg.trace_path, sizeof(emu_diag_cfg.trace_path), "%s", tp);
    }
    emu_diag_cfg.seed = emu_settings_u64(EMU_SET_SEED);
}

static void add_acc(struct emu_diag_desc *d, uint64_t addr, uint32_t space, uint64_t len, int w)
{
    int dev = emu_window_device(addr);

    if (space != 0 || dev < 0 || len == 0 || d->n_acc >= 2)
        return;
    d->acc[d->n_acc++] = (struct emu_access){addr, len, (uint32_t)dev, (uint32_t)w};
}

static void describe_wire(const struct emu_task *t, struct emu_diag_desc *d)
{
    const struct emu_wire_task *w = &t->u.wire;

    switch (t->kind) {
    case EMU_TASK_COPY:
        add_acc(d, w->u.copy.src.addr, w->u.copy.src.space, w->u.copy.len, 0);
        add_acc(d, w->u.copy.dst.addr, w->u.copy.dst.space, w->u.copy.len, 1);
        break;
    case EMU_TASK_MEMSET:
        add_acc(d, w->u.memset.dst, 0, w->u.memset.len, 1);
        break;
    case EMU_TASK_NOTIFY_RECORD:
        *d = (struct emu_diag_desc){
            .sync_op = EMU_SYNC_RECORD, .sync_dev = w->u.notify.dev, .sync_slot = w->u.notify.slot};
        break;
    case EMU_TASK_NOTIFY_WAIT:
        *d = (struct emu_diag_desc){
            .sync_op = EMU_SYNC_WAIT, .sync_dev = emu_exec_g.dev, .sync_slot = w->u.wait.slot};
        break;
    case EMU_TASK_EVENT_RECORD:
    case EMU_TASK_EVENT_WAIT:
        *d = (struct emu_diag_desc){.sync_op = t->kind == EMU_TASK_EVENT_RECORD ? EMU_SYNC_RECORD
                                                                                : EMU_SYNC_WAIT,
                                    .sync_dev = w->u.event.dev,
                                    .sync_slot = w->u.event.slot,
                                    .event = true};
        break;
    default:
        break;
    }
}

void emu_diag_describe(const struct emu_task *t, struct emu_diag_desc *d)
{
    memset(d, 0, sizeof(*d));
    if (t->sync_op != EMU_SYNC_NONE || t->n_acc != 0 || t->kind >= EMU_TASK_KIND_COUNT) {
        d->n_acc = t->n_acc < 2 ? t->n_acc : 2;
        memcpy(d->acc, t->acc, sizeof(d->acc));
        d->sync_op = t->sync_op;
        d->sync_dev = t->sync_dev;
        d->sync_slot = t->sync_slot;
        return;
    }
    describe_wire(t, d);
}

struct emu_devctl *emu_diag_ctl(uint32_t dev)
{
    struct emu_devmap *m;

    if (dev == emu_exec_g.dev)
        return emu_exec_ctl();
    if (dev >= EMU_MAX_DEVICES)
        return NULL;
    /* The watchdog looks at every device of the job: one never started, or whose files its
     * host already removed at the end of the job, is simply not there (no error line). */
    char path[EMU_PATH_MAX + 32];
    if (emu_job_path(path, sizeof(path), emu_exec_g.job_dir, "dev%u.ctl", dev) != EMU_OK ||
        access(path, F_OK) != 0 || emu_devmem_peer(emu_exec_g.job_dir, dev, &m) != EMU_OK)
        return NULL;
    return m->ctl;
}

uint32_t emu_diag_site_intern(const char *text)
{
    struct emu_diag_shm *m = emu_diag_shm;
    uint32_t id = EMU_DIAG_NONE;

    emu_diag_shm_lock();
    for (uint32_t i = 0; i < m->n_sites && id == EMU_DIAG_NONE; i++)
        if (strncmp(m->sites[i], text, EMU_DIAG_SITE_LEN - 1) == 0)
            id = i;
    if (id == EMU_DIAG_NONE && m->n_sites < EMU_DIAG_MAX_SITES) {
        id = m->n_sites++;
        snprintf(m->sites[id], EMU_DIAG_SITE_LEN, "%s", text);
    }
    emu_diag_shm_unlock();
    return id;
}

uint32_t emu_diag_site_pc(uint64_t pc, uint32_t stream, bool from_kernel)
{
    int pid = 0;

    if (!from_kernel && stream < EMU_MAX_STREAMS &&
        emu_exec_ctl()->streams[stream].kind == EMU_STREAM_ACL)
        pid = emu_exec_ctl()->streams[stream].owner_pid;
    uint64_t key = (pc ^ ((uint64_t)(uint32_t)pid << 48)) | 1;
    uint32_t h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 51) % SITE_CACHE;

    pthread_mutex_lock(&site_lock);
    for (uint32_t i = 0; i < SITE_CACHE; i++, h = (h + 1) % SITE_CACHE) {
        if (site_cache[h].key == key) {
            uint32_t id = site_cache[h].site;
            pthread_mutex_unlock(&site_lock);
            return id;
        }
        if (site_cache[h].key == 0)
            break;
    }
    char text[EMU_DIAG_SITE_LEN];
    emu_symbols_callsite(pc, stream, from_kernel, text, sizeof(text));
    uint32_t id = emu_diag_site_intern(text);
    if (site_cache[h].key == 0 && id != EMU_DIAG_NONE)
        site_cache[h] = (struct site_ent){key, id};
    pthread_mutex_unlock(&site_lock);
    return id;
}

uint32_t emu_diag_site(const struct emu_task *t)
{
    return emu_diag_site_pc(t->callsite, t->stream, t->from_kernel != 0);
}

const char *emu_diag_site_text(uint32_t site)
{
    if (emu_diag_shm == NULL || site >= EMU_DIAG_MAX_SITES || emu_diag_shm->sites[site][0] == 0)
        return "unknown call site";
    return emu_diag_shm->sites[site];
}

void emu_diag_thread_name(uint32_t dev, uint32_t stream, char *out, size_t len)
{
    struct emu_devctl *ctl = emu_diag_ctl(dev);
    const struct emu_stream_ctl *sc =
        ctl != NULL && stream < EMU_MAX_STREAMS ? &ctl->streams[stream] : NULL;
    char rank[24] = "";

    if (sc == NULL) {
        snprintf(out, len, "dev %u stream %u", dev, stream);
        return;
    }
    if (sc->rank != UINT32_MAX && sc->kind != EMU_STREAM_FREE)
        snprintf(rank, sizeof(rank), "rank %u ", sc->rank);
    if (sc->kind == EMU_STREAM_ACL)
        snprintf(out, len, "%shost stream%s%s%s (dev %u stream %u)", rank, sc->label[0] ? " '" : "",
                 sc->label, sc->label[0] ? "'" : "", dev, stream);
    else if (strncmp(sc->label, "rank ", 5) == 0) /* the control plane's "rank R thread i" */
        snprintf(out, len, "%s (dev %u stream %u)", sc->label, dev, stream);
    else if (sc->label[0] != '\0')
        snprintf(out, len, "%sthread '%s' (dev %u stream %u)", rank, sc->label, dev, stream);
    else
        snprintf(out, len, "%sthread %u (dev %u stream %u)", rank, stream, dev, stream);
}

void emu_diag_notify_name(uint32_t dev, uint32_t slot, bool event, char *out, size_t len)
{
    struct emu_devctl *ctl = emu_diag_ctl(dev);

    if (event) {
        snprintf(out, len, "event (dev %u slot %u)", dev, slot);
        return;
    }
    for (uint32_t s = 0; ctl != NULL && s < EMU_MAX_STREAMS; s++) {
        const struct emu_stream_ctl *sc = &ctl->streams[s];
        if (emu_load_relaxed(&sc->kind) == EMU_STREAM_FREE || sc->notify_num == 0 ||
            slot < sc->notify_base || slot >= sc->notify_base + sc->notify_num)
            continue;
        char who[96];
        emu_diag_thread_name(dev, s, who, sizeof(who));
        snprintf(out, len, "thread notify %u of %s", slot - sc->notify_base, who);
        return;
    }
    for (uint32_t c = 0; ctl != NULL && c < EMU_MAX_CHANNELS; c++) {
        const struct emu_channel_ctl *ch = &ctl->channels[c];
        struct emu_diag_peer peer;
        char where[EMU_HOST_NAME_MAX + 16] = "";
        if (emu_load_relaxed(&ch->state) == 0 || slot < ch->local_notify_base ||
            slot >= ch->local_notify_base + ch->notify_num)
            continue;
        if (emu_diag_channel_peer(dev, slot, &peer) && peer.remote)
            snprintf(where, sizeof(where), " on host %s", peer.host);
        snprintf(out, len, "channel notify %u of rank %u's channel to rank %u%s (dev %u)",
                 slot - ch->local_notify_base, ch->local_rank, ch->remote_rank, where, dev);
        return;
    }
    snprintf(out, len, "notify slot %u of dev %u", slot, dev);
}

bool emu_diag_channel_peer(uint32_t dev, uint32_t slot, struct emu_diag_peer *out)
{
    struct emu_devctl *ctl = emu_diag_ctl(dev);

    for (uint32_t c = 0; ctl != NULL && c < EMU_MAX_CHANNELS; c++) {
        const struct emu_channel_ctl *ch = &ctl->channels[c];
        if (emu_load_relaxed(&ch->state) == 0 || slot < ch->local_notify_base ||
            slot >= ch->local_notify_base + ch->notify_num || ch->peer >= EMU_MAX_PEERS)
            continue;
        const struct emu_peer_ref *p = &ctl->peers[ch->peer];
        out->rank = ch->remote_rank;
        out->dev = p->dev;
        out->remote = !emu_host_is_mine(p->host_key) || strcmp(p->job_dir, emu_exec_g.job_dir) != 0;
        snprintf(out->host, sizeof(out->host), "%s",
                 p->host[0] != '\0' ? p->host : emu_host_self()->name);
        out->same_folder = strcmp(p->job_dir, emu_exec_g.job_dir) == 0;
        out->peer = ch->peer;
        out->folder = emu_folder_key(p->host_key, p->job_dir);
        return true;
    }
    return false;
}

bool emu_diag_host_call(uint32_t dev, uint32_t slot, uint32_t rank_dev, uint32_t rank, char *out,
                        size_t len)
{
    struct emu_devctl *ctl = emu_diag_ctl(dev), *their = emu_diag_ctl(rank_dev);
    uint64_t comm_id = 0;

    for (uint32_t c = 0; ctl != NULL && c < EMU_MAX_CHANNELS; c++) {
        const struct emu_channel_ctl *ch = &ctl->channels[c];
        if (emu_load_relaxed(&ch->state) != 0 && slot >= ch->local_notify_base &&
            slot < ch->local_notify_base + ch->notify_num)
            comm_id = ch->comm_id;
    }
    for (uint32_t i = 0; their != NULL && i < EMU_MAX_COMMS; i++) {
        struct emu_comm_ctl *e = &their->comms[i];
        if (emu_load_acquire(&e->state) == 0 || e->rank != rank ||
            (comm_id != 0 && e->comm_id != comm_id) || emu_load_acquire(&e->host_call_on) == 0)
            continue;
        snprintf(out, len, "%.*s", (int)sizeof(e->host_call), e->host_call);
        return true;
    }
    return false;
}

struct emu_race_notify *emu_diag_notify_entry(uint32_t dev, uint32_t slot, bool event, bool add)
{
    struct emu_diag_shm *m = emu_diag_shm;
    uint32_t h = (dev * 0x9e3779b1u ^ slot * 0x85ebca6bu ^ (event ? 0x27d4eb2fu : 0)) %
                 EMU_RACE_MAX_NOTIFIES;

    for (uint32_t i = 0; i < EMU_RACE_MAX_NOTIFIES; i++, h = (h + 1) % EMU_RACE_MAX_NOTIFIES) {
        struct emu_race_notify *e = &m->notify[h];
        if (e->used && e->dev == dev && e->slot == slot && e->is_event == (uint32_t)event)
            return e;
        if (!e->used) {
            if (!add)
                return NULL;
            *e = (struct emu_race_notify){.used = 1, .dev = dev, .slot = slot, .is_event = event};
            if (emu_diag_cfg.race)
                memset(&m->notify_clk[h], 0, sizeof(m->notify_clk[h]));
            return e;
        }
    }
    if (add && emu_load_relaxed(&m->race_off) == 0) {
        emu_store_relaxed(&m->race_off, 1);
        EMU_LOG_WARN("race checker and trace flows stopped: more than %u notify slots in use",
                     EMU_RACE_MAX_NOTIFIES);
    }
    return NULL;
}
