/* fault_kernels.c - kernels that misbehave, for scripts/fault-table (hcemu-fault-driver):
 * one that forks a child which stays, one that calls exit(), one that never returns.
 * args: [u64 out] - a device address (unused by the kernels here). */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* The child sleeps until something ends it; the parent returns at once. */
uint32_t fault_fork(void *args)
{
    (void)args;
    if (fork() == 0)
        for (int i = 0; i < 3600; i++)
            sleep(1);
    return 0;
}

uint32_t fault_exit(void *args)
{
    (void)args;
    exit(7);
}

/* An endless loop with no timeout attribute: the watchdog must name it. */
uint32_t fault_spin(void *args)
{
    volatile uint64_t n = 0;

    (void)args;
    for (;;)
        n++;
    return 0;
}
