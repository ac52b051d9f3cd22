/* mem.c - device memory from the host's side.
 *
 * Allocations live in the device's shared table (devctl.h), so the executor validates task
 * ranges against the same records. The host reaches the bytes through its alias mapping.
 * Device memory is a sparse file: an allocation of at most POPULATE_MAX bytes is populated
 * once, at allocation, in the executor (by request) and here, so copies take no page faults;
 * larger ones (and every HCCL buffer) cost only the pages used, each faulted in once. Pinned
 * host memory (pin.c) is recognised when resolving addresses. */
#include "mem.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/contract/job.h"
#include "common/contract/layout.h"
#include "common/platform/bus_guard.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "device.h"
#include "pin.h"
#include "retired.h"

#define POPULATE_MAX (16ull << 20)

/* stream.c's emu_stream_memory_busy, installed with the first stream (no stream: nothing is
 * busy), so memory never calls up into streams. */
static _Atomic(emu_mem_busy_fn) busy_check;

void emu_mem_on_busy_check(emu_mem_busy_fn fn)
{
    atomic_store(&busy_check, fn);
}

static void populate_in_executor(struct emu_hdev *d, uint64_t addr, uint64_t len)
{
    struct emu_rpc_req q = {.op = EMU_RPC_POPULATE, .arg1 = addr, .arg2 = len};

    /* Best effort: without it the executor takes the page faults on first use instead. */
    emu_device_post(d, &q);
}

emu_status emu_mem_alloc(struct emu_hdev *d, uint64_t size, uint32_t kind, void **out)
{
    struct emu_range r;
    emu_status s;

    if (size > POPULATE_MAX && size > emu_os_mem_room(emu_rt.job_dir)) {
        EMU_LOG_ERR("device %u: cannot allocate %llu bytes: this machine can hold %llu more "
                    "(available memory and free space of %s)",
                    d->id, (unsigned long long)size,
                    (unsigned long long)emu_os_mem_room(emu_rt.job_dir), emu_rt.job_dir);
        return EMU_ENOMEM;
    }
    emu_devctl_lock(&d->ctl->alloc.lock);
    s = emu_range_alloc(&d->ctl->alloc.set, d->ctl->alloc.recs, size, EMU_ALLOC_ALIGN,
                        EMU_ALLOC_ROUND, kind, &r);
    if (s == EMU_OK) {
        int i = emu_range_find(&d->ctl->alloc.set, d->ctl->alloc.recs, r.off);
        d->ctl->alloc.recs[i].owner_pid = (int32_t)getpid();
    }
    emu_devctl_unlock(&d->ctl->alloc.lock);
    if (s != EMU_OK) {
        EMU_LOG_ERR("device %u: cannot allocate %llu bytes (%llu of %llu bytes in use, %u "
                    "allocations)",
                    d->id, (unsigned long long)size, (unsigned long long)d->ctl->alloc.set.used,
                    (unsigned long long)d->ctl->alloc.set.limit, d->ctl->alloc.set.count);
        return EMU_ENOMEM;
    }
    uint64_t addr = emu_window_base(d->id) + r.off;
    if (kind != EMU_ALLOC_ARGS && kind != EMU_ALLOC_HCCL_BUFFER && r.span <= POPULATE_MAX) {
        if (emu_os_populate(d->alias + r.off, r.span) != EMU_OK) {
            /* Its file system is full (any user can fill /dev/shm) or memory is out: the
             * pages cannot be had, and touching them later would be a SIGBUS. */
            emu_devctl_lock(&d->ctl->alloc.lock);
            int i = emu_range_find(&d->ctl->alloc.set, d->ctl->alloc.recs, r.off);
            if (i >= 0)
                emu_range_remove(&d->ctl->alloc.set, d->ctl->alloc.recs, i);
            emu_devctl_unlock(&d->ctl->alloc.lock);
            EMU_LOG_ERR("device %u: cannot allocate %llu bytes: no room for their pages in %s "
                        "(its file system is full, or memory is)",
                        d->id, (unsigned long long)size, emu_rt.job_dir);
            return EMU_ENOMEM;
        }
        populate_in_executor(d, addr, r.span);
    }
    *out = (void *)(uintptr_t)addr;
    return EMU_OK;
}

emu_status emu_mem_free(void *ptr)
{
    uint64_t addr = (uint64_t)(uintptr_t)ptr;
    int dev = emu_window_device(addr);
    struct emu_hdev *d;
    emu_mem_busy_fn busy;

    if (dev < 0 || emu_device_open((uint32_t)dev, &d) != EMU_OK) {
        EMU_LOG_ERR("aclrtFree(%p): not a device address from aclrtMalloc", ptr);
        return EMU_EFREE;
    }
    uint64_t off = addr - emu_window_base((uint32_t)dev);
    emu_status s = EMU_OK;
    uint64_t span = 0;
    emu_devctl_lock(&d->ctl->alloc.lock);
    int i = emu_range_find(&d->ctl->alloc.set, d->ctl->alloc.recs, off);
    if (i < 0 || d->ctl->alloc.recs[i].off != off) {
        s = EMU_EFREE;
    } else if ((busy = atomic_load(&busy_check)) != NULL && busy(addr)) {
        s = EMU_EAGAIN;
    } else {
        span = d->ctl->alloc.recs[i].span;
        emu_range_remove(&d->ctl->alloc.set, d->ctl->alloc.recs, i);
    }
    emu_devctl_unlock(&d->ctl->alloc.lock);
    if (s == EMU_EFREE)
        EMU_LOG_ERR("aclrtFree(%p): not the start of a live allocation on device %d (double "
                    "free, or a pointer into the middle of a buffer)",
                    ptr, dev);
    else if (s == EMU_EAGAIN)
        EMU_LOG_ERR("aclrtFree(%p): queued tasks still use this memory; synchronise the stream "
                    "before freeing it",
                    ptr);
    else
        (void)span; /* pages are kept: the next allocation reuses them populated */
    return s == EMU_EAGAIN ? EMU_EFREE : s;
}

void emu_mem_retire_all(struct emu_hdev *d)
{
    int32_t me = (int32_t)getpid();

    if (!d->open || d->ctl == NULL)
        return;
    emu_devctl_lock(&d->ctl->alloc.lock);
    for (uint32_t i = 0; i < d->ctl->alloc.set.count; i++) {
        const struct emu_range *r = &d->ctl->alloc.recs[i];
        if (r->kind == EMU_ALLOC_USER && r->owner_pid == me)
            emu_retired_add((void *)(uintptr_t)(emu_window_base(d->id) + r->off),
                            EMU_RETIRED_DEVICE_MEMORY);
    }
    emu_devctl_unlock(&d->ctl->alloc.lock);
}

void emu_mem_free_owned(void *ptr)
{
    /* Our own live allocation, so never EMU_EFREE; one still in use by a queued task
     * (EMU_EAGAIN) goes with the device instead. */
    if (emu_mem_free(ptr) != EMU_OK)
        EMU_LOG_DEBUG("allocation %p is left to the device reset", ptr);
}

emu_status emu_mem_resolve(const void *ptr, uint64_t len, const char *what,
                           struct emu_mem_ref *out)
{
    uint64_t addr = (uint64_t)(uintptr_t)ptr;
    int dev = emu_window_device(addr);

    memset(out, 0, sizeof(*out));
    out->dev = dev;
    if (dev < 0) {
        out->host = (uint8_t *)(uintptr_t)ptr;
        out->pinned = emu_pin_lookup(ptr, len, &out->wire_addr);
        out->space = out->pinned ? (uint32_t)getpid() : 0;
        return EMU_OK;
    }
    if ((uint32_t)dev >= emu_rt.ndev) {
        EMU_LOG_ERR("%s %p is in the window of device %d, which does not exist", what, ptr, dev);
        return EMU_EINVAL;
    }
    struct emu_hdev *d;
    emu_status s = emu_device_open((uint32_t)dev, &d);
    if (s != EMU_OK)
        return s;
    if ((s = emu_device_check(d)) != EMU_OK)
        return s;
    uint64_t off = addr - emu_window_base((uint32_t)dev), version;
    s = EMU_EINVAL;
    /* Without the table's lock (a shared robust mutex, taken twice a collective call) unless a
     * writer is at work: the seqlock read gives one version's record. */
    int read = emu_range_read(&d->ctl->alloc.set, d->ctl->alloc.recs, off, &out->rec, &version);
    bool found = read > 0;
    if (read < 0) {
        emu_devctl_lock(&d->ctl->alloc.lock);
        int i = emu_range_find(&d->ctl->alloc.set, d->ctl->alloc.recs, off);
        found = i >= 0;
        if (found)
            out->rec = d->ctl->alloc.recs[i];
        emu_devctl_unlock(&d->ctl->alloc.lock);
    }
    if (found && emu_range_holds(&out->rec, off, len))
        s = EMU_OK;
    if (s != EMU_OK) {
        if (!found)
            EMU_LOG_ERR("%s %p is not inside memory allocated on device %d (aclrtMalloc)", what,
                        ptr, dev);
        else
            EMU_LOG_ERR("%s [%p, +%llu) runs past the end of its %llu-byte allocation at 0x%llx "
                        "on device %d",
                        what, ptr, (unsigned long long)len, (unsigned long long)out->rec.size,
                        (unsigned long long)(emu_window_base((uint32_t)dev) + out->rec.off),
                        dev);
        return s;
    }
    out->d = d;
    out->host = d->alias + off;
    out->wire_addr = addr;
    return EMU_OK;
}

emu_status emu_mem_check_copy(void *dst, size_t destMax, const void *src, size_t count, int kind,
                              const char *fn, struct emu_mem_ref *d, struct emu_mem_ref *s)
{
    emu_status st;

    if (dst == NULL || src == NULL) {
        EMU_LOG_ERR("%s: %s is NULL", fn, dst == NULL ? "dst" : "src");
        return EMU_EINVAL;
    }
    if (count == 0 || count > destMax) {
        EMU_LOG_ERR("%s: count %zu must be in [1, destMax = %zu]", fn, count, destMax);
        return EMU_EINVAL;
    }
    if (kind < 0 || kind >= EMU_COPY_KINDS) {
        EMU_LOG_ERR("%s: copy kind %d is not an aclrtMemcpyKind", fn, kind);
        return EMU_EINVAL;
    }
    if ((st = emu_mem_resolve(dst, count, "destination", d)) != EMU_OK ||
        (st = emu_mem_resolve(src, count, "source", s)) != EMU_OK)
        return st;
    /* In ACL 1.17 the kind is informational: the direction comes from the addresses. */
    if (d->host + count > s->host && s->host + count > d->host && d->host != s->host) {
        EMU_LOG_ERR("%s: source and destination overlap", fn);
        return EMU_EINVAL;
    }
    return EMU_OK;
}

emu_status emu_mem_check_memset(void *ptr, size_t maxCount, size_t count, const char *fn,
                                struct emu_mem_ref *r)
{
    if (ptr == NULL) {
        EMU_LOG_ERR("%s: devPtr is NULL", fn);
        return EMU_EINVAL;
    }
    if (count == 0 || count > maxCount) {
        EMU_LOG_ERR("%s: count %zu must be in [1, maxCount = %zu]", fn, count, maxCount);
        return EMU_EINVAL;
    }
    emu_status st = emu_mem_resolve(ptr, count, "devPtr", r);
    if (st == EMU_OK && r->dev < 0 && !r->pinned) {
        EMU_LOG_ERR("%s: %p is neither device memory nor memory from aclrtMallocHost", fn, ptr);
        return EMU_EINVAL;
    }
    return st;
}

void emu_mem_log_no_pages(const char *fn, size_t count)
{
    EMU_LOG_ERR("%s: no room for the pages of %zu bytes of device memory: the file system of %s "
                "is full (pages of large allocations and HCCL buffers are had on first use)",
                fn, count, emu_rt.job_dir);
}

emu_status emu_mem_copy(void *dst, const void *src, size_t count, const char *fn)
{
    emu_status s = emu_bus_guard_copy(dst, src, count);

    if (s != EMU_OK)
        emu_mem_log_no_pages(fn, count);
    return s;
}

emu_status emu_mem_set(void *dst, int value, size_t count, const char *fn)
{
    emu_status s = emu_bus_guard_memset(dst, value, count);

    if (s != EMU_OK)
        emu_mem_log_no_pages(fn, count);
    return s;
}

struct zeroing {
    void *dst;
    size_t count;
};

static void zero(void *ctx)
{
    const struct zeroing *z = ctx;

    emu_os_zero(z->dst, z->count);
}

emu_status emu_mem_zero(void *dst, size_t count, const char *fn)
{
    struct zeroing z = {dst, count};
    emu_status s = emu_bus_guard_run(zero, &z);

    if (s != EMU_OK)
        emu_mem_log_no_pages(fn, count);
    return s;
}
