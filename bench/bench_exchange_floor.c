/* bench_exchange_floor.c - the least an N-rank small collective can cost on this machine when
 * every rank is a process that must run once per call, so that hcemu's and OpenMPI's times
 * for a 1 KiB allreduce can be read against it (README, "Where the targets stand").
 *
 * Each of N processes, per call, writes 1 KiB of floats into its slot of a shared page (two
 * sets of slots, used in turn, as hcemu's eager slots are, so one barrier per call is enough),
 * arrives at a barrier, waits for the other N - 1, and sums the N slots into its result: one
 * exchange, the fewest hand-offs and the least work any allreduce can have. No kernel, no
 * task, no launch. A process that has to wait does it one of two ways:
 *   futex - it sleeps, and the last to arrive wakes it (what hcemu does whenever the job has
 *           more runnable threads than cores: no spinning, docs/ARCHITECTURE.md);
 *   yield - it calls sched_yield() between looks (what OpenMPI's shared-memory transport
 *           does), so nobody sleeps, no core goes idle and nobody needs a wake-up.
 * Then the same exchange launched: each rank is two processes, a host that launches the call
 * and waits for its end, and a device that waits for the launch, exchanges, and tells its
 * host (hcemu's host program and executor; the card's host and AICPU). That is the least any
 * design can spend when the kernel runs in its device's own process and the host program
 * synchronises after every call: 2N processes run once per call instead of N. (A host that
 * queues its calls and synchronises once, as hccl_test's loop does, is bound by the first
 * figure instead.)
 * Prints time, CPU time and context switches per call. Not a test: asserts nothing, but says
 * so when a sum is wrong. Run: build/bin/bench_exchange_floor [calls] */
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/platform/os.h"
#include "startup_floor.h"

#define MAX_RANKS 8
#define FLOATS 256                   /* 1 KiB per rank */
#define WAIT_MS 10000                /* a barrier that takes this long has lost a rank */

/* A launch or an end, posted by one process to one other; on a line of its own. */
struct flag {
    _Atomic uint32_t value;
    _Atomic uint32_t sleeping; /* the waiter sleeps on `value`: a post wakes it */
    char pad[56];
};

struct floor_page {
    struct flag launch[MAX_RANKS]; /* host -> device: call c starts (c + 2) */
    struct flag done[MAX_RANKS];   /* device -> host: call c ended (c + 2) */
    _Atomic uint32_t arrived;
    _Atomic uint32_t gen;            /* bumped by the last to arrive: the futex word */
    _Atomic uint32_t wrong;          /* sums that came out wrong */
    uint64_t ns;                     /* rank 0's time for the timed calls */
    float slot[2][MAX_RANKS][FLOATS];
};

enum wait_kind { WAIT_FUTEX, WAIT_YIELD };

/* All n arrive; false when the others did not come within WAIT_MS (a rank died). */
static bool barrier(struct floor_page *p, uint32_t n, enum wait_kind how)
{
    uint32_t gen = emu_load_acquire(&p->gen);

    if (emu_fetch_add_acq_rel(&p->arrived, 1) == n - 1) {
        emu_store_relaxed(&p->arrived, 0);
        emu_store_release(&p->gen, gen + 1);
        if (how == WAIT_FUTEX)
            emu_os_futex_wake(&p->gen, INT32_MAX);
        return true;
    }
    uint64_t deadline = emu_os_deadline_ms(WAIT_MS);
    while (emu_load_acquire(&p->gen) == gen) {
        if (emu_os_now_ns() >= deadline)
            return false;
        if (how == WAIT_FUTEX)
            (void)emu_os_futex_wait(&p->gen, gen, deadline);
        else
            sched_yield();
    }
    return true;
}

static void post(struct flag *f, uint32_t v, enum wait_kind how)
{
    emu_store_release(&f->value, v);
    /* Sequentially consistent with the waiter's: either it sees v before it sleeps, or this
     * sees it asleep (a wake-up only when someone sleeps, as hcemu's rings). */
    atomic_thread_fence(memory_order_seq_cst);
    if (how == WAIT_FUTEX && emu_load_relaxed(&f->sleeping) != 0)
        emu_os_futex_wake(&f->value, 1);
}

/* Wait for f to read v; false when it did not within WAIT_MS (its poster died). */
static bool await(struct flag *f, uint32_t v, enum wait_kind how)
{
    uint64_t deadline = emu_os_deadline_ms(WAIT_MS);
    uint32_t cur;

    while ((cur = emu_load_acquire(&f->value)) != v) {
        if (emu_os_now_ns() >= deadline)
            return false;
        if (how == WAIT_YIELD) {
            sched_yield();
            continue;
        }
        emu_store_relaxed(&f->sleeping, 1);
        atomic_thread_fence(memory_order_seq_cst);
        if (emu_load_acquire(&f->value) == cur)
            (void)emu_os_futex_wait(&f->value, cur, deadline);
        emu_store_relaxed(&f->sleeping, 0);
    }
    return true;
}

/* A launching rank's host: launch each call on its device and wait for its end. */
static void host_main(struct floor_page *p, uint32_t me, long calls, enum wait_kind how)
{
    uint64_t t0 = 0;

    for (long c = -1; c < calls; c++) {
        if (c == 0)
            t0 = emu_os_now_ns();
        post(&p->launch[me], (uint32_t)(c + 2), how);
        if (!await(&p->done[me], (uint32_t)(c + 2), how))
            _exit(2);
    }
    if (me == 0)
        p->ns = emu_os_now_ns() - t0;
    _exit(0);
}

/* A rank (launched: a rank's device). */
static void rank_main(struct floor_page *p, uint32_t me, uint32_t n, long calls, enum wait_kind how,
                      bool launched)
{
    uint64_t t0 = 0;

    /* Call -1 lines everyone up, so the clock starts with all processes running. */
    for (long c = -1; c < calls; c++) {
        if (c == 0)
            t0 = emu_os_now_ns();
        if (launched && !await(&p->launch[me], (uint32_t)(c + 2), how))
            _exit(2);
        float(*set)[FLOATS] = p->slot[c & 1];
        long phase = c & 1023; /* keeps every sum below 2^24, exact in float */
        for (int i = 0; i < FLOATS; i++)
            set[me][i] = (float)(me + 1) * (float)(i + phase);
        if (!barrier(p, n, how))
            _exit(2);
        float sum[FLOATS];
        for (int i = 0; i < FLOATS; i++) {
            float a = 0;
            for (uint32_t k = 0; k < n; k++)
                a += set[k][i];
            sum[i] = a;
        }
        /* 1 + 2 + ... + n = n(n+1)/2 of the same (i + phase). */
        if (sum[FLOATS - 1] != (float)(n * (n + 1) / 2) * (float)(FLOATS - 1 + phase))
            emu_fetch_add_relaxed(&p->wrong, 1);
        if (launched)
            post(&p->done[me], (uint32_t)(c + 2), how);
    }
    if (me == 0 && !launched)
        p->ns = emu_os_now_ns() - t0;
    _exit(0);
}

/* One configuration in fresh processes; false when a rank failed. */
static bool run(uint32_t n, enum wait_kind how, bool launched, long calls)
{
    struct floor_page *p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE,
                                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    const char *name = how == WAIT_FUTEX ? "futex" : "yield", *form = launched ? "launched" : "";
    struct rusage before, after;
    pid_t pids[2 * MAX_RANKS];
    uint32_t procs = launched ? 2 * n : n;
    bool ok = true;

    if (p == MAP_FAILED) {
        perror("bench_exchange_floor: mmap");
        return false;
    }
    double cpu_before = startup_cpu_ms(RUSAGE_CHILDREN);
    getrusage(RUSAGE_CHILDREN, &before);
    for (uint32_t r = 0; r < procs; r++) {
        pids[r] = fork();
        if (pids[r] == 0 && r < n)
            rank_main(p, r, n, calls, how, launched);
        if (pids[r] == 0)
            host_main(p, r - n, calls, how);
        if (pids[r] < 0) {
            perror("bench_exchange_floor: fork");
            for (uint32_t k = 0; k < r; k++)
                kill(pids[k], SIGKILL);
            procs = r;
            ok = false;
            break;
        }
    }
    /* Bounded: every process leaves its waits within WAIT_MS of what it waits for. */
    for (uint32_t r = 0; r < procs; r++) {
        int st;
        if (waitpid(pids[r], &st, 0) != pids[r] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            ok = false;
    }
    getrusage(RUSAGE_CHILDREN, &after);
    double cpu_ms = startup_cpu_ms(RUSAGE_CHILDREN) - cpu_before;
    if (ok) {
        double switches = (double)(after.ru_nvcsw - before.ru_nvcsw + after.ru_nivcsw -
                                   before.ru_nivcsw);
        printf("%u ranks, %-5s %-8s  %8.1f us/call  %8.1f CPU-us/call  %5.1f switches/call%s\n",
               n, name, form, (double)p->ns / 1e3 / (double)calls, cpu_ms * 1e3 / (double)calls,
               switches / (double)calls, p->wrong != 0 ? "  (SUMS WRONG)" : "");
    } else {
        printf("%u ranks, %-5s %-8s  failed: a rank did not finish\n", n, name, form);
    }
    munmap(p, sizeof(*p));
    return ok;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 5000;
    bool ok = true;

    if (calls <= 0) {
        fprintf(stderr, "usage: bench_exchange_floor [calls > 0]\n");
        return 2;
    }
    printf("exchange floor: 1 KiB fp32 allreduce, one barrier per call, %ld calls, %u CPUs\n",
           calls, emu_os_cpu_count());
    for (uint32_t n = 2; n <= MAX_RANKS; n *= 2) {
        ok &= run(n, WAIT_FUTEX, false, calls);
        ok &= run(n, WAIT_YIELD, false, calls);
        ok &= run(n, WAIT_FUTEX, true, calls);
        ok &= run(n, WAIT_YIELD, true, calls);
    }
    return ok ? 0 : 1;
}
