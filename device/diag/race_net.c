/* race_net.c - vector clocks on the messages between job folders (race_net.h).
 *
 * A tag is a head (who sent it: folder key, tid, rank, device, stream, host, call site, task
 * kind) and the sender's non-zero clock entries, each named by the folder that owns the tid
 * (a mirror is sent as its origin, so a clock that went a->b->a comes back as a's own tids).
 * The receiver maps each (folder, tid) to a tid of its own folder, making a mirror for one
 * it has not seen (diag.shm `tids`, shared with local threads: the bound stops checking with
 * a warning, never drops an entry, so no edge is lost and no race invented). */
#include "race_net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/contract/host_id.h"
#include "common/platform/log.h"
#include "device/exec.h"
#include "diag_priv.h"

#define TAG_MAGIC 0x3130454341524348ull /* "HCRACE01" */
#define NT EMU_RACE_MAX_TIDS

struct tag_head {
    uint64_t magic;
    uint64_t folder; /* the sender's folder key */
    uint64_t seq;    /* the sender's task number */
    uint32_t tid;    /* the sender thread's tid in its folder, EMU_DIAG_NONE: none */
    uint32_t rank, dev, stream, kind;
    uint32_t n; /* entries that follow */
    char host[EMU_HOST_NAME_MAX];
    char label[36]; /* the thread's label */
    char site[EMU_DIAG_SITE_LEN];
    uint32_t reserved;
};
/* Entries follow the head in the same buffer: keep them aligned. */
_Static_assert(sizeof(struct tag_head) % 8 == 0, "clock tag head");

struct tag_entry {
    uint64_t folder;
    uint32_t tid, epoch;
};

struct emu_race_net_in {
    uint32_t slot; /* published notify, EMU_DIAG_NONE: not yet */
    uint32_t clk[NT];
};

/* This job folder's key (emu_folder_key). */
static uint64_t folder_key(void)
{
    return emu_folder_key(emu_host_self()->key, emu_exec_g.job_dir);
}

static bool race_on(void)
{
    return emu_diag_cfg.race && emu_diag_shm != NULL && !emu_load_relaxed(&emu_diag_shm->race_off);
}

uint8_t *emu_race_net_tag(const struct emu_task *t, size_t cap, size_t *tag_len)
{
    const struct emu_race_snap *s = t->diag;
    uint32_t n = 0;

    *tag_len = 0;
    if (!race_on() || s == NULL || !s->at_start)
        return NULL;
    for (uint32_t i = 0; i < s->n; i++)
        n += s->c[i] != 0;
    size_t len = sizeof(struct tag_head) + n * sizeof(struct tag_entry);
    if (len > cap) {
        char why[160];
        snprintf(why, sizeof(why), "a clock of %u threads (%zu bytes) does not fit in a message "
                 "header of the network transport (%zu bytes)", n, len, cap);
        emu_race_stop(why);
        return NULL;
    }
    uint8_t *buf = calloc(1, len);
    if (buf == NULL) {
        emu_race_stop("out of memory for a message's clock");
        return NULL;
    }
    struct tag_head *h = (struct tag_head *)(void *)buf;
    struct tag_entry *e = (struct tag_entry *)(void *)(h + 1);
    uint64_t me = folder_key();
    *h = (struct tag_head){.magic = TAG_MAGIC, .folder = me, .seq = t->seq, .tid = s->tid,
                           .dev = emu_exec_g.dev, .stream = t->stream, .kind = t->kind, .n = n};
    h->rank = UINT32_MAX;
    if (t->stream < EMU_MAX_STREAMS) {
        const struct emu_stream_ctl *sc = &emu_exec_ctl()->streams[t->stream];
        h->rank = sc->rank;
        memcpy(h->label, sc->label, sizeof(h->label));
        h->label[sizeof(h->label) - 1] = '\0';
    }
    snprintf(h->host, sizeof(h->host), "%s", emu_host_of_device(emu_exec_g.dev)->name);
    if (t->n_acc != 0)
        snprintf(h->site, sizeof(h->site), "%s", emu_diag_site_text(emu_diag_site(t)));
    emu_diag_shm_lock();
    for (uint32_t i = 0, k = 0; i < s->n && k < n; i++) {
        if (s->c[i] == 0)
            continue;
        const struct emu_race_tid *id = &emu_diag_shm->tids[i];
        e[k++] = (struct tag_entry){.folder = id->origin != 0 ? id->origin : me,
                                    .tid = id->origin != 0 ? id->origin_tid : i,
                                    .epoch = s->c[i]};
    }
    emu_diag_shm_unlock();
    *tag_len = len;
    return buf;
}

/* The local tid of (folder, tid), making a mirror; EMU_DIAG_NONE when it cannot (table full,
 * or a tid of this folder that does not exist). shm lock held. */
static uint32_t local_tid(uint64_t folder, uint32_t tid, uint64_t me)
{
    struct emu_diag_shm *m = emu_diag_shm;

    if (folder == me)
        return tid < m->n_tids ? tid : EMU_DIAG_NONE;
    for (uint32_t i = 0; i < m->n_tids; i++)
        if (m->tids[i].origin == folder && m->tids[i].origin_tid == tid)
            return i;
    if (m->n_tids >= NT)
        return EMU_DIAG_NONE;
    struct emu_race_tid *id = &m->tids[m->n_tids];
    memset(id, 0, sizeof(*id));
    id->dev = id->stream = EMU_DIAG_NONE;
    id->origin = folder;
    id->origin_tid = tid;
    id->rank = UINT32_MAX;
    __atomic_store_n(&m->n_tids, m->n_tids + 1, __ATOMIC_RELEASE);
    return m->n_tids - 1;
}

/* Translate the tag's clock into this folder's tids (clk) and the sender's own tid (*self,
 * filling in its description). False when an entry found no tid: checking stops. shm lock. */
static bool translate(const struct tag_head *h, const struct tag_entry *e, uint32_t *clk,
                      uint32_t *self, uint32_t *self_epoch)
{
    uint64_t me = folder_key();

    *self = EMU_DIAG_NONE;
    *self_epoch = 0;
    for (uint32_t k = 0; k < h->n; k++) {
        uint32_t i = local_tid(e[k].folder, e[k].tid, me);
        if (i == EMU_DIAG_NONE)
            return false;
        if (e[k].epoch > clk[i])
            clk[i] = e[k].epoch;
        if (e[k].folder == h->folder && e[k].tid == h->tid)
            *self = i, *self_epoch = e[k].epoch;
    }
    if (*self != EMU_DIAG_NONE && emu_diag_shm->tids[*self].origin != 0) {
        struct emu_race_tid *id = &emu_diag_shm->tids[*self];
        id->dev = h->dev;
        id->stream = h->stream;
        id->rank = h->rank;
        memcpy(id->host, h->host, sizeof(id->host));
        id->host[sizeof(id->host) - 1] = '\0';
        memcpy(id->label, h->label, sizeof(id->label));
        id->label[sizeof(id->label) - 1] = '\0';
    }
    return true;
}

struct emu_race_net_in *emu_race_net_arrive(const void *tag, size_t len, uint32_t src_dev,
                                            uint64_t addr, uint64_t bytes,
                                            enum emu_race_net_access access, bool record)
{
    struct tag_head h;
    char why[200];

    if (!race_on())
        return NULL;
    if (len < sizeof(h)) {
        snprintf(why, sizeof(why), "a message from device %u of another host carries no clock "
                 "(its race checker is off or stopped: set HCEMU_RACECHECK=1 on every host)",
                 src_dev);
        emu_race_stop(why);
        return NULL;
    }
    memcpy(&h, tag, sizeof(h));
    if (h.magic != TAG_MAGIC || h.n > NT || len != sizeof(h) + h.n * sizeof(struct tag_entry)) {
        snprintf(why, sizeof(why), "a message from device %u of another host carries a clock "
                 "this build does not read", src_dev);
        emu_race_stop(why);
        return NULL;
    }
    h.site[sizeof(h.site) - 1] = '\0';
    struct tag_entry *e = malloc(h.n * sizeof(*e) + 1);
    struct emu_race_net_in *in = calloc(1, sizeof(*in));
    if (e == NULL || in == NULL) {
        free(e), free(in);
        emu_race_stop("out of memory for a message's clock");
        return NULL;
    }
    memcpy(e, (const uint8_t *)tag + sizeof(h), h.n * sizeof(*e));
    uint32_t site = access != EMU_RACE_NET_NONE && h.site[0] != '\0' ? emu_diag_site_intern(h.site)
                                                                      : EMU_DIAG_NONE;
    uint32_t self, epoch;
    emu_diag_shm_lock();
    bool ok = translate(&h, e, in->clk, &self, &epoch);
    emu_diag_shm_unlock();
    free(e);
    if (!ok) {
        snprintf(why, sizeof(why), "more than %u threads in the job with the mirrors of other "
                 "hosts' threads (a message from device %u of another host)", NT, src_dev);
        emu_race_stop(why);
        free(in);
        return NULL;
    }
    if (access != EMU_RACE_NET_NONE && bytes > 0 && self != EMU_DIAG_NONE) {
        struct emu_race_access x = {.addr = addr,
                                    .len = bytes,
                                    .seq = h.seq,
                                    .tid = self,
                                    .epoch = epoch,
                                    .site = site,
                                    .stream = (uint16_t)h.stream,
                                    .dev = (uint8_t)emu_exec_g.dev,
                                    .write = access == EMU_RACE_NET_WRITE,
                                    .kind = (uint16_t)h.kind,
                                    .tdev = (uint8_t)h.dev,
                                    .remote = 1,
                                    .rank = h.rank};
        emu_race_check_one(&x, in->clk);
    }
    if (!record) {
        free(in);
        return NULL;
    }
    in->slot = EMU_DIAG_NONE;
    return in;
}

void emu_race_net_publish(struct emu_race_net_in *in, uint32_t slot)
{
    if (in == NULL)
        return;
    emu_race_record_publish(emu_exec_g.dev, slot, in->clk);
    in->slot = slot;
}

void emu_race_net_end(struct emu_race_net_in *in)
{
    if (in == NULL)
        return;
    if (in->slot != EMU_DIAG_NONE)
        emu_race_record_done(emu_exec_g.dev, in->slot);
    free(in);
}
