/* stream.c - host streams.
 *
 * Submission: take the ring lock, wait for space if the ring is full, write the entry,
 * publish the tail, count it on the stream, ring the doorbell. Synchronisation: wait until
 * the stream's `completed` reaches the count seen at entry (futex, with liveness checks). */
#include "stream.h"
#include "stream_owed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/platform/spin.h"
#include "device.h"
#include "mem.h"
#include "model_time.h"
#include "runtime.h"

/* A stream freed with its lost device: its memory went with the device, the pending list of
 * its argument ring is ours. */
static void release_lost(struct emu_registry_entry *e)
{
    emu_args_ring_forget(&((struct emu_hstream *)e)->args);
}

static void watch_lost(void)
{
    emu_registry_on_release(EMU_REG_STREAM, release_lost);
    emu_mem_on_busy_check(emu_stream_memory_busy);
}

static emu_status ring_wait(void *s, uint32_t seq, uint64_t deadline)
{
    return emu_stream_wait_retired(s, seq, deadline);
}

emu_status emu_stream_create(struct emu_hdev *d, bool is_default, struct emu_hstream **out)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;

    pthread_once(&once, watch_lost);
    struct emu_hstream *s = calloc(1, sizeof(*s));
    uint32_t slot = UINT32_MAX;

    if (s == NULL)
        return EMU_ENOMEM;
    emu_devctl_lock(&d->ctl->res_lock);
    for (uint32_t i = 0; i < EMU_MAX_STREAMS && slot == UINT32_MAX; i++) {
        struct emu_stream_ctl *sc = &d->ctl->streams[i];
        if (emu_load_relaxed(&sc->kind) != EMU_STREAM_FREE)
            continue;
        slot = i;
        sc->gen = (sc->gen + 1) & 0x3FFFu;
        if (sc->gen == 0)
            sc->gen = 1;
        sc->owner_pid = (int32_t)getpid();
        sc->notify_base = 0;
        sc->notify_num = 0;
        sc->engine = -1;
        sc->rank = UINT32_MAX;
        atomic_store(&sc->error, 0);
        atomic_store(&sc->parked, EMU_PARK_NONE);
        /* Start both counters equal: nothing queued. */
        atomic_store(&sc->completed, atomic_load(&sc->submitted));
        snprintf(sc->label, sizeof(sc->label), "%s", is_default ? "default" : "");
        /* Pairs with the executor's acquire of `kind` when it validates tasks. */
        emu_store_release(&sc->kind, EMU_STREAM_ACL);
        emu_devctl_stream_taken(d->ctl, i);
    }
    emu_devctl_unlock(&d->ctl->res_lock);
    if (slot == UINT32_MAX) {
        EMU_LOG_ERR("device %u: no stream left (%u in use)", d->id, EMU_MAX_STREAMS);
        free(s);
        return EMU_EUNAVAIL;
    }
    s->dev = d->id;
    s->d = d;
    s->slot = slot;
    s->gen = d->ctl->streams[slot].gen;
    s->is_default = is_default;
    pthread_mutex_init(&s->use_lock, NULL);
    emu_args_ring_init(&s->args, d, slot, ring_wait, s);
    emu_registry_add_on(&s->reg, EMU_REG_STREAM, d);
    *out = s;
    return EMU_OK;
}

static void release_slot(struct emu_hstream *s)
{
    struct emu_hdev *d = s->d;

    if (d->ctl == NULL)
        return;
    emu_devctl_lock(&d->ctl->res_lock);
    struct emu_stream_ctl *sc = &d->ctl->streams[s->slot];
    if (sc->gen == s->gen)
        emu_store_release(&sc->kind, EMU_STREAM_FREE);
    emu_devctl_unlock(&d->ctl->res_lock);
}

void emu_stream_destroy(struct emu_hstream *s)
{
    emu_stream_drain(s);
    if (!emu_registry_remove(&s->reg, EMU_REG_STREAM))
        return; /* the device was closed meanwhile and freed the stream */
    emu_args_ring_fini(&s->args);
    release_slot(s);
    free(s);
}

emu_status emu_stream_default_create(struct emu_hdev *d)
{
    struct emu_hstream *def;
    emu_status s;

    pthread_mutex_lock(&d->lock);
    def = d->default_stream;
    pthread_mutex_unlock(&d->lock);
    if (def != NULL)
        return EMU_OK;
    if ((s = emu_stream_create(d, true, &def)) != EMU_OK)
        return s;
    pthread_mutex_lock(&d->lock);
    if (d->default_stream == NULL) {
        d->default_stream = def;
        def = NULL;
    }
    pthread_mutex_unlock(&d->lock);
    if (def != NULL)
        emu_stream_destroy(def); /* another thread's stream won the race */
    return EMU_OK;
}

emu_status emu_stream_resolve(void *user, struct emu_hstream **out)
{
    struct emu_hdev *d;
    emu_status st;

    if (user == NULL) {
        if ((st = emu_device_current(&d)) != EMU_OK)
            return st;
        if (d->default_stream == NULL) {
            EMU_LOG_ERR("device %u has no default stream (aclrtSetDevice first)", d->id);
            return EMU_ENODEVICE;
        }
        *out = d->default_stream;
        return EMU_OK;
    }
    void *obj;
    if ((st = emu_registry_check(user, EMU_REG_STREAM, &obj)) != EMU_OK)
        return st;
    *out = obj;
    return emu_device_check((*out)->d);
}

/* ---- what streams owe (stream_owed.h) ---- */

/* Submissions of this OS thread settle nothing: it is paying a debt (the next one follows,
 * not precedes, it), or its caller orders them itself (emu_stream_owed_defer). */
static _Thread_local bool deferring;

void emu_stream_owed_defer(bool on)
{
    deferring = on;
}

emu_status emu_stream_settle(struct emu_hdev *d, uint32_t slot)
{
    struct emu_stream_owed o;
    emu_status first = EMU_OK;

    if (deferring)
        return EMU_OK;
    deferring = true;
    while (emu_stream_owed_take(d->id, slot, &o)) { /* oldest first */
        /* A stream that ended meanwhile owes nothing: its destruction synchronised it. */
        if (d->ctl == NULL || d->ctl->streams[slot].gen != o.gen)
            continue;
        struct emu_hstream s = {.dev = d->id, .slot = slot, .gen = o.gen, .d = d};
        emu_status st = emu_stream_submit(&s, &o.w);
        if (first == EMU_OK)
            first = st;
    }
    deferring = false;
    return first;
}

void emu_stream_settle_owner(const void *owner)
{
    uint32_t devs[64], slots[64], n;

    do {
        n = emu_stream_owed_by(owner, devs, slots, 64);
        for (uint32_t i = 0; i < n; i++)
            if (emu_stream_settle(&emu_rt.devs[devs[i]], slots[i]) != EMU_OK)
                EMU_LOG_DEBUG("device %u stream %u: a task it owed was not queued", devs[i],
                              slots[i]);
    } while (n == 64);
}

static _Atomic(emu_stream_capture_fn) capture_fn;

void emu_stream_set_capture(emu_stream_capture_fn fn)
{
    atomic_store_explicit(&capture_fn, fn, memory_order_release);
}

emu_status emu_stream_submit(struct emu_hstream *s, struct emu_wire_task *w)
{
    struct emu_hdev *d = s->d;
    struct emu_sq *sq = &d->ctl->sq;
    emu_status st = emu_device_check(d);

    if (st != EMU_OK)
        return st;
    /* What the stream owes goes first (stream_owed.h). */
    if ((st = emu_stream_settle(d, s->slot)) != EMU_OK)
        return st;
    /* A capturing stream records the task in its graph instead (acl_graph.c). */
    emu_stream_capture_fn capture = atomic_load_explicit(&capture_fn, memory_order_acquire);
    bool captured = false;
    if (capture != NULL && ((st = capture(s, w, &captured)) != EMU_OK || captured))
        return st;
    w->stream = s->slot;
    w->stream_gen = s->gen;
    w->model_after = emu_model_time_after();
    emu_devctl_lock(&sq->lock);
    for (;;) {
        /* Pairs with the executor's release store of `head` after intake. */
        uint32_t head = emu_load_acquire(&sq->head);
        uint32_t tail = emu_load_relaxed(&sq->tail);
        if (tail - head < EMU_SQ_DEPTH)
            break;
        emu_fetch_add_acq_rel(&sq->space_waiters, 1);
        emu_devctl_unlock(&sq->lock);
        emu_devctl_ring(d->ctl);
        st = emu_device_wait(d, &sq->head, head, emu_os_deadline_ms(-1));
        emu_fetch_sub_acq_rel(&sq->space_waiters, 1);
        if (st != EMU_OK)
            return st;
        emu_devctl_lock(&sq->lock);
    }
    uint32_t tail = emu_load_relaxed(&sq->tail);
    sq->ring[tail % EMU_SQ_DEPTH] = *w;
    struct emu_stream_ctl *sc = &d->ctl->streams[s->slot];
    uint32_t before = emu_fetch_add_relaxed(&sc->submitted, 1);
    /* Pairs with the executor's acquire load of `tail` in intake(). */
    emu_store_release(&sq->tail, tail + 1);
    emu_devctl_unlock(&sq->lock);
    /* A stream with an earlier task not yet retired needs no ring: the worker that retires
     * that task loops and takes in the ring before it may sleep (sched.c, worker_main). A
     * host running ahead of its device (a loop of launches) then wakes nobody per launch.
     * Sequentially consistent with that worker's retirement then fence then look at `tail`:
     * either it sees our entry or we see the stream drained and ring. */
    atomic_thread_fence(memory_order_seq_cst);
    if ((int32_t)(before - emu_load_acquire(&sc->completed)) <= 0)
        emu_devctl_ring(d->ctl);
    return EMU_OK;
}

void emu_stream_note_use(struct emu_hstream *s, uint64_t addr)
{
    uint32_t seq = emu_load_relaxed(&s->d->ctl->streams[s->slot].submitted);

    pthread_mutex_lock(&s->use_lock);
    s->uses[s->n_uses++ % EMU_STREAM_USES] = (struct emu_stream_use){addr, seq};
    pthread_mutex_unlock(&s->use_lock);
}

static bool stream_uses(struct emu_hstream *s, uint64_t addr)
{
    uint32_t done = emu_load_acquire(&s->d->ctl->streams[s->slot].completed);
    uint32_t n = s->n_uses < EMU_STREAM_USES ? s->n_uses : EMU_STREAM_USES;
    bool busy = false;

    pthread_mutex_lock(&s->use_lock);
    for (uint32_t i = 0; i < n && !busy; i++)
        busy = s->uses[i].addr == addr && (int32_t)(s->uses[i].seq - done) > 0;
    pthread_mutex_unlock(&s->use_lock);
    return busy;
}

struct busy_query {
    uint64_t addr;
    bool busy;
};

static bool busy_cb(struct emu_registry_entry *e, void *arg)
{
    struct emu_hstream *p = (struct emu_hstream *)e;
    struct busy_query *q = arg;

    if (!q->busy && p->d->ctl != NULL && !p->d->failed)
        q->busy = stream_uses(p, q->addr);
    return false;
}

bool emu_stream_memory_busy(uint64_t addr)
{
    struct busy_query q = {addr, false};

    emu_registry_visit(EMU_REG_STREAM, busy_cb, &q);
    return q.busy;
}

/* Spin up to SYNC_SPIN_NS for `completed` to reach `target` while the job has a free core
 * (common/platform/spin.h): a short kernel's last record then reaches this thread as a memory write,
 * and the executor's retirement needs no futex wake (we are not in `waiters`). The workers
 * running the stream's tasks are the critical path, not this thread: it gives its core way
 * as soon as they need it (emu_spin_must_yield) and sleeps. */
#define SYNC_SPIN_NS 50000u

static bool reached(struct emu_stream_ctl *sc, uint32_t target)
{
    return (int32_t)(emu_load_acquire(&sc->completed) - target) >= 0;
}

static void sync_spin(struct emu_stream_ctl *sc, uint32_t target, uint64_t deadline)
{
    if (emu_spin_begin(NULL)) {
        uint64_t until = emu_os_now_ns() + SYNC_SPIN_NS;
        while (!reached(sc, target) && emu_os_now_ns() < until && !emu_spin_must_yield())
            emu_cpu_relax();
        emu_spin_end(NULL);
    }
    /* Then poll, yielding the core between looks (HCEMU_POLL_US): still outside `waiters`,
     * so the retirement of the last task is a memory write this thread sees at its next
     * turn, not a futex wake the executor makes and the scheduler serves a slice later. */
    uint64_t end = reached(sc, target) ? 0 : emu_spin_poll_end(deadline);
    while (end != 0 && !reached(sc, target) &&
           emu_spin_poll(&sc->completed, emu_load_acquire(&sc->completed), end))
        ;
}

emu_status emu_stream_sync(struct emu_hstream *s, uint64_t deadline)
{
    struct emu_hdev *d = s->d;
    struct emu_stream_ctl *sc;
    emu_status st = emu_device_check(d);

    if (st != EMU_OK)
        return st;
    /* A collective's owed wait is part of what the caller waits for (stream_owed.h). */
    if ((st = emu_stream_settle(d, s->slot)) != EMU_OK)
        return st;
    sc = &d->ctl->streams[s->slot];
    uint32_t target = emu_load_acquire(&sc->submitted);
    sync_spin(sc, target, deadline);
    st = emu_stream_wait_retired(s, target, deadline);
    if (st == EMU_ETIMEOUT)
        return EMU_ESYNC_TIMEOUT;
    if (st != EMU_OK)
        return st;
    int32_t err = atomic_exchange(&sc->error, 0);
    emu_model_time_synced(d->id, s->slot, 0, 0); /* HCEMU_TIME=model: what the host waited for */
    emu_model_time_note(d->id, s->slot); /* HCEMU_TIME=model: summary and trace */
    return (emu_status)err;
}

emu_status emu_stream_wait_retired(struct emu_hstream *s, uint32_t target, uint64_t deadline)
{
    struct emu_stream_ctl *sc = &s->d->ctl->streams[s->slot];

    for (;;) {
        /* Pairs with the release add of `completed` in the executor's account(). */
        uint32_t done = emu_load_acquire(&sc->completed);
        if ((int32_t)(done - target) >= 0)
            return EMU_OK;
        /* Woken only once `completed` reaches target (or at the liveness slice), not at each
         * retirement before it. */
        emu_stream_ctl_want(sc, target);
        emu_fetch_add_acq_rel(&sc->waiters, 1);
        emu_status st = emu_device_wait(s->d, &sc->completed, done, deadline);
        emu_fetch_sub_acq_rel(&sc->waiters, 1);
        if (st != EMU_OK)
            return st;
    }
}

void emu_stream_drain(struct emu_hstream *s)
{
    /* The tasks' errors are the synchronisation's to report; here only the wait matters. */
    if (emu_stream_sync(s, UINT64_MAX) != EMU_OK)
        EMU_LOG_DEBUG("stream %u of device %u ended with an error", s->slot, s->dev);
}

struct device_streams {
    struct emu_hdev *d;
    uint32_t n;
    struct emu_hstream *list[EMU_MAX_STREAMS];
};

static bool collect_cb(struct emu_registry_entry *e, void *arg)
{
    struct emu_hstream *s = (struct emu_hstream *)e;
    struct device_streams *ds = arg;

    if (s->d == ds->d && ds->n < EMU_MAX_STREAMS)
        ds->list[ds->n++] = s;
    return false;
}

emu_status emu_stream_sync_device(struct emu_hdev *d)
{
    struct device_streams *ds = calloc(1, sizeof(*ds));
    emu_status first = EMU_OK;

    if (ds == NULL)
        return EMU_ENOMEM;
    ds->d = d;
    emu_registry_visit(EMU_REG_STREAM, collect_cb, ds);
    for (uint32_t i = 0; i < ds->n; i++) {
        emu_status st = emu_stream_sync(ds->list[i], UINT64_MAX);
        if (first == EMU_OK)
            first = st;
    }
    free(ds);
    return first;
}

void emu_stream_drain_device(struct emu_hdev *d)
{
    if (emu_stream_sync_device(d) != EMU_OK)
        EMU_LOG_DEBUG("device %u: a stream ended with an error", d->id);
}

bool emu_stream_lookup(void *user, struct emu_hstream **out)
{
    if (!emu_registry_has(user, EMU_REG_STREAM))
        return false;
    *out = user;
    return true;
}
