/* notify_pool.c - see notify_pool.h. */
#include "notify_pool.h"

#include <string.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"

emu_status emu_notify_pool_alloc(struct emu_hdev *d, uint32_t n, uint32_t *base)
{
    struct emu_range r;
    emu_status s;

    emu_devctl_lock(&d->ctl->res_lock);
    s = emu_range_alloc(&d->ctl->notify_ranges.set, d->ctl->notify_ranges.recs, n, 1, 1,
                        EMU_ALLOC_NOTIFY, &r);
    emu_devctl_unlock(&d->ctl->res_lock);
    if (s != EMU_OK) {
        EMU_LOG_ERR("device %u: no room for %u more notifies (%llu of %u in use)", d->id, n,
                    (unsigned long long)d->ctl->notify_ranges.set.used, EMU_MAX_NOTIFIES);
        return EMU_EUNAVAIL;
    }
    for (uint32_t i = 0; i < n; i++) {
        struct emu_notify_slot *sl = &d->ctl->notifies[r.off + i];
        emu_store_relaxed(&sl->value, 0);
        emu_store_relaxed(&sl->records, 0);
        emu_store_relaxed(&sl->absorbed, 0);
        emu_store_relaxed(&sl->lost, 0);
        sl->last_recorder = 0;
    }
    *base = (uint32_t)r.off;
    return EMU_OK;
}

void emu_notify_pool_free(struct emu_hdev *d, uint32_t base)
{
    if (d->ctl == NULL)
        return;
    emu_devctl_lock(&d->ctl->res_lock);
    int i = emu_range_find(&d->ctl->notify_ranges.set, d->ctl->notify_ranges.recs, base);
    if (i >= 0 && d->ctl->notify_ranges.recs[i].off == base)
        emu_range_remove(&d->ctl->notify_ranges.set, d->ctl->notify_ranges.recs, i);
    emu_devctl_unlock(&d->ctl->res_lock);
}
