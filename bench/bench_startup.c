/* bench_startup.c - job start to first kernel: how long N ranks (threads of this process, one
 * device each) take from aclInit through HcclCommInitRootInfo to the completion of their first
 * kernel (a one-element HcclAllGather, which runs hcemu's AICPU collective kernel).
 *
 *   bench_startup [ranks]      (default 8; at most HCEMU_DEVICES' limit, 256)
 *
 * Prints the slowest rank's time at each step, then the CPU time spent: by this process (the
 * host library and the ranks) and by the executors (its children, reaped by aclFinalize), a
 * figure the machine's load does not change much, and the mean CPU time of a rank's thread in
 * each step; the page faults of both; then the machine's floor under those figures
 * (startup_floor.c): the CPU time of as many executors that only start and exit, and the
 * cost of a page's first touch. Not a test: it asserts nothing. */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include <acl/acl.h>
#include <hccl/hccl.h>

#include "startup_floor.h"

#define MAX_RANKS 256

struct rank {
    uint32_t id, n;
    const HcclRootInfo *root;
    uint64_t t_dev, t_comm, t_kernel; /* ns since the start, at the end of each step */
    uint64_t c_dev, c_comm, c_kernel; /* this rank's thread CPU time (ns) at the same points */
    int failed;
};

static uint64_t t0;
static pthread_barrier_t kernels_done;

static uint64_t since_start(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec - t0;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long page_faults(int who)
{
    struct rusage ru;

    return getrusage(who, &ru) == 0 ? ru.ru_minflt + ru.ru_majflt : 0;
}

static int first_kernel(struct rank *r, HcclComm comm)
{
    aclrtStream s = NULL;
    void *send = NULL, *recv = NULL;
    int ok = aclrtCreateStream(&s) == ACL_SUCCESS &&
             aclrtMalloc(&send, 4, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS &&
             aclrtMalloc(&recv, 4ull * r->n, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS &&
             HcclAllGather(send, recv, 1, HCCL_DATA_TYPE_INT32, comm, s) == HCCL_SUCCESS &&
             aclrtSynchronizeStream(s) == ACL_SUCCESS;
    r->t_kernel = since_start();
    r->c_kernel = thread_cpu_ns();
    if (recv != NULL)
        aclrtFree(recv);
    if (send != NULL)
        aclrtFree(send);
    if (s != NULL)
        aclrtDestroyStream(s);
    return ok ? 0 : 1;
}

static void *rank_main(void *arg)
{
    struct rank *r = arg;
    HcclComm comm = NULL;
    bool set = aclrtSetDevice((int32_t)r->id) == ACL_SUCCESS;

    r->failed = 1;
    if (set) {
        r->t_dev = since_start();
        r->c_dev = thread_cpu_ns();
    }
    if (set && HcclCommInitRootInfo(r->n, r->root, r->id, &comm) == HCCL_SUCCESS) {
        r->t_comm = since_start();
        r->c_comm = thread_cpu_ns();
        r->failed = first_kernel(r, comm);
    }
    /* Every rank, failed or not, tears down only when all have their first kernel done: the
     * first ranks' clean-up would take the cores from the last ones, whose first kernel this
     * measures (a job goes on with more work after its first kernel, not with clean-up). */
    pthread_barrier_wait(&kernels_done);
    if (comm != NULL)
        HcclCommDestroy(comm);
    if (set)
        aclrtResetDevice((int32_t)r->id);
    return NULL;
}

static double slowest_ms(const struct rank *rs, uint32_t n, size_t off)
{
    uint64_t m = 0;

    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = *(const uint64_t *)((const char *)&rs[i] + off);
        m = v > m ? v : m;
    }
    return (double)m / 1e6;
}

int main(int argc, char **argv)
{
    static struct rank rs[MAX_RANKS];
    static pthread_t tids[MAX_RANKS];
    HcclRootInfo root;
    char num[16];
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 8;

    if (n == 0 || n > MAX_RANKS) {
        fprintf(stderr, "usage: bench_startup [ranks 1..%d]\n", MAX_RANKS);
        return 2;
    }
    snprintf(num, sizeof(num), "%u", n);
    setenv("HCEMU_DEVICES", num, 1);
    t0 = 0;
    t0 = since_start();
    if (aclInit(NULL) != ACL_SUCCESS)
        return 1;
    double t_init = (double)since_start() / 1e6;
    if (aclrtSetDevice(0) != ACL_SUCCESS || HcclGetRootInfo(&root) != HCCL_SUCCESS)
        return 1;
    if (pthread_barrier_init(&kernels_done, NULL, n) != 0)
        return 1;
    for (uint32_t i = 0; i < n; i++) {
        rs[i] = (struct rank){.id = i, .n = n, .root = &root};
        if (pthread_create(&tids[i], NULL, rank_main, &rs[i]) != 0)
            return 1;
    }
    int failed = 0;
    for (uint32_t i = 0; i < n; i++) {
        pthread_join(tids[i], NULL);
        failed += rs[i].failed;
    }
    double t_done = (double)since_start() / 1e6;
    aclrtResetDevice(0);
    aclFinalize(); /* ends the executors */
    double t_fini = (double)since_start() / 1e6;
    printf("startup %3u ranks: aclInit %.1f ms, devices up %.1f ms, comm init %.1f ms, "
           "first kernel done %.1f ms, all torn down %.1f ms, executors ended %.1f ms%s\n",
           n, t_init, slowest_ms(rs, n, offsetof(struct rank, t_dev)),
           slowest_ms(rs, n, offsetof(struct rank, t_comm)),
           slowest_ms(rs, n, offsetof(struct rank, t_kernel)), t_done, t_fini,
           failed ? " (FAILED)" : "");
    double exec_ms = startup_cpu_ms(RUSAGE_CHILDREN);
    printf("startup %3u ranks: CPU time: host process %.1f ms, executors %.1f ms (%.2f ms each)\n",
           n, startup_cpu_ms(RUSAGE_SELF), exec_ms, exec_ms / n);
    double dev = 0, comm = 0, kernel = 0;
    for (uint32_t i = 0; i < n; i++) {
        dev += (double)rs[i].c_dev / 1e6;
        comm += (double)(rs[i].c_comm - rs[i].c_dev) / 1e6;
        kernel += (double)(rs[i].c_kernel - rs[i].c_comm) / 1e6;
    }
    printf("startup %3u ranks: CPU time of a rank's thread (mean): device up %.2f ms, comm init "
           "%.2f ms, first kernel %.2f ms\n", n, dev / n, comm / n, kernel / n);
    long host_faults = page_faults(RUSAGE_SELF), exec_faults = page_faults(RUSAGE_CHILDREN);
    printf("startup %3u ranks: page faults: host process %ld, executors %ld (%ld each)\n", n,
           host_faults, exec_faults, exec_faults / (long)n);
    /* The floor, measured after the job so that it does not compete with it. */
    double floor_cpu = 0, floor_wall = 0, touch_us = startup_floor_touch_us();
    if (startup_floor_spawn(n, &floor_cpu, &floor_wall) == 0 && touch_us >= 0)
        printf("startup %3u ranks: this machine: starting %u executor%s (each exits at once) costs "
               "%.1f ms of CPU (%.2f ms each) and %.1f ms; a first touch of a shared page "
               "costs %.2f us (so the executors' faults, %.1f ms of CPU)\n",
               n, n, n == 1 ? "" : "s", floor_cpu, floor_cpu / n, floor_wall, touch_us,
               (double)exec_faults * touch_us / 1e3);
    return failed ? 1 : 0;
}
