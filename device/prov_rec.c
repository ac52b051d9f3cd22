/* prov_rec.c - the executor's side of HCEMU_PROVENANCE (see prov_rec.h): prov.shm is made by
 * the first executor of the job (O_EXCL) and joined by the others; each write is one ring
 * entry, its call site symbolised once per call-site address (a small cache: libdw is far
 * slower than a move). */
#include "prov_rec.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/contract/devctl.h"
#include "common/contract/job.h"
#include "common/contract/prov_shm.h"
#include "common/contract/settings.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/platform/secure_dir.h"
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

static emu_status open_shm(void)
{
    char path[EMU_PATH_MAX + 16];
    int fd = -1;
    bool creator = true;
    void *p;

    if (emu_job_path(path, sizeof(path), emu_exec_g.job_dir, "%s", EMU_PROV_FILE) != EMU_OK)
        return EMU_EINVAL;
    emu_status s = emu_secure_dir_open_path(path, O_RDWR | O_CREAT | O_EXCL, 0600, &fd);
    if (s == EMU_EAGAIN) {
        creator = false;
        s = emu_secure_dir_open_path(path, O_RDWR, 0, &fd);
    }
    if (s != EMU_OK || (creator && ftruncate(fd, sizeof(struct emu_prov_shm)) != 0)) {
        EMU_LOG_WARN("HCEMU_PROVENANCE off: cannot create %s: %m", path);
        if (fd >= 0)
            close(fd);
        return EMU_EFILE;
    }
    /* A joiner waits (bounded) for the creator's size and magic. */
    struct stat st;
    uint64_t until = emu_os_now_ns() + 2000000000ull;
    while (!creator && fstat(fd, &st) == 0 && (size_t)st.st_size < sizeof(struct emu_prov_shm) &&
           emu_os_now_ns() < until)
        usleep(1000);
    s = emu_os_map_shared(fd, 0, sizeof(struct emu_prov_shm), NULL, 0, &p);
    close(fd);
    if (s != EMU_OK)
        return s;
    struct emu_prov_shm *m = p;
    if (creator)
        atomic_store_explicit(&m->magic, EMU_PROV_MAGIC, memory_order_release);
    while (atomic_load_explicit(&m->magic, memory_order_acquire) != EMU_PROV_MAGIC &&
           emu_os_now_ns() < until)
        usleep(1000);
    if (atomic_load_explicit(&m->magic, memory_order_acquire) != EMU_PROV_MAGIC) {
        EMU_LOG_WARN("HCEMU_PROVENANCE off: %s was not initialised", path);
        emu_os_unmap(p, sizeof(struct emu_prov_shm));
        return EMU_EFILE;
    }
    shm = m;
    return EMU_OK;
}

void emu_prov_rec_init(void)
{
    if (!emu_settings_bool(EMU_SET_PROVENANCE) || open_shm() != EMU_OK)
        return;
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
