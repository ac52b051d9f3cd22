/* runq.h - the job-wide run queue, this executor's side (runq.c; docs/ARCHITECTURE.md "One
 * job-wide run queue"). */
#ifndef HCEMU_DEVICE_RUNQ_H
#define HCEMU_DEVICE_RUNQ_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/devctl.h"

/* HCEMU_RUNQ: let the scheduler publish parked device threads (before it starts). */
void emu_runq_init(void);
/* After a data-plane record set notify `slot` of `ctl` (another device of this job): take
 * the work published on that slot and run it on this worker; false when there is none to
 * take (the caller rings `ctl` as usual). */
bool emu_runq_take(struct emu_devctl *ctl, uint32_t slot);

#endif
