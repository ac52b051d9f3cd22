/* placement.c - binding an executor's workers to one core while the job fills or
 * oversubscribes the machine (see placement.h). */
#include "placement.h"

#include <pthread.h>
#include <sched.h>

#include "log.h"
#include "common/contract/settings.h"
#include "spin.h"

/* The cores the process may use, as found before any worker bound itself: the binding never
 * leaves them (taskset, a cgroup's cpuset), and unbinding restores exactly them. */
static cpu_set_t allowed;
static int n_allowed; /* 0: unknown or placement off */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static _Thread_local bool bound;

static void find_allowed(void)
{
    if (!emu_settings_bool(EMU_SET_BIND))
        return;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
        EMU_LOG_WARN("core placement off: cannot read the process's CPU set");
        return;
    }
    n_allowed = CPU_COUNT(&allowed);
}

/* The (dev mod n)-th allowed CPU: consecutive devices on different cores, so the devices of a
 * job (0..N-1) share the cores evenly whatever N is. */
static int core_of(unsigned dev)
{
    int want = (int)(dev % (unsigned)n_allowed), seen = 0;

    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &allowed) && seen++ == want)
            return cpu;
    return -1;
}

void emu_place_worker(unsigned dev, bool crowded)
{
    pthread_once(&once, find_allowed);
    if (n_allowed < 2)
        return; /* off, or one core: nothing to choose */
    int32_t executors = emu_spin_executors();
    bool want = executors > n_allowed || (executors == n_allowed && !crowded);
    if (want == bound)
        return;
    cpu_set_t one, *set = &allowed;
    if (want) {
        int cpu = core_of(dev);
        if (cpu < 0)
            return;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        set = &one;
    }
    /* A failure (a cpuset changed under us) leaves the thread where it was: placement is a
     * preference, never a condition for running, and is not retried at every wake-up. */
    if (pthread_setaffinity_np(pthread_self(), sizeof(*set), set) != 0)
        EMU_LOG_DEBUG("core placement: cannot %s a worker of device %u", want ? "bind" : "unbind",
                      dev);
    bound = want;
}

bool emu_place_bound(void)
{
    return bound;
}
