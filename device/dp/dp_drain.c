/* dp_drain.c - the calls that block the calling AICPU code (HcommThreadJoin,
 * HcommThreadSynchronize, HcommChannelDrainOnThread) and the device-side communicator lock
 * (HcommAcquireComm / HcommReleaseComm).
 *
 * A join first hands over this OS thread's pending batch for the thread (otherwise it would
 * wait for tasks nobody will release), then sleeps on the scheduler's idle condition. The
 * comm lock is a flag in the device's control block (comms[].locked); the locks this OS
 * thread holds are remembered so a kernel that forgets to release is cleaned up at exit. */
#include <string.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "dp.h"
#include "device/kernel/kernel.h"

static _Thread_local uint64_t held; /* bit i: this OS thread holds comms[i] (i < 64) */

_Static_assert(EMU_MAX_COMMS <= 64, "one bit per communicator");

emu_status emu_dp_drain_join(const struct emu_hcomm_call *c, uint32_t slot, uint32_t timeout_s)
{
    struct emu_stream_ctl *sc = &emu_exec_ctl()->streams[slot];

    emu_dp_submit_flush(slot);
    emu_status st =
        emu_sched_wait_idle(slot, emu_os_deadline_s(timeout_s), emu_kernel_current() != NULL);
    if (st == EMU_ETIMEOUT) {
        emu_hcomm_check_refuse(c, "thread still busy after %u s (timeout)", timeout_s);
        return EMU_ETIMEOUT;
    }
    emu_status err = (emu_status)emu_load_acquire(&sc->error);
    if (err != 0) {
        emu_hcomm_check_refuse(c, "the thread failed (%s); its queue was discarded",
                               emu_status_str(err));
        /* A peer of another host that died is the vendor's HCCL_E_REMOTE, not an internal
         * failure of this thread. */
        return err == EMU_EREMOTE ? EMU_EREMOTE : EMU_ETASK_FAIL;
    }
    return EMU_OK;
}

static int find_comm(const char *name)
{
    struct emu_devctl *ctl = emu_exec_ctl();

    for (uint32_t i = 0; i < EMU_MAX_COMMS; i++)
        if (emu_load_acquire(&ctl->comms[i].state) == 1 &&
            strncmp(ctl->comms[i].name, name, sizeof(ctl->comms[i].name)) == 0)
            return (int)i;
    return -1;
}

bool emu_dp_drain_comm_exists(const char *name)
{
    return find_comm(name) >= 0;
}

emu_status emu_dp_drain_comm_acquire(const struct emu_hcomm_call *c, const char *name)
{
    int i = find_comm(name);

    if (i < 0) {
        emu_hcomm_check_refuse(c, "no communicator named \"%s\" on device %u (use HcclGetCommName)",
                               name, emu_exec_g.dev);
        return EMU_ENULL;
    }
    uint32_t zero = 0;
    /* Pairs with the release store in emu_dp_drain_comm_release(). */
    if (!emu_cas_acq_rel(&emu_exec_ctl()->comms[i].locked, &zero, 1)) {
        emu_hcomm_check_refuse(c, "communicator \"%s\" is already acquired (by this or another "
                               "kernel); repeated acquisition is rejected", name);
        return EMU_EUNAVAIL;
    }
    held |= 1ull << i;
    return EMU_OK;
}

void emu_dp_drain_comm_release(const char *name)
{
    int i = find_comm(name);

    if (i < 0)
        return; /* the library returns success for any non-null name */
    held &= ~(1ull << i);
    emu_store_release(&emu_exec_ctl()->comms[i].locked, 0);
}

uint32_t emu_dp_drain_comm_release_all(void)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < EMU_MAX_COMMS && held != 0; i++) {
        if (held & (1ull << i)) {
            emu_store_release(&emu_exec_ctl()->comms[i].locked, 0);
            held &= ~(1ull << i);
            n++;
        }
    }
    return n;
}

void emu_dp_drain_kernel_exit(void)
{
    const struct emu_kernel_ctx *k = emu_kernel_current();
    const char *name = k != NULL ? k->kernel : "?";

    emu_dp_submit_kernel_exit();
    if (emu_dp_cache_reset())
        EMU_LOG_WARN("kernel %s returned while recording a task cache entry (no "
                     "HcommAicpuTsTaskCacheEnd): the entry is dropped",
                     name);
    uint32_t locks = emu_dp_drain_comm_release_all();
    if (locks > 0)
        EMU_LOG_WARN("kernel %s returned holding %u communicator lock(s) (HcommAcquireComm "
                     "without HcommReleaseComm): released now",
                     name, locks);
}

/* dp_submit.c sits below dp_cache.c and this file; what it must tell them goes through
 * hooks set here once at start-up. */
__attribute__((constructor)) static void drain_init(void)
{
    emu_dp_submit_note_hook = emu_dp_cache_observe;
    emu_kernel_exit_hook = emu_dp_drain_kernel_exit;
}
