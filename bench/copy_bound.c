/* copy_bound.c - the machine's copy limits for bench/collectives.sh.
 *
 * Without arguments: the aggregate rate of two threads each copying its own 64 MiB buffer
 * (best of five), in GB/s, once with memcpy and once with the streaming copy of hcemu's data
 * plane (emu_copy_stream, non-temporal stores). A collective's bus bandwidth on n emulated
 * devices sharing two cores cannot beat rate / n. Prints "MEMCPY STREAM". The memcpy figure
 * is the bound the latency work's targets name; the streaming one is the faster copy this
 * machine can do, which glibc's memcpy does not use at 64 MiB where the CPU reports a huge
 * last-level cache (common/platform/copy.h).
 *
 * With sizes (`coll_copy_bound BYTES...`): for each, the time in microseconds of two threads
 * copying BYTES between two buffers of that size, half each (the median of at least five
 * runs and 20 ms: the collectives' rows are means of their calls, not their best), one
 * "BYTES US" line per size. The cliff test of collectives.sh compares a
 * collective's time step between two sizes with this copy's step over the bytes the job's
 * outputs hold: where the machine's own copy more than doubles its time for twice the bytes
 * (the buffers leave a cache), the collective may too. `coll_copy_bound -s BYTES...` times
 * the streaming copy instead, the one hcemu's transfers use once a call's buffers are past
 * the cache: whether a step past the cache is the copy's own or the collective's.
 * `coll_copy_bound -g RANKS BYTES...` times the copy an allgather makes of its inputs: one
 * source of BYTES (every rank's input together) copied whole into RANKS destinations, one per
 * rank's output. Each byte of the source is read RANKS times, so the step comes where the
 * source leaves the cache, not where the outputs do: on the 2-core machine of
 * docs/PERFORMANCE.md, 8 destinations took 15.2 ms from 64 MiB and 35.8 from 128 MiB (x2.36),
 * 4 destinations 7.6 and 18.7 (x2.46), where the split copy of the same footprints streams
 * from memory at both sizes and steps x2.0-2.1.
 * `coll_copy_bound -r RANKS BYTES...` times the reduction an allreduce makes: RANKS inputs of
 * BYTES (fp32), summed element by element into RANKS outputs, each thread taking half of the
 * elements a piece at a time (summed from every input into a buffer of its own, then stored
 * into every output; the piece is hcemu's, piece_floats). Every input byte is read once and every
 * output byte written once, the least an allreduce over shared memory moves, but from RANKS sources
 * and into RANKS destinations at once where a copy has one of each. No hcemu code is in it but the
 * streaming copy (-s). It is the yardstick for an allreduce past the cache (docs/PERFORMANCE.md,
 * "The cliffs left"); with ordinary stores, cached, it is slower than hcemu's own cached forms and
 * bounds nothing. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/platform/atomic.h"
#include "common/platform/copy.h"

#define BYTES (64u << 20)
#define STEP_MIN_S 0.02    /* a size's runs take at least this long */
#define STEP_RUNS_MAX 4096 /* and are at most this many */

struct job {
    char *dst;
    const char *src;
    size_t len;
    bool stream;
    size_t copies; /* the source into dst, dst + len, ... (a gather copy); 0 counts as 1 */
    size_t ranks;  /* a reduction (`reduce`) of this many inputs; 0: a copy */
    size_t stride; /* bytes from one input (and one output) to the next */
};

/* The floats a reduction sums before it stores them, as hcemu's reduce-spread task takes
 * them past the cache (device/dp/dp_task.c, spread_piece): a KiB over the rank count, and no
 * less than 256 bytes. Cached, a KiB. */
static size_t piece_floats(size_t ranks)
{
    size_t bytes = 1024 / ranks < 256 ? 256 : 1024 / ranks;
    return bytes / sizeof(float);
}

/* dst = a + b over `n` floats, then dst += each further input. A whole piece has a constant
 * count, which GCC vectorises at -O2 (it will not for a count that needs a scalar tail); built
 * for AVX2 where the CPU has it, as hcemu's reduction kernels are. */
#define SUM_BODY(n)                                                                                \
    do {                                                                                           \
        const float *a = (const float *)in, *b = (const float *)(in + stride);                     \
        for (size_t i = 0; i < (n); i++)                                                           \
            dst[i] = a[i] + b[i];                                                                  \
        for (size_t r = 2; r < ranks; r++) {                                                       \
            const float *c = (const float *)(in + r * stride);                                     \
            for (size_t i = 0; i < (n); i++)                                                       \
                dst[i] += c[i];                                                                    \
        }                                                                                          \
    } while (0)

/* One function per piece size, each with its constant count. */
#define SUM_PIECE(floats)                                                                          \
    __attribute__((target_clones("avx2", "default"))) static void sum_piece_##floats(              \
        float *restrict dst, const char *in, size_t stride, size_t ranks)                          \
    {                                                                                              \
        SUM_BODY(floats);                                                                          \
    }
SUM_PIECE(64)
SUM_PIECE(128)
SUM_PIECE(256)

static void sum_tail(float *restrict dst, const char *in, size_t stride, size_t ranks, size_t n)
{
    SUM_BODY(n);
}

/* Elements [src, src + len) of every input summed into the same range of every output. */
static void reduce(const struct job *j)
{
    _Alignas(64) float acc[256];
    size_t floats = j->stream ? piece_floats(j->ranks) : 256;
    size_t piece = floats * sizeof(float);

    for (size_t at = 0; at < j->len; at += piece) {
        size_t bytes = j->len - at < piece ? j->len - at : piece;
        const char *in = j->src + at;
        if (bytes == piece && floats == 64)
            sum_piece_64(acc, in, j->stride, j->ranks);
        else if (bytes == piece && floats == 128)
            sum_piece_128(acc, in, j->stride, j->ranks);
        else if (bytes == piece && floats == 256)
            sum_piece_256(acc, in, j->stride, j->ranks);
        else /* a tail, or the piece of a rank count that does not divide a KiB */
            sum_tail(acc, in, j->stride, j->ranks, bytes / sizeof(float));
        for (size_t r = 0; r < j->ranks; r++) {
            if (j->stream)
                emu_copy_stream_unfenced(j->dst + r * j->stride + at, acc, bytes);
            else
                memcpy(j->dst + r * j->stride + at, acc, bytes);
        }
    }
    if (j->stream)
        emu_copy_stream_fence();
}

static void *copy(void *p)
{
    struct job *j = p;

    if (j->ranks != 0) {
        reduce(j);
        return NULL;
    }

    for (size_t i = 0; i < (j->copies > 1 ? j->copies : 1); i++) {
        if (j->stream)
            emu_copy_stream(j->dst + i * j->len, j->src, j->len);
        else
            memcpy(j->dst + i * j->len, j->src, j->len);
    }
    return NULL;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The second thread lives for the whole program and spins between jobs. A thread created per
 * run cost 40-50 us on the 2-core machine and started on its creator's core: 64 KiB read
 * 42-51 us against 0.8 now, 2 MiB 77-81 against 22, 6 MiB 123-181 against 65. That constant
 * flattened the step between two sizes, which the cliff test allows a collective: 6 -> 12 MiB
 * read x1.7-2.5 where the copies alone take x3.3-3.5. */
static struct partner {
    pthread_t thread;
    bool running;
    _Atomic unsigned posted, finished; /* job generations: posted by main, finished by it */
    struct job job;
} partner;

static void *partner_main(void *arg)
{
    (void)arg;
    for (unsigned seen = 0;;) {
        unsigned g;
        while ((g = atomic_load_explicit(&partner.posted, memory_order_acquire)) == seen)
            emu_cpu_relax();
        seen = g;
        if (partner.job.dst == NULL)
            return NULL;
        copy(&partner.job);
        atomic_store_explicit(&partner.finished, g, memory_order_release);
    }
}

/* Each of the two threads bound to a core of its own: both spin, and a partner left on its
 * creator's core (where a new thread starts) waited a whole time slice for it at every run
 * until the scheduler moved one of them (a 2 MiB copy then read 8 ms instead of 23 us). Not
 * on one core, where a spinning partner would hold the core its job waits for. */
static void partner_start(void)
{
    cpu_set_t set, mine, its;
    pthread_attr_t attr;
    int first = -1, second = -1;

    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE && second < 0; c++)
        if (CPU_ISSET(c, &set)) {
            if (first < 0)
                first = c;
            else
                second = c;
        }
    if (second < 0 || pthread_attr_init(&attr) != 0)
        return;
    CPU_ZERO(&mine);
    CPU_SET(first, &mine);
    CPU_ZERO(&its);
    CPU_SET(second, &its);
    if (pthread_attr_setaffinity_np(&attr, sizeof(its), &its) == 0 &&
        sched_setaffinity(0, sizeof(mine), &mine) == 0)
        partner.running = pthread_create(&partner.thread, &attr, partner_main, NULL) == 0;
    pthread_attr_destroy(&attr);
}

static void partner_stop(void)
{
    if (!partner.running)
        return;
    partner.job.dst = NULL;
    atomic_fetch_add_explicit(&partner.posted, 1, memory_order_release);
    pthread_join(partner.thread, NULL);
}

/* Jobs j[0] and j[1] on two threads at once; the seconds it took. */
static double run_pair(struct job j[2])
{
    double t0 = now();

    if (!partner.running) {
        copy(&j[1]); /* no second thread: the figure comes out slower, never wrong */
        copy(&j[0]);
        return now() - t0;
    }
    partner.job = j[1];
    unsigned g = atomic_fetch_add_explicit(&partner.posted, 1, memory_order_release) + 1;
    copy(&j[0]);
    while (atomic_load_explicit(&partner.finished, memory_order_acquire) != g)
        emu_cpu_relax();
    return now() - t0;
}

static double best_rate(char *buf[2], bool stream)
{
    double best = 0;

    for (int rep = 0; rep < 5; rep++) {
        struct job j[2] = {{buf[0] + BYTES, buf[0], BYTES, stream, 1, 0, 0},
                           {buf[1] + BYTES, buf[1], BYTES, stream, 1, 0, 0}};
        double rate = 2.0 * BYTES / run_pair(j) / 1e9;
        best = rate > best ? rate : best;
    }
    return best;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The median time, in microseconds, of the pair of jobs run again and again: at least five
 * runs and STEP_MIN_S (the collectives' rows are means of their calls, not their best). */
static double median_us(struct job j[2])
{
    double runs[STEP_RUNS_MAX], spent = 0;
    int n = 0;

    while (n < STEP_RUNS_MAX && (n < 5 || spent < STEP_MIN_S)) {
        runs[n] = run_pair(j);
        spent += runs[n++];
    }
    qsort(runs, (size_t)n, sizeof(runs[0]), by_value);
    return runs[n / 2] * 1e6;
}

/* `bytes` on whole pages, as device memory is: malloc's large blocks start 16 bytes into a
 * page, and a reduction storing a piece at a time then wrote each piece's first and last line
 * with ordinary stores beside streaming ones (`-s -r 2 33554432` took 5.0 ms against
 * 2.9-3.7 page-aligned). NULL when there is no room. */
static char *pages(size_t bytes)
{
    void *p = NULL;

    return posix_memalign(&p, 4096, bytes) == 0 ? p : NULL;
}

/* Two threads copying `bytes` (half each) from one buffer to another, with memcpy or the
 * streaming copy; or, with `gather` destinations, copying the whole source into each of them,
 * the first half of them on one thread and the rest on the other; or, with `ranks`, reducing
 * that many inputs of `bytes` into as many outputs, half of the elements on each thread. */
static int copy_step(size_t bytes, bool stream, size_t gather, size_t ranks)
{
    size_t srcs = ranks != 0 ? ranks : 1, dsts = ranks != 0 ? ranks : gather != 0 ? gather : 1;
    char *src = srcs <= SIZE_MAX / bytes ? pages(srcs * bytes) : NULL;
    char *dst = dsts <= SIZE_MAX / bytes ? pages(dsts * bytes) : NULL;
    size_t half = ranks != 0 ? bytes / 8 * 4 : bytes / 2, first = dsts / 2;

    if (src == NULL || dst == NULL) { /* that size has no figure; the smaller ones stand */
        fprintf(stderr, "coll_copy_bound: no memory for %zu buffers of %zu bytes\n", srcs + dsts,
                bytes);
        free(src);
        free(dst);
        return 1;
    }
    memset(src, 1, srcs * bytes); /* fault all in: the collectives' loops time warm buffers */
    memset(dst, 2, dsts * bytes); /* (as fp32, 0x01010101 is a normal number: sums stay so) */
    struct job split[2] = {{dst, src, half, stream, 1, ranks, bytes},
                           {dst + half, src + half, bytes - half, stream, 1, ranks, bytes}};
    struct job all[2] = {{dst, src, bytes, stream, first, 0, 0},
                         {dst + first * bytes, src, bytes, stream, dsts - first, 0, 0}};
    printf("%zu %.2f\n", bytes, median_us(gather != 0 && ranks == 0 ? all : split));
    free(src);
    free(dst);
    return 0;
}

int main(int argc, char **argv)
{
    char *buf[2];
    int rc = 0;

    partner_start();
    if (argc > 1) {
        bool stream = false;
        unsigned long long gather = 0, ranks = 0;
        int i = 1;
        bool usage = false;
        for (; i < argc && argv[i][0] == '-' && !usage; i++) {
            char *end = NULL;
            if (strcmp(argv[i], "-s") == 0)
                stream = true;
            else if (strcmp(argv[i], "-g") == 0 && i + 1 < argc) {
                gather = strtoull(argv[++i], &end, 10);
                usage = *end != '\0' || gather < 1 || gather > 4096;
            } else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc) {
                ranks = strtoull(argv[++i], &end, 10);
                usage = *end != '\0' || ranks < 2 || ranks > 256;
            } else
                usage = true;
        }
        if (usage || i == argc || (gather != 0 && ranks != 0)) {
            fprintf(stderr, "usage: coll_copy_bound [-s] [-g RANKS | -r RANKS] BYTES...\n");
            partner_stop();
            return 2;
        }
        for (; i < argc && rc == 0; i++) {
            char *end;
            unsigned long long b = strtoull(argv[i], &end, 10);
            if (*end != '\0' || b < 2 || (ranks != 0 && b % sizeof(float) != 0)) {
                fprintf(stderr, "coll_copy_bound: not a byte count%s: %s\n",
                        ranks != 0 ? " of whole fp32 elements" : "", argv[i]);
                rc = 2;
            } else if (copy_step((size_t)b, stream, (size_t)gather, (size_t)ranks) != 0) {
                rc = 1; /* the larger sizes would not fit either */
            }
        }
        partner_stop();
        return rc;
    }

    for (int i = 0; i < 2; i++) {
        buf[i] = malloc(2 * (size_t)BYTES);
        if (buf[i] == NULL) {
            partner_stop();
            return 1;
        }
        memset(buf[i], i + 1, 2 * (size_t)BYTES); /* populate both halves */
    }
    double mem = best_rate(buf, false);
    double stream = best_rate(buf, true);
    printf("%.3f %.3f\n", mem, stream);
    partner_stop();
    free(buf[0]);
    free(buf[1]);
    return 0;
}
