/* inject.h - fault injection in the executor (HCEMU_FAULT="rule;rule", docs/DEBUGGING.md).
 *
 * Rules, each `kind:key=value,...`; `rank` is the communicator rank of the stream that runs
 * the task (streams[].rank); the timed rules take `dev` (a device) or `rank` (the device
 * whose streams run that rank, once it does):
 *   notify-drop:rank=R,nth=K        rank R's K-th notify record (from 1) is lost
 *   notify-delay:rank=R,us=U        each of rank R's notify records is made U us late
 *   transfer-delay:rank=R,us=U      each of rank R's moves (copies, writes, reads) U us late
 *   transfer-corrupt:rank=R,nth=K   one byte of rank R's K-th channel transfer with bytes is
 *                                   flipped at the destination (which byte: HCEMU_SEED)
 *   link-down:ranks=A-B,after=K     channel transfers between ranks A and B fail after K
 *   kill:rank=R,after_ms=T          rank R's (or dev=D: device D's) executor dies T ms after
 *                                   its start
 *   stall:rank=R,after_ms=T,ms=U    rank R's (or device D's) executor runs no data-plane task
 *                                   for U ms from T ms
 *   host-down:host=H,after_ms=T     every executor of host H (HCEMU_HOST, else the hostname)
 *                                   dies T ms after its first transfer with another host
 * A bad rule is reported once and ignored. With rules set every task runs on its own device's
 * executor (the job-wide run queue steps aside), so counts are per device and deterministic. */
#ifndef HCEMU_DEVICE_INJECT_H
#define HCEMU_DEVICE_INJECT_H

#include <stdbool.h>
#include <stdint.h>

#include "device/sched/task.h"

/* Parse HCEMU_FAULT (after the settings are adopted) and start the timed rules of device
 * `dev`. Whether any rule is set. */
bool emu_inject_init(uint32_t dev);
/* Whether rules are set (the run queue stays off). */
bool emu_inject_on(void);

enum emu_inject_verdict {
    EMU_INJECT_GO = 0,   /* run the task as usual */
    EMU_INJECT_SKIP_RECORD, /* run its move, drop its record */
    EMU_INJECT_FAIL,     /* fail it (t->status and t->note are set) */
};

/* Before a data-plane task with flags `f` (dp_kinds.h) runs: delays, drops, failures. */
enum emu_inject_verdict emu_inject_before(struct emu_task *t, uint32_t f);
/* After a move wrote [dst, dst+len): the corruption of transfer-corrupt. */
void emu_inject_after_move(struct emu_task *t, uint8_t *dst, uint64_t len);

#endif
