/* net_handoff.h - hand-offs from other hosts run by the thread that receives them
 * (net_handoff.c; docs/MULTIHOST.md "Hand-offs between hosts").
 *
 * The network's progress thread (net_ucx.c) sets notifies for records of other hosts and
 * completes this device's transfers when their answers arrive. Instead of ringing the device
 * (a futex wake of a worker, which then polls the parked thread), it notes the hand-off
 * during its progress call and, once the call returned and no UCX lock is held, runs the
 * parked device thread's next data-plane tasks itself through the scheduler
 * (emu_sched_serve), network sends included: the answer to a record goes out from the thread
 * that received the record. */
#ifndef HCEMU_DEVICE_NET_HANDOFF_H
#define HCEMU_DEVICE_NET_HANDOFF_H

#include <stdbool.h>
#include <stdint.h>

/* The calling thread is the progress thread (once, when it starts). */
void emu_net_handoff_thread_start(void);
/* Whether the calling thread is the progress thread. */
bool emu_net_handoff_on_thread(void);
/* Instead of ringing this device: bump its doorbell and note that device thread `stream`
 * (its network operation completed), or with EMU_SCHED_BY_SLOT the thread parked on notify
 * `slot`, may go on. false when the caller must ring as usual: not the progress thread, the
 * scheduler does not serve hand-offs (HCEMU_RUNQ=0 or a diagnostic hooks tasks), or the
 * list is full. */
bool emu_net_handoff_note(uint32_t stream, uint32_t slot);
/* Run the noted hand-offs (progress thread, no UCX lock held); wakes a worker for what the
 * thread could not run. Returns how many ran or woke (0: there were none). */
unsigned emu_net_handoff_serve(void);

#endif
