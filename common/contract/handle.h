/* handle.h - ThreadHandle and ChannelHandle encoding (docs/ARCHITECTURE.md, "Handles").
 *
 * Handles travel through device memory, so they are global identifiers, not pointers:
 *   63..56 magic (0xE7 thread, 0xC7 channel)   55..48 device (EMU_MAX_DEVICES <= 256)
 *   47..45 engine   44 exported flag   43..30 generation (14 bits)   29..0 slot index.
 * Every user of a handle decodes it with emu_handle_decode() and then checks the slot's
 * generation, so a stale, foreign or random value is refused, never dereferenced. */
#ifndef HCEMU_COMMON_HANDLE_H
#define HCEMU_COMMON_HANDLE_H

#include <stdbool.h>
#include <stdint.h>

#define EMU_HANDLE_THREAD 0xE7u
#define EMU_HANDLE_CHANNEL 0xC7u
#define EMU_HANDLE_GEN_MASK 0x3FFFu
#define EMU_HANDLE_INDEX_MASK 0x3FFFFFFFu

struct emu_handle {
    uint32_t kind; /* EMU_HANDLE_THREAD or EMU_HANDLE_CHANNEL */
    uint32_t dev;
    uint32_t engine;   /* CommEngine value of the side that may use the handle */
    bool exported;     /* made by HcclThreadExportToCommEngine */
    uint32_t gen;
    uint32_t index;
};

static inline uint64_t emu_handle_encode(const struct emu_handle *h)
{
    return ((uint64_t)(h->kind & 0xFFu) << 56) | ((uint64_t)(h->dev & 0xFFu) << 48) |
           ((uint64_t)(h->engine & 0x7u) << 45) | ((uint64_t)(h->exported ? 1u : 0u) << 44) |
           ((uint64_t)(h->gen & EMU_HANDLE_GEN_MASK) << 30) | (h->index & EMU_HANDLE_INDEX_MASK);
}

/* Split a raw handle; false when the magic does not match `kind`. */
static inline bool emu_handle_decode(uint64_t raw, uint32_t kind, struct emu_handle *out)
{
    out->kind = (uint32_t)(raw >> 56);
    out->dev = (uint32_t)(raw >> 48) & 0xFFu;
    out->engine = (uint32_t)(raw >> 45) & 0x7u;
    out->exported = ((raw >> 44) & 1u) != 0;
    out->gen = (uint32_t)(raw >> 30) & EMU_HANDLE_GEN_MASK;
    out->index = (uint32_t)raw & EMU_HANDLE_INDEX_MASK;
    return out->kind == kind;
}

#endif
