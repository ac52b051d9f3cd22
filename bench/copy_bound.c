/* copy_bound.c - the machine's copy limit for bench/collectives.sh: the aggregate rate of
 * two threads each copying its own 64 MiB buffer with memcpy (best of five), in GB/s. A
 * collective's bus bandwidth on n emulated devices sharing two cores cannot beat rate / n. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES (64u << 20)

static void *copy(void *p)
{
    char *src = p, *dst = src + BYTES;

    memcpy(dst, src, BYTES);
    return NULL;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(void)
{
    char *buf[2];
    double best = 0;

    for (int i = 0; i < 2; i++) {
        buf[i] = malloc(2 * (size_t)BYTES);
        if (buf[i] == NULL)
            return 1;
        memset(buf[i], i + 1, 2 * (size_t)BYTES); /* populate both halves */
    }
    for (int rep = 0; rep < 5; rep++) {
        pthread_t t[2];
        double t0 = now();
        for (int i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, copy, buf[i]);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        double rate = 2.0 * BYTES / (now() - t0) / 1e9;
        best = rate > best ? rate : best;
    }
    printf("%.3f\n", best);
    free(buf[0]);
    free(buf[1]);
    return 0;
}
