/* report.h - failure reports of the executor: one message per failure that says what
 * happened, where (device, stream, task, call site) and what to do. */
#ifndef HCEMU_DEVICE_REPORT_H
#define HCEMU_DEVICE_REPORT_H

#include <stdint.h>

#include "common/contract/status.h"

/* Register the scheduler hook that logs why a task failed (before emu_sched_start). */
emu_status emu_report_register(void) EMU_MUST_CHECK;
/* Name a task kind of another module (data plane) for reports. */
void emu_report_register_kind(uint32_t kind, const char *name);
/* A short name for a task kind ("notify wait", "channel write", ...). */
const char *emu_report_kind_name(uint32_t kind);

#endif
