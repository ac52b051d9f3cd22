/* stream.c - host streams.
 *
 * Submission: take the ring lock, wait for space if the ring is full, write the entry,
 * publish the tail, count it on the stream, ring the doorbell. Synchronisation: wait until
 * the stream's `completed` reaches the count seen at entry (futex, with liveness checks). */
#include "stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/atomic.h"
#include "common/log.h"
#include "common/os.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_hstream *reg_head;

emu_status emu_stream_create(struct emu_hdev *d, bool is_default, struct emu_hstream **out)
{
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
    }
    emu_devctl_unlock(&d->ctl->res_lock);
    if (slot == UINT32_MAX) {
        EMU_LOG_ERR("device %u: no stream left (%u in use)", d->id, EMU_MAX_STREAMS);
        free(s);
        return EMU_EUNAVAIL;
    }
    s->magic = EMU_STREAM_MAGIC;
    s->dev = d->id;
    s->d = d;
    s->slot = slot;
    s->gen = d->ctl->streams[slot].gen;
    s->is_default = is_default;
    pthread_mutex_init(&s->use_lock, NULL);
    pthread_mutex_lock(&reg_lock);
    s->next = reg_head;
    reg_head = s;
    pthread_mutex_unlock(&reg_lock);
    *out = s;
    return EMU_OK;
}

static bool unregister(struct emu_hstream *s)
{
    bool found = false;

    pthread_mutex_lock(&reg_lock);
    for (struct emu_hstream **p = &reg_head; *p != NULL; p = &(*p)->next) {
        if (*p == s) {
            *p = s->next;
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&reg_lock);
    return found;
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

emu_status emu_stream_destroy(struct emu_hstream *s)
{
    /* Destroy waits for the stream's tasks; their errors were the synchronisation's to
     * report, so they do not fail the destroy. */
    emu_status ignored = emu_stream_sync(s, UINT64_MAX);
    (void)ignored;
    if (!unregister(s))
        return EMU_ESTREAM;
    release_slot(s);
    s->magic = 0;
    free(s);
    return EMU_OK;
}

emu_status emu_stream_resolve(void *user, struct emu_hstream **out)
{
    struct emu_hdev *d;
    emu_status st;

    if (user == NULL) {
        if ((st = emu_runtime_current(&d)) != EMU_OK)
            return st;
        if (d->default_stream == NULL) {
            EMU_LOG_ERR("device %u has no default stream (aclrtSetDevice first)", d->id);
            return EMU_ENODEVICE;
        }
        *out = d->default_stream;
        return EMU_OK;
    }
    bool found = false;
    pthread_mutex_lock(&reg_lock);
    for (struct emu_hstream *p = reg_head; p != NULL; p = p->next)
        if (p == user)
            found = true;
    pthread_mutex_unlock(&reg_lock);
    if (!found) {
        EMU_LOG_ERR("stream %p is not a live stream (destroyed, or never created)", user);
        return EMU_ESTREAM;
    }
    *out = user;
    return emu_hdev_check(((struct emu_hstream *)user)->d);
}

emu_status emu_stream_submit(struct emu_hstream *s, struct emu_wire_task *w)
{
    struct emu_hdev *d = s->d;
    struct emu_sq *sq = &d->ctl->sq;
    emu_status st = emu_hdev_check(d);

    if (st != EMU_OK)
        return st;
    w->stream = s->slot;
    w->stream_gen = s->gen;
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
        st = emu_hdev_wait(d, &sq->head, head, emu_deadline_ms(-1));
        emu_fetch_sub_acq_rel(&sq->space_waiters, 1);
        if (st != EMU_OK)
            return st;
        emu_devctl_lock(&sq->lock);
    }
    uint32_t tail = emu_load_relaxed(&sq->tail);
    sq->ring[tail % EMU_SQ_DEPTH] = *w;
    emu_fetch_add_relaxed(&d->ctl->streams[s->slot].submitted, 1);
    /* Pairs with the executor's acquire load of `tail` in intake(). */
    emu_store_release(&sq->tail, tail + 1);
    emu_devctl_unlock(&sq->lock);
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

bool emu_stream_memory_busy(uint64_t addr)
{
    bool busy = false;

    pthread_mutex_lock(&reg_lock);
    for (struct emu_hstream *p = reg_head; p != NULL && !busy; p = p->next)
        if (p->d->ctl != NULL && !p->d->failed)
            busy = stream_uses(p, addr);
    pthread_mutex_unlock(&reg_lock);
    return busy;
}

emu_status emu_stream_sync(struct emu_hstream *s, uint64_t deadline)
{
    struct emu_hdev *d = s->d;
    struct emu_stream_ctl *sc;
    emu_status st = emu_hdev_check(d);

    if (st != EMU_OK)
        return st;
    sc = &d->ctl->streams[s->slot];
    uint32_t target = emu_load_acquire(&sc->submitted);
    for (;;) {
        /* Pairs with the release add of `completed` in the executor's account(). */
        uint32_t done = emu_load_acquire(&sc->completed);
        if ((int32_t)(done - target) >= 0)
            break;
        emu_fetch_add_acq_rel(&sc->waiters, 1);
        st = emu_hdev_wait(d, &sc->completed, done, deadline);
        emu_fetch_sub_acq_rel(&sc->waiters, 1);
        if (st == EMU_ETIMEOUT)
            return EMU_ESYNC_TIMEOUT;
        if (st != EMU_OK)
            return st;
    }
    int32_t err = atomic_exchange(&sc->error, 0);
    return (emu_status)err;
}

emu_status emu_stream_sync_device(struct emu_hdev *d)
{
    struct emu_hstream *list[EMU_MAX_STREAMS];
    uint32_t n = 0;
    emu_status first = EMU_OK;

    pthread_mutex_lock(&reg_lock);
    for (struct emu_hstream *p = reg_head; p != NULL && n < EMU_MAX_STREAMS; p = p->next)
        if (p->d == d)
            list[n++] = p;
    pthread_mutex_unlock(&reg_lock);
    for (uint32_t i = 0; i < n; i++) {
        emu_status st = emu_stream_sync(list[i], UINT64_MAX);
        if (first == EMU_OK)
            first = st;
    }
    return first;
}

void emu_stream_forget_device(struct emu_hdev *d)
{
    pthread_mutex_lock(&reg_lock);
    for (struct emu_hstream **p = &reg_head; *p != NULL;) {
        struct emu_hstream *s = *p;
        if (s->d == d) {
            *p = s->next;
            s->magic = 0;
            free(s);
        } else {
            p = &s->next;
        }
    }
    pthread_mutex_unlock(&reg_lock);
}

bool emu_stream_lookup(void *user, struct emu_hstream **out)
{
    bool found = false;

    pthread_mutex_lock(&reg_lock);
    for (struct emu_hstream *p = reg_head; p != NULL && !found; p = p->next)
        found = p == user;
    pthread_mutex_unlock(&reg_lock);
    if (found)
        *out = user;
    return found;
}
