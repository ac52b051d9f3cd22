/* range.c - first-fit over a sorted array; O(n) insertion is fine at the table sizes used
 * (thousands), and lookups are binary searches. */
#include "range.h"

#include <string.h>

/* Seqlock writer side; callers hold the table's lock, so writers never overlap. */
static void write_begin(struct emu_range_set *set)
{
    atomic_fetch_add_explicit(&set->seq, 1, memory_order_relaxed);
    /* Pairs with the acquire fence in emu_range_read(): a reader that sees record bytes
     * written after this point also sees the odd sequence number. */
    atomic_thread_fence(memory_order_release);
}

static void write_end(struct emu_range_set *set)
{
    atomic_fetch_add_explicit(&set->seq, 1, memory_order_release);
}

emu_status emu_range_alloc(struct emu_range_set *set, struct emu_range *recs, uint64_t size,
                           uint64_t align, uint64_t round, uint32_t kind, struct emu_range *out)
{
    if (size == 0 || size > set->limit || set->count >= set->cap)
        return EMU_ENOMEM;
    uint64_t span = emu_align_up(size, round);
    uint64_t cursor = 0;
    uint32_t i;

    for (i = 0; i <= set->count; i++) {
        uint64_t start = emu_align_up(cursor, align);
        uint64_t gap_end = i < set->count ? recs[i].off : set->limit;
        if (start <= gap_end && gap_end - start >= span) {
            write_begin(set);
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
            write_end(set);
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
    write_begin(set);
    set->used -= recs[index].span;
    memmove(&recs[index], &recs[index + 1], (set->count - (uint32_t)index - 1) * sizeof(recs[0]));
    set->count--;
    write_end(set);
}

int emu_range_read(const struct emu_range_set *set, const struct emu_range *recs, uint64_t off,
                   struct emu_range *out, uint64_t *version)
{
    for (int attempt = 0; attempt < 64; attempt++) {
        /* Pairs with the release in write_end(): a stable even value means the records read
         * below belong to one version of the table. */
        uint64_t before = atomic_load_explicit(&set->seq, memory_order_acquire);
        if (before & 1u)
            continue;
        /* count never exceeds cap, so even a torn read stays inside the array. */
        int i = emu_range_find(set, recs, off);
        struct emu_range r = {0};
        if (i >= 0) {
            r.off = recs[i].off;
            r.span = recs[i].span;
            r.size = recs[i].size;
            r.kind = recs[i].kind;
            r.gen = recs[i].gen;
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&set->seq, memory_order_relaxed) != before)
            continue;
        if (i < 0)
            return 0;
        out->off = r.off;
        out->span = r.span;
        out->size = r.size;
        out->kind = r.kind;
        out->gen = r.gen;
        *version = before;
        return 1;
    }
    return -1;
}
