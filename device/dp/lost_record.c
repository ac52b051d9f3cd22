/* lost_record.c - marks for notify records discarded with a failed thread (lost_record.h). */
#include "lost_record.h"

#include <stdio.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "dp.h"
#include "device/exec.h"

/* The mark: the recorder's status (8 bits), stream (12) and device (8); 0 = none. */
_Static_assert(EMU_STATUS_COUNT <= 256 && EMU_MAX_STREAMS <= 4096 && EMU_MAX_DEVICES <= 256,
               "a lost record's mark fits in 32 bits");

static uint32_t mark_of(emu_status st, uint32_t dev, uint32_t stream)
{
    return (uint32_t)st | stream << 8 | dev << 20;
}

static void forget(struct emu_devctl *ctl, uint32_t slot)
{
    if (slot < EMU_MAX_NOTIFIES && emu_load_relaxed(&ctl->notifies[slot].lost) != 0)
        emu_store_relaxed(&ctl->notifies[slot].lost, 0);
}

/* Free hook: t->status is set on a task that did not complete (it failed, or the scheduler
 * discarded it behind a failure). */
static void on_free(struct emu_task *t)
{
    if (t->status == EMU_OK)
        return;
    if (t->kind == EMU_TASK_NOTIFY_WAIT) { /* a host stream's wait, discarded */
        forget(emu_exec_ctl(), t->u.wire.u.wait.slot);
        return;
    }
    uint32_t f = emu_dp_kinds_flags(t->kind);
    struct emu_dp_op *o = emu_dp_op_of(t);
    /* Runtime notifies (aclrtNotify) are the user's, and the network's records the peer's. */
    if (f == 0 || o->notify_slot == EMU_DP_NONE || o->net || t->kind == EMU_DP_ACL_RECORD ||
        t->kind == EMU_DP_ACL_WAIT)
        return;
    if (f & EMU_DPF_WAIT) {
        forget(o->notify_ctl, o->notify_slot);
        return;
    }
    if (!(f & EMU_DPF_RECORD))
        return;
    emu_status why = t->status == EMU_EREMOTE ? EMU_EREMOTE : EMU_ETASK_FAIL;
    /* Sequentially consistent: a runner republishing a wait on this slot (runq.c) either
     * sees the mark or is seen as PUBLISHED by the scan this ring causes. */
    atomic_store(&o->notify_ctl->notifies[o->notify_slot].lost,
                 mark_of(why, emu_exec_g.dev, t->stream));
    emu_devctl_ring(o->notify_ctl); /* a parked waiter looks again */
}

void emu_lost_record_init(void)
{
    if (emu_task_on_free(on_free) != EMU_OK)
        EMU_LOG_WARN("lost records: no free hook; a wait on a failed thread's record ends at "
                     "its timeout");
}

bool emu_lost_record_take(struct emu_devctl *ctl, uint32_t slot, char *note, size_t len,
                          emu_status *st)
{
    _Atomic uint32_t *m = &ctl->notifies[slot].lost;

    if (emu_load_relaxed(m) == 0)
        return false;
    uint32_t v = emu_exchange_acq_rel(m, 0);
    if (v == 0)
        return false;
    *st = (emu_status)(v & 0xffu);
    uint32_t stream = (v >> 8) & 0xfffu, dev = v >> 20;
    if (dev == emu_exec_g.dev) {
        const struct emu_stream_ctl *s = &emu_exec_ctl()->streams[stream];
        snprintf(note, len,
                 "notify slot %u will never be recorded: rank %u thread %u (dev %u "
                 "stream %u), which had its record queued, failed (%s)",
                 slot, s->rank, s->thread_index, dev, stream, emu_status_str(*st));
    } else {
        snprintf(note, len,
                 "notify slot %u will never be recorded: dev %u stream %u, which had "
                 "its record queued, failed (%s)",
                 slot, dev, stream, emu_status_str(*st));
    }
    return true;
}

static void forget_range(struct emu_devctl *ctl, uint32_t base, uint32_t n)
{
    for (uint32_t i = 0; i < n && base + i < EMU_MAX_NOTIFIES; i++)
        forget(ctl, base + i);
}

void emu_lost_record_forget(struct emu_devctl *ctl, uint32_t rank, uint32_t base, uint32_t n)
{
    forget_range(ctl, base, n);
    /* Only on the way out of a failure, so scanning the table costs nothing in the steady
     * state; a channel of another communicator with the same rank loses at most a mark,
     * and its wait falls back to its timeout. */
    for (uint32_t c = 0; c < EMU_MAX_CHANNELS; c++) {
        const struct emu_channel_ctl *ch = &ctl->channels[c];
        if (emu_load_acquire(&ch->state) == 1 && ch->local_rank == rank)
            forget_range(ctl, ch->local_notify_base, ch->notify_num);
    }
}
