/* diagnostics.c - starts and stops the executor's diagnostics: reads their settings through
 * the diagnostics core (diag.c), then starts each enabled feature, which registers its own
 * scheduler hooks. Lives above the core and the features, so neither calls the other up.
 * Entry points: emu_diagnostics_start(), emu_diagnostics_stop(). */
#include "diagnostics.h"

#include <stdatomic.h>

#include "common/platform/atomic.h"
#include "common/contract/settings.h"
#include "device/exec.h"
#include "diag_priv.h"

void emu_diagnostics_start(void)
{
    emu_diag_read_cfg();
    if (emu_diag_cfg.seed != 0 && !emu_seed_start(emu_diag_cfg.seed))
        emu_diag_cfg.seed = 0;
    if (emu_settings_enum(EMU_SET_TIME) == 1)
        (void)emu_model_rec_start(); /* off with a warning when it cannot start */
    if (emu_diag_cfg.hang_ms == 0 && !emu_diag_cfg.race && !emu_diag_cfg.trace)
        return;
    if (emu_diag_open_shm() != EMU_OK) {
        emu_diag_cfg.hang_ms = 0;
        emu_diag_cfg.race = emu_diag_cfg.trace = false;
        return;
    }
    emu_fetch_add_acq_rel(&emu_diag_shm->live_count, 1);
    emu_fetch_or_acq_rel(&emu_diag_shm->live_mask[emu_exec_g.dev / 64u], 1ull << (emu_exec_g.dev % 64u));
    /* Registration order is call order: the race detector sees a task before the trace. */
    if (emu_diag_cfg.race && !emu_race_start())
        emu_diag_cfg.race = false;
    if (emu_diag_cfg.trace && !emu_trace_init())
        emu_diag_cfg.trace = false;
    emu_watchdog_start();
}

void emu_diagnostics_stop(void)
{
    if (emu_diag_shm == NULL)
        return;
    emu_watchdog_stop();
    if (emu_diag_cfg.trace)
        emu_trace_fini();
    uint64_t bit = 1ull << (emu_exec_g.dev % 64u);
    atomic_fetch_and(&emu_diag_shm->live_mask[emu_exec_g.dev / 64u], ~bit);
    uint32_t left = atomic_fetch_sub(&emu_diag_shm->live_count, 1) - 1;
    /* Every executor appended its events before clearing its bit: the last one out sees them
     * all. An executor that starts later sorts again when it leaves. */
    if (left == 0 && emu_diag_cfg.trace && emu_diag_cfg.seed != 0)
        emu_trace_sort();
}

