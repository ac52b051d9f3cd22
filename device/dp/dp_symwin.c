/* dp_symwin.c - symmetric windows as the executor sees them: a window handle resolved to its
 * descriptor in this device's memory (common/contract/symwin.h), and the test that lets a
 * transfer reach a peer's copy of a window registered on this device.
 *
 * The host writes a descriptor once, before it publishes the window, and clears its magic
 * before it frees it. A handle is accepted only as the start of a live EMU_ALLOC_SYM_WIN
 * allocation of this device whose magic is set and whose rank count fits the allocation, so
 * a stale or random value is refused without being dereferenced outside device memory. */
#include "common/contract/layout.h"
#include "common/contract/symwin.h"
#include "common/platform/atomic.h"
#include "dp.h"

const struct emu_symwin_desc *emu_dp_symwin_desc(uint64_t h)
{
    const struct emu_devmap *self = &emu_exec_g.self;
    struct emu_range r;

    if (emu_window_device(h) != (int)emu_exec_g.dev || h % 8 != 0)
        return NULL;
    uint64_t rel = h - emu_window_base(emu_exec_g.dev);
    if (!emu_devmem_alloc_of(self, rel, &r) || r.off != rel || r.kind != EMU_ALLOC_SYM_WIN ||
        r.size < sizeof(struct emu_symwin_desc))
        return NULL;
    const struct emu_symwin_desc *d = (const struct emu_symwin_desc *)(uintptr_t)h;
    if (d->magic != EMU_SYMWIN_MAGIC || d->rank_size == 0 ||
        emu_symwin_desc_bytes(d->rank_size) > r.size)
        return NULL;
    return d;
}

bool emu_dp_symwin_reaches(uint64_t comm_id, uint32_t peer_rank, uint64_t addr, uint64_t len)
{
    const struct emu_devctl *ctl = emu_exec_ctl();

    for (uint32_t i = 0; i < EMU_MAX_SYMWINS; i++) {
        const struct emu_symwin_ctl *e = &ctl->symwins[i];
        /* Pairs with the release store of `state` by the registering host. */
        if (emu_load_acquire(&e->state) != 1 || e->comm_id != comm_id)
            continue;
        const struct emu_symwin_desc *d = emu_dp_symwin_desc(e->desc);
        if (d == NULL || peer_rank >= d->rank_size)
            continue;
        uint64_t base = d->base[peer_rank];
        if (addr >= base && addr - base <= d->size && len <= d->size - (addr - base))
            return true;
    }
    return false;
}
