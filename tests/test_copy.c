/* test_copy.c - emu_copy and emu_copy_shared (common/platform/copy.h) copy exactly what memcpy copies:
 * every size class (below 2 KiB, the backward range up to 1 MiB, above, where emu_copy_shared
 * streams from HCEMU_COPY_STREAM_KB) at destinations 0 to 64 bytes ahead of the source modulo
 * 4096 and beyond, with the bytes around the destination untouched; and the streaming copy
 * itself at every alignment of either end and sizes around its 64-byte step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/platform/copy.h"

#define GUARD 128u

typedef void copy_fn(void *dst, const void *src, size_t n);

/* n bytes from s to d with `copy`, checked byte for byte, and the GUARD bytes on either side
 * of d untouched; `what` names the case in a failure. */
static void check_copy(copy_fn *copy, uint8_t *d, const uint8_t *s, size_t n, const char *what)
{
    memset(d - GUARD, 0xEE, n + 2 * GUARD);
    copy(d, s, n);
    if (memcmp(d, s, n) != 0)
        fail_msg("%s, %zu bytes: the copy differs", what, n);
    for (size_t g = 1; g <= GUARD; g++)
        if (d[-(ptrdiff_t)g] != 0xEE || d[n + g - 1] != 0xEE)
            fail_msg("%s, %zu bytes: a byte outside was written", what, n);
}

/* The data plane's copy as a user's kernel gets it (streaming from the size setting). */
static void copy_shared_auto(void *dst, const void *src, size_t n)
{
    emu_copy_shared(dst, src, n, EMU_COPY_AUTO);
}

/* One copy of n bytes `ahead` bytes past the source modulo 4096. */
static void copy_at(uint8_t *src, uint8_t *dst, size_t n, size_t ahead, bool shared)
{
    /* The source at a page boundary + 8; the destination `ahead` bytes further mod 4096. */
    const uint8_t *s = (const uint8_t *)(((uintptr_t)src + 4095) & ~(uintptr_t)4095) + 8;
    uint8_t *page = (uint8_t *)(((uintptr_t)dst + GUARD + 4095) & ~(uintptr_t)4095);
    char what[64];

    snprintf(what, sizeof(what), "%s, %zu ahead", shared ? "emu_copy_shared" : "emu_copy", ahead);
    check_copy(shared ? copy_shared_auto : emu_copy, page + 8 + ahead, s, n, what);
}

static void every_distance_and_size_copies_the_bytes_and_nothing_else(void **state)
{
    static const size_t sizes[] = {0, 1, 63, 2047, 2048, 2049, 4096 + 13, 65536 + 63,
                                   (1u << 20) - 1, 1u << 20, (1u << 20) + 65};
    static const size_t ahead[] = {0, 1, 16, 63, 64, 65, 4095, 4096 + 16};
    size_t cap = (1u << 20) + 65 + 2 * 4096 + 2 * GUARD;
    uint8_t *src = malloc(cap), *dst = malloc(cap + 8192);
    (void)state;

    assert_non_null(src);
    assert_non_null(dst);
    for (size_t i = 0; i < cap; i++)
        src[i] = (uint8_t)(i * 131u + 7u);
    for (int shared = 0; shared < 2; shared++)
        for (size_t a = 0; a < sizeof(ahead) / sizeof(ahead[0]); a++)
            for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
                copy_at(src, dst, sizes[k], ahead[a], shared != 0);
    free(src);
    free(dst);
}

/* One streaming form at every alignment of either end, checked byte for byte; the larger
 * sizes end in part of a group of four pages (copy.c interleaves whole groups). */
static void stream_everywhere(copy_fn *copy, const char *form)
{
    static const size_t sizes[] = {0,   1,   15,        63,         64,         65,
                                   127, 128, 200,       4096 + 13,  16384 - 64, 16384 + 64 * 5 + 7,
                                   65536 + 63};
    /* A multiple of the alignment, as aligned_alloc requires. */
    size_t cap = (65536 + 63 + 2 * 64 + 2 * GUARD + 4096 + 4095) / 4096 * 4096;
    uint8_t *src = aligned_alloc(4096, cap), *dst = aligned_alloc(4096, cap);

    assert_non_null(src);
    assert_non_null(dst);
    for (size_t i = 0; i < cap; i++)
        src[i] = (uint8_t)(i * 37u + 11u);
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
        for (size_t da = 0; da < 64; da += 7)
            for (size_t sa = 0; sa < 64; sa += 13) {
                char what[96];
                snprintf(what, sizeof(what), "%s, dst +%zu, src +%zu", form, da, sa);
                check_copy(copy, dst + GUARD + da, src + sa, sizes[k], what);
            }
    free(src);
    free(dst);
}

/* emu_copy_stream at small sizes too (emu_copy_shared uses it only from 64 KiB): the
 * unaligned head before the first whole destination line, the 64-byte loop, the tail after
 * it; in the form this CPU gets (32-byte stores with AVX2) and in the 16-byte one. */
static void streaming_copy_at_every_alignment_copies_the_bytes_and_nothing_else(void **state)
{
    (void)state;
    stream_everywhere(emu_copy_stream, "emu_copy_stream");
    stream_everywhere(emu_copy_stream_sse2, "emu_copy_stream_sse2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_distance_and_size_copies_the_bytes_and_nothing_else),
        cmocka_unit_test(streaming_copy_at_every_alignment_copies_the_bytes_and_nothing_else),
    };
    return cmocka_run_group_tests_name("copy", tests, NULL, NULL);
}
