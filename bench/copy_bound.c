/* copy_bound.c - the machine's copy limits for bench/collectives.sh: the aggregate rate of
 * two threads each copying its own 64 MiB buffer (best of five), in GB/s, once with memcpy
 * and once with the streaming copy of hcemu's data plane (emu_copy_stream, non-temporal
 * stores). A collective's bus bandwidth on n emulated devices sharing two cores cannot beat
 * rate / n. Prints "MEMCPY STREAM". The memcpy figure is the bound the latency work's
 * targets name; the streaming one is the faster copy this machine can do, which glibc's
 * memcpy does not use at 64 MiB where the CPU reports a huge last-level cache (common/platform/copy.h). */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/platform/copy.h"

#define BYTES (64u << 20)

struct job {
    char *buf;
    bool stream;
};

static void *copy(void *p)
{
    struct job *j = p;
    char *src = j->buf, *dst = src + BYTES;

    if (j->stream)
        emu_copy_stream(dst, src, BYTES);
    else
        memcpy(dst, src, BYTES);
    return NULL;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double best_rate(char *buf[2], bool stream)
{
    double best = 0;

    for (int rep = 0; rep < 5; rep++) {
        pthread_t t[2];
        struct job j[2] = {{buf[0], stream}, {buf[1], stream}};
        double t0 = now();
        for (int i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, copy, &j[i]);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        double rate = 2.0 * BYTES / (now() - t0) / 1e9;
        best = rate > best ? rate : best;
    }
    return best;
}

int main(void)
{
    char *buf[2];

    for (int i = 0; i < 2; i++) {
        buf[i] = malloc(2 * (size_t)BYTES);
        if (buf[i] == NULL)
            return 1;
        memset(buf[i], i + 1, 2 * (size_t)BYTES); /* populate both halves */
    }
    double mem = best_rate(buf, false);
    double stream = best_rate(buf, true);
    printf("%.3f %.3f\n", mem, stream);
    free(buf[0]);
    free(buf[1]);
    return 0;
}
