/* test_dataplane_fixture.c - see kernels/dp_fixture.h. */
#include "kernels/dp_fixture.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/contract/devctl.h"
#include "common/contract/handle.h"
#include "common/platform/os.h"
#include "common/platform/secure_dir.h"
#include "host/acl/stream.h"

static char *log_since(struct dpf *f, long mark);

static uint32_t notify_take(struct emu_devctl *ctl, uint32_t n)
{
    struct emu_range r;

    emu_devctl_lock(&ctl->res_lock);
    emu_status s = emu_range_alloc(&ctl->notify_ranges.set, ctl->notify_ranges.recs, n, 1, 1,
                                   EMU_ALLOC_NOTIFY, &r);
    emu_devctl_unlock(&ctl->res_lock);
    if (s != EMU_OK)
        abort();
    for (uint32_t i = 0; i < n; i++)
        atomic_store(&ctl->notifies[r.off + i].value, 0);
    return (uint32_t)r.off;
}

static struct emu_devctl *map_ctl(const char *job, int dev)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/dev%d.ctl", job, dev);
    int fd = open(path, O_RDWR);
    if (fd < 0)
        return NULL;
    void *p = mmap(NULL, sizeof(struct emu_devctl), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

int dpf_setup(struct dpf *f, int ndev, const char *kernels_json, int keep_stderr)
{
    char num[16];

    memset(f, 0, sizeof(*f));
    f->ndev = ndev;
    f->log_fd = -1;
    f->saved_stderr = -1;
    snprintf(f->job, sizeof(f->job), "/dev/shm/hcemu-dptest-%d", (int)getpid());
    setenv("HCEMU_JOB_PATH", f->job, 1);
    snprintf(num, sizeof(num), "%d", ndev);
    setenv("HCEMU_DEVICES", num, 1);
    setenv("HCEMU_DEVICE_MEM_GB", "2", 0);
    if (!keep_stderr) {
        snprintf(f->log, sizeof(f->log), "/tmp/hcemu-dptest-%d.log", (int)getpid());
        f->log_fd = open(f->log, O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0600);
        f->saved_stderr = dup(2);
        dup2(f->log_fd, 2);
    }
    if (aclInit(NULL) != 0)
        return -1;
    for (int d = 0; d < ndev; d++) {
        if (aclrtSetDevice(d) != 0 || aclrtCreateStream(&f->stream[d]) != 0)
            return -1;
        if ((f->ctl[d] = map_ctl(f->job, d)) == NULL)
            return -1;
    }
    if (kernels_json != NULL &&
        (aclrtBinaryLoadFromFile(kernels_json, NULL, &f->bin) != 0 ||
         aclrtBinaryGetFunction(f->bin, "dp_exec", &f->fn) != 0))
        return -1;
    return 0;
}

/* hcemu's own log lines shown before a failure (dpf_teardown). */
#define HCEMU_LINES_SHOWN 20u

void dpf_teardown(struct dpf *f)
{
    for (int d = 0; d < f->ndev; d++) {
        if (f->ctl[d] == NULL)
            continue;
        for (uint32_t i = 0; i < f->n_dev_slots[d]; i++)
            emu_store_release(&f->ctl[d]->streams[f->dev_slots[d][i]].kind, EMU_STREAM_FREE);
        if (f->stream[d] != NULL)
            (void)aclrtDestroyStream(f->stream[d]);
        munmap(f->ctl[d], sizeof(struct emu_devctl));
    }
    if (f->bin != NULL)
        (void)aclrtBinaryUnLoad(f->bin);
    for (int d = 0; d < f->ndev; d++)
        (void)aclrtResetDevice(d);
    (void)aclFinalize();
    emu_secure_dir_remove(f->job);
    if (f->saved_stderr >= 0) {
        /* cmocka wrote its failure details into the captured stderr: show them, and before
         * the first the last hcemu lines, which say why a task or a wait failed (the other
         * tests' deliberate refusals are further up). */
        char *buf = log_since(f, 0);
        const char *hcemu[HCEMU_LINES_SHOWN] = {NULL};
        unsigned seen = 0;
        bool failed = false;
        for (char *line = strtok(buf, "\n"); line != NULL; line = strtok(NULL, "\n")) {
            bool failure = strncmp(line, "[  ERROR", 8) == 0 || strncmp(line, "[   LINE", 8) == 0 ||
                           strstr(line, "ERROR:") != NULL;
            if (failure && !failed) {
                failed = true;
                unsigned first = seen > HCEMU_LINES_SHOWN ? seen - HCEMU_LINES_SHOWN : 0;
                if (seen > 0)
                    dprintf(f->saved_stderr, "hcemu's last %u lines before the failure:\n",
                            seen - first);
                for (unsigned i = first; i < seen; i++)
                    dprintf(f->saved_stderr, "%s\n", hcemu[i % HCEMU_LINES_SHOWN]);
            }
            if (failure)
                dprintf(f->saved_stderr, "%s\n", line);
            else if (!failed && strncmp(line, "[hcemu", 6) == 0)
                hcemu[seen++ % HCEMU_LINES_SHOWN] = line;
        }
        free(buf);
        dup2(f->saved_stderr, 2);
        close(f->saved_stderr);
    }
    if (f->log_fd >= 0) {
        close(f->log_fd);
        if (getenv("DP_KEEP_LOG") == NULL)
            unlink(f->log);
    }
}

uint64_t dpf_thread(struct dpf *f, int dev, uint32_t notify_num, uint32_t rank, uint32_t index)
{
    struct emu_devctl *ctl = f->ctl[dev];
    uint32_t base = notify_num ? notify_take(ctl, notify_num) : 0;
    uint32_t slot = UINT32_MAX;

    emu_devctl_lock(&ctl->res_lock);
    for (uint32_t i = 0; i < EMU_MAX_STREAMS && slot == UINT32_MAX; i++) {
        struct emu_stream_ctl *sc = &ctl->streams[i];
        if (emu_load_relaxed(&sc->kind) != EMU_STREAM_FREE)
            continue;
        slot = i;
        sc->gen = (sc->gen + 1) & EMU_HANDLE_GEN_MASK;
        if (sc->gen == 0)
            sc->gen = 1;
        sc->notify_base = base;
        sc->notify_num = notify_num;
        sc->engine = 3;
        sc->rank = rank;
        sc->thread_index = index;
        snprintf(sc->label, sizeof(sc->label), "rank %u thread %u", rank, index);
        atomic_store(&sc->error, 0);
        atomic_store(&sc->completed, atomic_load(&sc->submitted));
        emu_store_release(&sc->kind, EMU_STREAM_DEVICE);
    }
    emu_devctl_unlock(&ctl->res_lock);
    f->dev_slots[dev][f->n_dev_slots[dev]++] = slot;
    struct emu_handle h = {EMU_HANDLE_THREAD, (uint32_t)dev, 3, false, ctl->streams[slot].gen,
                           slot};
    return emu_handle_encode(&h);
}

uint64_t dpf_cpu_thread(struct dpf *f, int dev, aclrtStream s, uint32_t notify_num, uint32_t rank)
{
    struct emu_devctl *ctl = f->ctl[dev];
    struct emu_hstream *hs = s != NULL ? s : f->stream[dev];
    struct emu_stream_ctl *sc = &ctl->streams[hs->slot];

    sc->notify_base = notify_take(ctl, notify_num);
    sc->notify_num = notify_num;
    sc->engine = 1;
    sc->rank = rank;
    sc->thread_index = 100;
    struct emu_handle h = {EMU_HANDLE_THREAD, (uint32_t)dev, 1, false, hs->gen, hs->slot};
    return emu_handle_encode(&h);
}

uint64_t dpf_export(uint64_t raw, uint32_t engine)
{
    struct emu_handle h;

    emu_handle_decode(raw, EMU_HANDLE_THREAD, &h);
    h.engine = engine;
    h.exported = true;
    return emu_handle_encode(&h);
}

void dpf_thread_release(struct dpf *f, uint64_t raw)
{
    struct emu_handle h;

    emu_handle_decode(raw, EMU_HANDLE_THREAD, &h);
    emu_store_release(&f->ctl[h.dev]->streams[h.index].kind, EMU_STREAM_FREE);
}

static uint32_t peer_ref(struct emu_devctl *ctl, const char *job, uint32_t dev)
{
    for (uint32_t i = 0; i < EMU_MAX_PEERS; i++) {
        struct emu_peer_ref *p = &ctl->peers[i];
        if (p->used && p->dev == dev)
            return i;
        if (!p->used) {
            p->dev = dev;
            snprintf(p->job_dir, sizeof(p->job_dir), "%s", job);
            p->used = 1;
            return i;
        }
    }
    abort();
}

static uint32_t chan_slot(struct emu_devctl *ctl)
{
    for (uint32_t i = 0; i < EMU_MAX_CHANNELS; i++)
        if (emu_load_relaxed(&ctl->channels[i].state) == 0)
            return i;
    abort();
}

void dpf_channel_pair(struct dpf *f, int a, int b, uint32_t notify_num, void *buf_a,
                      uint64_t size_a, void *buf_b, uint64_t size_b, uint64_t *ha, uint64_t *hb)
{
    int devs[2] = {a, b};
    void *bufs[2] = {buf_a, buf_b};
    uint64_t sizes[2] = {size_a, size_b};
    uint32_t slots[2], bases[2];
    uint64_t *out[2] = {ha, hb};

    for (int s = 0; s < 2; s++) {
        struct emu_devctl *ctl = f->ctl[devs[s]];
        bases[s] = notify_take(ctl, notify_num);
        emu_devctl_lock(&ctl->res_lock);
        slots[s] = chan_slot(ctl);
        struct emu_channel_ctl *cc = &ctl->channels[slots[s]];
        cc->gen = ((cc->gen + 1) & EMU_HANDLE_GEN_MASK) ? (cc->gen + 1) & EMU_HANDLE_GEN_MASK : 1;
        cc->engine = 3;
        cc->protocol = 4; /* UB_CTP */
        cc->local_rank = (uint32_t)devs[s];
        cc->remote_rank = (uint32_t)devs[1 - s];
        cc->notify_num = notify_num;
        cc->local_notify_base = bases[s];
        cc->peer = peer_ref(ctl, f->job, (uint32_t)devs[1 - s]);
        cc->mem_num = 1;
        cc->mems[0].addr = (uint64_t)(uintptr_t)bufs[1 - s];
        cc->mems[0].size = sizes[1 - s];
        snprintf(cc->mems[0].tag, sizeof(cc->mems[0].tag), "HcclBuffer");
        emu_store_release(&cc->state, 1);
        emu_devctl_unlock(&ctl->res_lock);
    }
    for (int s = 0; s < 2; s++) {
        struct emu_channel_ctl *cc = &f->ctl[devs[s]]->channels[slots[s]];
        cc->remote_notify_base = bases[1 - s];
        cc->remote_channel = slots[1 - s];
        struct emu_handle h = {EMU_HANDLE_CHANNEL, (uint32_t)devs[s], 3, false, cc->gen, slots[s]};
        *out[s] = emu_handle_encode(&h);
    }
}

void dpf_comm(struct dpf *f, int dev, const char *name)
{
    struct emu_devctl *ctl = f->ctl[dev];

    for (uint32_t i = 0; i < EMU_MAX_COMMS; i++) {
        if (emu_load_relaxed(&ctl->comms[i].state) == 0) {
            snprintf(ctl->comms[i].name, sizeof(ctl->comms[i].name), "%s", name);
            atomic_store(&ctl->comms[i].locked, 0);
            emu_store_release(&ctl->comms[i].state, 1);
            return;
        }
    }
}

void *dpf_malloc(struct dpf *f, int dev, size_t n)
{
    void *p = NULL;

    (void)f;
    if (aclrtSetDevice(dev) != 0 || aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST) != 0)
        abort();
    return p;
}

void dpf_free(void *p)
{
    (void)aclrtFree(p);
}

void dpf_put(void *dst, const void *src, size_t n)
{
    if (n > 0 && aclrtMemcpy(dst, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE) != 0)
        abort();
}

void dpf_get(void *dst, const void *src, size_t n)
{
    if (n > 0 && aclrtMemcpy(dst, n, src, n, ACL_MEMCPY_DEVICE_TO_HOST) != 0)
        abort();
}

int dpf_launch(struct dpf *f, int dev, aclrtStream stream, const struct dp_op *ops, uint32_t n,
               struct dpf_run *r)
{
    size_t bytes = sizeof(struct dp_args) + n * sizeof(struct dp_op) + n * sizeof(int32_t);
    uint8_t *host = calloc(1, bytes);
    uint8_t *blk = dpf_malloc(f, dev, bytes);
    struct dp_args *a = (struct dp_args *)host;

    a->ops = (uint64_t)(uintptr_t)(blk + sizeof(*a));
    a->rets = a->ops + n * sizeof(struct dp_op);
    a->nops = n;
    memcpy(host + sizeof(*a), ops, n * sizeof(*ops));
    dpf_put(blk, host, bytes);
    free(host);
    r->dev = dev;
    r->stream = stream != NULL ? stream : f->stream[dev];
    r->block = blk;
    r->nops = n;
    return aclrtLaunchKernel(f->fn, 1, blk, sizeof(struct dp_args), r->stream);
}

int dpf_finish(struct dpf_run *r, int32_t *rets)
{
    int rc = aclrtSynchronizeStream(r->stream);

    if (rets != NULL)
        dpf_get(rets, (uint8_t *)r->block + sizeof(struct dp_args) + r->nops * sizeof(struct dp_op),
                r->nops * sizeof(int32_t));
    dpf_free(r->block);
    return rc;
}

int dpf_run(struct dpf *f, int dev, const struct dp_op *ops, uint32_t n, int32_t *rets)
{
    struct dpf_run r;
    int rc = dpf_launch(f, dev, NULL, ops, n, &r);

    if (rc != 0)
        return rc;
    return dpf_finish(&r, rets);
}

long dpf_log_mark(struct dpf *f)
{
    return f->log_fd < 0 ? 0 : lseek(f->log_fd, 0, SEEK_END);
}

static char *log_since(struct dpf *f, long mark)
{
    long end = dpf_log_mark(f);
    char *buf = calloc(1, (size_t)(end - mark) + 1);

    if (f->log_fd >= 0 && end > mark && pread(f->log_fd, buf, (size_t)(end - mark), mark) < 0)
        buf[0] = '\0';
    return buf;
}

int dpf_log_count(struct dpf *f, long mark, const char *needle)
{
    char *buf = log_since(f, mark);
    int n = 0;

    for (char *line = strtok(buf, "\n"); line != NULL; line = strtok(NULL, "\n"))
        n += strstr(line, needle) != NULL;
    free(buf);
    return n;
}

int dpf_log_wait(struct dpf *f, long mark, const char *needle, int n, unsigned timeout_s)
{
    uint64_t end = emu_os_deadline_s(timeout_s);
    int c;

    while ((c = dpf_log_count(f, mark, needle)) < n && emu_os_now_ns() < end) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    return c;
}

void dpf_log_dump(struct dpf *f, long mark)
{
    char *buf = log_since(f, mark);

    if (f->saved_stderr >= 0 && write(f->saved_stderr, buf, strlen(buf)) < 0)
        buf[0] = '\0';
    free(buf);
}
