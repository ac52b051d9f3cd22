/* range.c - first-fit over a sorted array; O(n) insertion is fine at the table sizes used
 * (thousands), and lookups are binary searches. */
#include "range.h"

#include <string.h>

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

emu_status emu_range_alloc(struct emu_range_set *set, struct emu_range *recs, uint64_t size,
                           uint64_t align, uint64_t round, uint32_t kind, struct emu_range *out)
{
    if (size == 0 || size > set->limit || set->count >= set->cap)
        return EMU_ENOMEM;
    uint64_t span = align_up(size, round);
    uint64_t cursor = 0;
    uint32_t i;

    for (i = 0; i <= set->count; i++) {
        uint64_t start = align_up(cursor, align);
        uint64_t gap_end = i < set->count ? recs[i].off : set->limit;
        if (start <= gap_end && gap_end - start >= span) {
            memmove(&recs[i + 1], &recs[i], (set->count - i) * sizeof(recs[0]));
            struct emu_range *r = &recs[i];
            r->off = start;
            r->span = span;
            r->size = size;
            r->kind = kind;
            r->gen = ++set->next_gen;
            r->owner_pid = 0;
            atomic_store_explicit(&r->pending, 0, memory_order_relaxed);
            set->count++;
            set->used += span;
            *out = *r;
            return EMU_OK;
        }
        if (i < set->count)
            cursor = recs[i].off + recs[i].span;
    }
    return EMU_ENOMEM;
}

int emu_range_find(const struct emu_range_set *set, const struct emu_range *recs, uint64_t off)
{
    int lo = 0;
    int hi = (int)set->count - 1;

    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (off < recs[mid].off)
            hi = mid - 1;
        else if (off >= recs[mid].off + recs[mid].span)
            lo = mid + 1;
        else
            return mid;
    }
    return -1;
}

void emu_range_remove(struct emu_range_set *set, struct emu_range *recs, int index)
{
    set->used -= recs[index].span;
    memmove(&recs[index], &recs[index + 1], (set->count - (uint32_t)index - 1) * sizeof(recs[0]));
    set->count--;
}
