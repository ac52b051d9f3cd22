/* diag.c - default diagnostics hooks: nothing is enabled. Replaced by the diagnostics
 * modules (watchdog, race detector, trace) as they land. */
#include "diag.h"

void emu_diag_init(void)
{
}

void emu_diag_fini(void)
{
}

void emu_diag_task_start(struct emu_task *t)
{
    (void)t;
}

void emu_diag_task_end(struct emu_task *t, enum emu_run_result res)
{
    (void)t;
    (void)res;
}
