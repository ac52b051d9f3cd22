/* copy.h - memcpy, except where the destination runs just ahead of the source.
 *
 * When the destination lies 1 to 63 bytes past the source modulo 4096 ((dst - src) mod
 * 4096 in [1, 64)), the CPU may see a false dependency between a copy's stores and its next
 * loads, which share the low 12 address bits. On the AMD EPYC machine this was measured on,
 * glibc's memcpy, which moves 2 KiB to 1 MiB (the L2 size) with `rep movsb` there, then ran
 * at 2.8-3.0 GB/s against 50-80 GB/s at other distances: aclrtMemcpy from device memory into
 * malloc'd host memory, whose blocks start 16 bytes into a page (`bench_memcpy`, D2H, 0.05 of
 * memcpy). Copying those sizes backwards, 64 bytes at a time, loads below what was just
 * stored: 25 GB/s. From 1 MiB glibc takes another path that is as fast or faster. */
#ifndef HCEMU_COMMON_COPY_H
#define HCEMU_COMMON_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline void emu_copy(void *dst, const void *src, size_t n)
{
    uintptr_t ahead = ((uintptr_t)dst - (uintptr_t)src) & 4095u;

    if (n < 2048 || n >= (1u << 20) || ahead == 0 || ahead >= 64) {
        memcpy(dst, src, n);
        return;
    }
    struct block {
        unsigned char b[64];
    } t;
    unsigned char *d = dst;
    const unsigned char *s = src;
    size_t head = n % sizeof(t);
    while (n > head) { /* the source is read before the block it would alias is written */
        n -= sizeof(t);
        memcpy(&t, s + n, sizeof(t));
        memcpy(d + n, &t, sizeof(t));
    }
    memcpy(d, s, head);
}

#endif
