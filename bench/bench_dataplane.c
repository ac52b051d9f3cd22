/* bench_dataplane.c - the HCOMM data plane against its limits, measured in the same run:
 *   - HcommLocalCopyOnThread and HcommWriteOnThread, 4 KiB ... 256 MiB, vs memcpy;
 *   - HcommLocalReduceOnThread fp32/fp16/bf16 SUM vs memcpy of the same bytes;
 *   - thread-notify and cross-device channel-notify record->wait hand-off vs a spinning and a
 *     futex ping-pong between two processes;
 *   - small tasks per device per second (target >= 5 M/s).
 * Not a test: prints figures and ratios, asserts nothing. Uses the data-plane test fixture
 * (threads and channels written straight into the control blocks) and the dp_exec kernel.
 * Usage: bench_dataplane [--quick] [tasks|handoffs|pingpong|thread|channel|bandwidth...]:
 * the sections named (all by default; handoffs = pingpong thread channel), so a profile of
 * one section is not diluted by the others (ratios need pingpong). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/platform/os.h"
#include "hcomm/hcomm_primitives.h"
#include "kernels/dp_fixture.h"

#define MAXB (256ull << 20)

static struct dpf F;
static uint64_t T[2][4], CPU[2], CPU_ON_AI[2], CH[2];
static uint8_t *SRC[2], *DST[2];
static int quick;

struct prog {
    struct dp_op ops[64];
    uint32_t n;
};

static struct dp_op *add(struct prog *p, uint32_t fn, uint64_t thread)
{
    struct dp_op *o = &p->ops[p->n++];
    memset(o, 0, sizeof(*o));
    o->fn = fn;
    o->thread = thread;
    return o;
}

/* Run programs (p1 may be NULL), each ending with joins and the host hand-shake; seconds. */
static double timed(struct prog *p0, struct prog *p1)
{
    struct prog *ps[2] = {p0, p1};
    struct dpf_run runs[2];
    uint32_t n0[2] = {p0->n, p1 != NULL ? p1->n : 0};
    uint64_t t0 = emu_os_now_ns();

    for (int d = 0; d < 2; d++) {
        if (ps[d] == NULL)
            continue;
        for (int k = 0; k < 4; k++)
            add(ps[d], DPF_JOIN, T[d][k])->timeout = 600;
        struct dp_op *o = add(ps[d], DPF_TREC, T[d][0]);
        o->other = CPU_ON_AI[d];
        if (dpf_launch(&F, d, NULL, ps[d]->ops, ps[d]->n, &runs[d]) != 0 ||
            HcommThreadNotifyWaitOnThread(CPU[d], 0, 600) != 0)
            abort();
    }
    for (int d = 0; d < 2; d++)
        if (ps[d] != NULL && dpf_finish(&runs[d], NULL) != 0)
            abort();
    p0->n = n0[0]; /* the program can run again */
    if (p1 != NULL)
        p1->n = n0[1];
    return (double)(emu_os_now_ns() - t0) / 1e9;
}

static double memcpy_gbs(size_t n, uint64_t iters)
{
    static uint8_t *a, *b;
    if (a == NULL) {
        a = malloc(MAXB);
        b = malloc(MAXB);
        memset(a, 1, MAXB);
        memset(b, 2, MAXB);
    }
    double best = 0;
    for (int k = 0; k < 3; k++) {
        uint64_t t0 = emu_os_now_ns();
        for (uint64_t i = 0; i < iters; i++) {
            memcpy(b, a + (i & 1), n - 1);
            __asm__ __volatile__("" ::: "memory");
        }
        double gbs = (double)n * (double)iters / ((double)(emu_os_now_ns() - t0));
        if (gbs > best)
            best = gbs;
    }
    return best;
}

static uint64_t iters_for(size_t n)
{
    uint64_t it = (quick ? 64ull << 20 : 512ull << 20) / n;
    return it < 2 ? 2 : it > 4096 ? 4096 : it;
}

static double dp_seconds(uint32_t fn, size_t n, uint64_t iters, int dtype)
{
    struct prog p = {.n = 0};
    struct dp_op *l = add(&p, DPF_LOOP, 0);
    l->n = iters, l->idx = 1;
    struct dp_op *o = add(&p, fn, T[0][1]);
    o->dst = (uint64_t)(uintptr_t)(fn == DPF_WRITE ? DST[1] : DST[0]);
    o->src = (uint64_t)(uintptr_t)SRC[0];
    o->n = n, o->other = CH[0], o->dtype = dtype;
    return timed(&p, NULL);
}

/* One op repeated, steady state; GB/s. A timed run includes a kernel launch and a host
 * synchronisation (tens of microseconds), so time `iters` and `2 * iters` repetitions and
 * use the difference: the cost of `iters` more tasks, without the fixed part. */
static double dp_gbs(uint32_t fn, size_t n, uint64_t iters, int dtype, size_t bytes)
{
    dp_seconds(fn, n, iters, dtype); /* warm: pages populated, images loaded */
    /* The fastest of several runs estimates each length without noise from the machine;
     * differences of single runs would amplify that noise. */
    double one = 1e30, two = 1e30;
    for (int k = 0; k < 5; k++) {
        double a = dp_seconds(fn, n, iters, dtype);
        double b = dp_seconds(fn, n, 2 * iters, dtype);
        one = a < one ? a : one;
        two = b < two ? b : two;
    }
    return two > one ? (double)bytes * (double)iters / ((two - one) * 1e9) : 0;
}

static void bandwidth(void)
{
    printf("\n== LocalCopy / channel Write vs memcpy (GB/s, ratio; target >= 0.9 at >= 1 MiB)\n");
    printf("%10s %9s %9s %6s %9s %6s\n", "size", "memcpy", "copy", "ratio", "write", "ratio");
    for (size_t n = 4096; n <= MAXB; n *= 4) {
        uint64_t it = iters_for(n);
        double m = memcpy_gbs(n, it);
        double c = dp_gbs(DPF_COPY, n, it, 0, n);
        double w = dp_gbs(DPF_WRITE, n, it, 0, n);
        printf("%9zuK %9.2f %9.2f %6.2f %9.2f %6.2f\n", n >> 10, m, c, c / m, w, w / m);
    }
    printf("\n== LocalReduce SUM vs memcpy of the same bytes (target >= 0.8 for fp32 at >= 1 MiB)\n");
    printf("%10s %9s %9s %6s %9s %6s %9s %6s\n", "size", "memcpy", "fp32", "ratio", "fp16",
           "ratio", "bf16", "ratio");
    for (size_t n = 64 << 10; n <= (64u << 20); n *= 4) {
        uint64_t it = iters_for(n);
        double m = memcpy_gbs(n, it);
        double f32 = dp_gbs(DPF_REDUCE, n / 4, it, HCOMM_DATA_TYPE_FP32, n);
        double f16 = dp_gbs(DPF_REDUCE, n / 2, it, HCOMM_DATA_TYPE_FP16, n);
        double b16 = dp_gbs(DPF_REDUCE, n / 2, it, HCOMM_DATA_TYPE_BFP16, n);
        printf("%9zuK %9.2f %9.2f %6.2f %9.2f %6.2f %9.2f %6.2f\n", n >> 10, m, f32, f32 / m, f16,
               f16 / m, b16, b16 / m);
    }
}

/* --- hand-off latency ------------------------------------------------------------------ */

static double thread_handoff_us(uint64_t rounds)
{
    struct prog p = {.n = 0};
    add(&p, DPF_BSTART, 0);
    struct dp_op *l = add(&p, DPF_LOOP, 0);
    l->n = rounds, l->idx = 4;
    struct dp_op *o = add(&p, DPF_TREC, T[0][1]);
    o->other = T[0][2], o->idx = 0;
    o = add(&p, DPF_TWAIT, T[0][1]);
    o->idx = 1, o->timeout = 60;
    o = add(&p, DPF_TWAIT, T[0][2]);
    o->idx = 0, o->timeout = 60;
    o = add(&p, DPF_TREC, T[0][2]);
    o->other = T[0][1], o->idx = 1;
    add(&p, DPF_BEND, 0);
    return timed(&p, NULL) * 1e6 / (double)(2 * rounds);
}

static double channel_handoff_us(uint64_t rounds)
{
    struct prog p0 = {.n = 0}, p1 = {.n = 0};
    add(&p0, DPF_BSTART, 0);
    struct dp_op *l = add(&p0, DPF_LOOP, 0);
    l->n = rounds, l->idx = 2;
    struct dp_op *o = add(&p0, DPF_CREC, T[0][1]);
    o->other = CH[0], o->idx = 0;
    o = add(&p0, DPF_CWAIT, T[0][1]);
    o->other = CH[0], o->idx = 1, o->timeout = 60;
    add(&p0, DPF_BEND, 0);
    add(&p1, DPF_BSTART, 0);
    l = add(&p1, DPF_LOOP, 0);
    l->n = rounds, l->idx = 2;
    o = add(&p1, DPF_CWAIT, T[1][1]);
    o->other = CH[1], o->idx = 0, o->timeout = 60;
    o = add(&p1, DPF_CREC, T[1][1]);
    o->other = CH[1], o->idx = 1;
    add(&p1, DPF_BEND, 0);
    return timed(&p0, &p1) * 1e6 / (double)(2 * rounds);
}

/* Two processes bouncing a word in shared memory; futex sleeps when `sleep` is set. */
static double process_pingpong_us(uint64_t rounds, int sleep)
{
    _Atomic uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                               -1, 0);
    atomic_store(w, 0);
    pid_t pid = fork();
    if (pid == 0) {
        for (uint64_t i = 0; i < rounds; i++) {
            uint32_t want = (uint32_t)(2 * i + 1);
            while (emu_load_acquire(w) != want) {
                if (sleep)
                    (void)emu_os_futex_wait(w, want - 1, UINT64_MAX);
                else
                    emu_cpu_relax();
            }
            emu_store_release(w, want + 1);
            if (sleep)
                emu_os_futex_wake(w, 1);
        }
        _exit(0);
    }
    uint64_t t0 = emu_os_now_ns();
    for (uint64_t i = 0; i < rounds; i++) {
        uint32_t next = (uint32_t)(2 * i + 1);
        emu_store_release(w, next);
        if (sleep)
            emu_os_futex_wake(w, 1);
        while (emu_load_acquire(w) != next + 1) {
            if (sleep)
                (void)emu_os_futex_wait(w, next, UINT64_MAX);
            else
                emu_cpu_relax();
        }
    }
    double us = (double)(emu_os_now_ns() - t0) / 1e3 / (double)(2 * rounds);
    waitpid(pid, NULL, 0);
    munmap((void *)w, 4096);
    return us;
}

static int n_args;
static char **args;

/* Whether section `name` was asked for: named on the command line, or none named.
 * "handoffs" names "pingpong", "thread" and "channel" together. */
static bool wanted(const char *name)
{
    bool any = false;

    for (int i = 1; i < n_args; i++) {
        if (strcmp(args[i], name) == 0)
            return true;
        if (strcmp(args[i], "handoffs") == 0 && (strcmp(name, "pingpong") == 0 ||
                                                 strcmp(name, "thread") == 0 ||
                                                 strcmp(name, "channel") == 0))
            return true;
        any |= args[i][0] != '-';
    }
    return !any;
}

static void handoffs(void)
{
    uint64_t r = quick ? 2000 : 20000;
    bool pp = wanted("pingpong");
    double spin = pp ? process_pingpong_us(r, 0) : 0, futex = pp ? process_pingpong_us(r, 1) : 0;
    double th = 0, ch = 0;

    /* Each measured after a run of the same length: its tasks' memory is the executors'
     * already (first touches of a fresh heap cost more than the hand-offs measured). */
    if (wanted("thread")) {
        (void)thread_handoff_us(r);
        th = thread_handoff_us(r);
    }
    if (wanted("channel")) {
        (void)channel_handoff_us(r);
        ch = channel_handoff_us(r);
    }

    printf("\n== record -> wait hand-off, mean one-way (us; target <= 2 us with a free core, never "
           "worse than futex)\n");
    if (pp) {
        printf("spinning ping-pong (2 processes) %8.2f\n", spin);
        printf("futex ping-pong (2 processes)    %8.2f\n", futex);
    }
    if (th > 0)
        printf("thread notify (one device)       %8.2f   ratio vs spin %.2f, vs futex %.2f\n", th,
               th / spin, th / futex);
    if (ch > 0)
        printf("channel notify (two devices)     %8.2f   ratio vs spin %.2f, vs futex %.2f\n", ch,
               ch / spin, ch / futex);
}

/* --- small-task throughput ------------------------------------------------------------- */

static void small_tasks(void)
{
    uint64_t per = quick ? 25000 : 250000; /* loop rounds; 4 tasks each */
    struct prog p = {.n = 0};

    add(&p, DPF_BSTART, 0);
    struct dp_op *l = add(&p, DPF_LOOP, 0);
    l->n = per, l->idx = 4;
    for (int k = 0; k < 4; k++) {
        struct dp_op *o = add(&p, DPF_COPY, T[0][k]);
        o->dst = (uint64_t)(uintptr_t)(DST[0] + 256 * k);
        o->src = (uint64_t)(uintptr_t)(SRC[0] + 256 * k);
        o->n = 64;
    }
    add(&p, DPF_BEND, 0);
    double s = timed(&p, NULL);
    double copies = (double)(4 * per) / s;

    p.n = 0;
    add(&p, DPF_BSTART, 0);
    l = add(&p, DPF_LOOP, 0);
    l->n = per, l->idx = 4;
    for (int k = 0; k < 2; k++) {
        struct dp_op *o = add(&p, DPF_TREC, T[0][k]);
        o->other = T[0][k], o->idx = 3;
        o = add(&p, DPF_TWAIT, T[0][k]);
        o->idx = 3, o->timeout = 60;
    }
    add(&p, DPF_BEND, 0);
    s = timed(&p, NULL);
    double notes = (double)(4 * per) / s;
    printf("\n== small tasks per device (kernel submits in batch mode, 4 threads; target >= 5 M/s)\n");
    printf("64-byte LocalCopy           %8.2f M tasks/s\n", copies / 1e6);
    printf("notify record + wait pairs  %8.2f M tasks/s\n", notes / 1e6);
}

int main(int argc, char **argv)
{
    n_args = argc;
    args = argv;
    for (int i = 1; i < argc; i++)
        quick |= strcmp(argv[i], "--quick") == 0;
    setenv("HCEMU_DEVICE_MEM_GB", "4", 0);
    if (dpf_setup(&F, 2, DP_KERNELS_JSON, 1) != 0) {
        fprintf(stderr, "bench_dataplane: cannot start the emulated devices\n");
        return 1;
    }
    for (int d = 0; d < 2; d++) {
        for (int k = 0; k < 4; k++)
            T[d][k] = dpf_thread(&F, d, 4, (uint32_t)d, (uint32_t)k);
        CPU[d] = dpf_cpu_thread(&F, d, NULL, 1, (uint32_t)d);
        CPU_ON_AI[d] = dpf_export(CPU[d], 3);
        SRC[d] = dpf_malloc(&F, d, MAXB);
        DST[d] = dpf_malloc(&F, d, MAXB);
    }
    dpf_channel_pair(&F, 0, 1, 2, DST[0], MAXB, DST[1], MAXB, &CH[0], &CH[1]);
    printf("hcemu data-plane benchmark (%u CPUs)%s\n", emu_os_cpu_count(), quick ? " --quick" : "");
    if (wanted("tasks"))
        small_tasks();
    if (wanted("pingpong") || wanted("thread") || wanted("channel"))
        handoffs();
    if (wanted("bandwidth"))
        bandwidth();
    dpf_teardown(&F);
    return 0;
}
