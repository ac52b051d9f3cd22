/* api_hccl_mem.c - the boundary of the communicator's memory (hccl_res.h): HCCL buffer,
 * engine contexts and memory registration; hccl_mem.c does the work under the comm's lock. */
#include <hccl/hccl.h>

#include <string.h>

#include "host/hccl/hccl.h"
#include "host/hccl/hccl_mem.h"
#include "host/hccl/hccl_res.h"
#include "host/hccl/hccl_rules.h"

/* The vendor names defined below are the library's exports (host/exports.map). */
#pragma GCC visibility push(default)

static HcclResult get_buffer(HcclComm comm, void **buffer, uint64_t *size, bool clear,
                             const char *fn)
{
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, buffer, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, size, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    return emu_hccl_leave(c, emu_res_buffer(c, clear, buffer, size, fn));
}

HcclResult HcclGetHcclBuffer(HcclComm comm, void **buffer, uint64_t *size)
{
    return get_buffer(comm, buffer, size, false, "HcclGetHcclBuffer");
}

HcclResult HcclGetHcclBufferCleared(HcclComm comm, void **buffer, uint64_t *size)
{
    return get_buffer(comm, buffer, size, true, "HcclGetHcclBufferCleared");
}

/* Tag (NULL = "") and engine of every engine-context call. */
static emu_status check_ctx_key(struct emu_comm *c, const char *tag, int32_t engine, const char *fn)
{
    if (tag != NULL && strnlen(tag, HCCL_RES_TAG_MAX_LEN + 1) > HCCL_RES_TAG_MAX_LEN)
        return emu_hccl_bad(c, fn, "ctxTag is longer than %u characters", HCCL_RES_TAG_MAX_LEN);
    return emu_rules_engine(fn, c->rank, engine);
}

HcclResult HcclEngineCtxCreate(HcclComm comm, const char *ctxTag, CommEngine engine, uint64_t size,
                               void **ctx)
{
    static const char fn[] = "HcclEngineCtxCreate";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, ctx, fn)) != EMU_OK ||
        (s = check_ctx_key(c, ctxTag, engine, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    if (size == 0)
        return emu_hccl_leave(c, emu_hccl_bad(c, fn, "size is 0"));
    return emu_hccl_leave(c, emu_res_ctx_create(c, ctxTag, engine, size, ctx, fn));
}

HcclResult HcclEngineCtxGet(HcclComm comm, const char *ctxTag, CommEngine engine, void **ctx,
                            uint64_t *size)
{
    static const char fn[] = "HcclEngineCtxGet";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, ctx, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, size, fn)) != EMU_OK ||
        (s = check_ctx_key(c, ctxTag, engine, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    /* A miss is the operators' normal first-call path: no log line for it. */
    return emu_hccl_leave(c, emu_res_ctx_get(c, ctxTag, engine, ctx, size));
}

HcclResult HcclEngineCtxCopy(HcclComm comm, CommEngine engine, const char *ctxTag,
                             const void *srcCtx, uint64_t size, uint64_t dstCtxOffset)
{
    static const char fn[] = "HcclEngineCtxCopy";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, srcCtx, fn)) != EMU_OK ||
        (s = check_ctx_key(c, ctxTag, engine, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    if (size == 0)
        return emu_hccl_leave(c, emu_hccl_bad(c, fn, "size is 0"));
    return emu_hccl_leave(c,
                          emu_res_ctx_copy(c, ctxTag, engine, srcCtx, size, dstCtxOffset, fn));
}

HcclResult HcclEngineCtxDestroy(HcclComm comm, const char *ctxTag, CommEngine engine)
{
    static const char fn[] = "HcclEngineCtxDestroy";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = check_ctx_key(c, ctxTag, engine, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    pthread_mutex_lock(&c->lock);
    s = emu_hccl_mem_ctx_destroy(c, ctxTag, engine, fn);
    pthread_mutex_unlock(&c->lock);
    return emu_hccl_leave(c, s);
}

HcclResult HcclCommMemReg(HcclComm comm, const char *memTag, const CommMem *mem,
                          HcclMemHandle *memHandle)
{
    static const char fn[] = "HcclCommMemReg";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = emu_rules_call(fn, c->rank, EMU_ON_950)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, memTag, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, mem, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, memHandle, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    if (strnlen(memTag, HCCL_RES_TAG_MAX_LEN + 1) > HCCL_RES_TAG_MAX_LEN)
        s = emu_hccl_bad(c, fn, "memTag is longer than %u characters", HCCL_RES_TAG_MAX_LEN);
    else if (mem->addr == NULL || mem->size == 0)
        s = emu_hccl_bad(c, fn, "mem->addr is NULL or mem->size is 0 (%p, %llu)", mem->addr,
                         (unsigned long long)mem->size);
    if (s == EMU_OK) {
        pthread_mutex_lock(&c->lock);
        s = emu_hccl_mem_reg_add(c, memTag, mem, memHandle, fn);
        pthread_mutex_unlock(&c->lock);
    }
    return emu_hccl_leave(c, s);
}

#pragma GCC visibility pop
