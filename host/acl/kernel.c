/* kernel.c - binaries, functions, argument lists and launches (see kernel.h). */
#include "kernel.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/job.h"
#include "common/log.h"
#include "loader/descriptor.h"
#include "loader/elf_inspect.h"
#include "loader/deps.h"
#include "mem.h"

#define BIN_MAGIC 0x42494e31u
#define FUNC_MAGIC 0x46554e31u
#define ARGS_MAGIC 0x41524731u
#define DEFAULT_TIMEOUT_S 1836u

struct emu_func {
    uint32_t magic;
    struct emu_bin *bin;
    char kernel[128];
    char symbol[128];
    uint32_t fid[EMU_MAX_DEVICES]; /* executor function id + 1; 0 = not resolved yet */
    struct emu_func *next;
};

struct emu_bin {
    uint32_t magic;
    char so_path[PATH_MAX];
    struct emu_elf_info info;
    struct emu_descriptor desc;
    bool bare; /* a .so without descriptor: every exported function is a kernel */
    bool from_data; /* so_path is our copy in the job folder, removed with the binary */
    uint32_t image[EMU_MAX_DEVICES]; /* executor image id; 0 = not loaded there */
    struct emu_func *funcs;
    struct emu_bin *next;
};

struct emu_param {
    uint32_t off;
    uint32_t size;
    bool placeholder;
    uint8_t *ph_buf;
    size_t ph_size;
};

struct emu_args {
    uint32_t magic;
    struct emu_func *func;
    bool finalized;
    uint32_t n;
    size_t size;
    struct emu_param params[EMU_ARGS_MAX_PARAMS];
    uint8_t bytes[EMU_ARGS_MAX_BYTES];
};

/* Binaries and their functions; handles are checked against this registry. */
static pthread_mutex_t bin_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_bin *bins;
static _Thread_local struct emu_args *thread_args;
static _Atomic unsigned data_images;

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static emu_status check_image(struct emu_bin *b)
{
    const char *names[256];
    size_t n = 0;
    char why[512];

    for (size_t i = 0; i < b->desc.n_entries && n < 256; i++)
        names[n++] = b->desc.entries[i].function_name;
    if (b->so_path[0] == '\0') /* from memory: no folder, no libraries of its own */
        return emu_deps_check(&b->info, NULL, names, n, why, sizeof(why));
    /* Libraries the image brings are looked for in its own folder. */
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", b->so_path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL)
        *slash = '\0';
    return emu_deps_check(&b->info, slash != NULL ? dir : ".", names, n, why, sizeof(why));
}

static void bin_destroy(struct emu_bin *b)
{
    if (b == NULL)
        return;
    for (struct emu_func *f = b->funcs, *nx; f != NULL; f = nx) {
        nx = f->next;
        f->magic = 0;
        free(f);
    }
    emu_elf_info_fini(&b->info);
    emu_descriptor_fini(&b->desc);
    if (b->from_data)
        unlink(b->so_path);
    b->magic = 0;
    free(b);
}

static void bin_publish(struct emu_bin *b)
{
    b->magic = BIN_MAGIC;
    pthread_mutex_lock(&bin_lock);
    b->next = bins;
    bins = b;
    pthread_mutex_unlock(&bin_lock);
}

static emu_status check_options(const struct emu_bin_options *o, bool from_data)
{
    if (o == NULL || !o->has_mode)
        return EMU_OK;
    if (o->cpu_kernel_mode < 0 || o->cpu_kernel_mode > 2) {
        EMU_LOG_ERR("cpuKernelMode %d is not 0, 1 or 2", o->cpu_kernel_mode);
        return EMU_EINVAL;
    }
    if (!from_data && o->cpu_kernel_mode == 2) {
        EMU_LOG_ERR("cpuKernelMode 2 loads from memory: use aclrtBinaryLoadFromData");
        return EMU_EINVAL;
    }
    return EMU_OK;
}

emu_status emu_bin_load_file(const char *path, const struct emu_bin_options *o,
                             struct emu_bin **out)
{
    emu_status s = check_options(o, false);
    struct emu_bin *b;
    char json[PATH_MAX];

    if (s != EMU_OK)
        return s;
    if ((b = calloc(1, sizeof(*b))) == NULL)
        return EMU_ENOMEM;
    if (ends_with(path, ".so")) {
        b->bare = true;
        snprintf(b->so_path, sizeof(b->so_path), "%s", path);
    } else {
        /* As the runtime does: the descriptor is the path with its extension made .json. */
        snprintf(json, sizeof(json), "%s", path);
        char *dot = strrchr(json, '.');
        char *slash = strrchr(json, '/');
        if (dot != NULL && (slash == NULL || dot > slash) && strcmp(dot, ".json") != 0)
            snprintf(dot, sizeof(json) - (size_t)(dot - json), ".json");
        if ((s = emu_descriptor_load(json, &b->desc)) != EMU_OK)
            goto fail;
        snprintf(b->so_path, sizeof(b->so_path), "%s", b->desc.so_path);
    }
    char real[PATH_MAX];
    if (realpath(b->so_path, real) == NULL) {
        EMU_LOG_ERR("kernel image %s: cannot open it", b->so_path);
        s = EMU_EFILE;
        goto fail;
    }
    snprintf(b->so_path, sizeof(b->so_path), "%s", real);
    if ((s = emu_elf_inspect_file(b->so_path, &b->info)) != EMU_OK ||
        (s = check_image(b)) != EMU_OK)
        goto fail;
    bin_publish(b);
    *out = b;
    return EMU_OK;
fail:
    bin_destroy(b);
    return s;
}

emu_status emu_bin_load_data(const void *data, size_t len, const struct emu_bin_options *o,
                             struct emu_bin **out)
{
    emu_status s = check_options(o, true);
    struct emu_bin *b;

    if (s != EMU_OK)
        return s;
    if ((b = calloc(1, sizeof(*b))) == NULL)
        return EMU_ENOMEM;
    b->bare = true;
    if ((s = emu_elf_inspect_mem(data, len, "image from memory", &b->info)) != EMU_OK ||
        (s = check_image(b)) != EMU_OK)
        goto fail;
    /* The executor loads images with dlopen, which needs a file: keep one in the job folder. */
    if ((s = emu_job_path(b->so_path, sizeof(b->so_path), emu_rt.job_dir, "image%u-%d.so",
                          data_images++, (int)getpid())) != EMU_OK)
        goto fail;
    int fd = open(b->so_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
    if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
        EMU_LOG_ERR("cannot write %s: %m", b->so_path);
        if (fd >= 0) {
            close(fd);
            unlink(b->so_path);
        }
        s = EMU_EFILE;
        goto fail;
    }
    close(fd);
    b->from_data = true;
    bin_publish(b);
    *out = b;
    return EMU_OK;
fail:
    bin_destroy(b);
    return s;
}

emu_status emu_bin_check(const void *user, struct emu_bin **out)
{
    emu_status s = EMU_EHANDLE;

    pthread_mutex_lock(&bin_lock);
    for (struct emu_bin *b = bins; b != NULL; b = b->next)
        if (b == user) {
            *out = b;
            s = EMU_OK;
        }
    pthread_mutex_unlock(&bin_lock);
    if (s != EMU_OK)
        EMU_LOG_ERR("binary handle %p is not a loaded binary", user);
    return s;
}

emu_status emu_func_check(const void *user, struct emu_func **out)
{
    emu_status s = EMU_EHANDLE;

    pthread_mutex_lock(&bin_lock);
    for (struct emu_bin *b = bins; b != NULL && s != EMU_OK; b = b->next)
        for (struct emu_func *f = b->funcs; f != NULL; f = f->next)
            if (f == user) {
                *out = f;
                s = EMU_OK;
            }
    pthread_mutex_unlock(&bin_lock);
    if (s != EMU_OK)
        EMU_LOG_ERR("function handle %p is not from aclrtBinaryGetFunction", user);
    return s;
}

emu_status emu_bin_unload(struct emu_bin *b)
{
    pthread_mutex_lock(&bin_lock);
    for (struct emu_bin **p = &bins; *p != NULL; p = &(*p)->next)
        if (*p == b) {
            *p = b->next;
            break;
        }
    pthread_mutex_unlock(&bin_lock);
    for (uint32_t d = 0; d < EMU_MAX_DEVICES; d++) {
        if (b->image[d] == 0 || !emu_rt.devs[d].open)
            continue;
        struct emu_rpc_req q = {.op = EMU_RPC_UNLOAD_IMAGE, .arg0 = b->image[d]};
        struct emu_rpc_rep r;
        emu_status ignored = emu_hdev_rpc(&emu_rt.devs[d], &q, &r);
        (void)ignored;
    }
    bin_destroy(b);
    return EMU_OK;
}

static emu_status add_func(struct emu_bin *b, const char *kernel, const char *symbol,
                           struct emu_func **out)
{
    struct emu_func *f;

    pthread_mutex_lock(&bin_lock);
    for (f = b->funcs; f != NULL; f = f->next)
        if (strcmp(f->kernel, kernel) == 0)
            break;
    if (f == NULL && (f = calloc(1, sizeof(*f))) != NULL) {
        f->magic = FUNC_MAGIC;
        f->bin = b;
        snprintf(f->kernel, sizeof(f->kernel), "%s", kernel);
        snprintf(f->symbol, sizeof(f->symbol), "%s", symbol);
        f->next = b->funcs;
        b->funcs = f;
    }
    pthread_mutex_unlock(&bin_lock);
    *out = f;
    return f != NULL ? EMU_OK : EMU_ENOMEM;
}

emu_status emu_bin_get_function(struct emu_bin *b, const char *kernel, struct emu_func **out)
{
    for (size_t i = 0; i < b->desc.n_entries; i++)
        if (strcmp(b->desc.entries[i].kernel_name, kernel) == 0)
            return add_func(b, kernel, b->desc.entries[i].function_name, out);
    for (struct emu_func *f = b->funcs; f != NULL; f = f->next)
        if (strcmp(f->kernel, kernel) == 0) {
            *out = f;
            return EMU_OK;
        }
    const struct emu_elf_symbol *sym = emu_elf_find_export(&b->info, kernel);
    if (b->bare && sym != NULL && emu_elf_symbol_is_function(sym))
        return add_func(b, kernel, kernel, out);
    EMU_LOG_ERR("kernel %s is not in binary %s", kernel, b->so_path);
    return EMU_EKERNEL_LOOKUP;
}

emu_status emu_bin_register(struct emu_bin *b, const char *symbol, const char *kernel,
                            struct emu_func **out)
{
    const struct emu_elf_symbol *sym = emu_elf_find_export(&b->info, symbol);

    if (sym == NULL || !emu_elf_symbol_is_function(sym)) {
        EMU_LOG_ERR("aclrtRegisterCpuFunc: %s is not a function exported by %s", symbol,
                    b->so_path);
        return EMU_EKERNEL_LOOKUP;
    }
    return add_func(b, kernel, symbol, out);
}

/* Load the image into device d's executor and resolve the entry, once per device. */
static emu_status resolve_on(struct emu_func *f, struct emu_hdev *d, uint32_t *fid)
{
    struct emu_bin *b = f->bin;
    struct emu_rpc_req q;
    struct emu_rpc_rep r;
    emu_status s;

    if (f->fid[d->id] != 0) {
        *fid = f->fid[d->id] - 1;
        return EMU_OK;
    }
    if (b->image[d->id] == 0) {
        memset(&q, 0, sizeof(q));
        q.op = EMU_RPC_LOAD_IMAGE;
        if (strlen(b->so_path) >= sizeof(q.text)) {
            EMU_LOG_ERR("kernel image path %s is too long (max %zu)", b->so_path,
                        sizeof(q.text) - 1);
            return EMU_EINVAL;
        }
        memcpy(q.text, b->so_path, strlen(b->so_path) + 1);
        if ((s = emu_hdev_rpc(d, &q, &r)) != EMU_OK) {
            EMU_LOG_ERR("device %u cannot load kernel image: %s", d->id, r.msg);
            return s;
        }
        b->image[d->id] = r.val0;
    }
    memset(&q, 0, sizeof(q));
    q.op = EMU_RPC_RESOLVE;
    q.arg0 = b->image[d->id];
    snprintf(q.text, sizeof(q.text), "%s", f->symbol);
    if ((s = emu_hdev_rpc(d, &q, &r)) != EMU_OK) {
        EMU_LOG_ERR("device %u: entry %s of kernel %s not found", d->id, f->symbol, f->kernel);
        return s;
    }
    f->fid[d->id] = r.val0 + 1;
    *fid = r.val0;
    return EMU_OK;
}

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

emu_status emu_args_init(struct emu_func *f, struct emu_args **out)
{
    pthread_once(&args_key_once, args_key_init);
    if (thread_args == NULL) {
        if ((thread_args = calloc(1, sizeof(*thread_args))) == NULL)
            return EMU_ENOMEM;
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

emu_status emu_args_finalize(struct emu_args *a)
{
    a->finalized = true;
    return EMU_OK;
}

static emu_status submit_kernel(struct emu_hstream *s, uint32_t fid, uint64_t args,
                                uint64_t size, bool free_args, const struct emu_launch_opts *o)
{
    struct emu_wire_task w;

    memset(&w, 0, sizeof(w));
    w.kind = EMU_TASK_KERNEL;
    w.flags = free_args ? EMU_WIRE_FREE_ARGS : 0;
    w.callsite = o->callsite;
    w.u.kernel.func = fid;
    w.u.kernel.args = args;
    w.u.kernel.args_size = size;
    w.u.kernel.blocks = o->blocks;
    w.u.kernel.timeout_us = o->timeout_us;
    return emu_stream_submit(s, &w);
}

emu_status emu_kernel_launch(struct emu_func *f, struct emu_args *a, struct emu_hstream *s,
                             const struct emu_launch_opts *o)
{
    struct emu_hdev *d = s->d;
    uint32_t fid;
    emu_status st;

    if (!a->finalized || a->func != f) {
        EMU_LOG_ERR("launch of %s: the argument list is %s", f->kernel,
                    !a->finalized ? "not finalised (aclrtKernelArgsFinalize)"
                                  : "for another kernel");
        return EMU_EINVAL;
    }
    if ((st = resolve_on(f, d, &fid)) != EMU_OK)
        return st;
    /* Placeholder buffers follow the packed parameters in the same device block. */
    uint64_t total = a->size;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->params[i].placeholder)
            total += (a->params[i].ph_size + 7) & ~(size_t)7;
    void *dev_args;
    if ((st = emu_mem_alloc(d, total ? total : 8, EMU_ALLOC_ARGS, &dev_args)) != EMU_OK)
        return st;
    uint64_t base = (uint64_t)(uintptr_t)dev_args;
    uint8_t *host = d->alias + (base - emu_window_base(d->id));
    memcpy(host, a->bytes, a->size);
    uint64_t cursor = a->size;
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
    st = submit_kernel(s, fid, base, total, true, o);
    if (st != EMU_OK) {
        emu_status ignored = emu_mem_free(dev_args);
        (void)ignored;
    }
    return st;
}

emu_status emu_kernel_launch_raw(struct emu_func *f, const void *args, size_t size,
                                 struct emu_hstream *s, const struct emu_launch_opts *o)
{
    struct emu_mem_ref ref;
    uint32_t fid;
    emu_status st;

    if ((st = emu_mem_resolve(args, size, "kernel arguments", &ref)) != EMU_OK)
        return st;
    if (ref.dev != (int)s->dev) {
        EMU_LOG_ERR("aclrtLaunchKernel: arguments %p must be device memory of device %u",
                    args, s->dev);
        return EMU_EINVAL;
    }
    if ((st = resolve_on(f, s->d, &fid)) != EMU_OK)
        return st;
    return submit_kernel(s, fid, (uint64_t)(uintptr_t)args, size, false, o);
}

void emu_kernel_forget_device(uint32_t dev)
{
    /* The executor that had the images loaded is gone: load again on next use. */
    pthread_mutex_lock(&bin_lock);
    for (struct emu_bin *b = bins; b != NULL; b = b->next) {
        b->image[dev] = 0;
        for (struct emu_func *f = b->funcs; f != NULL; f = f->next)
            f->fid[dev] = 0;
    }
    pthread_mutex_unlock(&bin_lock);
}
