/* pin.c - pinned host memory (aclrtMallocHost): one file per host process in the job folder,
 * reserved at PIN_RESERVE bytes and carved by a range table, which executors map to run
 * asynchronous copies to and from it. */
#include "pin.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "common/contract/devctl.h"
#include "common/contract/job.h"
#include "common/platform/log.h"
#include "common/platform/secure_dir.h"
#include "common/platform/os.h"
#include "common/platform/range.h"
#include "retired.h"
#include "runtime.h"

#define PIN_RESERVE (64ull << 30)
#define PIN_MAX_ALLOCS 8192u

/* The mapping and its range table, under pin_lock. */
static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *pin_base;
static struct emu_range_set pin_set = {.cap = PIN_MAX_ALLOCS, .limit = PIN_RESERVE};
static struct emu_range pin_recs[PIN_MAX_ALLOCS];

int emu_pin_lookup(const void *ptr, uint64_t len, uint64_t *off)
{
    uint64_t p = (uint64_t)(uintptr_t)ptr;
    uint64_t b = (uint64_t)(uintptr_t)pin_base;
    int found = 0;

    if (pin_base == NULL || p < b || p - b >= PIN_RESERVE)
        return 0;
    pthread_mutex_lock(&pin_lock);
    int i = emu_range_find(&pin_set, pin_recs, p - b);
    if (i >= 0 && len <= pin_recs[i].off + pin_recs[i].span - (p - b)) {
        *off = p - b;
        found = 1;
    }
    pthread_mutex_unlock(&pin_lock);
    return found;
}

static emu_status pin_open(void)
{
    char path[512];
    void *p;
    emu_status s;

    if (pin_base != NULL)
        return EMU_OK;
    if ((s = emu_job_path(path, sizeof(path), emu_rt.job_dir, "pin%d.mem", (int)getpid())) !=
        EMU_OK)
        return s;
    /* A fresh file: one left by an earlier process with our pid is replaced, never reused. */
    int fd = -1;
    unlink(path);
    if (emu_secure_dir_open_path(path, O_RDWR | O_CREAT | O_EXCL, 0600, &fd) != EMU_OK ||
        ftruncate(fd, (off_t)PIN_RESERVE) != 0) {
        EMU_LOG_ERR("cannot create pinned host memory %s: %m", path);
        if (fd >= 0)
            close(fd);
        return EMU_ENOMEM;
    }
    s = emu_os_map_shared(fd, 0, PIN_RESERVE, NULL, 0, &p);
    close(fd);
    if (s == EMU_OK)
        pin_base = p;
    return s;
}

emu_status emu_pin_alloc(uint64_t size, void **out)
{
    struct emu_range r;
    emu_status s;

    pthread_mutex_lock(&pin_lock);
    s = pin_open();
    if (s == EMU_OK)
        s = emu_range_alloc(&pin_set, pin_recs, size, 64, 64, EMU_ALLOC_USER, &r);
    pthread_mutex_unlock(&pin_lock);
    if (s != EMU_OK) {
        EMU_LOG_ERR("aclrtMallocHost: cannot allocate %llu bytes of pinned host memory",
                    (unsigned long long)size);
        return EMU_ENOMEM;
    }
    if (emu_os_populate(pin_base + r.off, r.span) != EMU_OK) {
        pthread_mutex_lock(&pin_lock);
        int i = emu_range_find(&pin_set, pin_recs, r.off);
        if (i >= 0)
            emu_range_remove(&pin_set, pin_recs, i);
        pthread_mutex_unlock(&pin_lock);
        EMU_LOG_ERR("aclrtMallocHost: cannot allocate %llu bytes of pinned host memory: no room "
                    "for their pages (the job folder's file system is full, or memory is)",
                    (unsigned long long)size);
        return EMU_ENOMEM;
    }
    *out = pin_base + r.off;
    return EMU_OK;
}

emu_status emu_pin_free(void *ptr)
{
    uint64_t p = (uint64_t)(uintptr_t)ptr;
    uint64_t b = (uint64_t)(uintptr_t)pin_base;
    emu_status s = EMU_EFREE;

    pthread_mutex_lock(&pin_lock);
    if (pin_base != NULL && p >= b && p - b < PIN_RESERVE) {
        int i = emu_range_find(&pin_set, pin_recs, p - b);
        if (i >= 0 && pin_recs[i].off == p - b) {
            emu_range_remove(&pin_set, pin_recs, i);
            s = EMU_OK;
        }
    }
    pthread_mutex_unlock(&pin_lock);
    if (s != EMU_OK)
        EMU_LOG_ERR("aclrtFreeHost(%p): not memory from aclrtMallocHost (or freed twice)", ptr);
    return s;
}

void emu_pin_fini(void)
{
    pthread_mutex_lock(&pin_lock);
    for (uint32_t i = 0; pin_base != NULL && i < pin_set.count; i++)
        emu_retired_add(pin_base + pin_recs[i].off, EMU_RETIRED_HOST_MEMORY);
    if (pin_base != NULL)
        emu_os_unmap(pin_base, PIN_RESERVE);
    pin_base = NULL;
    pin_set.count = 0;
    pin_set.used = 0;
    pthread_mutex_unlock(&pin_lock);
}
