/* spin.c - the job-wide spin budget (see spin.h). */
#include "spin.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "atomic.h"
#include "common/contract/job.h"
#include "os.h"
#include "secure_dir.h"
#include "common/contract/settings.h"

struct budget {
    _Atomic int32_t busy;     /* threads of the job's executors running tasks or kernels */
    _Atomic int32_t spinners; /* waiting threads spinning right now, job-wide */
    _Atomic int32_t yielding; /* those of them that give way (hosts in synchronisation) */
    _Atomic int32_t polling;  /* threads in a yielding poll (emu_spin_poll), job-wide */
    _Atomic int32_t executors; /* executors of the job running (emu_spin_executor) */
    _Atomic uint64_t poll_off_until; /* no polls before this time (monotonic ns, job-wide) */
    _Atomic uint64_t poll_off_ns;    /* the length of the last such pause (back_off) */
};

static struct budget local; /* used until (or unless) the job file is mapped */
static struct budget *job = &local;

/* The machine's runnable threads (the 4th field of /proc/loadavg, "running/total"), read at
 * most every SAMPLE_NS per process: other programs' threads need the cores too, and the
 * job's counters cannot see them. Reading it costs an open, a read and a close (10-30 us
 * on a VM): at 2 ms, 16 processes of an 8-rank job spent more CPU reading it than the
 * wake-ups it saved. */
#define SAMPLE_NS 10000000ull
static _Atomic uint64_t sampled_at;
static _Atomic int32_t machine_running;

static int32_t runnable_now(void)
{
    uint64_t now = emu_os_now_ns(), at = emu_load_relaxed(&sampled_at);

    if (now - at < SAMPLE_NS || !emu_cas_acq_rel(&sampled_at, &at, now))
        return emu_load_relaxed(&machine_running);
    char buf[128];
    int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
    int running = 0;
    if (fd >= 0)
        close(fd);
    if (n > 0) {
        buf[n] = '\0';
        if (sscanf(buf, "%*s %*s %*s %d/", &running) != 1)
            running = 0;
    }
    emu_store_relaxed(&machine_running, running);
    return running;
}

void emu_spin_open(const char *job_dir)
{
    char path[512];
    void *p;

    if (job != &local)
        return;
    if (emu_job_path(path, sizeof(path), job_dir, "cpus.shm") != EMU_OK)
        return;
    /* Every process may create it; all see the same zero-filled page. */
    int fd;
    if (emu_secure_dir_open_path(path, O_RDWR | O_CREAT, 0600, &fd) != EMU_OK)
        return;
    if (ftruncate(fd, 4096) == 0 && emu_os_map_shared(fd, 0, 4096, NULL, 0, &p) == EMU_OK)
        job = p;
    close(fd);
}

void emu_spin_busy(int delta)
{
    emu_fetch_add_relaxed(&job->busy, delta);
}

void emu_spin_executor(int delta)
{
    emu_fetch_add_relaxed(&job->executors, delta);
}

int32_t emu_spin_executors(void)
{
    return emu_load_relaxed(&job->executors);
}

bool emu_spin_begin(_Atomic uint32_t *gate)
{
    uint32_t none = 0;
    int32_t cores = (int32_t)emu_os_cpu_count();

    /* More executors than cores: the devices take turns on the cores, and a hand-off mostly
     * goes to a device whose threads wait for a core, not to a spinner. The busy count sees
     * only threads already running, not those woken and waiting for their turn, so a worker
     * spinning here would hold a core they need. (8 rank processes on 2 cores, 1 KiB
     * allreduce: 340 us a call with 50-us spins, 260 us without.) */
    if (gate != NULL && emu_load_relaxed(&job->executors) > cores)
        return false;
    /* Sequentially consistent: emu_devctl_ring() reads the gate after bumping the doorbell
     * and skips the futex wake while a spinner is there; the spinner re-reads the doorbell
     * after leaving (Dekker), so no ring is lost. */
    if (gate != NULL && !atomic_compare_exchange_strong(gate, &none, 1))
        return false;
    int32_t want = emu_fetch_add_acq_rel(&job->spinners, 1) + 1;
    /* A thread without a gate (a host synchronising) gives way: it counts for the spinners
     * that follow it only as long as it spins, and leaves when it is one too many
     * (emu_spin_must_yield). A worker on the hand-off path ignores it. */
    int32_t yielding = 0;
    if (gate == NULL)
        emu_fetch_add_acq_rel(&job->yielding, 1);
    else
        yielding = emu_load_relaxed(&job->yielding);

    /* Spin while runnable threads (the busy ones, which will ring, and the spinners) do not
     * outnumber cores. Counters of a crashed process may stay high: that only disables
     * spinning. */
    if (emu_load_relaxed(&job->busy) + want - yielding <= cores &&
        runnable_now() - yielding <= cores)
        return true;
    emu_spin_end(gate);
    return false;
}

void emu_spin_end(_Atomic uint32_t *gate)
{
    emu_fetch_sub_acq_rel(&job->spinners, 1);
    if (gate != NULL)
        atomic_store(gate, 0);
    else
        emu_fetch_sub_acq_rel(&job->yielding, 1);
}

bool emu_spin_must_yield(void)
{
    return emu_load_relaxed(&job->busy) + emu_load_relaxed(&job->spinners) >
           (int32_t)emu_os_cpu_count();
}

bool emu_spin_core_free(void)
{
    int32_t cores = (int32_t)emu_os_cpu_count();

    return emu_load_relaxed(&job->busy) + emu_load_relaxed(&job->spinners) < cores &&
           runnable_now() < cores;
}

/* Polling pays only while the threads sharing the cores are the job's own short hand-offs:
 * a yield that comes back after LONG_YIELD_NS means some thread ran a long slice (another
 * program's work, a long copy, a host queueing thousands of launches), and a thread asleep
 * on a futex would have been woken into it at once (the scheduler favours a waking thread),
 * while a poller waits for its turn. Such a yield ends the poll and turns polling off for the
 * whole job (the time is in the job's counter file, which the monotonic clock makes
 * comparable across its processes), so the job pays one slice per pause, not one per wait
 * or per process.
 *
 * The pause starts at twice the long yield and doubles each time polling meets another long
 * yield within AGAIN_NS of resuming, up to BACKOFF_MAX_NS: a machine busy with other
 * programs, whose slices meet a poller at once, soon pauses polls for 100 ms at a time,
 * while a burst of the job's own (a host refilling its argument ring for 2-4 ms, at 8 ranks
 * one every 50 ms or so) pauses them for a few milliseconds. A fixed 100-ms pause turned
 * polls off for over half of a long 4-rank loop, whose hosts refill their rings every
 * ~200 ms: 53-77 us a 1 KiB allreduce with the cores 37-49 % idle, against 26-31 us.
 *
 * With no more executors than cores, one long yield proves nothing: the scheduler itself
 * sometimes keeps a yielding thread off its core for a slice while only the job's threads
 * run (six threads doing nothing but sched_yield() on the 2-core machine saw 5-11 yields of
 * 250 us or more each in 2 s, up to 6 ms), and a 2-rank 64 KiB allgather loop met seven in
 * 35 ms, so polls were off for most of it (12.3 us a call against 9.2 when only two long
 * yields in a row count, alternating 20,000-call runs; beside two busy loops 11-22 us against
 * 21-29). There two in a row are the proof. With more executors than cores one still is:
 * beside two busy loops the 4-rank 1 KiB allreduce took 87-101 us under the two-in-a-row
 * rule against 17-23. */
#define LONG_YIELD_NS 250000ull
#define BACKOFF_MIN_NS 1000000ull
#define BACKOFF_MAX_NS 100000000ull
#define AGAIN_NS 10000000ull

static void back_off(uint64_t now, uint64_t yield_ns)
{
    uint64_t until = emu_load_relaxed(&job->poll_off_until);
    uint64_t last = emu_load_relaxed(&job->poll_off_ns);
    /* Another long yield within AGAIN_NS of polls resuming: the cores are taken. */
    bool again = until != 0 && now < until + AGAIN_NS;
    uint64_t pause = again ? 2 * last : 2 * yield_ns;

    pause = pause < BACKOFF_MIN_NS ? BACKOFF_MIN_NS
            : pause > BACKOFF_MAX_NS ? BACKOFF_MAX_NS
                                     : pause;
    /* Racing processes may each store theirs: any of them is a fair pause. */
    emu_store_relaxed(&job->poll_off_ns, pause);
    emu_store_relaxed(&job->poll_off_until, now + pause);
}

uint64_t emu_spin_poll_end(uint64_t deadline)
{
    uint64_t us = emu_settings_u64(EMU_SET_POLL_US);

    if (us == 0)
        return 0;
    uint64_t now = emu_os_now_ns();
    if (now < emu_load_relaxed(&job->poll_off_until))
        return 0;
    uint64_t end = now + us * 1000u;
    return end < deadline ? end : deadline;
}

/* At most POLLERS_PER_CORE pollers per core, job-wide: each one's turn is a context switch
 * for the thread with real work on its core, so that thread waits at most a couple of
 * short turns; a waiting thread beyond the cap sleeps at once as before. */
#define POLLERS_PER_CORE 2

static bool poll_loop(_Atomic uint32_t *word, uint32_t seen, uint64_t end, int32_t cores);

bool emu_spin_poll(_Atomic uint32_t *word, uint32_t seen, uint64_t end)
{
    if (emu_load_acquire(word) != seen)
        return true;
    int32_t n = emu_fetch_add_acq_rel(&job->polling, 1) + 1;
    int32_t cores = (int32_t)emu_os_cpu_count();
    bool moved = n <= POLLERS_PER_CORE * cores && poll_loop(word, seen, end, cores);
    emu_fetch_sub_acq_rel(&job->polling, 1);
    return moved;
}

static bool poll_loop(_Atomic uint32_t *word, uint32_t seen, uint64_t end, int32_t cores)
{
    /* One clock read a look: the time after a yield is the time before the next (a poller
     * spends most of its turns reading the clock otherwise: 3.5 % of a 4-rank 1 KiB
     * allgather's samples were clock_gettime). */
    uint64_t before = emu_os_now_ns();
    /* Long yields in a row that prove the cores taken (see "Polling pays only..."). */
    uint32_t proof = emu_load_relaxed(&job->executors) > cores ? 1 : 2;
    uint32_t long_ones = 0;

    for (;;) {
        /* Pairs with the writer's release (a ring's doorbell, a retirement's `completed`). */
        if (emu_load_acquire(word) != seen)
            return true;
        if (before >= end)
            return false;
        /* The scheduler puts this thread behind the other runnable threads of its core (and
         * returns at once when there are none): it costs them one short turn, not a slice. */
        sched_yield();
        uint64_t after = emu_os_now_ns();
        long_ones = after - before >= LONG_YIELD_NS ? long_ones + 1 : 0;
        if (long_ones >= proof) {
            back_off(after, after - before);
            return emu_load_acquire(word) != seen;
        }
        before = after;
    }
}
