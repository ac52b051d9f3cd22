/* coll_steps.h - the step sizes of the halving-doubling schedules, shared by the kernel that
 * runs them (coll_kernel.c) and the host that plans which steps go eager (coll_launch.c): both
 * ends of a step, and the host and its kernel, must reach the same sizes, so they come from one
 * place. Plain C, no state. */
#ifndef HCEMU_COLL_STEPS_H
#define HCEMU_COLL_STEPS_H

#include <stdbool.h>
#include <stdint.h>

/* The blocks of an allreduce: n nearly equal ranges of `count` elements of `esz` bytes. */
struct hcoll_blocks {
    uint64_t count, block, esz;
};

static inline struct hcoll_blocks hcoll_blocks_of(uint64_t count, uint32_t n, uint64_t esz)
{
    return (struct hcoll_blocks){count, (count + n - 1) / n, esz};
}

/* Byte offset of block i (blocks past the end are empty). */
static inline uint64_t hcoll_blk_off(const struct hcoll_blocks *b, uint64_t i)
{
    uint64_t e = i * b->block;

    return (e < b->count ? e : b->count) * b->esz;
}

/* Bytes of blocks [i, j). */
static inline uint64_t hcoll_blk_len(const struct hcoll_blocks *b, uint64_t i, uint64_t j)
{
    return hcoll_blk_off(b, j) - hcoll_blk_off(b, i);
}

/* Block b of n nearly equal blocks of `count` elements of `esz` bytes: its byte offset and
 * length (the host plans two-shot and hierarchical pairs by them, the kernel its schedules). */
static inline void hcoll_block(uint64_t count, uint32_t n, uint32_t b, uint64_t esz,
                               uint64_t *off, uint64_t *len)
{
    struct hcoll_blocks x = hcoll_blocks_of(count, n, esz);

    *off = hcoll_blk_off(&x, b);
    *len = hcoll_blk_len(&x, b, b + 1);
}

/* Recursive halving, the step with partner me ^ mask: the blocks I keep start at *keep and
 * those I send at *send, `mask` blocks each. */
static inline void hcoll_halving(uint32_t me, uint32_t mask, uint32_t *keep, uint32_t *send)
{
    uint32_t lo = me & ~(2 * mask - 1), mid = lo + mask;

    *keep = (me & mask) ? mid : lo;
    *send = (me & mask) ? lo : mid;
}

/* Recursive doubling, the step with partner me ^ mask: the first of the `mask` blocks I have
 * gathered so far (and send), and of those the partner has (and I receive). */
static inline void hcoll_doubling(uint32_t me, uint32_t mask, uint32_t *mine, uint32_t *theirs)
{
    *mine = me & ~(mask - 1);
    *theirs = (me ^ mask) & ~(mask - 1);
}

/* Whether a step that sends `sl` and receives `rl` bytes with one partner goes eager: both
 * within an eager slot and within one round of `slot` bytes (a step of several rounds keeps
 * the ACK protocol). The partner computes the same from the same two lengths. */
static inline bool hcoll_step_eager(uint64_t sl, uint64_t rl, uint64_t eager_len, uint64_t slot)
{
    uint64_t cap = eager_len < slot ? eager_len : slot;

    return eager_len != 0 && sl <= cap && rl <= cap;
}

/* Whether a recursive doubling allgather of n ranks with blocks of `block` bytes pushes its
 * steps (coll_kernel.c, "Pushed steps"), given the direct reads' least size `dmin` (0: none):
 * the host plans it (coll_launch.c) and the wall-clock cost model prices it (coll_cost.c) by
 * this one rule. From 4 ranks and `dmin` up to blocks of 512 KiB: 4 ranks, 256 KiB of output
 * took 40-44 us pushed against 105-108 through the eager slots and mesh's direct reads'
 * 87-99; 8 ranks, 4 MiB 1.49-1.53 ms against mesh's 1.38-1.54. From 1 MiB blocks mesh,
 * whose reads all run at once and from inputs that stay put, is the faster, while each
 * pushed step reads what the step before it wrote: 4 ranks, 4 MiB 0.66-0.70 ms against
 * 0.74-0.82 pushed; 8 ranks, 8 MiB 2.39-2.63 against 3.28-3.50; 16 ranks, 16 MiB 9.4-9.6
 * against 13.0-13.7 (alternating runs of `all_gather_test` with `HCEMU_ALGO` mesh and rhd).
 * Past that limit recursive doubling's steps are staged, which the cost model prices above
 * mesh's direct reads.
 * Smaller blocks, down to a quarter of `dmin`, push too once the output is 4 x `dmin`: the
 * eager slots copy every byte twice, and at 16 ranks the 64 and 128 KiB allgathers took
 * 130-142 and 202-209 us pushed against 172-174 and 291-320 through them; at 8 ranks and 64
 * KiB the two ran even (50-58 against 55-58 us), and smaller outputs lost (8 ranks, 32 KiB:
 * 38-44 against 33-36). */
#define HCOLL_PUSH_MAX (512u << 10)
static inline bool hcoll_pushed(uint32_t n, uint64_t block, uint64_t dmin)
{
    bool big = block >= dmin || (block >= dmin / 4 && (uint64_t)n * block >= 4 * dmin);

    return n >= 4 && (n & (n - 1)) == 0 && dmin != 0 && big && block <= HCOLL_PUSH_MAX;
}

#endif
