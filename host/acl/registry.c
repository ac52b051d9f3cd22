/* registry.c - live ACL objects by kind (see registry.h): one lock, one list per kind.
 * Lookups compare addresses only, so an unknown pointer is never dereferenced. */
#include "registry.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "common/platform/log.h"
#include "retired.h"
#include "runtime.h"

static const struct {
    uint32_t magic;
    const char *name;
    emu_status refused;
} kinds[EMU_REG_KINDS] = {
    [EMU_REG_STREAM] = {0x5354524du, "stream", EMU_ESTREAM},
    [EMU_REG_EVENT] = {0x45564e54u, "event", EMU_EHANDLE},
    [EMU_REG_NOTIFY] = {0x4e544659u, "notify", EMU_EHANDLE},
    [EMU_REG_BINARY] = {0x42494e31u, "binary", EMU_EHANDLE},
    [EMU_REG_FUNCTION] = {0x46554e31u, "function", EMU_EHANDLE},
    [EMU_REG_CHANNEL_CONFIG] = {0x47464343u, "channel config", EMU_EINVAL},
    [EMU_REG_GRAPH] = {0x4d4f444cu, "model RI (graph)", EMU_EHANDLE},
};

/* The lists and every entry's `next` and `magic` are protected by `lock`. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_registry_entry *heads[EMU_REG_KINDS];

/* Bumped (under `lock`) by every removal: an object this thread found live stays live while
 * the count has not moved, so a call that checks the same stream five times (a collective:
 * its capture, its thread, its launch, its wait) takes the lock once. */
static _Atomic uint64_t removals;
#define FOUND_MEMO 4u
struct found {
    const void *user;
    int kind;
    uint64_t at; /* `removals` when found, plus one (0: empty) */
};
static _Thread_local struct found found_memo[FOUND_MEMO];
static _Thread_local uint32_t found_next;

static void removed_locked(void)
{
    atomic_fetch_add_explicit(&removals, 1, memory_order_release);
}
static _Atomic(emu_registry_release_fn) releases[EMU_REG_KINDS];

void emu_registry_on_release(enum emu_registry_kind k, emu_registry_release_fn fn)
{
    atomic_store(&releases[k], fn);
}

static pthread_once_t watch_once = PTHREAD_ONCE_INIT;

/* The kinds a program may still destroy after aclFinalize released them (retired.h). */
static const int retired_kind[EMU_REG_KINDS] = {
    [EMU_REG_STREAM] = EMU_RETIRED_STREAM + 1,
    [EMU_REG_EVENT] = EMU_RETIRED_EVENT + 1,
    [EMU_REG_NOTIFY] = EMU_RETIRED_NOTIFY + 1,
};

static void device_lost_cb(struct emu_hdev *d)
{
    /* aclFinalize drops the init count before it closes the devices. */
    bool finalizing = !emu_runtime_is_initialized();

    pthread_mutex_lock(&lock);
    for (int k = 0; k < EMU_REG_KINDS; k++)
        for (struct emu_registry_entry **p = &heads[k]; *p != NULL;) {
            struct emu_registry_entry *e = *p;
            if (e->dev == d) {
                emu_registry_release_fn release = atomic_load(&releases[k]);
                *p = e->next;
                e->magic = 0;
                removed_locked();
                if (release != NULL)
                    release(e);
                if (finalizing && retired_kind[k] != 0)
                    emu_retired_keep(e, (enum emu_retired_kind)(retired_kind[k] - 1));
                else
                    free(e);
            } else {
                p = &e->next;
            }
        }
    pthread_mutex_unlock(&lock);
}

static void watch_devices(void)
{
    emu_runtime_on_device_lost(device_lost_cb);
}

void emu_registry_add_on(struct emu_registry_entry *e, enum emu_registry_kind k,
                         struct emu_hdev *d)
{
    if (d != NULL)
        pthread_once(&watch_once, watch_devices);
    pthread_mutex_lock(&lock);
    e->magic = kinds[k].magic;
    e->dev = d;
    e->next = heads[k];
    heads[k] = e;
    pthread_mutex_unlock(&lock);
}

void emu_registry_add(struct emu_registry_entry *e, enum emu_registry_kind k)
{
    emu_registry_add_on(e, k, NULL);
}

bool emu_registry_remove(struct emu_registry_entry *e, enum emu_registry_kind k)
{
    bool found = false;

    pthread_mutex_lock(&lock);
    for (struct emu_registry_entry **p = &heads[k]; *p != NULL; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            e->magic = 0;
            removed_locked();
            found = true;
            break;
        }
    pthread_mutex_unlock(&lock);
    return found;
}

bool emu_registry_has(const void *user, enum emu_registry_kind k)
{
    uint64_t now = atomic_load_explicit(&removals, memory_order_acquire) + 1;
    bool found = false;

    for (uint32_t i = 0; i < FOUND_MEMO; i++)
        if (found_memo[i].at == now && found_memo[i].user == user && found_memo[i].kind == (int)k)
            return true;
    pthread_mutex_lock(&lock);
    for (struct emu_registry_entry *e = heads[k]; e != NULL && !found; e = e->next)
        found = (const void *)e == user && e->magic == kinds[k].magic;
    now = atomic_load_explicit(&removals, memory_order_relaxed) + 1; /* as of this walk */
    pthread_mutex_unlock(&lock);
    if (found) {
        found_memo[found_next % FOUND_MEMO] = (struct found){user, (int)k, now};
        found_next++;
    }
    return found;
}

emu_status emu_registry_check(const void *user, enum emu_registry_kind k, void **out)
{
    if (!emu_registry_has(user, k)) {
        EMU_LOG_ERR("%s %p is not a live %s (destroyed, or never created)", kinds[k].name, user,
                    kinds[k].name);
        return kinds[k].refused;
    }
    *out = (void *)user;
    return EMU_OK;
}

void emu_registry_visit(enum emu_registry_kind k, emu_registry_visit_cb cb, void *arg)
{
    pthread_mutex_lock(&lock);
    for (struct emu_registry_entry **p = &heads[k]; *p != NULL;) {
        struct emu_registry_entry *e = *p, *next = e->next;
        if (cb(e, arg)) {
            *p = next; /* e may be freed already: not touched again */
            removed_locked();
        } else
            p = &e->next;
    }
    pthread_mutex_unlock(&lock);
}
