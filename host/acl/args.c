/* args.c - kernel argument lists (aclrtKernelArgs*): per-OS-thread singletons, packed with
 * 1-byte alignment as for AICPU kernels on hardware, with placeholder buffers that a launch
 * places after the packed bytes (emu_args_pack). */
#include "args.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/log.h"
#include "function.h"

#define ARGS_MAGIC 0x41524731u

struct emu_param {
    uint32_t off;
    uint32_t size;
    bool placeholder;
    uint8_t *ph_buf;
    size_t ph_size;
};

struct emu_args {
    uint32_t magic;
    struct emu_function *func;
    bool finalized;
    uint32_t n;
    size_t size;
    struct emu_param params[EMU_ARGS_MAX_PARAMS];
    uint8_t bytes[EMU_ARGS_MAX_BYTES];
};

static _Thread_local struct emu_args *thread_args;

/* The list of a thread lives until the thread ends: a key destructor frees it then. */
static pthread_key_t args_key;
static pthread_once_t args_key_once = PTHREAD_ONCE_INIT;

static void args_free_cb(void *p)
{
    struct emu_args *a = p;

    for (uint32_t i = 0; a != NULL && a->magic == ARGS_MAGIC && i < a->n; i++)
        free(a->params[i].ph_buf);
    if (a == thread_args)
        thread_args = NULL;
    free(a);
}

static void args_key_init(void)
{
    pthread_key_create(&args_key, args_free_cb);
}

/* At process exit the main thread's list is freed by this destructor (thread-specific
 * destructors do not run for the thread that calls exit()). */
__attribute__((destructor)) static void args_free_main(void)
{
    if (thread_args != NULL)
        args_free_cb(thread_args);
}

emu_status emu_args_init(struct emu_function *f, struct emu_args **out)
{
    pthread_once(&args_key_once, args_key_init);
    if (thread_args == NULL) {
        /* Only the header is zeroed: `bytes` is written before it is read (up to `size`),
         * and zeroing its 64 KiB faulted in 16 pages in every launching thread. */
        if ((thread_args = malloc(sizeof(*thread_args))) == NULL)
            return EMU_ENOMEM;
        memset(thread_args, 0, offsetof(struct emu_args, bytes));
        pthread_setspecific(args_key, thread_args);
    }
    struct emu_args *a = thread_args;
    /* The previous list of this thread is dropped, with its placeholder buffers. */
    if (a->magic == ARGS_MAGIC)
        for (uint32_t i = 0; i < a->n; i++)
            free(a->params[i].ph_buf);
    a->magic = ARGS_MAGIC;
    a->func = f;
    a->finalized = false;
    a->n = 0;
    a->size = 0;
    *out = a;
    return EMU_OK;
}

emu_status emu_args_check(const void *user, struct emu_args **out)
{
    if (user == NULL || user != thread_args || thread_args->magic != ARGS_MAGIC) {
        EMU_LOG_ERR("argument list %p is not this thread's list from aclrtKernelArgsInit", user);
        return EMU_EHANDLE;
    }
    *out = thread_args;
    return EMU_OK;
}

static emu_status reserve(struct emu_args *a, size_t size, struct emu_param **out)
{
    if (a->finalized) {
        EMU_LOG_ERR("argument list is finalised: append before aclrtKernelArgsFinalize");
        return EMU_EINVAL;
    }
    if (a->n >= EMU_ARGS_MAX_PARAMS) {
        EMU_LOG_ERR("argument list is full (%u parameters)", EMU_ARGS_MAX_PARAMS);
        return EMU_EINVAL;
    }
    if (size > EMU_ARGS_MAX_BYTES - a->size) {
        EMU_LOG_ERR("argument list would exceed %u bytes", EMU_ARGS_MAX_BYTES);
        return EMU_EINVAL;
    }
    struct emu_param *p = &a->params[a->n++];
    p->off = (uint32_t)a->size;
    p->size = (uint32_t)size;
    p->placeholder = false;
    p->ph_buf = NULL;
    p->ph_size = 0;
    a->size += size; /* 1-byte packing: AICPU kernels get the plain concatenation */
    *out = p;
    return EMU_OK;
}

emu_status emu_args_append(struct emu_args *a, const void *param, size_t size, void **ph)
{
    struct emu_param *p;
    emu_status s = reserve(a, size, &p);

    if (s != EMU_OK)
        return s;
    memcpy(a->bytes + p->off, param, size); /* a snapshot, taken now */
    *ph = p;
    return EMU_OK;
}

emu_status emu_args_append_placeholder(struct emu_args *a, void **ph)
{
    struct emu_param *p;
    emu_status s = reserve(a, sizeof(uint64_t), &p);

    if (s != EMU_OK)
        return s;
    p->placeholder = true;
    memset(a->bytes + p->off, 0, sizeof(uint64_t));
    *ph = p;
    return EMU_OK;
}

static struct emu_param *param_of(struct emu_args *a, void *ph)
{
    for (uint32_t i = 0; i < a->n; i++)
        if (&a->params[i] == ph)
            return &a->params[i];
    EMU_LOG_ERR("parameter handle %p is not from this argument list", ph);
    return NULL;
}

emu_status emu_args_placeholder_buffer(struct emu_args *a, void *ph, size_t size, void **buf)
{
    struct emu_param *p = param_of(a, ph);

    if (p == NULL)
        return EMU_EINVAL; /* param_of logged it */
    if (!p->placeholder || size == 0 || size > EMU_ARGS_MAX_BYTES) {
        EMU_LOG_ERR("aclrtKernelArgsGetPlaceHolderBuffer: %s",
                    !p->placeholder ? "the parameter is not a placeholder"
                                    : "dataSize must be in [1, 64 KiB]");
        return EMU_EINVAL;
    }
    uint8_t *nb = realloc(p->ph_buf, size);
    if (nb == NULL)
        return EMU_ENOMEM;
    p->ph_buf = nb;
    p->ph_size = size;
    *buf = nb;
    return EMU_OK;
}

emu_status emu_args_update(struct emu_args *a, void *ph, const void *param, size_t size)
{
    struct emu_param *p = param_of(a, ph);

    if (p == NULL)
        return EMU_EINVAL; /* param_of logged it */
    if (p->placeholder || size != p->size) {
        EMU_LOG_ERR("aclrtKernelArgsParaUpdate: the new value must have the size of the old");
        return EMU_EINVAL;
    }
    memcpy(a->bytes + p->off, param, size);
    return EMU_OK;
}

void emu_args_finalize(struct emu_args *a)
{
    a->finalized = true;
}

emu_status emu_args_ready_for(const struct emu_args *a, const struct emu_function *f)
{
    if (a->finalized && a->func == f)
        return EMU_OK;
    EMU_LOG_ERR("launch of %s: the argument list is %s", emu_function_name(f),
                !a->finalized ? "not finalised (aclrtKernelArgsFinalize)" : "for another kernel");
    return EMU_EINVAL;
}

uint64_t emu_args_packed_size(const struct emu_args *a)
{
    uint64_t total = a->size;

    for (uint32_t i = 0; i < a->n; i++)
        if (a->params[i].placeholder)
            total += (a->params[i].ph_size + 7) & ~(size_t)7;
    return total;
}

void emu_args_pack(const struct emu_args *a, uint8_t *host, uint64_t base)
{
    uint64_t cursor = a->size;

    memcpy(host, a->bytes, a->size);
    for (uint32_t i = 0; i < a->n; i++) {
        const struct emu_param *p = &a->params[i];
        if (!p->placeholder)
            continue;
        uint64_t where = base + cursor;
        if (p->ph_size)
            memcpy(host + cursor, p->ph_buf, p->ph_size);
        memcpy(host + p->off, &where, sizeof(where));
        cursor += (p->ph_size + 7) & ~(size_t)7;
    }
}
