/* event.c - events capture "work queued so far" as a sequence number published by a record
 * task; waits compare against the number captured when they were queued. */
#include "event.h"

#include <stdlib.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/platform/spin.h"
#include "device.h"
#include "model_time.h"
#include "notify_pool.h"
#include "registry.h"

struct emu_event {
    struct emu_registry_entry reg; /* first: the user's aclrtEvent points here */
    struct emu_hdev *d;
    uint32_t slot;
    _Atomic uint32_t seq;       /* records queued so far */
    _Atomic uint64_t wait_mask; /* bit d % 64: devices with streams that waited on it */
    _Atomic uint32_t rec_slot;  /* stream slot of the last record + 1 (0: none) */
    bool ex; /* made by aclrtCreateEventExWithFlag: the kind a graph capture accepts */
};

#define SYNC_SLICE_NS 20000000ull /* how often a sync looks at the recording stream's error */

emu_status emu_event_create(struct emu_hdev *d, struct emu_event **out)
{
    struct emu_event *e = calloc(1, sizeof(*e));
    emu_status s;

    if (e == NULL)
        return EMU_ENOMEM;
    if ((s = emu_notify_pool_alloc(d, 1, &e->slot)) != EMU_OK) {
        free(e);
        return s;
    }
    e->d = d;
    emu_registry_add_on(&e->reg, EMU_REG_EVENT, d);
    *out = e;
    return EMU_OK;
}

emu_status emu_event_check(void *user, struct emu_event **out)
{
    void *obj;
    emu_status s = emu_registry_check(user, EMU_REG_EVENT, &obj);

    if (s == EMU_OK)
        *out = obj;
    return s;
}

void emu_event_mark_ex(struct emu_event *e)
{
    e->ex = true;
}

bool emu_event_is_ex(const struct emu_event *e)
{
    return e->ex;
}

bool emu_event_recorded(struct emu_event *e)
{
    return emu_load_acquire(&e->seq) != 0;
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
    emu_store_release(&e->rec_slot, s->slot + 1);
    w.u.event.ring_mask = emu_load_acquire(&e->wait_mask);
    return emu_stream_submit(s, &w);
}

emu_status emu_event_wait(struct emu_hstream *s, struct emu_event *e, uint64_t callsite)
{
    struct emu_wire_task w;
    uint32_t seq = emu_load_acquire(&e->seq);

    if (seq == 0)
        return EMU_OK; /* nothing recorded yet: nothing to wait for */
    emu_fetch_or_acq_rel(&e->wait_mask, 1ull << (s->dev % 64u));
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

    uint32_t rec = emu_load_acquire(&e->rec_slot);
    /* Poll a while first, yielding the core between looks (HCEMU_POLL_US, common/platform/spin.h):
     * the record is then seen at this thread's next turn instead of after a wake-up. */
    uint64_t end = emu_spin_poll_end(UINT64_MAX);

    for (;;) {
        /* Pairs with the release store in the executor's event record. */
        uint32_t now = emu_load_acquire(v);
        if ((int32_t)(now - target) >= 0) {
            emu_model_time_synced(e->d->id, e->slot, true, target); /* HCEMU_TIME=model */
            return EMU_OK;
        }
        /* The recording stream failed: its record was discarded with the rest of its queue
         * and will never come (e.g. a kernel whose peer's host died). The stream keeps its
         * error for its own synchronisation. */
        int32_t err = rec != 0 ? emu_load_acquire(&e->d->ctl->streams[rec - 1].error) : 0;
        if (err != 0)
            return (emu_status)err;
        if (end != 0 && emu_spin_poll(v, now, end))
            continue;
        end = 0;
        emu_status s = emu_device_wait(e->d, v, now, emu_os_now_ns() + SYNC_SLICE_NS);
        if (s != EMU_OK && s != EMU_ETIMEOUT)
            return s;
    }
}

/* Time of e's last record (the executor's stamp), in seconds; its record number in *seq. */
static emu_status record_time(struct emu_event *e, double *t, uint32_t *seq)
{
    emu_status s;

    *seq = emu_load_acquire(&e->seq);
    if (*seq == 0) {
        EMU_LOG_ERR("aclrtEventElapsedTime: event %p was never recorded", (void *)e);
        return EMU_EINVAL;
    }
    if ((s = emu_event_sync(e)) != EMU_OK)
        return s;
    *t = (double)emu_load_relaxed(&e->d->ctl->notifies[e->slot].stamp_ns) * 1e-9;
    return EMU_OK;
}

emu_status emu_event_elapsed(struct emu_event *start, struct emu_event *end, float *ms)
{
    double t[2];
    uint32_t seq[2];
    emu_status s;

    if ((s = record_time(start, &t[0], &seq[0])) != EMU_OK ||
        (s = record_time(end, &t[1], &seq[1])) != EMU_OK)
        return s;
    if (emu_model_time_on()) {
        /* Both from one simulation, after both synchronisations: one past for the pair. */
        const struct emu_model_event_ref ev[2] = {{start->d->id, start->slot, seq[0]},
                                                  {end->d->id, end->slot, seq[1]}};
        if ((s = emu_model_time_events(ev, 2, t)) != EMU_OK)
            return s;
    }
    *ms = (float)((t[1] - t[0]) * 1e3);
    return EMU_OK;
}

void emu_event_destroy(struct emu_event *e)
{
    /* Destroying before completion is allowed; the slot stays reserved until the device is
     * reset so a pending record never lands in a reused slot. */
    if (emu_registry_remove(&e->reg, EMU_REG_EVENT))
        free(e);
}
