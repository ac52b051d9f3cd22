/* stream_owed.c - the table of tasks streams owe (see stream_owed.h); stream.c queues them. */
#include "stream_owed.h"

#include <pthread.h>

#include "common/contract/layout.h"
#include "common/platform/atomic.h"

/* Streams of a device that owe something at once; each owes at most EMU_STREAM_OWED_MAX
 * tasks, as many as a loop of calls keeps owed on its stream (host/coll/coll_launch.c). */
#define OWING_STREAMS 4u

/* What one stream owes, oldest at `first`: a ring. */
struct owing {
    uint32_t slot, n, first;
    struct emu_stream_owed o[EMU_STREAM_OWED_MAX];
};

struct device_debts {
    _Atomic uint32_t n; /* tasks owed on the device: a submission reads it without the lock */
    struct owing s[OWING_STREAMS];
};

/* One lock for every device: it is taken only while some stream owes something. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct device_debts debts[EMU_MAX_DEVICES];

/* What stream `slot` of `dev` owes (NULL: nothing, or `dev` out of range); with `make`, a
 * free entry for it when it owes nothing yet (NULL when none is free). Locked. */
static struct owing *find(uint32_t dev, uint32_t slot, bool make)
{
    struct owing *free_one = NULL;

    if (dev >= EMU_MAX_DEVICES)
        return NULL;
    for (uint32_t i = 0; i < OWING_STREAMS; i++) {
        struct owing *w = &debts[dev].s[i];
        if (w->n > 0 && w->slot == slot)
            return w;
        if (w->n == 0 && free_one == NULL)
            free_one = w;
    }
    if (!make || free_one == NULL)
        return NULL;
    *free_one = (struct owing){.slot = slot};
    return free_one;
}

static bool none_owed(uint32_t dev)
{
    return dev >= EMU_MAX_DEVICES || emu_load_relaxed(&debts[dev].n) == 0;
}

bool emu_stream_owe(uint32_t dev, uint32_t slot, const struct emu_stream_owed *o)
{
    bool kept = false;

    pthread_mutex_lock(&lock);
    struct owing *w = find(dev, slot, true);
    if (w != NULL && w->n < EMU_STREAM_OWED_MAX) {
        w->o[(w->first + w->n++) % EMU_STREAM_OWED_MAX] = *o;
        emu_fetch_add_relaxed(&debts[dev].n, 1);
        kept = true;
    }
    pthread_mutex_unlock(&lock);
    return kept;
}

uint32_t emu_stream_owed(uint32_t dev, uint32_t slot, struct emu_stream_owed *latest)
{
    uint32_t n = 0;

    if (none_owed(dev))
        return 0; /* the common case: one load, no lock */
    pthread_mutex_lock(&lock);
    struct owing *w = find(dev, slot, false);
    if (w != NULL) {
        n = w->n;
        if (latest != NULL)
            *latest = w->o[(w->first + n - 1) % EMU_STREAM_OWED_MAX];
    }
    pthread_mutex_unlock(&lock);
    return n;
}

bool emu_stream_owed_take(uint32_t dev, uint32_t slot, struct emu_stream_owed *o)
{
    if (none_owed(dev))
        return false;
    pthread_mutex_lock(&lock);
    struct owing *w = find(dev, slot, false);
    if (w != NULL) {
        *o = w->o[w->first];
        w->first = (w->first + 1) % EMU_STREAM_OWED_MAX;
        w->n--;
        emu_fetch_sub_acq_rel(&debts[dev].n, 1);
    }
    pthread_mutex_unlock(&lock);
    return w != NULL;
}

uint32_t emu_stream_owed_by(const void *owner, uint32_t *devs, uint32_t *slots, uint32_t cap)
{
    uint32_t n = 0;

    for (uint32_t dev = 0; dev < EMU_MAX_DEVICES; dev++) {
        if (none_owed(dev))
            continue;
        pthread_mutex_lock(&lock);
        for (uint32_t i = 0; i < OWING_STREAMS && n < cap; i++) {
            const struct owing *w = &debts[dev].s[i];
            /* A stream owes one owner's tasks at a time (coll_launch.c settles before
             * another's), so its oldest names them all. */
            if (w->n > 0 && w->o[w->first].owner == owner) {
                devs[n] = dev;
                slots[n++] = w->slot;
            }
        }
        pthread_mutex_unlock(&lock);
    }
    return n;
}
