/* range.h - first-fit allocator over a sorted array of ranges, used in shared memory for
 * device memory (aclrtMalloc) and for each device's notify pool. The caller holds the lock of
 * the table; records hold offsets only, so every process can read them. */
#ifndef HCEMU_COMMON_RANGE_H
#define HCEMU_COMMON_RANGE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/contract/status.h"

struct emu_range {
    uint64_t off;  /* start, relative to the table's space */
    uint64_t span; /* bytes reserved (size rounded up) */
    uint64_t size; /* bytes asked for */
    uint32_t kind; /* what the range is for (enum emu_alloc_kind for memory) */
    uint32_t gen;  /* distinguishes reuse of the same offset */
    int32_t owner_pid;
    _Atomic uint32_t pending; /* queued tasks that still use the range */
};

struct emu_range_set {
    uint32_t count; /* records in use, sorted by off */
    uint32_t cap;
    uint32_t next_gen;
    /* Odd while a writer changes the records (seqlock for readers); raised by two for every
     * change, so an even value names one version of the table. 64 bits: it never wraps, so
     * a version seen twice means no change in between (emu_range_version). */
    _Atomic uint64_t seq;
    uint64_t limit; /* size of the space */
    uint64_t used;  /* sum of spans */
};

/* Whether [off, off + len) lies in r's first `size` bytes, the ones its owner asked for (the
 * span's rounding does not count). The offset is compared first, so an offset in the
 * rounding cannot wrap the length check. */
static inline bool emu_range_holds(const struct emu_range *r, uint64_t off, uint64_t len)
{
    return off >= r->off && off - r->off < r->size && len <= r->size - (off - r->off);
}

/* v rounded up to a multiple of a. */
static inline uint64_t emu_align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/* Reserve `size` bytes aligned to `align`, span rounded up to `round`. The new record is
 * copied to *out. EMU_ENOMEM when no gap fits or the table is full. */
emu_status emu_range_alloc(struct emu_range_set *set, struct emu_range *recs, uint64_t size,
                           uint64_t align, uint64_t round, uint32_t kind,
                           struct emu_range *out) EMU_MUST_CHECK;
/* Index of the record whose span contains `off`, or -1. */
int emu_range_find(const struct emu_range_set *set, const struct emu_range *recs, uint64_t off);
/* Drop record `index`. */
void emu_range_remove(struct emu_range_set *set, struct emu_range *recs, int index);
/* Lock-free read for hot paths: copy the record containing `off` into *out and the table's
 * version it was read at into *version. Returns 1 when found, 0 when not, -1 when a writer
 * kept the table busy (take the lock and use emu_range_find instead). Writers are
 * emu_range_alloc/remove under the table's lock. */
int emu_range_read(const struct emu_range_set *set, const struct emu_range *recs, uint64_t off,
                   struct emu_range *out, uint64_t *version);

/* The table's current version: odd while a writer is at work. A record read at version v is
 * still the table's as long as the version is still v. */
static inline uint64_t emu_range_version(const struct emu_range_set *set)
{
    /* Pairs with the release in the writers' end: the records of this version are visible. */
    return atomic_load_explicit(&set->seq, memory_order_acquire);
}

#endif
