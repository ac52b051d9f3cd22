/* function.c - kernel functions (see function.h). Every function is registered on its own,
 * so a user handle is checked without walking binaries; find-or-create is serialised by
 * `create_lock` so one kernel name of a binary gives one handle. */
#include "function.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/log.h"
#include "device.h"
#include "registry.h"

struct emu_function {
    struct emu_registry_entry reg; /* first: the user's aclrtFuncHandle points here */
    struct emu_binary *bin;
    emu_function_image_fn image_on; /* bin's image on a device */
    char kernel[128];
    char symbol[128];
    uint32_t fid[EMU_MAX_DEVICES]; /* executor function id + 1; 0 = not resolved yet */
};

static pthread_mutex_t create_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t watch_once = PTHREAD_ONCE_INIT;

static bool forget_cb(struct emu_registry_entry *e, void *arg)
{
    ((struct emu_function *)e)->fid[((struct emu_hdev *)arg)->id] = 0;
    return false;
}

/* The executor that resolved the entries is gone: resolve again on next use. */
static void device_lost_cb(struct emu_hdev *d)
{
    emu_registry_visit(EMU_REG_FUNCTION, forget_cb, d);
}

static void watch_devices(void)
{
    emu_runtime_on_device_lost(device_lost_cb);
}

struct find_query {
    const struct emu_binary *bin;
    const char *kernel;
    struct emu_function *found;
};

static bool find_cb(struct emu_registry_entry *e, void *arg)
{
    struct emu_function *f = (struct emu_function *)e;
    struct find_query *q = arg;

    if (q->found == NULL && f->bin == q->bin && strcmp(f->kernel, q->kernel) == 0)
        q->found = f;
    return false;
}

bool emu_function_find(struct emu_binary *b, const char *kernel, struct emu_function **out)
{
    struct find_query q = {b, kernel, NULL};

    emu_registry_visit(EMU_REG_FUNCTION, find_cb, &q);
    if (q.found != NULL)
        *out = q.found;
    return q.found != NULL;
}

emu_status emu_function_create(struct emu_binary *b, emu_function_image_fn image_on,
                               const char *kernel, const char *symbol,
                               struct emu_function **out)
{
    struct emu_function *f = NULL;

    pthread_mutex_lock(&create_lock);
    if (!emu_function_find(b, kernel, &f) && (f = calloc(1, sizeof(*f))) != NULL) {
        f->bin = b;
        f->image_on = image_on;
        snprintf(f->kernel, sizeof(f->kernel), "%s", kernel);
        snprintf(f->symbol, sizeof(f->symbol), "%s", symbol);
        pthread_once(&watch_once, watch_devices);
        emu_registry_add(&f->reg, EMU_REG_FUNCTION);
    }
    pthread_mutex_unlock(&create_lock);
    if (f == NULL)
        return EMU_ENOMEM;
    *out = f;
    return EMU_OK;
}

static bool destroy_cb(struct emu_registry_entry *e, void *arg)
{
    if (((struct emu_function *)e)->bin != arg)
        return false;
    free(e);
    return true;
}

void emu_function_destroy_all(struct emu_binary *b)
{
    emu_registry_visit(EMU_REG_FUNCTION, destroy_cb, b);
}

emu_status emu_function_check(const void *user, struct emu_function **out)
{
    void *obj;
    emu_status s = emu_registry_check(user, EMU_REG_FUNCTION, &obj);

    if (s == EMU_OK)
        *out = obj;
    return s;
}

emu_status emu_function_resolve(struct emu_function *f, struct emu_hdev *d, uint32_t *fid)
{
    struct emu_rpc_req q;
    struct emu_rpc_rep r;
    uint32_t image;
    emu_status s;

    if (f->fid[d->id] != 0) {
        *fid = f->fid[d->id] - 1;
        return EMU_OK;
    }
    if ((s = f->image_on(f->bin, d, &image)) != EMU_OK)
        return s;
    memset(&q, 0, sizeof(q));
    q.op = EMU_RPC_RESOLVE;
    q.arg0 = image;
    snprintf(q.text, sizeof(q.text), "%s", f->symbol);
    if ((s = emu_device_rpc(d, &q, &r)) != EMU_OK) {
        EMU_LOG_ERR("device %u: entry %s of kernel %s not found", d->id, f->symbol, f->kernel);
        return s;
    }
    f->fid[d->id] = r.val0 + 1;
    *fid = r.val0;
    return EMU_OK;
}

const char *emu_function_name(const struct emu_function *f)
{
    return f->kernel;
}
