/* seed.c - seeded schedules (HCEMU_SEED=n): the scheduler's `pick` and `draw` hooks.
 *
 * Registering `pick` makes the scheduler serial (one worker, one task per turn, the kernel
 * gate); the pick among runnable streams and the draws tasks make for themselves (when to
 * deliver a remote transfer) come from two xorshift64* sequences derived from the seed and
 * the device number, so the device's schedule is a function of the seed. */
#include "common/platform/log.h"
#include "diag_priv.h"
#include "device/exec.h"

/* Stream picks, and a second sequence for the choices tasks make, so that a task's draw does
 * not shift the picks. Only the one scheduler worker of the device calls the hooks. */
static uint64_t pick_state;
static uint64_t draw_state;

static uint64_t next(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545f4914f6cdd1dull;
}

static uint32_t pick(uint32_t n)
{
    return (uint32_t)(next(&pick_state) >> 33) % n;
}

static uint64_t draw(void)
{
    if (draw_state == 0)
        return 0;
    uint64_t r = next(&draw_state);

    return r != 0 ? r : 1;
}

static const struct emu_sched_hooks seed_hooks = {.pick = pick, .draw = draw};

bool emu_seed_start(uint64_t seed)
{
    pick_state = seed * 0x9e3779b97f4a7c15ull + emu_exec_g.dev + 1;
    if (pick_state == 0)
        pick_state = 1;
    draw_state = pick_state ^ 0xd1b54a32d192ed03ull;
    return emu_sched_register(&seed_hooks) == EMU_OK;
}
