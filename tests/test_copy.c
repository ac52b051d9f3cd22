/* test_copy.c - emu_copy (common/copy.h) copies exactly what memcpy copies: every size class
 * (below 2 KiB, the backward range up to 1 MiB, above) at destinations 0 to 64 bytes ahead of
 * the source modulo 4096 and beyond, with the bytes around the destination untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/copy.h"

#define GUARD 128u

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
    for (size_t a = 0; a < sizeof(ahead) / sizeof(ahead[0]); a++)
        for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            size_t n = sizes[k];
            /* The source at a page boundary + 8; the destination `ahead` bytes further mod 4096. */
            const uint8_t *s = (const uint8_t *)(((uintptr_t)src + 4095) & ~(uintptr_t)4095) + 8;
            uint8_t *page = (uint8_t *)(((uintptr_t)dst + GUARD + 4095) & ~(uintptr_t)4095);
            uint8_t *d = page + 8 + ahead[a];
            memset(d - GUARD, 0xEE, n + 2 * GUARD);
            emu_copy(d, s, n);
            if (memcmp(d, s, n) != 0)
                fail_msg("%zu bytes %zu ahead: the copy differs", n, ahead[a]);
            for (size_t g = 1; g <= GUARD; g++)
                if (d[-(ptrdiff_t)g] != 0xEE || d[n + g - 1] != 0xEE)
                    fail_msg("%zu bytes %zu ahead: a byte outside was written", n, ahead[a]);
        }
    free(src);
    free(dst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_distance_and_size_copies_the_bytes_and_nothing_else),
    };
    return cmocka_run_group_tests_name("copy", tests, NULL, NULL);
}
