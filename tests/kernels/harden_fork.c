/* harden_fork.c - kernels of test_harden that fork: the executor must end the child (a child
 * returning from the kernel must not run executor code; one that stays must not outlive the
 * executor). args: [u64 out] - the device address where the child's pid is written. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static void put_pid(const void *args, pid_t pid)
{
    uint64_t out;
    int32_t v = (int32_t)pid;

    memcpy(&out, args, sizeof(out));
    memcpy((void *)(uintptr_t)out, &v, sizeof(v));
}

/* The child returns from the kernel at once, as the parent does. */
uint32_t harden_fork_return(void *args)
{
    pid_t pid = fork();

    if (pid > 0)
        put_pid(args, pid);
    return 0;
}

/* The child stays (sleeps) until something ends it. */
uint32_t harden_fork_stay(void *args)
{
    pid_t pid = fork();

    if (pid == 0) {
        for (int i = 0; i < 600; i++)
            sleep(1);
        return 0;
    }
    if (pid > 0)
        put_pid(args, pid);
    return 0;
}
