/* binary.c - kernel binaries (aclrtBinaryLoadFromFile/FromData): an inspected image and its
 * descriptor entries. The image is loaded into a device's executor the first time one of
 * its functions is used there (emu_binary_image_on); the functions live in function.c. */
#include "binary.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/contract/job.h"
#include "common/platform/log.h"
#include "common/platform/secure_dir.h"
#include "device.h"
#include "function.h"
#include "loader/deps.h"
#include "loader/descriptor.h"
#include "loader/elf.h"
#include "loader/import.h"
#include "package.h"
#include "registry.h"

struct emu_binary {
    struct emu_registry_entry reg; /* first: the user's aclrtBinHandle points here */
    char so_path[PATH_MAX];
    struct emu_elf_info info;
    struct emu_descriptor desc;
    bool bare;      /* a .so without descriptor: every exported function is a kernel */
    bool from_data; /* so_path is our copy in the job folder, removed with the binary */
    uint32_t image[EMU_MAX_DEVICES]; /* executor image id; 0 = not loaded there */
};

static _Atomic unsigned data_images;
static pthread_once_t watch_once = PTHREAD_ONCE_INIT;

static bool forget_cb(struct emu_registry_entry *e, void *arg)
{
    ((struct emu_binary *)e)->image[((struct emu_hdev *)arg)->id] = 0;
    return false;
}

/* The executor that had the images loaded is gone: load again on next use. */
static void device_lost_cb(struct emu_hdev *d)
{
    emu_registry_visit(EMU_REG_BINARY, forget_cb, d);
}

static void watch_devices(void)
{
    emu_runtime_on_device_lost(device_lost_cb);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static emu_status check_image(struct emu_binary *b)
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

static void bin_destroy(struct emu_binary *b)
{
    if (b == NULL)
        return;
    emu_elf_info_fini(&b->info);
    emu_descriptor_fini(&b->desc);
    if (b->from_data)
        unlink(b->so_path);
    free(b);
}

static void bin_publish(struct emu_binary *b)
{
    pthread_once(&watch_once, watch_devices);
    emu_registry_add(&b->reg, EMU_REG_BINARY);
}

static emu_status check_options(const struct emu_binary_options *o, bool from_data)
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

emu_status emu_binary_load_file(const char *path, const struct emu_binary_options *o,
                                struct emu_binary **out)
{
    emu_status s = check_options(o, false);
    struct emu_binary *b;
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
        if (b->bare) {
            EMU_LOG_ERR("kernel image %s: cannot open it", b->so_path);
            s = EMU_EFILE;
            goto fail;
        }
        /* A descriptor's kernelSo not beside it: the image of an installed AICPU package. */
        s = emu_package_find_image(json, b->so_path, emu_rt.job_dir, real, sizeof(real));
        if (s != EMU_OK)
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

emu_status emu_binary_load_data(const void *data, size_t len, const struct emu_binary_options *o,
                                struct emu_binary **out)
{
    emu_status s = check_options(o, true);
    struct emu_binary *b;

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
    int fd = -1;
    unlink(b->so_path);
    if (emu_secure_dir_open_path(b->so_path, O_WRONLY | O_CREAT | O_EXCL, 0700, &fd) != EMU_OK ||
        write(fd, data, len) != (ssize_t)len) {
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

emu_status emu_binary_check(const void *user, struct emu_binary **out)
{
    void *obj;
    emu_status s = emu_registry_check(user, EMU_REG_BINARY, &obj);

    if (s == EMU_OK)
        *out = obj;
    return s;
}

void emu_binary_unload(struct emu_binary *b)
{
    if (!emu_registry_remove(&b->reg, EMU_REG_BINARY))
        return;
    emu_function_destroy_all(b);
    for (uint32_t d = 0; d < EMU_MAX_DEVICES; d++) {
        if (b->image[d] == 0 || !emu_rt.devs[d].open)
            continue;
        struct emu_rpc_req q = {.op = EMU_RPC_UNLOAD_IMAGE, .arg0 = b->image[d]};
        emu_device_post(&emu_rt.devs[d], &q); /* a dead executor took the image with it */
    }
    bin_destroy(b);
}

emu_status emu_binary_get_function(struct emu_binary *b, const char *kernel,
                                   struct emu_function **out)
{
    for (size_t i = 0; i < b->desc.n_entries; i++)
        if (strcmp(b->desc.entries[i].kernel_name, kernel) == 0)
            return emu_function_create(b, emu_binary_image_on, kernel,
                                       b->desc.entries[i].function_name, out);
    if (emu_function_find(b, kernel, out))
        return EMU_OK;
    const struct emu_elf_symbol *sym = emu_elf_find_export(&b->info, kernel);
    if (b->bare && sym != NULL && emu_elf_symbol_is_function(sym))
        return emu_function_create(b, emu_binary_image_on, kernel, kernel, out);
    EMU_LOG_ERR("kernel %s is not in binary %s", kernel, b->so_path);
    return EMU_EKERNEL_LOOKUP;
}

emu_status emu_binary_register(struct emu_binary *b, const char *symbol, const char *kernel,
                               struct emu_function **out)
{
    const struct emu_elf_symbol *sym = emu_elf_find_export(&b->info, symbol);

    if (sym == NULL || !emu_elf_symbol_is_function(sym)) {
        EMU_LOG_ERR("aclrtRegisterCpuFunc: %s is not a function exported by %s", symbol,
                    b->so_path);
        return EMU_EKERNEL_LOOKUP;
    }
    return emu_function_create(b, emu_binary_image_on, kernel, symbol, out);
}

emu_status emu_binary_image_on(struct emu_binary *b, struct emu_hdev *d, uint32_t *image)
{
    struct emu_rpc_req q;
    struct emu_rpc_rep r;
    emu_status s;

    if (b->image[d->id] == 0) {
        memset(&q, 0, sizeof(q));
        q.op = EMU_RPC_LOAD_IMAGE;
        if (strlen(b->so_path) >= sizeof(q.text)) {
            EMU_LOG_ERR("kernel image path %s is too long (max %zu)", b->so_path,
                        sizeof(q.text) - 1);
            return EMU_EINVAL;
        }
        memcpy(q.text, b->so_path, strlen(b->so_path) + 1);
        memset(&r, 0, sizeof(r));
        if ((s = emu_device_rpc(d, &q, &r)) != EMU_OK) {
            /* A timed-out or lost executor was reported by emu_device_rpc() itself. */
            if (r.msg[0] != '\0')
                EMU_LOG_ERR("device %u cannot load kernel image: %s", d->id, r.msg);
            return s;
        }
        b->image[d->id] = r.val0;
    }
    *image = b->image[d->id];
    return EMU_OK;
}

struct by_name {
    const char *name;
    struct emu_binary *found;
};

static bool by_name_cb(struct emu_registry_entry *e, void *arg)
{
    struct by_name *q = arg;
    struct emu_binary *b = (struct emu_binary *)e;
    const char *slash = strrchr(b->so_path, '/');

    if (q->found == NULL && !b->from_data && strcmp(slash ? slash + 1 : b->so_path, q->name) == 0)
        q->found = b;
    return false;
}

emu_status emu_binary_find_loaded(const char *so_name, struct emu_binary **out)
{
    struct by_name q = {.name = so_name, .found = NULL};

    emu_registry_visit(EMU_REG_BINARY, by_name_cb, &q);
    *out = q.found;
    return q.found != NULL ? EMU_OK : EMU_ENOTFOUND;
}
