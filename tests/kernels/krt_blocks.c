/* krt_blocks.c - a kernel launched with numBlocks > 1 that proves its blocks run at the same
 * time and gives each block its own slot.
 *
 * How a block learns its index: on AICPU the entry gets only `args`, and every block of a
 * launch gets the same args. So the blocks number themselves: each takes a ticket with an
 * atomic fetch-add on a counter in device memory, and the ticket is its index.
 *
 * Concurrency: after taking its ticket, every block waits at a barrier until all `blocks`
 * have arrived. Blocks run one after another would never pass it, so the wait is bounded by
 * `wait_ms` and a block that gives up returns 9 (the launch fails instead of hanging). */
#include <stdint.h>
#include <string.h>
#include <time.h>

/* Device memory the host allocates and zeroes; slot[i] = i + 1 once block i ran. */
struct krt_block_state {
    uint32_t ticket;
    uint32_t arrived;
    uint32_t passed;
    uint32_t slot[64];
};

static uint64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* args: [u64 state][u32 blocks][u32 wait_ms] */
uint32_t krt_blocks(void *args)
{
    const uint8_t *a = args;
    uint64_t addr;
    uint32_t blocks, wait_ms;

    memcpy(&addr, a, sizeof(addr));
    memcpy(&blocks, a + 8, sizeof(blocks));
    memcpy(&wait_ms, a + 12, sizeof(wait_ms));
    struct krt_block_state *st = (struct krt_block_state *)(uintptr_t)addr;
    uint32_t me = __atomic_fetch_add(&st->ticket, 1, __ATOMIC_ACQ_REL);
    if (me >= 64 || blocks > 64)
        return 8;
    __atomic_store_n(&st->slot[me], me + 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&st->arrived, 1, __ATOMIC_ACQ_REL);
    uint64_t give_up = now_ms() + wait_ms;
    while (__atomic_load_n(&st->arrived, __ATOMIC_ACQUIRE) < blocks) {
        if (now_ms() > give_up)
            return 9;
    }
    __atomic_fetch_add(&st->passed, 1, __ATOMIC_ACQ_REL);
    return 0;
}

/* args: [u64 flag][u32 limit_ms]: spins until *flag != 0 or limit_ms passed, whichever comes
 * first; the timeout test sets a launch timeout far below the limit. */
uint32_t krt_spin(void *args)
{
    const uint8_t *a = args;
    uint64_t addr;
    uint32_t limit_ms;

    memcpy(&addr, a, sizeof(addr));
    memcpy(&limit_ms, a + 8, sizeof(limit_ms));
    const uint32_t *flag = (const uint32_t *)(uintptr_t)addr;
    uint64_t end = now_ms() + limit_ms;
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0 && now_ms() < end) {
    }
    return 0;
}
