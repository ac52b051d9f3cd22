/* mh_comm_loop.c - one rank of a job split over "hosts": makes, uses and destroys
 * communicators in a loop, as a program that builds one per phase does, and reports the
 * process's memory and open descriptors as it goes (the root's listener must forget each
 * destroyed communicator: before, the 65th failed).
 *
 *   mh_comm_loop --iters K [--bytes B]
 *
 * Each round: HcclGetRootInfo, HcclCommInitRootInfo, an HcclAllReduce (sum of float) of B
 * bytes (default 4096) whose every element is checked, HcclCommDestroy. Prints
 * "rank R: round N: rss KiB fds F" after rounds 10, 100, 1000 and the last, then "PASS"; else one
 * "FAIL" line. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>
#include <hccl/hccl.h>

#include "ex_launch.h"

static long rss_kib(void)
{
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");

    while (f != NULL && fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    if (f != NULL)
        fclose(f);
    return kib;
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    while (d != NULL && readdir(d) != NULL)
        n++;
    if (d != NULL)
        closedir(d);
    return n - 3; /* ".", ".." and the DIR's own */
}

static int round_trip(const struct ex_launch *me, aclrtStream st, void *dev, float *host,
                      uint64_t count, unsigned round)
{
    HcclRootInfo root;
    HcclComm comm = NULL;
    HcclResult rc = HcclGetRootInfo(&root);

    if (rc == HCCL_SUCCESS)
        rc = HcclCommInitRootInfo(me->size, &root, me->rank, &comm);
    if (rc != HCCL_SUCCESS) {
        printf("FAIL: rank %u: round %u: making the communicator returned %d\n", me->rank, round,
               (int)rc);
        return 1;
    }
    for (uint64_t i = 0; i < count; i++)
        host[i] = (float)(me->rank + 1) * (float)(i % 7 + round % 5);
    int bad = aclrtMemcpy(dev, count * 4, host, count * 4, ACL_MEMCPY_HOST_TO_DEVICE) != 0 ||
              HcclAllReduce(dev, dev, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, st) != 0 ||
              aclrtSynchronizeStream(st) != 0 ||
              aclrtMemcpy(host, count * 4, dev, count * 4, ACL_MEMCPY_DEVICE_TO_HOST) != 0;
    float ranks = (float)me->size * (float)(me->size + 1) / 2.0f;
    for (uint64_t i = 0; i < count && !bad; i++)
        bad = host[i] != ranks * (float)(i % 7 + round % 5);
    if (HcclCommDestroy(comm) != HCCL_SUCCESS || bad) {
        printf("FAIL: rank %u: round %u: the allreduce or the destroy failed\n", me->rank, round);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct ex_launch me;
    unsigned iters = 0;
    uint64_t bytes = 4096;
    aclrtStream st = NULL;
    void *dev = NULL;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--iters") == 0)
            iters = (unsigned)atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--bytes") == 0)
            bytes = strtoull(argv[i + 1], NULL, 0) & ~3ull;
    }
    if (iters == 0 || bytes == 0 || ex_launch_get(&me) != 1) {
        fprintf(stderr, "usage: mh_comm_loop --iters K [--bytes B], under a launcher\n");
        return 2;
    }
    float *host = malloc(bytes);
    if (host == NULL || aclInit(NULL) != ACL_SUCCESS ||
        aclrtSetDevice((int32_t)me.local) != ACL_SUCCESS || aclrtCreateStream(&st) != 0 ||
        aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        printf("FAIL: rank %u: no device\n", me.rank);
        return 1;
    }
    int failed = 0;
    for (unsigned r = 1; r <= iters && !failed; r++) {
        failed = round_trip(&me, st, dev, host, bytes / 4, r);
        if (!failed && (r == 10 || r == 100 || r == 1000 || r == iters)) {
            printf("rank %u: round %u: rss %ld KiB fds %d\n", me.rank, r, rss_kib(), open_fds());
            fflush(stdout);
        }
    }
    aclrtFree(dev);
    aclrtDestroyStream(st);
    aclrtResetDevice((int32_t)me.local);
    aclFinalize();
    free(host);
    if (!failed)
        printf("rank %u: PASS\n", me.rank);
    return failed;
}
