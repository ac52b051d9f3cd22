/* hcomm.h - the host (CPU_TS) side of the HCOMM data plane: thread handles checked
 * against the device control blocks this process has mapped, notify record/wait tasks queued
 * on the thread's ACL stream, and the per-OS-thread settings (default wait timeout, batch
 * mode). Called by host/hccl/api/api_hcomm.c and by the built-in collectives (host/coll/), which
 * queue the wait for their kernel's "done" through emu_hcomm_wait. */
#ifndef HCEMU_HOST_HCOMM_H
#define HCEMU_HOST_HCOMM_H

#include <stdint.h>

#include "common/contract/hcomm_check.h"
#include "common/contract/status.h"

struct emu_wire_task;

#define EMU_HCOMM_HOST_DEFAULT_WAIT_S (1836u + 27u) /* device default + the host library's 27 s */

/* The host's side of the shared Hcomm checks; every call here names it (api_hcomm.c CALL).
 * Refusals: emu_hcomm_check_refuse (common/contract/hcomm_check.h). */
extern const struct emu_hcomm_side emu_hcomm_side;

/* Refuse with EMU_ENOTSUP, saying what the host library cannot do and why. */
emu_status emu_hcomm_not_supported(const struct emu_hcomm_call *c, const char *why) EMU_MUST_CHECK;
/* Queue on CPU_TS thread `thread` a record of notify `idx` of `dst` (an AICPU_TS thread
 * exported to CPU_TS, or another CPU_TS thread). */
emu_status emu_hcomm_record(struct emu_hcomm_call *c, uint64_t thread, uint64_t dst,
                            uint32_t idx) EMU_MUST_CHECK;
/* Queue on CPU_TS thread `thread` a wait for its own notify `idx`; timeout_s 0 = forever. */
emu_status emu_hcomm_wait(struct emu_hcomm_call *c, uint64_t thread, uint32_t idx,
                          uint32_t timeout_s) EMU_MUST_CHECK;
/* The same wait as a task *w, checked and complete but not queued; c->dev and c->thread name
 * the device and stream slot it is for. */
emu_status emu_hcomm_wait_task(struct emu_hcomm_call *c, uint64_t thread, uint32_t idx,
                               uint32_t timeout_s, struct emu_wire_task *w) EMU_MUST_CHECK;
/* Per-OS-thread settings. */
uint32_t emu_hcomm_default_wait_s(void);
emu_status emu_hcomm_set_default_wait(const struct emu_hcomm_call *c, float s) EMU_MUST_CHECK;
emu_status emu_hcomm_batch(const struct emu_hcomm_call *c, const char *tag,
                           int start) EMU_MUST_CHECK;

#endif
