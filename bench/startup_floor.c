/* startup_floor.c - what this machine charges for the two things a job's start is made of,
 * measured in the same run as bench_startup so that its figures can be read against them:
 * starting a process (an executor that only execs, links and exits) and touching a page of
 * shared memory for the first time (each executor and host maps its device's and its peers'
 * control blocks, rings and buffers, and every first touch of a page is a fault).
 * On a virtual machine that shadows page tables both can cost tens of times what they cost
 * on bare metal, and then they, not hcemu's own work, bound the start-up time. */
#include "startup_floor.h"

#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SPAWN 256
#define TOUCH_PAGES 2048u

extern char **environ;

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double startup_cpu_ms(int who)
{
    struct rusage ru;

    if (getrusage(who, &ru) != 0)
        return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* hcemu-device beside this program (build/bin, where the benchmarks are built). */
static int executor_path(char *out, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    if (n <= 0)
        return -1;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash == NULL)
        return -1;
    *slash = '\0';
    if ((size_t)snprintf(out, len, "%s/hcemu-device", self) >= len)
        return -1;
    return access(out, X_OK) == 0 ? 0 : -1;
}

int startup_floor_spawn(uint32_t n, double *cpu_ms, double *wall_ms)
{
    static pid_t pids[MAX_SPAWN];
    char bin[PATH_MAX];
    posix_spawn_file_actions_t fa;
    uint32_t started = 0;

    if (n == 0 || n > MAX_SPAWN || executor_path(bin, sizeof(bin)) != 0 ||
        posix_spawn_file_actions_init(&fa) != 0)
        return -1;
    /* Without arguments the executor prints its usage and exits: exec, dynamic linking and
     * its constructors, the part of its start that no change inside hcemu can remove. */
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    char *argv[] = {bin, NULL};
    double cpu0 = startup_cpu_ms(RUSAGE_CHILDREN), t0 = now_ms();
    for (; started < n; started++)
        if (posix_spawn(&pids[started], bin, &fa, NULL, argv, environ) != 0)
            break;
    for (uint32_t i = 0; i < started; i++)
        waitpid(pids[i], NULL, 0);
    *wall_ms = now_ms() - t0;
    *cpu_ms = startup_cpu_ms(RUSAGE_CHILDREN) - cpu0;
    posix_spawn_file_actions_destroy(&fa);
    return started == n ? 0 : -1;
}

double startup_floor_touch_us(void)
{
    size_t len = (size_t)TOUCH_PAGES * 4096u;
    int fd = memfd_create("hcemu-bench-touch", MFD_CLOEXEC);

    if (fd < 0 || ftruncate(fd, (off_t)len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    volatile uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return -1;
    double t0 = now_ms();
    for (size_t off = 0; off < len; off += 4096u)
        p[off] = 1;
    double us = (now_ms() - t0) * 1e3 / TOUCH_PAGES;
    munmap((void *)p, len);
    return us;
}
