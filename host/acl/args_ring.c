/* args_ring.c - a launch's packed arguments in a ring of device memory per host stream.
 *
 * Launches on one stream retire in order, so the ring needs no table: the block of a launch
 * is free again once the stream's `completed` count passes that launch. Before, every launch
 * took an entry of the device's allocation table and the executor freed it at retirement. A
 * host that queues hundreds of launches ahead (hccl_test's timing loop, any pipelined
 * program) kept hundreds of blocks live; each allocation then walked them first-fit and each
 * free moved the table down: 6 % of the machine's CPU in an 8-rank run of 1 KiB allreduces,
 * and a fresh page touched every 16 launches. The ring reuses the same pages and costs a few
 * additions. A launch that finds the ring full of queued launches waits for the oldest to
 * retire, for as long as the stream makes progress; one whose arguments exceed a quarter of
 * the ring, or whose stream retires nothing for ROOM_WAIT_NS, takes a table block as before
 * (kernel.c). */
#include "args_ring.h"

#include <stdlib.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/contract/layout.h"
#include "common/platform/os.h"
#include "common/platform/range.h"
#include "hdev.h"
#include "mem.h"

#define ROOM_WAIT_NS 1000000000ull /* a stream this long without a retirement: stop waiting */

void emu_args_ring_init(struct emu_args_ring *r, struct emu_hdev *d, uint32_t slot,
                        emu_args_ring_wait_fn wait, void *owner)
{
    pthread_mutex_init(&r->lock, NULL);
    r->d = d;
    r->slot = slot;
    r->wait = wait;
    r->owner = owner;
}

/* The i-th pending block from the oldest (i may be count: the next free entry). */
static struct emu_args_block *pending_at(struct emu_args_ring *r, uint32_t i)
{
    return &r->pending[(r->first + i) & (r->cap - 1)];
}

/* Forget the blocks of launches the stream retired: the ring's tail moves past them. */
static void reclaim(struct emu_args_ring *r, uint32_t completed)
{
    while (r->count > 0) {
        const struct emu_args_block *b = pending_at(r, 0);
        if ((int32_t)(completed - b->seq) < 0)
            break;
        r->tail = b->end;
        r->first++;
        r->count--;
    }
    if (r->count > 0)
        return;
    /* All retired, the ring is empty: start over at its beginning, so a host that
     * synchronises as it goes uses the same first pages for ever instead of touching every
     * page of the ring. */
    uint64_t off = r->head % EMU_ARGS_RING_BYTES;
    if (off != 0)
        r->head += EMU_ARGS_RING_BYTES - off;
    r->tail = r->head;
}

/* Room for one more pending block: the list doubles, in order, up to its bound. */
static bool pending_room(struct emu_args_ring *r)
{
    if (r->count < r->cap)
        return true;
    if (r->cap >= EMU_ARGS_RING_PENDING_MAX)
        return false;
    uint32_t cap = r->cap ? 2 * r->cap : 256;
    struct emu_args_block *p = malloc(cap * sizeof(*p));
    if (p == NULL)
        return false;
    for (uint32_t i = 0; i < r->count; i++)
        p[i] = *pending_at(r, i);
    free(r->pending);
    r->pending = p;
    r->first = 0;
    r->cap = cap;
    return true;
}

/* Where a block of `span` bytes would start, or UINT64_MAX when the ring has no room. */
static uint64_t room_at(struct emu_args_ring *r, uint64_t span)
{
    uint64_t start = r->head, off = start % EMU_ARGS_RING_BYTES;

    if (off + span > EMU_ARGS_RING_BYTES) /* no room before the ring's end: start over */
        start += EMU_ARGS_RING_BYTES - off;
    if (start + span - r->tail > EMU_ARGS_RING_BYTES || !pending_room(r))
        return UINT64_MAX;
    return start;
}

/* Wait until the launch counted as `seq` retired, for as long as the stream keeps
 * retiring: false after ROOM_WAIT_NS without a retirement, or when the device failed. */
static bool room_retired(struct emu_args_ring *r, uint32_t seq)
{
    _Atomic uint32_t *completed = &r->d->ctl->streams[r->slot].completed;

    for (;;) {
        uint32_t before = emu_load_acquire(completed);
        emu_status st = r->wait(r->owner, seq, emu_os_now_ns() + ROOM_WAIT_NS);
        if (st == EMU_OK)
            return true;
        if (st != EMU_ETIMEOUT || emu_load_acquire(completed) == before)
            return false;
    }
}

emu_status emu_args_ring_take(struct emu_args_ring *r, uint64_t size, uint64_t *addr)
{
    uint64_t span = emu_align_up(size, EMU_ALLOC_ALIGN);
    _Atomic uint32_t *completed = &r->d->ctl->streams[r->slot].completed;

    pthread_mutex_lock(&r->lock);
    if (span > EMU_ARGS_RING_BYTES / 4)
        return EMU_ENOMEM;
    if (r->base == 0) {
        void *p;
        if (emu_mem_alloc(r->d, EMU_ARGS_RING_BYTES, EMU_ALLOC_ARGS, &p) != EMU_OK)
            return EMU_ENOMEM;
        r->base = (uint64_t)(uintptr_t)p;
    }
    reclaim(r, emu_load_acquire(completed));
    uint64_t start;
    while ((start = room_at(r, span)) == UINT64_MAX) {
        /* Full of queued launches: wait for the oldest quarter to retire, as a launch into a
         * full task queue waits on the card, so a host may queue any number of launches
         * (before, 24,000 queued 8-rank collectives used up the ring, then the allocation
         * table, and the next launch failed). A quarter, not one: waiting for the oldest
         * alone woke this thread once per launch for as long as it ran ahead (a 30,000-call
         * 2-rank loop: 2.6 context switches a call, twice the time of a 3,000-call one),
         * while three quarters of the ring keep the device busy meanwhile. A stream that
         * retires nothing for ROOM_WAIT_NS (blocked on an event this very thread records
         * later, say) lends the launch a block of the table instead. */
        if (r->count == 0 || !room_retired(r, pending_at(r, r->count / 4)->seq))
            return EMU_ENOMEM;
        reclaim(r, emu_load_acquire(completed));
    }
    r->head = start + span;
    *addr = r->base + start % EMU_ARGS_RING_BYTES;
    return EMU_OK;
}

void emu_args_ring_commit(struct emu_args_ring *r, bool taken, bool submitted)
{

    if (taken && submitted) {
        /* The submission counted our launch: it retires when `completed` reaches this. A
         * launch of another thread on the same stream in between only makes it later. */
        struct emu_args_block *b = pending_at(r, r->count);
        b->seq = emu_load_acquire(&r->d->ctl->streams[r->slot].submitted);
        b->end = r->head;
        r->count++;
    } else if (taken) { /* nothing was queued: the block goes back */
        r->head = r->count > 0 ? pending_at(r, r->count - 1)->end : r->tail;
    }
    pthread_mutex_unlock(&r->lock);
}

void emu_args_ring_forget(struct emu_args_ring *r)
{
    r->base = 0;
    free(r->pending);
    r->pending = NULL;
    pthread_mutex_destroy(&r->lock);
}

void emu_args_ring_fini(struct emu_args_ring *r)
{
    if (r->base != 0)
        emu_mem_free_owned((void *)(uintptr_t)r->base);
    emu_args_ring_forget(r);
}
