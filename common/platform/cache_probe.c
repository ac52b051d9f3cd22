/* cache_probe.c - how much last-level cache a collective's transfers can count on (machine.h,
 * emu_cache_probe_mib).
 *
 * The built-in collectives keep a call's transfers cached while every rank's buffers together
 * fit in three quarters of the machine's `cache` figure (host/coll/coll_plan.c, copy_mode_of),
 * and stream them past it. A virtual machine may report the host's whole L3 to a guest of two
 * cores that shares it with other guests: 480 MiB on the Intel machine of docs/PERFORMANCE.md,
 * where 2-rank 64 MiB allreduces (256 MiB of buffers) and 8-rank 32 MiB allgathers (288 MiB)
 * then stayed cached and ran 10 % and 40-70 % slower than streamed.
 *
 * So the figure is measured: two threads do to a block what a collective does to its buffers,
 * copying halves of it into a second block and back, each reading what the other wrote last,
 * once with memcpy and once with the data plane's streaming copy (emu_copy_stream), at
 * footprints doubling from PROBE_FROM. The first footprint at which streaming is clearly
 * faster (STREAM_MARGIN), there and at the next one, is where the cache stops paying; the
 * figure is that footprint x 4/3, so that coll_plan.c's three quarters land on it: a call of
 * that footprint stays cached, since the collectives' reads of what a peer just wrote gain
 * more from the cache than the probe's copies (2-rank 32 MiB allreduce, 128 MiB: 3.4 ms
 * cached, 3.8-4.2 streamed). On that machine: 171 MiB, streaming past 128 MiB of buffers,
 * in the minutes it was first measured; 86 MiB later (see STREAM_MARGIN). */
#include "machine.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/platform/copy.h"
#include "common/platform/os.h"

#define PROBE_FROM (16ull << 20) /* smaller footprints fit any last-level cache worth a probe */
#define PROBE_MAX (512ull << 20) /* past this, keep what the CPU reports */
#define PROBE_ROUNDS 4u          /* copies there and back, twice */
#define PROBE_RUNS 3u            /* per copy and footprint; the fastest counts */
#define PROBE_WAIT_MS 5000       /* a partner this late: give up, keep what the CPU reports */
/* How much faster streaming must be, as a fraction: time x 5/4 at most that of memcpy. Where
 * the two copies run even, one probe or the next finds either ahead: on the Intel machine,
 * five probes in a row timed 32 MiB at 0.80-1.07 x memcpy's rate and 64 MiB at 1.52-1.55, and
 * taking "as fast" gave cache=43 or 86 in turn. The calls part a doubling above the tie: at 64
 * MiB of buffers the 2-rank 16 MiB allreduce ran 10 % faster cached and the 4- and 8-rank
 * ones even, at 128 MiB the 2-, 4- and 8-rank ones 15-35 % faster streamed (cache=86 fits
 * both; docs/PERFORMANCE.md, "Streaming copies"). */
#define STREAM_MARGIN_NUM 5u
#define STREAM_MARGIN_DEN 4u

struct probe {
    uint8_t *a, *b;        /* the two blocks, `half` bytes each */
    size_t half;
    bool stream;           /* this run's copy */
    _Atomic uint32_t turns; /* rounds finished, counted by both threads */
    uint64_t t0;            /* when both threads ran: the clock starts then */
    _Atomic bool failed;   /* a partner never came: both stop */
};

/* Round r: thread `me` copies its quarter of the source block into the destination; the
 * source alternates, and each round a thread takes the quarter the other wrote last. */
static void round_copy(struct probe *p, unsigned me, unsigned r)
{
    size_t q = p->half / 2, part = (me + r) % 2;
    uint8_t *src = r % 2 ? p->b : p->a, *dst = r % 2 ? p->a : p->b;

    if (p->stream)
        emu_copy_stream(dst + part * q, src + part * q, q);
    else
        memcpy(dst + part * q, src + part * q, q);
}

/* Both threads' end of round r: bounded, so a partner that never runs cannot hold start-up. */
static bool meet(struct probe *p, unsigned r)
{
    uint64_t deadline = emu_os_deadline_ms(PROBE_WAIT_MS);

    atomic_fetch_add(&p->turns, 1);
    while (atomic_load(&p->turns) < 2 * (r + 1)) {
        if (atomic_load(&p->failed) || emu_os_now_ns() > deadline) {
            atomic_store(&p->failed, true);
            return false;
        }
        sched_yield();
    }
    return true;
}

/* A first meeting with nothing copied, then the rounds: the partner's start, which on a virtual
 * machine may wait for an idle vCPU to be woken, is not timed. */
static void rounds(struct probe *p, unsigned me)
{
    if (!meet(p, 0))
        return;
    if (me == 0)
        p->t0 = emu_os_now_ns();
    for (unsigned r = 0; r < PROBE_ROUNDS; r++) {
        round_copy(p, me, r);
        if (!meet(p, r + 1))
            return;
    }
}

static void *partner(void *arg)
{
    rounds(arg, 1);
    return NULL;
}

/* One run of PROBE_ROUNDS rounds with both threads, in ns; 0 when it failed. */
static uint64_t run_once(struct probe *p, bool stream)
{
    pthread_t t;

    p->stream = stream;
    atomic_store(&p->turns, 0);
    if (pthread_create(&t, NULL, partner, p) != 0)
        return 0;
    rounds(p, 0);
    uint64_t dt = emu_os_now_ns() - p->t0;
    pthread_join(t, NULL);
    return atomic_load(&p->failed) ? 0 : dt > 0 ? dt : 1;
}

/* Whether streaming copies are clearly faster at this footprint (*ok: the probe ran). */
static bool stream_wins(size_t footprint, bool *ok)
{
    size_t half = footprint / 2;
    uint8_t *m = mmap(NULL, footprint, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint64_t best[2] = {UINT64_MAX, UINT64_MAX};

    *ok = false;
    if (m == MAP_FAILED)
        return false;
    struct probe p = {.a = m, .b = m + half, .half = half};
    memset(m, 1, footprint); /* faulted in before any run is timed */
    for (unsigned i = 0; i < PROBE_RUNS * 2; i++) {
        bool stream = i % 2;
        uint64_t dt = run_once(&p, stream);
        if (dt == 0)
            break;
        best[stream] = dt < best[stream] ? dt : best[stream];
    }
    munmap(m, footprint);
    *ok = best[0] != UINT64_MAX && best[1] != UINT64_MAX;
    return *ok && best[1] / STREAM_MARGIN_DEN * STREAM_MARGIN_NUM <= best[0];
}

uint32_t emu_cache_probe_mib(uint32_t reported_mib)
{
    uint64_t limit = 2ull * reported_mib << 20, won = 0;
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    /* A quarter of the memory free now at most: the probe touches every byte it maps. */
    uint64_t room = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 4 : PROBE_MAX;

    limit = limit < PROBE_MAX ? limit : PROBE_MAX;
    limit = limit < room ? limit : room;
    for (uint64_t f = PROBE_FROM; f <= limit; f *= 2) {
        bool ok, wins = stream_wins(f, &ok);
        if (!ok)
            break;
        won = wins ? (won != 0 ? won : f) : 0;
        /* Twice in a row, or at the last footprint: one win alone was seen on a machine whose
         * other core was busy for a moment (streaming "won" at 16 MiB, then lost at 32). */
        if (won != 0 && (won != f || 2 * f > limit)) {
            uint64_t mib = ((won >> 20) * 4 + 2) / 3; /* rounded up: `won` itself stays cached */
            return mib < reported_mib ? (uint32_t)mib : reported_mib;
        }
    }
    return reported_mib;
}
