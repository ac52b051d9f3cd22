/* model_time.h - HCEMU_TIME=model on the host: cost-model figures and modelled times of
 * event records (model_time.c, docs/MODEL.md). */
#ifndef HCEMU_HOST_ACL_MODEL_TIME_H
#define HCEMU_HOST_ACL_MODEL_TIME_H

#include <stdbool.h>
#include <stdint.h>

#include "common/model/model.h"
#include "common/contract/status.h"

/* Whether HCEMU_TIME=model. */
bool emu_model_time_on(void);
/* The figures in force: defaults, then HCEMU_MODEL, then servers from HCEMU_TOPOLOGY. */
void emu_model_time_params(struct emu_model_params *p);
/* Record `seq` of the event in notify slot `slot` of device `dev`. */
struct emu_model_event_ref {
    uint32_t dev, slot, seq;
};
/* Modelled times (seconds) t[k] at which the event records ev[0..n) happened (n <= 2), from
 * one simulation of their past and of what the calling host thread synchronised with
 * (emu_model_simulate_past): the same program gives the same figures whatever other threads
 * or hosts queued meanwhile. Logs one line per event when unavailable. */
emu_status emu_model_time_events(const struct emu_model_event_ref *ev, uint32_t n,
                                 double *t) EMU_MUST_CHECK;
/* After host stream `stream` of device `dev` synchronised: with the model on and
 * HCEMU_LOG_LEVEL=info or HCEMU_TRACE, simulate what this host thread has synchronised with,
 * so that the per-kernel summary and the modelled trace cover what just ran. */
void emu_model_time_note(uint32_t dev, uint32_t stream);
/* The calling host thread returned from a synchronisation on host stream `slot` of device
 * `dev` (event = false), or on record `seq` of the event in notify slot `slot` (event =
 * true): with the model on, a node of the graph says so, and every task this thread queues
 * from now on starts no earlier than the end of what it waited for. */
void emu_model_time_synced(uint32_t dev, uint32_t slot, bool event, uint32_t seq);
/* The `model_after` of a task the calling thread queues now (common/contract/wire.h); 0 = none. */
uint32_t emu_model_time_after(void);
/* The job ends (emu_runtime_fini): unmap its graph; a later job of this process maps its
 * own, and no thread's synchronisations of this job bound that job's tasks. */
void emu_model_time_job_end(void);

#endif
