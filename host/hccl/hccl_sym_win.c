/* hccl_sym_win.c - a communicator's symmetric windows (see hccl_sym_win.h).
 *
 * Each window has a host record in c->wins (under c->lock) and, on the rank's device, a
 * descriptor allocation (EMU_ALLOC_SYM_WIN) holding every rank's window start plus an entry
 * of the control block's symwins[] (under res_lock) that names the descriptor, so the
 * executor can check transfers into a peer's copy without being told about the window.
 * The handle is the descriptor's address: the executor resolves it in its own memory, and a
 * value that is not the start of such an allocation is refused there (device/dp/dp_symwin.c). */
#include "hccl_sym_win.h"

#include <stdlib.h>
#include <string.h>

#include "common/contract/layout.h"
#include "common/contract/symwin.h"
#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "hccl_mem.h"
#include "hccl_sym_win_xchg.h"
#include "host/acl/device.h"
#include "host/acl/mem.h"

#define SYMWIN_MAGIC 0x4e495753u /* "SWIN" */
#define SLOT_RESERVED 2u         /* symwins[].state while the registration is under way */

struct emu_symwin {
    uint32_t magic;
    uint32_t slot;               /* our entry of d->ctl->symwins[] */
    struct emu_symwin *next;     /* c->wins, under c->lock */
    struct emu_symwin *all_next; /* all_wins, under all_lock */
    struct emu_comm *comm;
    uint64_t addr; /* this rank's window */
    uint64_t size;
    void *desc; /* the descriptor: the handle */
};

/* Every window of the process, for HcclCommSymWinDeregister, which names no communicator:
 * walking the live communicators instead would take a use of other ranks' members (ranks as
 * threads) and make their destroy answer HCCL_E_AGAIN. all_lock is taken last (after
 * c->lock) and held while taking no other lock. */
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_symwin *all_wins;

static void all_add(struct emu_symwin *w)
{
    pthread_mutex_lock(&all_lock);
    w->all_next = all_wins;
    all_wins = w;
    pthread_mutex_unlock(&all_lock);
}

static void all_remove(struct emu_symwin *w)
{
    pthread_mutex_lock(&all_lock);
    for (struct emu_symwin **p = &all_wins; *p != NULL; p = &(*p)->all_next)
        if (*p == w) {
            *p = w->all_next;
            break;
        }
    pthread_mutex_unlock(&all_lock);
}

/* The communicator that registered handle h, or NULL. A pointer to compare only: the caller
 * takes a use of it with emu_comm_get before touching it. */
static struct emu_comm *all_owner(const void *h)
{
    struct emu_comm *c = NULL;

    pthread_mutex_lock(&all_lock);
    for (struct emu_symwin *w = all_wins; w != NULL && c == NULL; w = w->all_next)
        if (w->desc == h)
            c = w->comm;
    pthread_mutex_unlock(&all_lock);
    return c;
}

/* Reserve an entry of the device's symwins[] so that a full table fails before the
 * exchange, not after the peers registered. */
static emu_status slot_reserve(struct emu_comm *c, uint32_t *out, const char *fn)
{
    struct emu_devctl *ctl = c->d->ctl;
    uint32_t slot = UINT32_MAX;

    emu_devctl_lock(&ctl->res_lock);
    for (uint32_t i = 0; i < EMU_MAX_SYMWINS && slot == UINT32_MAX; i++)
        if (emu_load_relaxed(&ctl->symwins[i].state) == 0) {
            slot = i;
            emu_store_relaxed(&ctl->symwins[i].state, SLOT_RESERVED);
        }
    emu_devctl_unlock(&ctl->res_lock);
    if (slot == UINT32_MAX) {
        EMU_COMM_ERR(c, fn, "device %u already has %u symmetric windows registered", c->d->id,
                     EMU_MAX_SYMWINS);
        return EMU_ENOMEM;
    }
    *out = slot;
    return EMU_OK;
}

static void slot_publish(struct emu_comm *c, uint32_t slot, uint64_t desc)
{
    struct emu_devctl *ctl = c->d->ctl;
    struct emu_symwin_ctl *e = &ctl->symwins[slot];

    emu_devctl_lock(&ctl->res_lock);
    e->rank = c->rank;
    e->comm_id = c->id;
    e->desc = desc;
    /* Pairs with the acquire load of `state` in the executor (dp_symwin.c). */
    emu_store_release(&e->state, 1);
    emu_devctl_unlock(&ctl->res_lock);
}

static void slot_free(struct emu_comm *c, uint32_t slot)
{
    struct emu_devctl *ctl = c->d->ctl;

    emu_devctl_lock(&ctl->res_lock);
    emu_store_release(&ctl->symwins[slot].state, 0);
    emu_devctl_unlock(&ctl->res_lock);
}

/* The window of c that overlaps [addr, addr+size), or NULL. */
static struct emu_symwin *overlapping(const struct emu_comm *c, uint64_t addr, uint64_t size)
{
    for (struct emu_symwin *w = c->wins; w != NULL; w = w->next)
        if (addr < w->addr + w->size && w->addr < addr + size)
            return w;
    return NULL;
}

static emu_status check_range(struct emu_comm *c, uint64_t addr, uint64_t size, const char *fn)
{
    struct emu_symwin *w;

    if (!emu_hccl_mem_in_allocation(c, addr, size)) {
        EMU_COMM_ERR(c, fn, "[0x%llx, +%llu) is not inside one allocation on device %u",
                     (unsigned long long)addr, (unsigned long long)size, c->d->id);
        return EMU_EINVAL;
    }
    pthread_mutex_lock(&c->lock);
    w = overlapping(c, addr, size);
    pthread_mutex_unlock(&c->lock);
    if (w != NULL) {
        EMU_COMM_ERR(c, fn,
                     "[0x%llx, +%llu) overlaps the symmetric window [0x%llx, +%llu) "
                     "already registered",
                     (unsigned long long)addr, (unsigned long long)size,
                     (unsigned long long)w->addr, (unsigned long long)w->size);
        return EMU_EINVAL;
    }
    return EMU_OK;
}

/* Allocate the descriptor, exchange, then write it into device memory, where the executor
 * reads it. The allocation comes first: a rank that cannot have one posts nothing, so its
 * peers name it instead of keeping windows it lacks. */
static emu_status describe(struct emu_comm *c, struct emu_symwin *w, const char *fn)
{
    uint64_t bytes = emu_symwin_desc_bytes(c->size);
    struct emu_symwin_desc *d = calloc(1, (size_t)bytes);
    emu_status s = EMU_ENOMEM;

    if (d == NULL || (s = emu_mem_alloc(c->d, bytes, EMU_ALLOC_SYM_WIN, &w->desc)) != EMU_OK) {
        free(d);
        return s;
    }
    if ((s = emu_symwin_xchg(c, w->addr, w->size, d->base, fn)) == EMU_OK) {
        d->magic = EMU_SYMWIN_MAGIC;
        d->comm_id = c->id;
        d->rank = c->rank;
        d->rank_size = c->size;
        d->size = w->size;
        s = emu_mem_copy(emu_hccl_mem_alias(c, w->desc), d, (size_t)bytes, fn);
    }
    if (s != EMU_OK) {
        emu_mem_free_owned(w->desc);
        w->desc = NULL;
    }
    free(d);
    return s;
}

emu_status emu_symwin_register(struct emu_comm *c, uint64_t addr, uint64_t size, void **out,
                               const char *fn)
{
    struct emu_symwin *w;
    emu_status s;

    if ((s = check_range(c, addr, size, fn)) != EMU_OK)
        return s;
    if ((w = calloc(1, sizeof(*w))) == NULL)
        return EMU_ENOMEM;
    w->addr = addr;
    w->size = size;
    if ((s = slot_reserve(c, &w->slot, fn)) != EMU_OK) {
        free(w);
        return s;
    }
    if ((s = describe(c, w, fn)) != EMU_OK) {
        slot_free(c, w->slot);
        free(w);
        return s;
    }
    slot_publish(c, w->slot, (uint64_t)(uintptr_t)w->desc);
    w->magic = SYMWIN_MAGIC;
    w->comm = c;
    pthread_mutex_lock(&c->lock);
    w->next = c->wins;
    c->wins = w;
    all_add(w);
    pthread_mutex_unlock(&c->lock);
    *out = w->desc;
    return EMU_OK;
}

/* Withdraw w from the device and free it: its control-block entry first (no transfer checks
 * against it any more), then the descriptor's magic (a kernel still holding the handle is
 * refused), then the descriptor. The user's memory stays the user's. */
static void release(struct emu_comm *c, struct emu_symwin *w, bool device_alive)
{
    all_remove(w);
    if (device_alive) {
        uint64_t zero = 0;
        slot_free(c, w->slot);
        /* A failed clear is logged by the copy; the entry is gone already, so no transfer
         * reaches the window through it any more. */
        if (emu_mem_copy(emu_hccl_mem_alias(c, w->desc), &zero, sizeof(zero),
                         "HcclCommSymWinDeregister") != EMU_OK)
            EMU_LOG_DEBUG("the descriptor of window %p keeps its magic", w->desc);
        emu_mem_free_owned(w->desc);
    }
    w->magic = 0;
    free(w);
}

/* Unlink the window whose handle is h from c (c->lock held); NULL when c has none. */
static struct emu_symwin *unlink_handle(struct emu_comm *c, const void *h)
{
    for (struct emu_symwin **p = &c->wins; *p != NULL; p = &(*p)->next) {
        struct emu_symwin *w = *p;
        if (w->desc == h && w->magic == SYMWIN_MAGIC) {
            *p = w->next;
            return w;
        }
    }
    return NULL;
}

emu_status emu_symwin_deregister(const void *h, const char *fn)
{
    struct emu_comm *owner = all_owner(h);
    /* Quiet when the owner went meanwhile: the line below says what happened. */
    struct emu_comm *c = owner != NULL ? emu_comm_try_get(owner) : NULL;
    struct emu_symwin *w = NULL;

    if (c != NULL) {
        pthread_mutex_lock(&c->lock);
        if ((w = unlink_handle(c, h)) != NULL)
            release(c, w, emu_device_check(c->d) == EMU_OK);
        pthread_mutex_unlock(&c->lock);
        emu_comm_put(c);
    }
    if (w != NULL)
        return EMU_OK;
    EMU_LOG_ERR("%s: winHandle %p is not a symmetric window registered by a live communicator "
                "of this process (deregistered already?)",
                fn, h);
    return EMU_EINVAL;
}

emu_status emu_symwin_find(struct emu_comm *c, uint64_t ptr, uint64_t size, void **out,
                           uint64_t *offset)
{
    emu_status s = EMU_ENOTFOUND;

    pthread_mutex_lock(&c->lock);
    for (struct emu_symwin *w = c->wins; w != NULL; w = w->next)
        if (ptr >= w->addr && ptr - w->addr < w->size && size <= w->size - (ptr - w->addr)) {
            *out = w->desc;
            *offset = ptr - w->addr;
            s = EMU_OK;
            break;
        }
    pthread_mutex_unlock(&c->lock);
    return s;
}

void emu_symwin_release_all(struct emu_comm *c)
{
    bool alive = emu_device_check(c->d) == EMU_OK;

    while (c->wins != NULL) {
        struct emu_symwin *w = c->wins;
        c->wins = w->next;
        release(c, w, alive);
    }
}
