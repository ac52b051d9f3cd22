/* mini.h - the argument block of the miniature custom op's kernels: fill `count` uint32 of the
 * device buffer `out` with `base + i`. */
#ifndef MINI_H
#define MINI_H
#include <stdint.h>

struct MiniArgs {
    uint64_t out;
    uint32_t count;
    uint32_t base;
};

#endif
