/* event.c - events capture "work queued so far" as a sequence number published by a record
 * task; waits compare against the number captured when they were queued. ACL notifies are
 * binary slots, like thread notifies. */
#include "event.h"

#include <stdlib.h>
#include <string.h>

#include "common/atomic.h"
#include "common/log.h"
#include "common/os.h"
#include "notify_pool.h"

#define EVENT_MAGIC 0x45564e54u
#define NOTIFY_MAGIC 0x4e544659u

struct emu_event {
    uint32_t magic;
    struct emu_hdev *d;
    uint32_t slot;
    _Atomic uint32_t seq;       /* records queued so far */
    _Atomic uint64_t wait_mask; /* devices with streams that waited on it */
    struct emu_event *next;
};

struct emu_acl_notify {
    uint32_t magic;
    struct emu_hdev *d;
    uint32_t slot;
    struct emu_acl_notify *next;
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_event *events;
static struct emu_acl_notify *notifies;

emu_status emu_event_create(struct emu_hdev *d, struct emu_event **out)
{
    struct emu_event *e = calloc(1, sizeof(*e));
    emu_status s;

    if (e == NULL)
        return EMU_ENOMEM;
    if ((s = emu_notify_alloc(d, 1, &e->slot)) != EMU_OK) {
        free(e);
        return s;
    }
    e->magic = EVENT_MAGIC;
    e->d = d;
    pthread_mutex_lock(&reg_lock);
    e->next = events;
    events = e;
    pthread_mutex_unlock(&reg_lock);
    *out = e;
    return EMU_OK;
}

emu_status emu_event_check(void *user, struct emu_event **out)
{
    emu_status s = EMU_EHANDLE;

    pthread_mutex_lock(&reg_lock);
    for (struct emu_event *e = events; e != NULL; e = e->next)
        if (e == user) {
            *out = e;
            s = EMU_OK;
        }
    pthread_mutex_unlock(&reg_lock);
    if (s != EMU_OK)
        EMU_LOG_ERR("event %p is not a live event", user);
    return s;
}

emu_status emu_event_record(struct emu_event *e, struct emu_hstream *s, uint64_t callsite)
{
    struct emu_wire_task w;

    memset(&w, 0, sizeof(w));
    w.kind = EMU_TASK_EVENT_RECORD;
    w.callsite = callsite;
    w.u.event.dev = e->d->id;
    w.u.event.slot = e->slot;
    w.u.event.seq = emu_fetch_add_acq_rel(&e->seq, 1) + 1;
    w.u.event.ring_mask = emu_load_acquire(&e->wait_mask);
    return emu_stream_submit(s, &w);
}

emu_status emu_event_wait(struct emu_hstream *s, struct emu_event *e, uint64_t callsite)
{
    struct emu_wire_task w;
    uint32_t seq = emu_load_acquire(&e->seq);

    if (seq == 0)
        return EMU_OK; /* nothing recorded yet: nothing to wait for */
    emu_fetch_or_acq_rel(&e->wait_mask, 1ull << s->dev);
    memset(&w, 0, sizeof(w));
    w.kind = EMU_TASK_EVENT_WAIT;
    w.callsite = callsite;
    w.u.event.dev = e->d->id;
    w.u.event.slot = e->slot;
    w.u.event.seq = seq;
    return emu_stream_submit(s, &w);
}

emu_status emu_event_sync(struct emu_event *e)
{
    uint32_t target = emu_load_acquire(&e->seq);
    _Atomic uint32_t *v = &e->d->ctl->notifies[e->slot].value;

    for (;;) {
        /* Pairs with the release store in the executor's event record. */
        uint32_t now = emu_load_acquire(v);
        if ((int32_t)(now - target) >= 0)
            return EMU_OK;
        emu_status s = emu_hdev_wait(e->d, v, now, UINT64_MAX);
        if (s != EMU_OK)
            return s;
    }
}

emu_status emu_event_destroy(struct emu_event *e)
{
    pthread_mutex_lock(&reg_lock);
    for (struct emu_event **p = &events; *p != NULL; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    pthread_mutex_unlock(&reg_lock);
    /* Destroying before completion is allowed; the slot stays reserved until the device is
     * reset so a pending record never lands in a reused slot. */
    e->magic = 0;
    free(e);
    return EMU_OK;
}

emu_status emu_acl_notify_create(struct emu_hdev *d, struct emu_acl_notify **out)
{
    struct emu_acl_notify *n = calloc(1, sizeof(*n));
    emu_status s;

    if (n == NULL)
        return EMU_ENOMEM;
    if ((s = emu_notify_alloc(d, 1, &n->slot)) != EMU_OK) {
        free(n);
        return s;
    }
    n->magic = NOTIFY_MAGIC;
    n->d = d;
    pthread_mutex_lock(&reg_lock);
    n->next = notifies;
    notifies = n;
    pthread_mutex_unlock(&reg_lock);
    *out = n;
    return EMU_OK;
}

emu_status emu_acl_notify_check(void *user, struct emu_acl_notify **out)
{
    emu_status s = EMU_EHANDLE;

    pthread_mutex_lock(&reg_lock);
    for (struct emu_acl_notify *n = notifies; n != NULL; n = n->next)
        if (n == user) {
            *out = n;
            s = EMU_OK;
        }
    pthread_mutex_unlock(&reg_lock);
    if (s != EMU_OK)
        EMU_LOG_ERR("notify %p is not a live notify", user);
    return s;
}

emu_status emu_acl_notify_destroy(struct emu_acl_notify *n)
{
    pthread_mutex_lock(&reg_lock);
    for (struct emu_acl_notify **p = &notifies; *p != NULL; p = &(*p)->next)
        if (*p == n) {
            *p = n->next;
            break;
        }
    pthread_mutex_unlock(&reg_lock);
    emu_notify_free(n->d, n->slot);
    n->magic = 0;
    free(n);
    return EMU_OK;
}

emu_status emu_acl_notify_record(struct emu_acl_notify *n, struct emu_hstream *s, uint64_t cs)
{
    struct emu_wire_task w;

    memset(&w, 0, sizeof(w));
    w.kind = EMU_TASK_NOTIFY_RECORD;
    w.callsite = cs;
    w.u.notify.dev = n->d->id;
    w.u.notify.slot = n->slot;
    return emu_stream_submit(s, &w);
}

emu_status emu_acl_notify_wait(struct emu_acl_notify *n, struct emu_hstream *s, uint32_t timeout_s,
                               uint64_t cs)
{
    struct emu_wire_task w;

    if (s->dev != n->d->id) {
        EMU_LOG_ERR("aclrtWaitAndResetNotify: the notify belongs to device %u, the stream to "
                    "device %u",
                    n->d->id, s->dev);
        return EMU_EINVAL;
    }
    memset(&w, 0, sizeof(w));
    w.kind = EMU_TASK_NOTIFY_WAIT;
    w.callsite = cs;
    w.u.wait.slot = n->slot;
    w.u.wait.timeout_s = timeout_s;
    return emu_stream_submit(s, &w);
}

uint32_t emu_acl_notify_id(const struct emu_acl_notify *n)
{
    return (n->d->id << 24) | n->slot;
}

void emu_event_forget_device(struct emu_hdev *d)
{
    pthread_mutex_lock(&reg_lock);
    for (struct emu_event **p = &events; *p != NULL;) {
        struct emu_event *e = *p;
        if (e->d == d) {
            *p = e->next;
            e->magic = 0;
            free(e);
        } else {
            p = &e->next;
        }
    }
    for (struct emu_acl_notify **p = &notifies; *p != NULL;) {
        struct emu_acl_notify *n = *p;
        if (n->d == d) {
            *p = n->next;
            n->magic = 0;
            free(n);
        } else {
            p = &n->next;
        }
    }
    pthread_mutex_unlock(&reg_lock);
}
