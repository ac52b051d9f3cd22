/* stream_owed.c - the table of tasks streams owe (see stream_owed.h); stream.c queues them. */
#include "stream_owed.h"

#include <pthread.h>

#include "common/contract/layout.h"
#include "common/platform/atomic.h"

/* Debts a device keeps at once, all streams together: a few communicators' calls in flight
 * on a stream or two. */
#define OWED_MAX 32u

struct debt {
    bool used;
    uint32_t slot;
    uint64_t seq; /* order of owing: a stream pays its debts oldest first */
    struct emu_stream_owed o;
};

struct device_debts {
    _Atomic uint32_t n; /* debts kept: a submission reads it without the lock */
    uint64_t next_seq;
    struct debt d[OWED_MAX];
};

/* One lock for every device: it is taken only while some stream owes something. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct device_debts debts[EMU_MAX_DEVICES];

static struct device_debts *of(uint32_t dev)
{
    return dev < EMU_MAX_DEVICES ? &debts[dev] : NULL;
}

/* The oldest (or with `newest`, the latest) debt of stream `slot`, NULL if none. Locked. */
static struct debt *find(struct device_debts *dd, uint32_t slot, bool newest, uint32_t *count)
{
    struct debt *best = NULL;
    uint32_t n = 0;

    for (uint32_t i = 0; i < OWED_MAX; i++) {
        struct debt *t = &dd->d[i];
        if (!t->used || t->slot != slot)
            continue;
        n++;
        if (best == NULL || (newest ? t->seq > best->seq : t->seq < best->seq))
            best = t;
    }
    if (count != NULL)
        *count = n;
    return best;
}

bool emu_stream_owe(uint32_t dev, uint32_t slot, const struct emu_stream_owed *o)
{
    struct device_debts *dd = of(dev);
    bool kept = false;

    if (dd == NULL)
        return false;
    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < OWED_MAX && !kept; i++) {
        if (!dd->d[i].used) {
            dd->d[i] = (struct debt){.used = true, .slot = slot, .seq = dd->next_seq++, .o = *o};
            emu_fetch_add_relaxed(&dd->n, 1);
            kept = true;
        }
    }
    pthread_mutex_unlock(&lock);
    return kept;
}

uint32_t emu_stream_owed(uint32_t dev, uint32_t slot, struct emu_stream_owed *latest)
{
    struct device_debts *dd = of(dev);
    uint32_t n = 0;

    if (dd == NULL || emu_load_relaxed(&dd->n) == 0)
        return 0;
    pthread_mutex_lock(&lock);
    struct debt *t = find(dd, slot, true, &n);
    if (t != NULL && latest != NULL)
        *latest = t->o;
    pthread_mutex_unlock(&lock);
    return n;
}

bool emu_stream_owed_take(uint32_t dev, uint32_t slot, struct emu_stream_owed *o)
{
    struct device_debts *dd = of(dev);
    struct debt *t;

    if (dd == NULL || emu_load_relaxed(&dd->n) == 0)
        return false; /* the common case: one load, no lock */
    pthread_mutex_lock(&lock);
    if ((t = find(dd, slot, false, NULL)) != NULL) {
        *o = t->o;
        t->used = false;
        emu_fetch_sub_acq_rel(&dd->n, 1);
    }
    pthread_mutex_unlock(&lock);
    return t != NULL;
}

uint32_t emu_stream_owed_by(const void *owner, uint32_t *devs, uint32_t *slots, uint32_t cap)
{
    uint32_t n = 0;

    for (uint32_t dev = 0; dev < EMU_MAX_DEVICES; dev++) {
        struct device_debts *dd = &debts[dev];
        if (emu_load_relaxed(&dd->n) == 0)
            continue;
        pthread_mutex_lock(&lock);
        for (uint32_t i = 0; i < OWED_MAX && n < cap; i++) {
            if (dd->d[i].used && dd->d[i].o.owner == owner) {
                devs[n] = dev;
                slots[n++] = dd->d[i].slot;
            }
        }
        pthread_mutex_unlock(&lock);
    }
    return n;
}
