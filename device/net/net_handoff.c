/* net_handoff.c - hand-offs from other hosts run by the network's progress thread (see
 * net_handoff.h).
 *
 * What the progress thread may run: data-plane tasks only (kernels and host tasks stay with
 * the workers), messages to other hosts of any size (a send does not wait for its bytes to
 * leave), and at most HANDOFF_BYTES of local copies per hand-off: a long copy would hold up
 * every other message this executor receives. The first task that does not fit goes back to
 * the workers with a wake-up, as the ring would have done. Tasks run in their own device's
 * process, scheduler and stream, so failures, reports, the hang watchdog and the device's
 * address space are those of a worker's run. */
#include "net_handoff.h"

#include "common/platform/atomic.h"
#include "common/platform/spin.h"
#include "device/dp/dp.h"

#define NOTES 64u
#define HANDOFF_BYTES (1u << 20)

struct note {
    uint32_t stream, slot;
};

static _Thread_local bool progress_thread;
/* Only the progress thread touches these. */
static struct note notes[NOTES];
static uint32_t n_notes;

void emu_net_handoff_thread_start(void)
{
    progress_thread = true;
}

bool emu_net_handoff_on_thread(void)
{
    return progress_thread;
}

bool emu_net_handoff_note(uint32_t stream, uint32_t slot)
{
    if (!progress_thread || !emu_sched_runq_active() || n_notes == NOTES)
        return false;
    /* The ring's bump without its wake: a worker that looks anyway sees the change. */
    emu_fetch_add_release(&emu_exec_ctl()->doorbell, 1);
    notes[n_notes++] = (struct note){stream, slot};
    return true;
}

/* Whether the progress thread may run t: a data-plane kind (every one of them runs through
 * the data plane's run function; the kind alone says it, so this file needs nothing of
 * dp_task.c, which calls into the network) within the hand-off's byte budget. */
static bool fits(const struct emu_task *t, void *arg)
{
    const struct emu_dp_op *o = (const struct emu_dp_op *)(const void *)t->u.raw;
    uint32_t f = emu_dp_kinds_flags(t->kind);
    uint64_t *bytes = arg;

    if (f == 0)
        return false;
    if (o->net || !(f & EMU_DPF_MOVE))
        return true;
    *bytes += o->len;
    return *bytes <= HANDOFF_BYTES;
}

unsigned emu_net_handoff_serve(void)
{
    struct emu_devctl *ctl = emu_exec_ctl();
    uint32_t served = 0;
    bool wake = false;

    if (n_notes == 0)
        return 0;
    emu_spin_busy(1);
    /* Notes added while serving (a send that failed at once) are served in the same pass. */
    for (uint32_t i = 0; i < n_notes; i++) {
        uint64_t bytes = 0;
        struct emu_sched_server srv = {.fits = fits, .arg = &bytes};
        enum emu_sched_served r = emu_sched_serve(notes[i].stream, notes[i].slot, &srv);
        served += r == EMU_SCHED_SERVED;
        wake |= r == EMU_SCHED_WAKE;
    }
    n_notes = 0;
    emu_spin_busy(-1);
    if (wake)
        emu_devctl_wake(ctl);
    if (served != 0)
        emu_fetch_add_relaxed(&ctl->net_served, served);
    return served + (wake ? 1u : 0u);
}
