/* copy.h - memcpy, except where the destination runs just ahead of the source (emu_copy),
 * and except for large transfers of the data plane, which bypass the caches
 * (emu_copy_shared).
 *
 * When the destination lies 1 to 63 bytes past the source modulo 4096 ((dst - src) mod
 * 4096 in [1, 64)), the CPU may see a false dependency between a copy's stores and its next
 * loads, which share the low 12 address bits. On the AMD EPYC machine this was measured on,
 * glibc's memcpy, which moves 2 KiB to 1 MiB (the L2 size) with `rep movsb` there, then ran
 * at 2.8-3.0 GB/s against 50-80 GB/s at other distances: aclrtMemcpy from device memory into
 * malloc'd host memory, whose blocks start 16 bytes into a page (`bench_memcpy`, D2H, 0.05 of
 * memcpy). Copying those sizes backwards, 64 bytes at a time, loads below what was just
 * stored: 25 GB/s. From 1 MiB glibc takes another path that is as fast or faster.
 *
 * What the data plane moves (HcommLocalCopy, Write, Read) is read next by another device's
 * process, on another core, or not at all. From HCEMU_COPY_STREAM_KB (1 MiB by default) such
 * a transfer uses non-temporal stores (emu_copy_stream, copy.c): an ordinary store first
 * reads every destination line it writes, and takes it from the core that read it last,
 * while a block that large leaves the writer's L2 anyway. glibc streams only above its own
 * threshold, three quarters of the last-level cache the CPU reports; a virtual machine may
 * report an L3 of hundreds of MiB (508 MiB on the machine of docs/PERFORMANCE.md, hence
 * 127 MiB), which left every large copy of a collective on the slow path. A host's own
 * copies (aclrtMemcpy, memcpy tasks) stay cached: its program reads the bytes next, on the
 * same core, often from the L3 (streaming them made `bench_memcpy`'s 1-16 MiB copies
 * 0.74-0.87 of memcpy). */
#ifndef HCEMU_COMMON_COPY_H
#define HCEMU_COMMON_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Transfers below this never stream, whatever the setting: their lines fit any cache. */
#define EMU_COPY_STREAM_FLOOR (64u << 10)

/* The size from which emu_copy_shared streams (HCEMU_COPY_STREAM_KB, read once); SIZE_MAX =
 * never. */
size_t emu_copy_stream_min(void);
/* memcpy with non-temporal stores, ordered before the caller's later stores (a notify that
 * publishes the bytes) by a store fence. dst and src must not overlap. */
void emu_copy_stream(void *dst, const void *src, size_t n);
/* emu_copy_stream without the fence, for a caller streaming many small pieces (1 KiB: no
 * page interleaving either) that fences once after the last: emu_copy_stream_fence(). */
void emu_copy_stream_unfenced(void *dst, const void *src, size_t n);
void emu_copy_stream_fence(void);
/* The 16-byte form emu_copy_stream uses on x86-64 CPUs without AVX2 (it takes the 32-byte one
 * where it can); tests call it to check both. memcpy elsewhere. */
void emu_copy_stream_sse2(void *dst, const void *src, size_t n);

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

/* How a data-plane transfer treats the caches. A launch names it for every transfer its
 * kernel queues (emu_launch_opts, the wire's `copy_mode`): the built-in collectives keep the
 * transfers of a call cached when every rank's buffers together fit in the last-level cache,
 * where the next reader finds them (host/coll/coll_plan.c, "cached transfers"). */
enum emu_copy_mode {
    EMU_COPY_AUTO = 0, /* stream from HCEMU_COPY_STREAM_KB (a user's kernels) */
    EMU_COPY_CACHED,   /* never stream */
};

/* A copy whose bytes another process reads next (the data plane's transfers). */
static inline void emu_copy_shared(void *dst, const void *src, size_t n, uint32_t mode)
{
    if (mode != EMU_COPY_CACHED && n >= EMU_COPY_STREAM_FLOOR && n >= emu_copy_stream_min())
        emu_copy_stream(dst, src, n);
    else
        emu_copy(dst, src, n);
}

#endif
