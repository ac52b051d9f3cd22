/* prov_rec.h - HCEMU_PROVENANCE=1 in the executor: every data-plane transfer or reduction
 * appends "who wrote [dst, +len)" to the destination device's ring in prov.shm
 * (common/contract/prov_shm.h), for hcemuProvenanceCheck's "last written by". Off, the data
 * plane pays one predictable branch per move (emu_prov_on). */
#ifndef HCEMU_DEVICE_PROV_REC_H
#define HCEMU_DEVICE_PROV_REC_H

#include <stdbool.h>
#include <stdint.h>

#include "device/sched/task.h"

extern bool emu_prov_rec_enabled;

/* Read HCEMU_PROVENANCE and, when set, create or join prov.shm (a warning and off when it
 * cannot). Executor start-up, before the scheduler starts. */
void emu_prov_rec_init(void);

static inline bool emu_prov_on(void)
{
    return __builtin_expect(emu_prov_rec_enabled, 0);
}

/* Task t (of the stream home_ctl's streams[t->stream] describes) wrote [dst, dst+len) of
 * device `dst_dev` of folder `dst_job`. */
void emu_prov_rec_write(const struct emu_task *t, const struct emu_devctl *home_ctl,
                        const char *dst_job, uint32_t dst_dev, uint64_t dst, uint64_t len);

#endif
