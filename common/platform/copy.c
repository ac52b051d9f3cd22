/* copy.c - the streaming half of emu_copy_shared (copy.h): large data-plane transfers with
 * non-temporal stores. */
#include "copy.h"

#include <stdatomic.h>
#include <stdbool.h>

#include "common/contract/settings.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* 0 until read; then the threshold in bytes, SIZE_MAX when streaming is off. */
static _Atomic size_t stream_min;

size_t emu_copy_stream_min(void)
{
    size_t v = atomic_load_explicit(&stream_min, memory_order_relaxed);

    if (v == 0) {
        /* Racing first readers compute the same value. */
        uint64_t kb = emu_settings_u64(EMU_SET_COPY_STREAM_KB);
        v = kb == 0 || kb > SIZE_MAX >> 10 ? SIZE_MAX : (size_t)kb << 10;
        atomic_store_explicit(&stream_min, v, memory_order_relaxed);
    }
    return v;
}

#if defined(__x86_64__)
/* `lines` whole 64-byte lines to a 64-byte aligned dst, 16 bytes a store. */
static void lines_sse2(unsigned char *d, const unsigned char *s, size_t lines)
{
    for (; lines > 0; lines--, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
}

/* The same, 32 bytes a store: two threads streaming 64 MiB each moved 25 GB/s apiece here
 * against 18-24 with 16-byte stores. */
__attribute__((target("avx2"))) static void lines_avx2(unsigned char *d, const unsigned char *s,
                                                       size_t lines)
{
    for (; lines > 0; lines--, d += 64, s += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)s);
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
        _mm256_stream_si256((__m256i *)d, a);
        _mm256_stream_si256((__m256i *)(d + 32), b);
    }
}

/* Four pages at a time, a line of each in turn, then what is left line after line: streaming
 * one page after another, a copy of 256 MiB to 1 GiB of buffers ran at 9.5-9.8 GB/s against
 * 12.2-13.3 interleaved (one thread, 13.6-14.7 either way at 64-256 MiB), and the 2-, 4- and
 * 8-rank allgathers past 64 MiB a rank stepped x2.3-2.9 a doubling in the cliff sweep. glibc's
 * own large copies interleave pages alike. */
#define PAGE 4096u
#define PAGE_LINES (PAGE / 64u)
#define PAGES 4u

/* Inlined into each form below with its line copy, whose stores then stay in the loop. */
static inline __attribute__((always_inline)) void
pages_with(void (*line_fn)(unsigned char *, const unsigned char *, size_t), unsigned char *d,
           const unsigned char *s, size_t lines)
{
    for (; lines >= PAGES * PAGE_LINES; lines -= PAGES * PAGE_LINES) {
        for (unsigned o = 0; o < PAGE; o += 64)
            for (unsigned p = 0; p < PAGES; p++)
                line_fn(d + p * PAGE + o, s + p * PAGE + o, 1);
        d += PAGES * PAGE, s += PAGES * PAGE;
    }
    line_fn(d, s, lines);
}

static void pages_sse2(unsigned char *d, const unsigned char *s, size_t lines)
{
    pages_with(lines_sse2, d, s, lines);
}

__attribute__((target("avx2"))) static void pages_avx2(unsigned char *d, const unsigned char *s,
                                                       size_t lines)
{
    pages_with(lines_avx2, d, s, lines);
}

typedef void (*lines_fn_t)(unsigned char *, const unsigned char *, size_t);

/* Copies the unaligned head, the whole lines with `lines_fn`, then the tail; fenced between
 * the lines and the tail unless `fence` is false (the caller fences). */
static void stream_with(lines_fn_t lines_fn, void *dst, const void *src, size_t n, bool fence)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    /* Whole destination lines: the write-combining buffer then goes to memory in one piece
     * instead of a read-modify-write of a partial line. */
    size_t head = (size_t)(-(uintptr_t)d & 63u);

    if (head > n)
        head = n;
    if (head != 0) /* calls skipped: a reduce-spread task streams pieces of 256 bytes */
        memcpy(d, s, head);
    d += head, s += head, n -= head;
    lines_fn(d, s, n / 64);
    /* Non-temporal stores are weakly ordered: without the fence a notify stored after the
     * copy could become visible before the bytes it announces. */
    if (fence)
        _mm_sfence();
    if (n % 64 != 0)
        memcpy(d + n / 64 * 64, s + n / 64 * 64, n % 64);
}

/* The lines of the best form the CPU has; racing first callers choose alike. */
static lines_fn_t best_lines(bool pages)
{
    static _Atomic lines_fn_t chosen[2];
    lines_fn_t fn = atomic_load_explicit(&chosen[pages], memory_order_relaxed);

    if (fn == NULL) {
        __builtin_cpu_init();
        bool avx2 = __builtin_cpu_supports("avx2");
        fn = pages ? (avx2 ? pages_avx2 : pages_sse2) : (avx2 ? lines_avx2 : lines_sse2);
        atomic_store_explicit(&chosen[pages], fn, memory_order_relaxed);
    }
    return fn;
}

void emu_copy_stream_sse2(void *dst, const void *src, size_t n)
{
    stream_with(pages_sse2, dst, src, n, true);
}

void emu_copy_stream(void *dst, const void *src, size_t n)
{
    stream_with(best_lines(true), dst, src, n, true);
}

void emu_copy_stream_unfenced(void *dst, const void *src, size_t n)
{
    stream_with(best_lines(false), dst, src, n, false);
}

void emu_copy_stream_fence(void)
{
    _mm_sfence();
}
#else
void emu_copy_stream_sse2(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

void emu_copy_stream(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

void emu_copy_stream_unfenced(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}

void emu_copy_stream_fence(void)
{
}
#endif
