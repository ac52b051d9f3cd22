/* devmem.c - the executor's view of device memory: its own window, peers' memory at private
 * aliases, and pinned host memory of the job's host processes. */
#include "exec.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/contract/job.h"
#include "common/contract/layout.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/platform/secure_dir.h"

/* Peer devices mapped: every other device of the job, and as many of other jobs (clusters
 * rendezvous through a shared folder). */
#define MAX_MAPS (2u * EMU_MAX_DEVICES)
/* A peer's memory is mapped in prefixes of whole multiples of this, on first use: a kernel
 * reaches a peer's HCCL buffer and the regions its channels list, which a first-fit
 * allocator keeps near the start. With the whole window (32 GiB) mapped, each touched peer
 * cost a page-table page per GiB spanned; prefixes this small lie side by side and share
 * them (at 256 ranks, 255 peers per executor). */
#define PEER_REACH_STEP (256ull << 20)
#define MAX_PINS 64u

struct pin_map {
    uint32_t pid;
    uint8_t *base;
    uint64_t size;
};

/* Lookups are lock-free reads of published entries; `map_lock` serialises creation. */
static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_devmap *maps[MAX_MAPS];
static _Atomic uint32_t map_count;
static struct emu_devmap *_Atomic job_maps[EMU_MAX_DEVICES]; /* this job's, by device */
static struct pin_map pins[MAX_PINS];
static _Atomic uint32_t pin_count;

static emu_status map_file(const char *path, uint64_t len, void *fixed_at, void **out)
{
    int fd;
    if (emu_secure_dir_open_path(path, O_RDWR, 0, &fd) != EMU_OK)
        return EMU_EFILE;
    struct stat st;
    if (fstat(fd, &st) == 0 && len == 0)
        len = (uint64_t)st.st_size;
    emu_status s = emu_os_map_shared(fd, 0, len, fixed_at, fixed_at != NULL, out);
    close(fd);
    return s;
}

emu_status emu_devmem_open_self(const char *job_dir, uint32_t dev, uint64_t mem_size)
{
    struct emu_devmap *self = &emu_exec_g.self;
    char path[512];
    void *p;
    emu_status s;

    snprintf(self->job_dir, sizeof(self->job_dir), "%s", job_dir);
    self->dev = dev;
    if ((s = emu_job_path(path, sizeof(path), job_dir, "dev%u.ctl", dev)) != EMU_OK ||
        (s = map_file(path, sizeof(struct emu_devctl), NULL, &p)) != EMU_OK)
        return s;
    self->ctl = p;
    if ((s = emu_job_path(path, sizeof(path), job_dir, "dev%u.mem", dev)) != EMU_OK ||
        (s = map_file(path, mem_size, (void *)(uintptr_t)emu_window_base(dev), &p)) != EMU_OK)
        return s;
    self->mem = p;
    self->mem_size = mem_size;
    atomic_store(&self->reach, mem_size);
    maps[0] = self;
    atomic_store(&map_count, 1);
    return EMU_OK;
}

static struct emu_devmap *find_map(const char *job_dir, uint32_t dev)
{
    uint32_t n = atomic_load_explicit(&map_count, memory_order_acquire);

    for (uint32_t i = 0; i < n; i++)
        if (maps[i]->dev == dev && strcmp(maps[i]->job_dir, job_dir) == 0)
            return maps[i];
    return NULL;
}

bool emu_devmem_peer_exists(const char *job_dir, uint32_t dev)
{
    char path[512];

    return find_map(job_dir, dev) != NULL ||
           (emu_job_path(path, sizeof(path), job_dir, "dev%u.ctl", dev) == EMU_OK &&
            access(path, F_OK) == 0);
}

emu_status emu_devmem_peer(const char *job_dir, uint32_t dev, struct emu_devmap **out)
{
    struct emu_devmap *m = find_map(job_dir, dev);
    char path[512];
    void *p;
    emu_status s = EMU_OK;

    if (m != NULL) {
        *out = m;
        return EMU_OK;
    }
    pthread_mutex_lock(&map_lock);
    m = find_map(job_dir, dev);
    if (m != NULL)
        goto done;
    if (atomic_load(&map_count) >= MAX_MAPS) {
        s = EMU_ENOMEM;
        goto done;
    }
    m = calloc(1, sizeof(*m));
    if (m == NULL) {
        s = EMU_ENOMEM;
        goto done;
    }
    snprintf(m->job_dir, sizeof(m->job_dir), "%s", job_dir);
    m->dev = dev;
    m->mem_fd = -1;
    if ((s = emu_job_path(path, sizeof(path), job_dir, "dev%u.ctl", dev)) != EMU_OK ||
        (s = map_file(path, sizeof(struct emu_devctl), NULL, &p)) != EMU_OK)
        goto fail;
    m->ctl = p;
    if ((s = emu_job_path(path, sizeof(path), job_dir, "dev%u.mem", dev)) != EMU_OK ||
        (s = emu_secure_dir_open_path(path, O_RDWR, 0, &m->mem_fd)) != EMU_OK)
        goto fail;
    m->mem_size = m->ctl->mem_size; /* its memory is mapped on first use: emu_devmap_at */
    maps[atomic_load(&map_count)] = m;
    /* Pairs with the acquire in find_map(): the entry is complete before it is counted. */
    atomic_fetch_add_explicit(&map_count, 1, memory_order_release);
    goto done;
fail:
    if (m->ctl != NULL)
        emu_os_unmap(m->ctl, sizeof(struct emu_devctl));
    if (m->mem_fd >= 0)
        close(m->mem_fd);
    free(m);
    m = NULL;
done:
    pthread_mutex_unlock(&map_lock);
    *out = m;
    return s;
}

struct emu_devmap *emu_devmem_job_find(uint32_t dev)
{
    if (dev >= EMU_MAX_DEVICES)
        return NULL;
    struct emu_devmap *m = atomic_load_explicit(&job_maps[dev], memory_order_acquire);
    if (m == NULL && (m = find_map(emu_exec_g.job_dir, dev)) != NULL)
        atomic_store_explicit(&job_maps[dev], m, memory_order_release);
    return m;
}

bool emu_devmap_reaches(const struct emu_devmap *m, uint64_t addr, uint64_t len)
{
    uint64_t base = emu_window_base(m->dev);

    if (addr < base || addr - base > m->mem_size || len > m->mem_size - (addr - base))
        return false;
    return addr - base + len <= atomic_load_explicit(&m->reach, memory_order_acquire);
}

/* Map a longer prefix of a peer's memory, covering `end` bytes. The earlier alias stays
 * mapped: tasks already running may point into it. Under map_lock. */
static bool grow_reach(struct emu_devmap *m, uint64_t end)
{
    uint64_t want = (end + PEER_REACH_STEP - 1) / PEER_REACH_STEP * PEER_REACH_STEP;
    void *p;

    if (want > m->mem_size)
        want = m->mem_size;
    if (m->mem_fd < 0 || emu_os_map_shared(m->mem_fd, 0, want, NULL, 0, &p) != EMU_OK)
        return false;
    __atomic_store_n(&m->mem, (uint8_t *)p, __ATOMIC_RELAXED);
    /* Pairs with the acquire in emu_devmap_at(): a reader that sees the new reach sees an
     * alias at least this long. */
    atomic_store_explicit(&m->reach, want, memory_order_release);
    return true;
}

/* How far a peer's alias must reach for an access of [off, off + len): to the end of the
 * allocation it falls in. A channel reaches a peer's HCCL buffer near its start first and at
 * its end (the eager slots) later. Growing the alias then would move it, and every page
 * touched through the old alias would fault again through the new one: at 8 ranks, with
 * HCCL buffers that straddled 256 MiB, thousands of faults at 15-20 us each on a VM, which
 * made the first call after the first eager exchange ~150 ms longer. */
static uint64_t reach_for(struct emu_devmap *m, uint64_t off, uint64_t len)
{
    struct emu_range r;
    uint64_t end = off + len;

    if (emu_devmem_alloc_of(m, off, &r) && r.off + r.span > end)
        end = r.off + r.span < m->mem_size ? r.off + r.span : m->mem_size;
    return end;
}

/* Whether m reaches [off, off + len) now, growing its alias when it does not. */
static bool reach(struct emu_devmap *m, uint64_t off, uint64_t len)
{
    if (off > m->mem_size || len > m->mem_size - off)
        return false;
    if (off + len <= atomic_load_explicit(&m->reach, memory_order_acquire))
        return true;
    pthread_mutex_lock(&map_lock);
    bool ok = off + len <= atomic_load(&m->reach) || grow_reach(m, reach_for(m, off, len));
    pthread_mutex_unlock(&map_lock);
    return ok;
}

void *emu_devmap_at(struct emu_devmap *m, uint64_t off, uint64_t len)
{
    if (!reach(m, off, len))
        return NULL;
    return __atomic_load_n(&m->mem, __ATOMIC_RELAXED) + off;
}

bool emu_devmap_reach(struct emu_devmap *m, uint64_t addr, uint64_t len)
{
    uint64_t base = emu_window_base(m->dev);

    if (m == &emu_exec_g.self || addr < base)
        return emu_devmap_reaches(m, addr, len);
    return reach(m, addr - base, len);
}

static void *pin_ptr(uint32_t pid, uint64_t off, uint64_t len)
{
    uint32_t n = atomic_load_explicit(&pin_count, memory_order_acquire);
    struct pin_map *pm = NULL;

    for (uint32_t i = 0; i < n; i++)
        if (pins[i].pid == pid)
            pm = &pins[i];
    if (pm == NULL) {
        char path[512];
        void *p;
        pthread_mutex_lock(&map_lock);
        n = atomic_load(&pin_count);
        if (n < MAX_PINS &&
            emu_job_path(path, sizeof(path), emu_exec_g.job_dir, "pin%u.mem", pid) == EMU_OK &&
            map_file(path, 0, NULL, &p) == EMU_OK) {
            struct stat st;
            pins[n].pid = pid;
            pins[n].base = p;
            pins[n].size = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
            pm = &pins[n];
            atomic_fetch_add_explicit(&pin_count, 1, memory_order_release);
        }
        pthread_mutex_unlock(&map_lock);
        if (pm == NULL)
            return NULL;
    }
    if (off > pm->size || len > pm->size - off)
        return NULL;
    return pm->base + off;
}

void *emu_devmem_ptr(uint64_t addr, uint32_t space, uint64_t len)
{
    if (space != 0)
        return pin_ptr(space, addr, len);
    int dev = emu_window_device(addr);
    if (dev < 0)
        return NULL;
    struct emu_devmap *m;
    if (emu_devmem_peer(emu_exec_g.job_dir, (uint32_t)dev, &m) != EMU_OK)
        return NULL;
    return emu_devmap_at(m, addr - emu_window_base((uint32_t)dev), len);
}

/* The allocations this OS thread found last, each with the table version it was read at.
 * A data-plane call checks its ranges when it is made and its task again when it runs, and
 * a kernel's calls go to a few buffers over and over: while a table's version has not moved,
 * the record found at that version is still there, and the binary search (about a third of a
 * small copy's cost, call and run together) is skipped. A set per device (by index, so the
 * devices of a job up to SEEN_SETS never share one), four ways each: a kernel's own device
 * holds its input, output, HCCL buffer and arguments; a peer is reached in its HCCL buffer.
 * With one set of four ways for every device, a worker of an 8-rank mesh call (its own
 * buffers, seven peers' HCCL buffers, and the tasks of peers it runs from the job-wide run
 * queue) missed on a quarter of its checks, each miss a search and a record copy. */
#define SEEN_SETS 16u
#define SEEN_WAYS 4u

struct seen_alloc {
    const struct emu_devctl *ctl;
    uint64_t version;
    uint64_t off, span, size;
    uint32_t kind, gen;
};

static _Thread_local struct seen_alloc seen[SEEN_SETS][SEEN_WAYS];
static _Thread_local uint8_t seen_next[SEEN_SETS];

/* The remembered allocation of m's device whose span holds offset rel, if it was read at
 * `version` (the table's current one); NULL otherwise. */
static const struct seen_alloc *seen_find(const struct emu_devmap *m, uint64_t version,
                                          uint64_t rel)
{
    const struct seen_alloc *set = seen[m->dev % SEEN_SETS];

    for (uint32_t i = 0; i < SEEN_WAYS; i++) {
        const struct seen_alloc *a = &set[i];
        if (a->ctl == m->ctl && a->version == version && rel - a->off < a->span)
            return a;
    }
    return NULL;
}

static void seen_add(const struct emu_devmap *m, uint64_t version, const struct emu_range *r)
{
    uint32_t s = m->dev % SEEN_SETS;

    seen[s][seen_next[s]] = (struct seen_alloc){.ctl = m->ctl, .version = version,
                                                .off = r->off, .span = r->span,
                                                .size = r->size, .kind = r->kind, .gen = r->gen};
    seen_next[s] = (uint8_t)((seen_next[s] + 1) % SEEN_WAYS);
}

/* What seen_find() did not answer: the record from the table itself, remembered for the
 * next look. Every data-plane task checks its ranges, twice, on whichever executor runs it:
 * read the table lock-free (the lock's line would travel between the job's processes each
 * time), and take the lock only when a writer keeps it busy (or died mid-update). */
static bool read_alloc(const struct emu_devmap *m, uint64_t rel, struct emu_range *out)
{
    struct emu_devctl *ctl = m->ctl;
    uint64_t version;
    int found = emu_range_read(&ctl->alloc.set, ctl->alloc.recs, rel, out, &version);

    if (found > 0)
        seen_add(m, version, out);
    if (found >= 0)
        return found > 0;
    emu_devctl_lock(&ctl->alloc.lock);
    int i = emu_range_find(&ctl->alloc.set, ctl->alloc.recs, rel);
    if (i >= 0) {
        out->off = ctl->alloc.recs[i].off;
        out->span = ctl->alloc.recs[i].span;
        out->size = ctl->alloc.recs[i].size;
        out->kind = ctl->alloc.recs[i].kind;
        out->gen = ctl->alloc.recs[i].gen;
    }
    emu_devctl_unlock(&ctl->alloc.lock);
    return i >= 0;
}

bool emu_devmem_alloc_of(const struct emu_devmap *m, uint64_t rel, struct emu_range *out)
{
    const struct seen_alloc *a = seen_find(m, emu_range_version(&m->ctl->alloc.set), rel);

    if (a == NULL)
        return read_alloc(m, rel, out);
    out->off = a->off;
    out->span = a->span;
    out->size = a->size;
    out->kind = a->kind;
    out->gen = a->gen;
    return true;
}

bool emu_devmem_holds(const struct emu_devmap *m, uint64_t rel, uint64_t len)
{
    const struct seen_alloc *a = seen_find(m, emu_range_version(&m->ctl->alloc.set), rel);
    struct emu_range r;

    /* The common case, answered from what this thread saw last without copying a record. */
    if (a != NULL)
        return rel - a->off < a->size && len <= a->size - (rel - a->off);
    return read_alloc(m, rel, &r) && emu_range_holds(&r, rel, len);
}

void emu_devmem_free_internal(uint64_t addr)
{
    struct emu_devctl *ctl = emu_exec_ctl();
    uint64_t off = addr - emu_window_base(emu_exec_g.dev);

    emu_devctl_lock(&ctl->alloc.lock);
    int i = emu_range_find(&ctl->alloc.set, ctl->alloc.recs, off);
    if (i >= 0 && ctl->alloc.recs[i].off == off)
        emu_range_remove(&ctl->alloc.set, ctl->alloc.recs, i);
    emu_devctl_unlock(&ctl->alloc.lock);
}
