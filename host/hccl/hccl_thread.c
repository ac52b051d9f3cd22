/* hccl_thread.c - communicator threads (see hccl_thread.h).
 *
 * An AICPU_TS thread is a DEVICE slot of the device's streams[] table, set up the way
 * emu_stream_create() sets up an ACL slot (generation bumped, counters equal) so the data
 * plane can queue tasks on it from a kernel. A CPU_TS thread is an ACL stream whose slot
 * carries the thread's notify range and engine. The comm keeps a record per thread; handles
 * are checked against those records (slot and generation). */
#include "hccl_thread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/contract/handle.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "hccl_rules.h"
#include "host/acl/device.h"
#include "host/acl/notify_pool.h"
#include "host/acl/stream.h"

#define QUIESCE_MS 10000 /* how long destroy waits for device threads to drain */

static uint64_t handle_of(const struct emu_comm *c, const struct emu_thread_rec *t)
{
    struct emu_handle h = {.kind = EMU_HANDLE_THREAD,
                           .dev = c->d->id,
                           .engine = (uint32_t)t->engine,
                           .exported = false,
                           .gen = t->gen,
                           .index = t->slot};

    return emu_handle_encode(&h);
}

static emu_status add_rec(struct emu_comm *c, const struct emu_thread_rec *t)
{
    if (c->n_threads == c->cap_threads) {
        uint32_t cap = c->cap_threads ? c->cap_threads * 2 : 16;
        void *p = realloc(c->threads, cap * sizeof(*c->threads));
        if (p == NULL)
            return EMU_ENOMEM;
        c->threads = p;
        c->cap_threads = cap;
    }
    c->threads[c->n_threads++] = *t;
    return EMU_OK;
}

static emu_status keep_spare(struct emu_comm *c, uint32_t base)
{
    if (c->n_spare == c->cap_spare) {
        uint32_t cap = c->cap_spare ? c->cap_spare * 2 : 8;
        void *p = realloc(c->spare_notifies, cap * sizeof(*c->spare_notifies));
        if (p == NULL)
            return EMU_ENOMEM;
        c->spare_notifies = p;
        c->cap_spare = cap;
    }
    c->spare_notifies[c->n_spare++] = base;
    return EMU_OK;
}

static emu_status notifies_take(struct emu_comm *c, uint32_t n, uint32_t *base)
{
    *base = 0;
    return n == 0 ? EMU_OK : emu_notify_pool_alloc(c->d, n, base);
}

/* "rank R thread I", unique on the device: when another live communicator there has the same
 * rank, " comm S" (this member's entry in the device's table) tells the two apart.
 * res_lock held. */
static void label_thread(const struct emu_comm *c, const struct emu_devctl *ctl,
                         struct emu_stream_ctl *sc, uint32_t index)
{
    bool shared = false;

    for (uint32_t i = 0; i < EMU_MAX_COMMS && !shared; i++)
        shared = i != c->ctl_slot &&
                 emu_load_acquire(&((struct emu_devctl *)ctl)->comms[i].state) != 0 &&
                 ctl->comms[i].rank == c->rank;
    if (shared)
        snprintf(sc->label, sizeof(sc->label), "rank %u thread %u comm %u", c->rank, index,
                 c->ctl_slot);
    else
        snprintf(sc->label, sizeof(sc->label), "rank %u thread %u", c->rank, index);
}

/* Take a free streams[] slot as an AICPU_TS thread of this comm. */
static emu_status device_slot_take(struct emu_comm *c, struct emu_thread_rec *t)
{
    struct emu_devctl *ctl = c->d->ctl;
    emu_status s = EMU_EUNAVAIL;

    emu_devctl_lock(&ctl->res_lock);
    for (uint32_t i = 0; i < EMU_MAX_STREAMS; i++) {
        struct emu_stream_ctl *sc = &ctl->streams[i];
        if (emu_load_relaxed(&sc->kind) != EMU_STREAM_FREE)
            continue;
        sc->gen = (sc->gen + 1) & EMU_HANDLE_GEN_MASK;
        if (sc->gen == 0)
            sc->gen = 1;
        sc->owner_pid = (int32_t)getpid();
        sc->notify_base = t->notify_base;
        sc->notify_num = t->notify_num;
        sc->engine = COMM_ENGINE_AICPU_TS;
        sc->rank = c->rank;
        sc->thread_index = t->index;
        label_thread(c, ctl, sc, t->index);
        atomic_store(&sc->error, 0);
        atomic_store(&sc->parked, EMU_PARK_NONE);
        /* Start both counters equal: nothing queued. */
        atomic_store(&sc->completed, atomic_load(&sc->submitted));
        /* Pairs with the executor's acquire of `kind` when it validates a thread. */
        emu_store_release(&sc->kind, EMU_STREAM_DEVICE);
        emu_devctl_stream_taken(ctl, i);
        t->slot = i;
        t->gen = sc->gen;
        s = EMU_OK;
        break;
    }
    emu_devctl_unlock(&ctl->res_lock);
    if (s != EMU_OK)
        EMU_LOG_ERR("device %u: no stream slot left for a thread (%u in use)", c->d->id,
                    EMU_MAX_STREAMS);
    return s;
}

/* Point an ACL stream's slot at the thread's notifies and engine. */
static void stream_slot_bind(struct emu_comm *c, const struct emu_thread_rec *t)
{
    struct emu_devctl *ctl = c->d->ctl;

    emu_devctl_lock(&ctl->res_lock);
    struct emu_stream_ctl *sc = &ctl->streams[t->slot];
    if (sc->gen == t->gen && emu_load_relaxed(&sc->kind) == EMU_STREAM_ACL) {
        sc->notify_base = t->notify_base;
        sc->notify_num = t->notify_num;
        sc->engine = t->engine;
        sc->rank = c->rank;
        sc->thread_index = t->index;
    }
    emu_devctl_unlock(&ctl->res_lock);
}

static void stream_slot_unbind(struct emu_comm *c, const struct emu_thread_rec *t)
{
    struct emu_devctl *ctl = c->d->ctl;

    emu_devctl_lock(&ctl->res_lock);
    struct emu_stream_ctl *sc = &ctl->streams[t->slot];
    /* Only if the slot still carries our range: another comm may have wrapped it since. */
    if (sc->gen == t->gen && emu_load_relaxed(&sc->kind) == EMU_STREAM_ACL &&
        sc->notify_base == t->notify_base && sc->notify_num == t->notify_num) {
        sc->notify_base = 0;
        sc->notify_num = 0;
        sc->engine = -1;
        sc->rank = UINT32_MAX;
    }
    emu_devctl_unlock(&ctl->res_lock);
}

static void release_one(struct emu_comm *c, struct emu_thread_rec *t)
{
    struct emu_devctl *ctl = c->d->ctl;

    if (t->kind == EMU_THREAD_DEVICE && ctl != NULL) {
        emu_devctl_lock(&ctl->res_lock);
        struct emu_stream_ctl *sc = &ctl->streams[t->slot];
        if (sc->gen == t->gen)
            emu_store_release(&sc->kind, EMU_STREAM_FREE);
        emu_devctl_unlock(&ctl->res_lock);
    } else if (ctl != NULL) {
        stream_slot_unbind(c, t);
    }
    if (t->kind == EMU_THREAD_OWNED && t->stream != NULL)
        emu_stream_destroy(t->stream);
    if (t->notify_num > 0)
        emu_notify_pool_free(c->d, t->notify_base);
}

/* One new thread; on failure nothing of it remains. */
static emu_status make_thread(struct emu_comm *c, int32_t engine, uint32_t notifies,
                              struct emu_thread_rec *t)
{
    emu_status s;

    memset(t, 0, sizeof(*t));
    t->engine = engine;
    t->notify_num = notifies;
    /* Counted over the communicator, not the call: two acquire calls never both make a
     * "rank R thread 0". */
    t->index = c->threads_made++;
    if ((s = notifies_take(c, notifies, &t->notify_base)) != EMU_OK)
        return s;
    if (engine == COMM_ENGINE_AICPU_TS) {
        t->kind = EMU_THREAD_DEVICE;
        s = device_slot_take(c, t);
    } else {
        t->kind = EMU_THREAD_OWNED;
        s = emu_stream_create(c->d, false, &t->stream);
        if (s == EMU_OK) {
            t->slot = t->stream->slot;
            t->gen = t->stream->gen;
            stream_slot_bind(c, t);
        }
    }
    if (s == EMU_OK && (s = add_rec(c, t)) != EMU_OK)
        release_one(c, t);
    else if (s != EMU_OK && notifies > 0)
        emu_notify_pool_free(c->d, t->notify_base);
    return s;
}

emu_status emu_thread_acquire(struct emu_comm *c, int32_t engine, uint32_t n,
                              const uint32_t *notify_nums, uint32_t uniform, ThreadHandle *out,
                              const char *fn)
{
    uint32_t first = c->n_threads;
    (void)fn;

    for (uint32_t i = 0; i < n; i++) {
        struct emu_thread_rec t;
        emu_status s = make_thread(c, engine, notify_nums ? notify_nums[i] : uniform, &t);
        if (s != EMU_OK) {
            /* All or nothing: give back the threads this call made. */
            while (c->n_threads > first)
                release_one(c, &c->threads[--c->n_threads]);
            return s;
        }
        out[i] = handle_of(c, &t);
    }
    return EMU_OK;
}

static struct emu_thread_rec *find_stream_rec(struct emu_comm *c, const struct emu_hstream *s)
{
    for (uint32_t i = 0; i < c->n_threads; i++) {
        struct emu_thread_rec *t = &c->threads[i];
        if (t->kind != EMU_THREAD_DEVICE && t->slot == s->slot && t->gen == s->gen)
            return t;
    }
    return NULL;
}

/* Give a CPU_TS thread at least `n` notifies; the old range is kept until destroy because
 * tasks queued before may still name it. */
static emu_status grow(struct emu_comm *c, struct emu_thread_rec *t, uint32_t n)
{
    uint32_t base;
    emu_status s;

    if (t->notify_num >= n)
        return EMU_OK;
    if (t->notify_num > 0 && (s = keep_spare(c, t->notify_base)) != EMU_OK)
        return s;
    if ((s = notifies_take(c, n, &base)) != EMU_OK) {
        if (t->notify_num > 0)
            c->n_spare--;
        return s;
    }
    t->notify_base = base;
    t->notify_num = n;
    return EMU_OK;
}

/* Wrap s, whose record in c is t (NULL: none yet), with at least notify_num notifies. */
static emu_status wrap_stream(struct emu_comm *c, int32_t engine, struct emu_hstream *s,
                              struct emu_thread_rec *t, uint32_t notify_num, ThreadHandle *out)
{
    emu_status st;

    if (t == NULL) {
        struct emu_thread_rec nt = {.kind = EMU_THREAD_WRAPPED,
                                    .slot = s->slot,
                                    .gen = s->gen,
                                    .engine = engine,
                                    .notify_num = notify_num,
                                    .stream = s};
        if ((st = notifies_take(c, notify_num, &nt.notify_base)) != EMU_OK)
            return st;
        if ((st = add_rec(c, &nt)) != EMU_OK) {
            if (notify_num > 0)
                emu_notify_pool_free(c->d, nt.notify_base);
            return st;
        }
        t = &c->threads[c->n_threads - 1];
    } else if ((st = grow(c, t, notify_num)) != EMU_OK) {
        return st;
    }
    t->engine = engine;
    /* Re-bind every time: another communicator may have wrapped the stream meanwhile. */
    stream_slot_bind(c, t);
    *out = handle_of(c, t);
    return EMU_OK;
}

emu_status emu_thread_with_stream(struct emu_comm *c, int32_t engine, struct emu_hstream *s,
                                  uint32_t notify_num, ThreadHandle *out, const char *fn)
{
    (void)fn;
    return wrap_stream(c, engine, s, find_stream_rec(c, s), notify_num, out);
}

emu_status emu_thread_with_stream_upto(struct emu_comm *c, int32_t engine, struct emu_hstream *s,
                                       uint32_t most, ThreadHandle *out, uint32_t *got,
                                       const char *fn)
{
    struct emu_thread_rec *t = find_stream_rec(c, s);
    uint32_t n = t != NULL && t->notify_num > 0 && t->notify_num < most ? t->notify_num : most;
    emu_status st = wrap_stream(c, engine, s, t, n, out);
    (void)fn;

    if (st == EMU_OK)
        *got = n;
    return st;
}

emu_status emu_thread_dedicated(struct emu_comm *c, int32_t type, uint32_t notify_num,
                                ThreadHandle *out, const char *fn)
{
    /* AICPU_LAUNCH_GE and ORDER_LAUNCH_GE name threads made elsewhere (GE, or the stream
     * of HcomSetAttachedStream), which hcemu never makes: the vendor answers 0 then. */
    if (type == HCCL_DED_THREAD_TYPE_AICPU_LAUNCH_GE ||
        type == HCCL_DED_THREAD_TYPE_AICPU_ORDER_LAUNCH_GE) {
        *out = 0;
        return EMU_OK;
    }
    struct emu_handle h;
    uint64_t cached = c->dedicated[type];
    if (cached != 0 && emu_handle_decode(cached, EMU_HANDLE_THREAD, &h)) {
        for (uint32_t i = 0; i < c->n_threads; i++) {
            struct emu_thread_rec *t = &c->threads[i];
            if (t->slot != h.index || t->gen != h.gen)
                continue;
            emu_status s = grow(c, t, notify_num);
            if (s == EMU_OK && t->kind != EMU_THREAD_DEVICE) {
                stream_slot_bind(c, t);
            } else if (s == EMU_OK) {
                /* The device slot names the range; update it under the lock. */
                emu_devctl_lock(&c->d->ctl->res_lock);
                c->d->ctl->streams[t->slot].notify_base = t->notify_base;
                c->d->ctl->streams[t->slot].notify_num = t->notify_num;
                emu_devctl_unlock(&c->d->ctl->res_lock);
            }
            *out = cached;
            return s;
        }
    }
    /* Launch threads are host streams, except ORDER_LAUNCH_DEVICE, an AICPU_TS thread. */
    int32_t engine = type == HCCL_DED_THREAD_TYPE_AICPU_ORDER_LAUNCH_DEVICE ? COMM_ENGINE_AICPU_TS
                                                                            : COMM_ENGINE_CPU_TS;
    emu_status s = emu_thread_acquire(c, engine, 1, NULL, notify_num, out, fn);
    if (s == EMU_OK)
        c->dedicated[type] = *out;
    return s;
}

static struct emu_thread_rec *find_handle(struct emu_comm *c, ThreadHandle raw)
{
    struct emu_handle h;

    if (!emu_handle_decode(raw, EMU_HANDLE_THREAD, &h) || h.dev != c->d->id)
        return NULL;
    for (uint32_t i = 0; i < c->n_threads; i++)
        if (c->threads[i].slot == h.index && c->threads[i].gen == h.gen)
            return &c->threads[i];
    return NULL;
}

emu_status emu_thread_export(struct emu_comm *c, uint32_t n, const ThreadHandle *in, int32_t dst,
                             ThreadHandle *out, const char *fn)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct emu_thread_rec *t = find_handle(c, in[i]);
        if (t == NULL) {
            EMU_COMM_ERR(c, fn, "threads[%u] = 0x%llx is not a thread of this communicator", i,
                         (unsigned long long)in[i]);
            return EMU_ENOTFOUND;
        }
        struct emu_handle h = {.kind = EMU_HANDLE_THREAD,
                               .dev = c->d->id,
                               .engine = (uint32_t)dst,
                               .exported = true,
                               .gen = t->gen,
                               .index = t->slot};
        out[i] = emu_handle_encode(&h);
    }
    return EMU_OK;
}

emu_status emu_thread_stream_find(struct emu_comm *c, ThreadHandle h, void **stream)
{
    const struct emu_thread_rec *t = find_handle(c, h);

    if (t == NULL)
        return EMU_ENOTFOUND;
    if (t->kind == EMU_THREAD_DEVICE)
        return EMU_ENOTSUP;
    *stream = t->stream;
    return EMU_OK;
}

emu_status emu_thread_notify_num(struct emu_comm *c, ThreadHandle h, uint32_t *n)
{
    const struct emu_thread_rec *t = find_handle(c, h);

    if (t == NULL)
        return EMU_ENOTFOUND;
    *n = t->notify_num;
    return EMU_OK;
}

emu_status emu_thread_stream_of(struct emu_comm *c, ThreadHandle h, void **stream, const char *fn)
{
    emu_status s = emu_thread_stream_find(c, h, stream);

    if (s == EMU_ENOTFOUND)
        EMU_COMM_ERR(c, fn, "thread 0x%llx is not a thread of this communicator",
                     (unsigned long long)h);
    else if (s == EMU_ENOTSUP)
        EMU_COMM_ERR(c, fn,
                     "thread 0x%llx is an AICPU_TS thread: its stream runs on the "
                     "device and has no aclrtStream",
                     (unsigned long long)h);
    return s;
}

emu_status emu_thread_async_error(struct emu_comm *c)
{
    struct emu_devctl *ctl = c->d->ctl;

    for (uint32_t i = 0; i < c->n_threads && ctl != NULL; i++) {
        struct emu_stream_ctl *sc = &ctl->streams[c->threads[i].slot];
        if (sc->gen != c->threads[i].gen)
            continue;
        int32_t err = atomic_load(&sc->error);
        if (err != 0)
            return (emu_status)err;
    }
    return EMU_OK;
}

void emu_thread_quiesce(struct emu_comm *c)
{
    struct emu_devctl *ctl = c->d->ctl;
    uint64_t deadline = emu_os_deadline_ms(QUIESCE_MS);

    if (ctl == NULL || emu_device_check(c->d) != EMU_OK)
        return;
    for (uint32_t i = 0; i < c->n_threads; i++) {
        const struct emu_thread_rec *t = &c->threads[i];
        struct emu_stream_ctl *sc = &ctl->streams[t->slot];
        if (t->kind != EMU_THREAD_DEVICE || sc->gen != t->gen)
            continue;
        for (;;) {
            /* Pairs with the executor's release add of `completed`. */
            uint32_t done = emu_load_acquire(&sc->completed);
            uint32_t sub = emu_load_acquire(&sc->submitted);
            if ((int32_t)(done - sub) >= 0)
                break;
            /* Counted in `waiters`, a job-wide run queue runner that finishes the thread's
             * last tasks wakes its device to retire them; the ring covers one that looked
             * before we counted (docs/ARCHITECTURE.md, "One job-wide run queue"). */
            emu_stream_ctl_want(sc, sub);
            emu_fetch_add_acq_rel(&sc->waiters, 1);
            emu_devctl_ring(ctl);
            emu_status st = emu_device_wait(c->d, &sc->completed, done, deadline);
            emu_fetch_sub_acq_rel(&sc->waiters, 1);
            if (st != EMU_OK) {
                EMU_LOG_WARN("HcclCommDestroy: rank %u thread %u (slot %u) still has %u tasks "
                             "queued; releasing it anyway",
                             c->rank, i, t->slot, sub - emu_load_acquire(&sc->completed));
                break;
            }
        }
    }
}

/* Issue 7: a notify recorded but never waited for is a protocol bug worth a line. */
static void report_set_notifies(struct emu_comm *c, const struct emu_thread_rec *t,
                                uint32_t ordinal)
{
    static const char *const kinds[] = {"", "AICPU_TS", "CPU_TS", "CPU_TS"};

    for (uint32_t k = 0; k < t->notify_num; k++)
        if (emu_load_acquire(&c->d->ctl->notifies[t->notify_base + k].value) != 0)
            EMU_LOG_WARN("HcclCommDestroy: rank %u thread %u (%s, slot %u): notify %u was "
                         "recorded but never waited for",
                         c->rank, ordinal, kinds[t->kind], t->slot, k);
}

void emu_thread_release_all(struct emu_comm *c)
{
    bool alive = c->d->ctl != NULL;

    for (uint32_t i = 0; i < c->n_threads; i++) {
        if (alive)
            report_set_notifies(c, &c->threads[i], i);
        release_one(c, &c->threads[i]);
    }
    for (uint32_t i = 0; i < c->n_spare; i++)
        emu_notify_pool_free(c->d, c->spare_notifies[i]);
    c->n_threads = 0;
    c->n_spare = 0;
}
