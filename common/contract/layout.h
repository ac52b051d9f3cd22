/* layout.h - where each emulated device lives in the global device address space.
 *
 * Device d of a job owns the window [EMU_WINDOW_BASE + d * window, + window). Only the
 * device's own executor maps the window at that address; every other process reaches the
 * memory through a private alias mapping and translates addresses itself. */
#ifndef HCEMU_COMMON_LAYOUT_H
#define HCEMU_COMMON_LAYOUT_H

#include <stdint.h>

#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer allows application mappings only in a few ranges; the low one
 * [4 KiB, 512 GiB) takes 64 windows of 6 GiB from 64 GiB up. */
#define EMU_MAX_DEVICES 64u
#define EMU_WINDOW_BASE 0x001000000000ull
#define EMU_WINDOW_SIZE (6ull << 30)
#define EMU_DEFAULT_DEVICE_MEM (4ull << 30)
#else
/* 256 windows of 64 GiB take [32 TiB, 48 TiB) of the 128 TiB user space; the bound is also
 * what keeps per-job control state (peer tables, rank tables, diag.shm) small. */
#define EMU_MAX_DEVICES 256u
#define EMU_WINDOW_BASE 0x200000000000ull /* 32 TiB: above ASan's shadow, far from heap and stacks */
#define EMU_WINDOW_SIZE (64ull << 30)     /* 64 GiB of address space per device */
#define EMU_DEFAULT_DEVICE_MEM (32ull << 30)
#endif
#define EMU_ALLOC_ALIGN 64u /* aclrtMalloc returns 64-byte aligned addresses */
#define EMU_ALLOC_ROUND 32u /* and rounds sizes up to 32 bytes on 950 */

static inline uint64_t emu_window_base(uint32_t dev)
{
    return EMU_WINDOW_BASE + (uint64_t)dev * EMU_WINDOW_SIZE;
}

/* The device whose window holds `addr`, or -1 when it is no device address. */
static inline int emu_window_device(uint64_t addr)
{
    if (addr < EMU_WINDOW_BASE || addr >= EMU_WINDOW_BASE + EMU_MAX_DEVICES * EMU_WINDOW_SIZE)
        return -1;
    return (int)((addr - EMU_WINDOW_BASE) / EMU_WINDOW_SIZE);
}

#endif
