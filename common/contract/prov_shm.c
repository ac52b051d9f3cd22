/* prov_shm.c - reading the last-writer rings of prov.shm (see prov_shm.h). */
#include "prov_shm.h"

#include <string.h>

bool emu_prov_last_writer(const struct emu_prov_shm *m, uint32_t dev, uint64_t addr,
                          uint64_t after, struct emu_prov_write *out)
{
    if (m == NULL || dev >= EMU_MAX_DEVICES)
        return false;
    const struct emu_prov_ring *r = &m->dev[dev];
    uint64_t best = 0;

    for (uint32_t i = 0; i < EMU_PROV_RING; i++) {
        const struct emu_prov_write *w = &r->w[i];
        uint64_t s1 = atomic_load_explicit(&w->stamp, memory_order_acquire);
        if (s1 <= after || s1 <= best)
            continue;
        struct emu_prov_write copy;
        memcpy(&copy, w, sizeof(copy));
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&w->stamp, memory_order_relaxed) != s1)
            continue; /* being rewritten */
        if (addr < copy.addr || addr - copy.addr >= copy.len)
            continue;
        copy.kind[sizeof(copy.kind) - 1] = copy.label[sizeof(copy.label) - 1] = '\0';
        copy.site[sizeof(copy.site) - 1] = '\0';
        *out = copy;
        best = s1;
    }
    return best != 0;
}
