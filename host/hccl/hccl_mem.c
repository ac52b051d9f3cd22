/* hccl_mem.c - the communicator's memory: the HCCL buffer (device memory, allocated on
 * first use; sparse, so it costs only the pages touched, and zeroed by giving pages back,
 * never by writing them), engine contexts (device memory for AICPU/AICPU_TS/AIV, host memory
 * for CPU/CPU_TS/CCU) and registered memories. All are released by emu_hccl_mem_release_all(). */
#include "hccl_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/contract/layout.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "hccl_rules.h"
#include "host/acl/device.h"
#include "host/acl/mem.h"
#include "host/acl/runtime.h"

#define MEMREG_MAGIC 0x47455252u /* "RREG" */
#define BUF_OVERCOMMIT (256ull << 20)

uint8_t *emu_hccl_mem_alias(const struct emu_comm *c, const void *addr)
{
    return c->d->alias + ((uint64_t)(uintptr_t)addr - emu_window_base(c->d->id));
}

emu_status emu_hccl_mem_buffer_get(struct emu_comm *c, bool clear, void **addr, uint64_t *size,
                                   const char *fn)
{
    if (c->buf == NULL) {
        /* Sparse: a buffer costs the pages used. But a job whose buffers could not all be
         * used without the OOM killer is refused now, with a message, not killed later. The
         * first BUF_OVERCOMMIT bytes of each buffer are left out of the sum: the default
         * 200 MiB on 256 ranks would be 50 GiB, yet a collective touches what it moves. */
        uint64_t big = c->buf_bytes > BUF_OVERCOMMIT ? c->buf_bytes - BUF_OVERCOMMIT : 0;
        uint64_t total = big * c->size, room = emu_os_mem_room(emu_rt.job_dir);
        if (c->buf_bytes > room || total > room) {
            EMU_COMM_ERR(c, fn,
                         "the HCCL buffers of %u ranks may need %llu MiB (%llu MiB each) but this "
                         "machine can hold %llu MiB more (available memory, free space of %s); "
                         "lower HCCL_BUFFSIZE",
                         c->size, (unsigned long long)(total >> 20),
                         (unsigned long long)(c->buf_bytes >> 20),
                         (unsigned long long)(room >> 20), emu_rt.job_dir);
            return EMU_ENOMEM;
        }
        emu_status s = emu_mem_alloc(c->d, c->buf_bytes, EMU_ALLOC_HCCL_BUFFER, &c->buf);
        if (s != EMU_OK)
            return s;
    }
    if (clear) {
        emu_status s = emu_mem_zero(emu_hccl_mem_alias(c, c->buf), c->buf_bytes, fn);
        if (s != EMU_OK)
            return s;
    }
    *addr = c->buf;
    *size = c->buf_bytes;
    return EMU_OK;
}

static bool is_device_engine(int32_t engine)
{
    return engine == COMM_ENGINE_AICPU || engine == COMM_ENGINE_AICPU_TS ||
           engine == COMM_ENGINE_AIV;
}

static struct emu_ctx_rec *ctx_find(struct emu_comm *c, const char *tag, int32_t engine)
{
    for (struct emu_ctx_rec *x = c->ctxs; x != NULL; x = x->next)
        if (x->engine == engine && strcmp(x->tag, tag ? tag : "") == 0)
            return x;
    return NULL;
}

emu_status emu_hccl_mem_ctx_create(struct emu_comm *c, const char *tag, int32_t engine,
                                   uint64_t size, void **out, const char *fn)
{
    if (ctx_find(c, tag, engine) != NULL) {
        EMU_COMM_ERR(c, fn, "an engine context with tag \"%s\" for engine %s already exists",
                     tag ? tag : "", emu_rules_engine_name(engine));
        return EMU_EINVAL;
    }
    struct emu_ctx_rec *x = calloc(1, sizeof(*x));
    if (x == NULL)
        return EMU_ENOMEM;
    snprintf(x->tag, sizeof(x->tag), "%s", tag ? tag : "");
    x->engine = engine;
    x->size = size;
    x->device = is_device_engine(engine);
    emu_status s = EMU_OK;
    if (x->device) {
        s = emu_mem_alloc(c->d, size, EMU_ALLOC_ENGINE_CTX, &x->addr);
        /* Recycled device memory would otherwise show stale bytes. */
        if (s == EMU_OK && (s = emu_mem_zero(emu_hccl_mem_alias(c, x->addr), size, fn)) != EMU_OK)
            emu_mem_free_owned(x->addr);
    } else if (size > c->d->mem_size /* a host context is no bigger than device memory, and
                                        * huge sizes never reach (sanitizer) allocators */
               || (x->addr = calloc(1, (size_t)size)) == NULL) {
        EMU_COMM_ERR(c, fn, "cannot allocate a %llu-byte host context", (unsigned long long)size);
        s = EMU_ENOMEM;
    }
    if (s != EMU_OK) {
        free(x);
        return s;
    }
    x->next = c->ctxs;
    c->ctxs = x;
    *out = x->addr;
    return EMU_OK;
}

emu_status emu_hccl_mem_ctx_get(struct emu_comm *c, const char *tag, int32_t engine, void **out,
                                uint64_t *size)
{
    struct emu_ctx_rec *x = ctx_find(c, tag, engine);

    if (x == NULL)
        return EMU_ENOTFOUND;
    *out = x->addr;
    *size = x->size;
    return EMU_OK;
}

emu_status emu_hccl_mem_ctx_copy(struct emu_comm *c, const char *tag, int32_t engine,
                                 const void *src, uint64_t size, uint64_t offset, const char *fn)
{
    struct emu_ctx_rec *x = ctx_find(c, tag, engine);

    if (x == NULL) {
        EMU_COMM_ERR(c, fn, "no engine context with tag \"%s\" for engine %s", tag ? tag : "",
                     emu_rules_engine_name(engine));
        return EMU_ENOTFOUND;
    }
    if (offset > x->size || size > x->size - offset) {
        EMU_COMM_ERR(c, fn,
                     "copying %llu bytes at offset %llu overruns the %llu-byte context "
                     "\"%s\"",
                     (unsigned long long)size, (unsigned long long)offset,
                     (unsigned long long)x->size, x->tag);
        return EMU_EINVAL;
    }
    uint8_t *dst = x->device ? emu_hccl_mem_alias(c, x->addr) : x->addr;
    if (!x->device) {
        memcpy(dst + offset, src, size);
        return EMU_OK;
    }
    return emu_mem_copy(dst + offset, src, size, fn);
}

static void ctx_free(struct emu_comm *c, struct emu_ctx_rec *x, bool device_alive)
{
    if (x->device && device_alive) {
        emu_mem_free_owned(x->addr);
    } else if (!x->device) {
        free(x->addr);
    }
    (void)c;
    free(x);
}

emu_status emu_hccl_mem_ctx_destroy(struct emu_comm *c, const char *tag, int32_t engine,
                                    const char *fn)
{
    for (struct emu_ctx_rec **p = &c->ctxs; *p != NULL; p = &(*p)->next) {
        struct emu_ctx_rec *x = *p;
        if (x->engine != engine || strcmp(x->tag, tag ? tag : "") != 0)
            continue;
        *p = x->next;
        ctx_free(c, x, emu_device_check(c->d) == EMU_OK);
        return EMU_OK;
    }
    EMU_COMM_ERR(c, fn, "no engine context with tag \"%s\" for engine %s", tag ? tag : "",
                 emu_rules_engine_name(engine));
    return EMU_EINVAL;
}

bool emu_hccl_mem_in_allocation(const struct emu_comm *c, uint64_t addr, uint64_t len)
{
    struct emu_devctl *ctl = c->d->ctl;

    if (emu_window_device(addr) != (int)c->d->id)
        return false;
    uint64_t off = addr - emu_window_base(c->d->id);
    emu_devctl_lock(&ctl->alloc.lock);
    int i = emu_range_find(&ctl->alloc.set, ctl->alloc.recs, off);
    bool ok = i >= 0 && len <= ctl->alloc.recs[i].off + ctl->alloc.recs[i].size - off;
    emu_devctl_unlock(&ctl->alloc.lock);
    return ok;
}

emu_status emu_hccl_mem_reg_add(struct emu_comm *c, const char *tag, const CommMem *mem,
                                HcclMemHandle *out, const char *fn)
{
    for (struct emu_memreg *r = c->regs; r != NULL; r = r->next)
        if (strcmp(r->tag, tag) == 0) {
            EMU_COMM_ERR(c, fn, "memory tag \"%s\" is already registered", tag);
            return EMU_EINVAL;
        }
    if (mem->type != COMM_MEM_TYPE_DEVICE) {
        EMU_COMM_ERR(c, fn,
                     "mem->type %d: only device memory (COMM_MEM_TYPE_DEVICE) can be "
                     "registered",
                     (int)mem->type);
        return mem->type == COMM_MEM_TYPE_HOST ? EMU_ENOTSUP : EMU_EINVAL;
    }
    if (!emu_hccl_mem_in_allocation(c, (uint64_t)(uintptr_t)mem->addr, mem->size)) {
        EMU_COMM_ERR(c, fn, "[%p, +%llu) is not inside one allocation on device %u", mem->addr,
                     (unsigned long long)mem->size, c->d->id);
        return EMU_EINVAL;
    }
    struct emu_memreg *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return EMU_ENOMEM;
    r->magic = MEMREG_MAGIC;
    snprintf(r->tag, sizeof(r->tag), "%s", tag);
    r->mem = *mem;
    r->next = c->regs;
    c->regs = r;
    *out = r;
    return EMU_OK;
}

struct emu_memreg *emu_hccl_mem_reg_find(struct emu_comm *c, HcclMemHandle h)
{
    for (struct emu_memreg *r = c->regs; r != NULL; r = r->next)
        if ((void *)r == h)
            return r;
    return NULL;
}

void emu_hccl_mem_release_all(struct emu_comm *c)
{
    bool alive = emu_device_check(c->d) == EMU_OK;

    while (c->ctxs != NULL) {
        struct emu_ctx_rec *x = c->ctxs;
        c->ctxs = x->next;
        ctx_free(c, x, alive);
    }
    while (c->regs != NULL) {
        struct emu_memreg *r = c->regs;
        c->regs = r->next;
        r->magic = 0;
        free(r);
    }
    if (c->buf != NULL && alive) {
        emu_mem_free_owned(c->buf);
    }
    c->buf = NULL;
}
