/* bench_memcpy.c - aclrtMemcpy bandwidth (host to device, device to host, device to device on
 * one device and across two devices) against plain memcpy of the same sizes, measured in the
 * same run on pre-faulted buffers.
 *
 *   bench_memcpy [max_bytes]      (default 256 MiB; sizes 4 KiB, 16 KiB, ... powers of 4)
 *
 * Each point is the best of repeated runs (memcpy and aclrtMemcpy alternating), repeated
 * until at least 50 ms were spent on each.
 * Ratio = aclrtMemcpy bandwidth / memcpy bandwidth; the target is >= 0.9 from 1 MiB up.
 * Not a test: it prints figures and asserts nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <acl/acl.h>

#define MIN_SIZE (4ull << 10)
#define MAX_SIZE (256ull << 20)
#define MIN_POINT_NS 50000000ull /* 50 ms per measured point */
#define MIN_REPS 3

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct path {
    const char *name;
    void *dst;
    const void *src;
    aclrtMemcpyKind kind;
};

static volatile uint8_t sink;

/* Best time of one memcpy and of one aclrtMemcpy of `len` bytes, in ns. The two alternate,
 * repetition by repetition, so both see the same machine (other processes, frequency). */
static int best_pair(const struct path *p, void *h_dst, const void *h_src, size_t len,
                     uint64_t *plain, uint64_t *acl)
{
    uint64_t spent = 0;

    *plain = *acl = UINT64_MAX;
    for (int reps = 0; reps < MIN_REPS || spent < 2 * MIN_POINT_NS; reps++) {
        uint64_t t0 = now_ns();
        memcpy(h_dst, h_src, len);
        uint64_t t1 = now_ns();
        if (aclrtMemcpy(p->dst, len, p->src, len, p->kind) != ACL_SUCCESS)
            return -1;
        uint64_t t2 = now_ns();
        sink = ((const uint8_t *)h_dst)[len - 1]; /* keep the plain copy observable */
        if (t1 - t0 < *plain)
            *plain = t1 - t0 > 0 ? t1 - t0 : 1;
        if (t2 - t1 < *acl)
            *acl = t2 - t1 > 0 ? t2 - t1 : 1;
        spent += t2 - t0;
    }
    return 0;
}

static void *host_buffer(size_t len)
{
    void *p = malloc(len);

    if (p != NULL)
        memset(p, 0x5A, len); /* pre-fault every page */
    return p;
}

static void *device_buffer(int dev, size_t len)
{
    void *p = NULL;

    /* aclrtMalloc populates the pages in the executor and in this process. */
    if (aclrtSetDevice(dev) != ACL_SUCCESS ||
        aclrtMalloc(&p, len, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtMemset(p, len, 0x5A, len) != ACL_SUCCESS)
        return NULL;
    return p;
}

static const char *human(uint64_t n, char *buf, size_t len)
{
    if (n >= (1ull << 20))
        snprintf(buf, len, "%llu MiB", (unsigned long long)(n >> 20));
    else
        snprintf(buf, len, "%llu KiB", (unsigned long long)(n >> 10));
    return buf;
}

int main(int argc, char **argv)
{
    uint64_t max = argc > 1 ? strtoull(argv[1], NULL, 0) : MAX_SIZE;
    uint32_t ndev = 0;

    if (max < MIN_SIZE)
        max = MIN_SIZE;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtGetDeviceCount(&ndev) != ACL_SUCCESS) {
        fprintf(stderr, "bench_memcpy: aclInit failed\n");
        return 1;
    }
    void *h_src = host_buffer(max), *h_dst = host_buffer(max);
    void *d0a = device_buffer(0, max), *d0b = device_buffer(0, max);
    void *d1 = ndev > 1 ? device_buffer(1, max) : NULL;
    if (h_src == NULL || h_dst == NULL || d0a == NULL || d0b == NULL) {
        fprintf(stderr, "bench_memcpy: cannot allocate %llu-byte buffers\n",
                (unsigned long long)max);
        return 1;
    }
    aclrtSetDevice(0);
    const struct path paths[] = {
        {"H2D", d0a, h_src, ACL_MEMCPY_HOST_TO_DEVICE},
        {"D2H", h_dst, d0a, ACL_MEMCPY_DEVICE_TO_HOST},
        {"D2D same device", d0b, d0a, ACL_MEMCPY_DEVICE_TO_DEVICE},
        {"D2D dev0->dev1", d1, d0a, ACL_MEMCPY_DEVICE_TO_DEVICE},
    };
    printf("%-16s %10s %14s %18s %7s\n", "path", "size", "memcpy GB/s", "aclrtMemcpy GB/s",
           "ratio");
    for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
        if (paths[p].dst == NULL)
            continue;
        for (uint64_t len = MIN_SIZE; len <= max; len *= 4) {
            char sz[32];
            uint64_t plain, acl;
            if (best_pair(&paths[p], h_dst, h_src, len, &plain, &acl) != 0) {
                printf("%-16s %10s   aclrtMemcpy failed\n", paths[p].name,
                       human(len, sz, sizeof(sz)));
                continue;
            }
            double g_plain = (double)len / (double)plain, g_acl = (double)len / (double)acl;
            printf("%-16s %10s %14.2f %18.2f %7.2f\n", paths[p].name,
                   human(len, sz, sizeof(sz)), g_plain, g_acl, g_acl / g_plain);
        }
    }
    aclFinalize();
    free(h_src);
    free(h_dst);
    return 0;
}
