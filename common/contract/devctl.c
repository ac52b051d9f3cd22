/* devctl.c - operations on a device's shared control block that every process may run. */
#include "devctl.h"

#include <errno.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "common/platform/os.h"

static emu_status init_mutex(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;

    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    int rc = pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
    return rc == 0 ? EMU_OK : EMU_ESYSCALL;
}

emu_status emu_devctl_init(struct emu_devctl *ctl, uint32_t dev, uint64_t mem_size)
{
    if (init_mutex(&ctl->alloc.lock) != EMU_OK || init_mutex(&ctl->res_lock) != EMU_OK ||
        init_mutex(&ctl->sq.lock) != EMU_OK)
        return EMU_ESYSCALL;
    ctl->magic = EMU_DEVCTL_MAGIC;
    ctl->version = EMU_DEVCTL_VERSION;
    ctl->dev = dev;
    ctl->mem_size = mem_size;
    ctl->alloc.set.cap = EMU_MAX_ALLOCS;
    ctl->alloc.set.limit = mem_size;
    ctl->notify_ranges.set.cap = EMU_MAX_NOTIFY_RANGES;
    ctl->notify_ranges.set.limit = EMU_MAX_NOTIFIES;
    return EMU_OK;
}

void emu_devctl_stream_taken(struct emu_devctl *ctl, uint32_t slot)
{
    /* Callers hold res_lock, so a plain compare and store cannot lose a raise; readers of
     * other processes read it without the lock. */
    if (slot < EMU_MAX_STREAMS && emu_load_relaxed(&ctl->streams_hwm) <= slot)
        emu_store_release(&ctl->streams_hwm, slot + 1);
}

uint32_t emu_devctl_streams_span(const struct emu_devctl *ctl)
{
    uint32_t n = emu_load_acquire(&ctl->streams_hwm);

    return n < EMU_MAX_STREAMS ? n : EMU_MAX_STREAMS;
}

/* `completed` wraps, so "lower" and "reached" are signed distances, as everywhere else. A
 * stale or initial `wake_at` behind every target only wakes a waiter early; it never delays
 * one, and the waiter then lowers it again. */
void emu_stream_ctl_want(struct emu_stream_ctl *sc, uint32_t target)
{
    uint32_t w = emu_load_relaxed(&sc->wake_at);

    /* Ordered before the caller's count in `waiters` (its read-modify-write), which the
     * executor reads after raising `completed` (sched.c, account). */
    while ((int32_t)(target - w) < 0 && !emu_cas_acq_rel(&sc->wake_at, &w, target))
        ;
}

bool emu_stream_ctl_wake_due(struct emu_stream_ctl *sc, uint32_t done)
{
    uint32_t w = emu_load_acquire(&sc->wake_at);

    if ((int32_t)(done - w) < 0)
        return false;
    /* As far ahead as the signed distance allows: every target lowers it. A waiter that
     * lowered it meanwhile keeps its value (the exchange fails) and is woken now, early at
     * worst. */
    (void)emu_cas_acq_rel(&sc->wake_at, &w, done + (uint32_t)INT32_MAX);
    return true;
}

void emu_devctl_lock(pthread_mutex_t *m)
{
    int rc = pthread_mutex_lock(m);

    if (rc == EOWNERDEAD) {
        /* The owner died mid-update. The tables it guards are updated so that every
         * intermediate state is readable (counts change last), so carry on. */
        EMU_LOG_WARN("a process died holding a device lock; recovering it");
        pthread_mutex_consistent(m);
    }
}

void emu_devctl_unlock(pthread_mutex_t *m)
{
    pthread_mutex_unlock(m);
}

/* The device this thread holds (emu_devctl_hold; NULL while `holding` = the first rung),
 * and whether it rang it meanwhile. */
static _Thread_local bool holding;
static _Thread_local struct emu_devctl *held;
static _Thread_local bool held_rang;

void emu_devctl_hold(struct emu_devctl *ctl)
{
    holding = true;
    held = ctl;
    held_rang = false;
}

bool emu_devctl_unhold(void)
{
    bool rang = held_rang;

    holding = false;
    held = NULL;
    held_rang = false;
    return rang;
}

void emu_devctl_release(void)
{
    struct emu_devctl *ctl = held;

    if (emu_devctl_unhold())
        emu_devctl_wake(ctl);
}

void emu_devctl_wake(struct emu_devctl *ctl)
{
    /* A spinning or polling worker sees the new value without a wake-up, and wakes a
     * sleeping one itself when it finds more than one stream to run. Sequentially consistent
     * with its leaving the spin or poll (it re-reads the doorbell after clearing the word). */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load(&ctl->spinners) != 0 || atomic_load(&ctl->pollers) != 0)
        return;
    if (emu_load_acquire(&ctl->sleepers) != 0)
        emu_os_futex_wake(&ctl->doorbell, 1);
}

void emu_devctl_ring(struct emu_devctl *ctl)
{
    /* Pairs with the acquire load of the doorbell in the executor's worker loop: what the
     * caller published before ringing is visible to the worker that sees the new value. */
    emu_fetch_add_release(&ctl->doorbell, 1);
    if (holding && (ctl == held || held == NULL)) {
        held = ctl;
        held_rang = true; /* the holder wakes (or serves) the device when the hold ends */
        return;
    }
    emu_devctl_wake(ctl);
}

int emu_devctl_notify_set(struct emu_devctl *ctl, uint32_t slot, uint32_t recorder)
{
    struct emu_notify_slot *n = &ctl->notifies[slot];

    n->last_recorder = recorder;
    emu_fetch_add_relaxed(&n->records, 1);
    /* Pairs with the exchange in the waiter's consume: data written before this record is
     * visible to the stream that consumes it. */
    uint32_t old = emu_exchange_acq_rel(&n->value, 1);
    if (old != 0)
        emu_fetch_add_relaxed(&n->absorbed, 1);
    return old != 0;
}

int emu_devctl_notify_record(struct emu_devctl *ctl, uint32_t slot, uint32_t recorder)
{
    int absorbed = emu_devctl_notify_set(ctl, slot, recorder);

    emu_devctl_ring(ctl);
    return absorbed;
}

int emu_devctl_stream_is_live(struct emu_devctl *ctl, uint32_t slot, uint32_t gen)
{
    if (slot >= EMU_MAX_STREAMS)
        return 0;
    struct emu_stream_ctl *s = &ctl->streams[slot];
    return emu_load_acquire(&s->kind) != EMU_STREAM_FREE && s->gen == gen;
}

bool emu_devctl_check_stopped(struct emu_devctl *ctl)
{
    int32_t pid = ctl->exec_pid, none = 0;

    if (pid <= 0)
        return false;
    if (emu_os_proc_state(pid) != 'T') {
        int32_t seen = pid;
        atomic_compare_exchange_strong(&ctl->stop_reported, &seen, 0);
        return false;
    }
    if (atomic_compare_exchange_strong(&ctl->stop_reported, &none, pid))
        EMU_LOG_ERR("device %u: its executor (pid %d) is stopped (SIGSTOP or job control); its "
                    "streams make no progress until it gets SIGCONT",
                    ctl->dev, (int)pid);
    return true;
}
