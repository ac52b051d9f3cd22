/* prov_rec.c - the executor's side of HCEMU_PROVENANCE (see prov_rec.h): prov.shm is made by
 * the first executor of the job (O_EXCL) and joined by the others; each write is one ring
 * entry, its call site symbolised once per call-site address (a small cache: libdw is far
 * slower than a move). */
#include "prov_rec.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/contract/devctl.h"
#include "common/contract/job_shm.h"
#include "common/contract/prov_shm.h"
#include "common/contract/settings.h"
#include "device/kernel/symbols.h"
#include "exec.h"
#include "report.h"

bool emu_prov_rec_enabled;
static struct emu_prov_shm *shm;

#define SITE_CACHE 512u
static pthread_mutex_t site_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uint64_t key;
    char text[sizeof(((struct emu_prov_write *)0)->site)];
} sites[SITE_CACHE];

void emu_prov_rec_init(void)
{
    void *p;

    if (!emu_settings_bool(EMU_SET_PROVENANCE) ||
        emu_job_shm_open(emu_exec_g.job_dir, EMU_PROV_FILE, sizeof(struct emu_prov_shm),
                         EMU_PROV_MAGIC, NULL, "HCEMU_PROVENANCE off", &p) != EMU_OK)
        return;
    shm = p;
    emu_prov_rec_enabled = true;
}

static void site_of(const struct emu_task *t, char *out, size_t len)
{
    /* A host stream's call site is in its owner's program: the stream is part of the key. */
    uint64_t key = (t->callsite ^ (t->from_kernel ? 0 : (uint64_t)t->stream << 48)) | 1;
    uint32_t h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) % SITE_CACHE;

    pthread_mutex_lock(&site_lock);
    if (sites[h].key != key) {
        emu_symbols_callsite(t->callsite, t->stream, t->from_kernel != 0, sites[h].text,
                             sizeof(sites[h].text));
        sites[h].key = key;
    }
    snprintf(out, len, "%s", sites[h].text);
    pthread_mutex_unlock(&site_lock);
}

void emu_prov_rec_write(const struct emu_task *t, const struct emu_devctl *home_ctl,
                        const char *dst_job, uint32_t dst_dev, uint64_t dst, uint64_t len)
{
    if (dst_dev >= EMU_MAX_DEVICES || strcmp(dst_job, emu_exec_g.job_dir) != 0)
        return; /* a device of another folder: its own executors record it */
    struct emu_prov_ring *r = &shm->dev[dst_dev];
    uint64_t idx = atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed);
    struct emu_prov_write *w = &r->w[idx % EMU_PROV_RING];
    const struct emu_stream_ctl *sc =
        t->stream < EMU_MAX_STREAMS ? &home_ctl->streams[t->stream] : NULL;

    atomic_store_explicit(&w->stamp, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    w->addr = dst;
    w->len = len;
    w->seq = t->seq;
    w->rank = sc != NULL ? sc->rank : UINT32_MAX;
    w->thread = sc != NULL ? sc->thread_index : 0;
    w->tdev = home_ctl->dev;
    snprintf(w->kind, sizeof(w->kind), "%s", emu_report_kind_name(t->kind));
    snprintf(w->label, sizeof(w->label), "%.36s", sc != NULL ? sc->label : "");
    site_of(t, w->site, sizeof(w->site));
    atomic_store_explicit(&w->stamp, idx + 1, memory_order_release);
}
