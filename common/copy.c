/* copy.c - the streaming half of emu_copy_shared (copy.h): large data-plane transfers with
 * non-temporal stores. */
#include "copy.h"

#include <stdatomic.h>

#include "settings.h"

#if defined(__SSE2__)
#include <emmintrin.h>
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

void emu_copy_stream(void *dst, const void *src, size_t n)
{
#if defined(__SSE2__)
    unsigned char *d = dst;
    const unsigned char *s = src;
    /* Whole destination lines: the write-combining buffer then goes to memory in one piece
     * instead of a read-modify-write of a partial line. */
    size_t head = (size_t)(-(uintptr_t)d & 63u);

    if (head > n)
        head = n;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        __m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
        __m128i e = _mm_loadu_si128((const __m128i *)(s + 48));
        _mm_stream_si128((__m128i *)d, a);
        _mm_stream_si128((__m128i *)(d + 16), b);
        _mm_stream_si128((__m128i *)(d + 32), c);
        _mm_stream_si128((__m128i *)(d + 48), e);
    }
    /* Non-temporal stores are weakly ordered: without the fence a notify stored after the
     * copy could become visible before the bytes it announces. */
    _mm_sfence();
    memcpy(d, s, n);
#else
    memcpy(dst, src, n);
#endif
}
