/* bench_task_floor.c - the fastest a scheduler can pass small tasks from the thread that builds
 * them to the thread that runs them on this machine, to read bench_dataplane's small-task rate
 * against (README, "Where the targets stand": at least 5 M tasks/s per device).
 *
 * A builder thread fills each task's first `hot` bytes (hcemu's tasks have 304 to 361 such
 * bytes) and links it behind the last one; a runner thread follows the links, reads the task,
 * copies 64 bytes (the work of a 64-byte HcommLocalCopyOnThread) and hands the task back in
 * chains of 64, through a ring the builder takes whole chains from, as hcemu's task pools do.
 * No checks, no lock, no notify, no scheduler: only the hand-off and the lines it moves. Run
 * with the two threads on two cores (the lines of every task cross between them) and on one
 * core (they take turns; nothing crosses). Prints tasks per second for hot parts of 128, 192
 * and 384 bytes. Not a test: asserts nothing, but says so if a task was read wrong.
 * Run: build/bin/bench_task_floor [tasks] */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/platform/os.h"

#define TASK_BYTES 512u
#define CHAIN 64u
#define RING 4096u /* chains in flight at most; the builder makes new tasks when it is empty */
#define WAIT_NS 10000000000ull

struct task {
    struct task *_Atomic next;
    uint64_t seq;
    unsigned char body[TASK_BYTES - 16];
};

struct floor_run {
    uint32_t hot;              /* bytes of each task the builder writes and the runner reads */
    long n;
    int cpu_builder, cpu_runner; /* -1: wherever the scheduler puts it */
    struct task head;          /* the list starts behind it */
    struct task *_Atomic chains[RING];
    _Atomic uint32_t chain_w, chain_r;
    _Atomic uint32_t wrong, lost;
    struct task **made;        /* every task allocated, to free them at the end */
    long n_made;
};

static void pin(int cpu)
{
    cpu_set_t set;

    if (cpu < 0)
        return;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    (void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static struct task *take_chain(struct floor_run *f)
{
    uint32_t r = emu_load_relaxed(&f->chain_r);

    if (r == emu_load_acquire(&f->chain_w))
        return NULL;
    struct task *c = f->chains[r % RING];
    emu_store_release(&f->chain_r, r + 1);
    return c;
}

static void *builder(void *arg)
{
    struct floor_run *f = arg;
    struct task *tail = &f->head, *spare = NULL;

    pin(f->cpu_builder);
    for (long i = 0; i < f->n; i++) {
        if (spare == NULL)
            spare = take_chain(f);
        struct task *t = spare;
        if (t != NULL) {
            spare = emu_load_relaxed(&t->next);
        } else {
            t = aligned_alloc(64, sizeof(*t));
            if (t == NULL) {
                emu_store_relaxed(&f->lost, 1);
                break;
            }
            f->made[f->n_made++] = t;
        }
        memset(t->body, (int)(i & 0x7f), f->hot - 16);
        t->seq = (uint64_t)i;
        emu_store_relaxed(&t->next, NULL);
        emu_store_release(&tail->next, t); /* the task is complete before the runner sees it */
        tail = t;
        if (f->cpu_builder == f->cpu_runner && (i & 127) == 127)
            sched_yield(); /* one core: let the runner take its turn */
    }
    return NULL;
}

static void *runner(void *arg)
{
    struct floor_run *f = arg;
    struct task *cur = &f->head, *chain = NULL;
    uint32_t in_chain = 0;
    unsigned char src[64] = {1}, dst[64];
    uint64_t deadline = emu_os_now_ns() + WAIT_NS;

    pin(f->cpu_runner);
    for (long i = 0; i < f->n; i++) {
        struct task *t;
        while ((t = emu_load_acquire(&cur->next)) == NULL) {
            if (emu_load_relaxed(&f->lost) != 0 || emu_os_now_ns() >= deadline)
                return NULL;
            sched_yield();
        }
        for (uint32_t off = 64; off < f->hot; off += 64)
            __builtin_prefetch((const char *)t + off);
        if (t->seq != (uint64_t)i || t->body[f->hot - 17] != (unsigned char)(i & 0x7f))
            emu_fetch_add_relaxed(&f->wrong, 1);
        memcpy(dst, src, sizeof(dst));
        __asm__ volatile("" : : "r"(dst) : "memory");
        /* The task before is done with: recycle it (never the list's head, nor t itself). */
        if (cur != &f->head) {
            emu_store_relaxed(&cur->next, chain);
            chain = cur;
            if (++in_chain == CHAIN) {
                uint32_t w = emu_load_relaxed(&f->chain_w);
                if (w - emu_load_acquire(&f->chain_r) < RING) {
                    f->chains[w % RING] = chain;
                    emu_store_release(&f->chain_w, w + 1);
                }
                chain = NULL; /* when the ring is full the chain stays in `made` only */
                in_chain = 0;
            }
        }
        cur = t;
    }
    return NULL;
}

/* Tasks per second, or 0 when the run went wrong. */
static double run(uint32_t hot, long n, int cpu_builder, int cpu_runner)
{
    struct floor_run *f = calloc(1, sizeof(*f));
    double rate = 0;

    if (f == NULL)
        return 0;
    f->made = calloc((size_t)n, sizeof(*f->made));
    if (f->made == NULL) {
        free(f);
        return 0;
    }
    f->hot = hot, f->n = n, f->cpu_builder = cpu_builder, f->cpu_runner = cpu_runner;
    pthread_t b, r;
    uint64_t t0 = emu_os_now_ns();
    if (pthread_create(&r, NULL, runner, f) == 0) {
        if (pthread_create(&b, NULL, builder, f) == 0)
            pthread_join(b, NULL);
        else
            emu_store_relaxed(&f->lost, 1);
        pthread_join(r, NULL);
        uint64_t ns = emu_os_now_ns() - t0;
        if (f->wrong == 0 && f->lost == 0)
            rate = (double)n / ((double)ns / 1e9);
    }
    if (f->wrong != 0)
        printf("  (%u tasks read wrong)\n", f->wrong);
    for (long i = 0; i < f->n_made; i++)
        free(f->made[i]);
    free(f->made);
    free(f);
    return rate;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    static const uint32_t hots[] = {128, 192, 384};

    if (n <= 0) {
        fprintf(stderr, "usage: bench_task_floor [tasks > 0]\n");
        return 2;
    }
    printf("task hand-off floor: %ld tasks, builder -> runner, 64-byte copy each, %u CPUs\n", n,
           emu_os_cpu_count());
    printf("%-10s %16s %16s\n", "hot bytes", "two cores M/s", "one core M/s");
    for (size_t i = 0; i < sizeof(hots) / sizeof(hots[0]); i++) {
        double two = emu_os_cpu_count() > 1 ? run(hots[i], n, 0, 1) : 0;
        double one = run(hots[i], n, 0, 0);
        printf("%-10u %16.2f %16.2f\n", hots[i], two / 1e6, one / 1e6);
    }
    return 0;
}
