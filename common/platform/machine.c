/* machine.c - this machine's figures for the collectives' wall-clock cost model (machine.h):
 * parsed from HCEMU_MACHINE, read from the per-user cache, or measured. */
#include "machine.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/contract/settings.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/platform/secure_dir.h"

#define COPY_BYTES (1u << 20) /* a collective's blocks are this order of size */
#define PINGS 200u            /* futex round trips measured (at most HANDOFF_MS) */
#define BATCH 20u             /* ... in batches; the fastest batch counts (others' load) */
#define HANDOFF_MS 30
/* Measurements of the hand-off the cache file's figures take the fastest of, HANDOFF_GAP_MS
 * apart (measure_handoffs). */
#define HANDOFF_TRIES 5
#define HANDOFF_GAP_MS 40
/* Another process measuring holds the lock for ~10-50 ms; seconds on a machine loaded many
 * times over. Giving up early could leave this rank on the card's rule while the others use
 * the cache, so the wait is long. */
#define LOCK_MS 30000
/* 2: the figures gained the cache size; 3: measured (cache_probe.c), not as the CPU reports
 * it. A file of an earlier version is measured again. */
#define CACHE_MAGIC "hcemu-machine 3"

bool emu_machine_parse(const char *s, struct emu_machine *m)
{
    double copy, handoff;
    unsigned cores, cache = 0;
    int used = 0, more = 0;

    if (s == NULL ||
        sscanf(s, "copy=%lf,handoff=%lf,cores=%u%n", &copy, &handoff, &cores, &used) != 3)
        return false;
    if (s[used] == ',' && (sscanf(s + used, ",cache=%u%n", &cache, &more) != 1 || more == 0))
        return false;
    used += more;
    if (s[used] != '\0' && s[used] != '\n')
        return false;
    if (!(copy >= 0.01 && copy <= 10000) || !(handoff >= 0.01 && handoff <= 100000) ||
        cores < 1 || cores > 4096 || cache > (1u << 20))
        return false;
    *m = (struct emu_machine){copy, handoff, cores, cache};
    return true;
}

void emu_machine_format(const struct emu_machine *m, char *out, size_t len)
{
    snprintf(out, len, "copy=%.3f,handoff=%.3f,cores=%u,cache=%u", m->copy_gbps, m->handoff_us,
             m->cores, m->cache_mib);
}

/* Best of five batches of four 1 MiB copies, in GB/s: the buffers stay in the caches, as a
 * collective's blocks mostly do between their write and their read. */
static double measure_copy(void)
{
    char *buf = malloc(2u * COPY_BYTES);
    double best = 0;

    if (buf == NULL)
        return 1.0;
    memset(buf, 1, 2u * COPY_BYTES);
    for (int b = 0; b < 5; b++) {
        uint64_t t0 = emu_os_now_ns();
        for (int i = 0; i < 4; i++)
            memcpy(buf + (i & 1) * COPY_BYTES, buf + !(i & 1) * COPY_BYTES, COPY_BYTES);
        uint64_t dt = emu_os_now_ns() - t0;
        double rate = 4.0 * COPY_BYTES / (double)(dt > 0 ? dt : 1);
        best = rate > best ? rate : best;
    }
    /* Keep the copies: the compiler may not drop them, their result is read. */
    __asm__ volatile("" : : "r"(buf) : "memory");
    free(buf);
    return best;
}

struct ping {
    _Atomic uint32_t turn; /* odd: the partner's turn */
    uint64_t deadline;
};

static void *pong(void *arg)
{
    struct ping *p = arg;

    for (uint32_t i = 0; i < PINGS; i++) {
        uint32_t want = 2 * i + 1;
        while (atomic_load(&p->turn) < want)
            if (emu_os_futex_wait(&p->turn, want - 1, p->deadline) == EMU_ETIMEOUT)
                return NULL;
        atomic_store(&p->turn, want + 1);
        emu_os_futex_wake(&p->turn, 1);
    }
    return NULL;
}

/* Half a futex ping-pong between two threads, in microseconds: what handing work to a
 * sleeping worker of another device costs. The fastest batch of BATCH round trips counts:
 * other programs' load only ever adds to it. */
static double measure_handoff(void)
{
    struct ping p = {.deadline = emu_os_deadline_ms(HANDOFF_MS)};
    pthread_t t;
    uint64_t best = UINT64_MAX, t0 = 0;

    if (pthread_create(&t, NULL, pong, &p) != 0)
        return 10.0;
    for (uint32_t i = 0; i < PINGS; i++) {
        uint32_t want = 2 * i + 2;
        if (i % BATCH == 0)
            t0 = emu_os_now_ns();
        atomic_store(&p.turn, want - 1);
        emu_os_futex_wake(&p.turn, 1);
        while (atomic_load(&p.turn) < want)
            if (emu_os_futex_wait(&p.turn, want - 1, p.deadline) == EMU_ETIMEOUT)
                goto out;
        if (i % BATCH == BATCH - 1 && emu_os_now_ns() - t0 < best)
            best = emu_os_now_ns() - t0;
    }
out:
    atomic_store(&p.turn, UINT32_MAX - 1); /* a partner still waiting goes */
    emu_os_futex_wake(&p.turn, 1);
    pthread_join(t, NULL);
    return best == UINT64_MAX ? (double)HANDOFF_MS * 1000 : (double)best / 1000.0 / (2.0 * BATCH);
}

/* The largest cache the CPU reports for cpu0 (sysfs), MiB; 0 when none is readable. What the
 * CPU reports, not a measurement: a virtual machine may report more than its cores can use,
 * and HCEMU_MACHINE's `cache` corrects it. */
static uint32_t reported_cache_mib(void)
{
    uint64_t best = 0;

    for (int i = 0; i < 8; i++) {
        char path[96], text[32];
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *f = fopen(path, "re");
        if (f == NULL)
            continue;
        unsigned long long v = 0;
        char unit = 'K';
        if (fgets(text, sizeof(text), f) != NULL && sscanf(text, "%llu%c", &v, &unit) >= 1) {
            v = unit == 'M' ? v << 20 : unit == 'G' ? v << 30 : unit == 'K' ? v << 10 : v;
            best = v > best ? v : best;
        }
        fclose(f);
    }
    best >>= 20;
    return best > (1u << 20) ? 1u << 20 : (uint32_t)best;
}

/* The fastest of HANDOFF_TRIES hand-off measurements spread over a quarter of a second. A
 * virtual machine's futex hand-off flips between states within seconds: on the Intel machine
 * of docs/PERFORMANCE.md it read 0.8-0.9 us in some measurements and 19-34 (once 166-203) in
 * others, with nothing else running, where an idle vCPU must be woken by an interrupt. The
 * figure prices the hand-offs of a running job, whose cores are seldom idle, and a slow one
 * misled the choice: with 32 us the 8-rank 1 KiB allgather went mesh, 26 us a call, where
 * recursive doubling takes 17. */
static double measure_handoffs(double first)
{
    double best = first;

    for (int i = 1; i < HANDOFF_TRIES; i++) {
        usleep(HANDOFF_GAP_MS * 1000);
        double h = measure_handoff();
        best = h < best ? h : best;
    }
    return best;
}

void emu_machine_measure(struct emu_machine *m)
{
    cpu_set_t set;
    int cores = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;

    m->copy_gbps = measure_copy();
    m->handoff_us = measure_handoff();
    m->cores = cores > 0 ? (uint32_t)cores : emu_os_cpu_count();
    m->cache_mib = reported_cache_mib();
    /* Clamp to what emu_machine_parse accepts, so the cache always reads back. */
    m->copy_gbps = m->copy_gbps < 0.01 ? 0.01 : m->copy_gbps > 10000 ? 10000 : m->copy_gbps;
    m->handoff_us = m->handoff_us < 0.01 ? 0.01 : m->handoff_us;
    m->handoff_us = m->handoff_us > 100000 ? 100000 : m->handoff_us;
    m->cores = m->cores < 1 ? 1 : m->cores > 4096 ? 4096 : m->cores;
}

bool emu_machine_cache_path(char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int w;

    if (xdg != NULL && xdg[0] == '/')
        w = snprintf(out, len, "%s/hcemu", xdg);
    else if (home != NULL && home[0] == '/')
        w = snprintf(out, len, "%s/.cache/hcemu", home);
    else
        return false;
    return w > 0 && (size_t)w < len;
}

/* Which machine a cache file belongs to: its machine id (or host name) and CPU count. */
static void identity(char *out, size_t len)
{
    char id[64] = "";
    FILE *f = fopen("/etc/machine-id", "re");

    if (f != NULL) {
        if (fgets(id, sizeof(id), f) == NULL)
            id[0] = '\0';
        fclose(f);
    }
    id[strcspn(id, "\n")] = '\0';
    if (id[0] == '\0' && gethostname(id, sizeof(id) - 1) != 0)
        snprintf(id, sizeof(id), "unknown");
    snprintf(out, len, "%s:%u", id, emu_os_cpu_count());
}

/* The figures of an open cache file, when it is ours: the magic, this machine's identity and
 * figures that parse. Anything else (another machine, a damaged file) is ignored. */
static bool read_cache(int fd, struct emu_machine *m)
{
    char buf[512], want[160], *nl;
    ssize_t got = pread(fd, buf, sizeof(buf) - 1, 0);

    if (got <= 0)
        return false;
    buf[got] = '\0';
    identity(want, sizeof(want));
    if ((nl = strchr(buf, '\n')) == NULL)
        return false;
    *nl = '\0';
    char head[sizeof(want) + sizeof(CACHE_MAGIC) + 1];
    snprintf(head, sizeof(head), "%s %s", CACHE_MAGIC, want);
    return strcmp(buf, head) == 0 && emu_machine_parse(nl + 1, m);
}

/* False when the file could not be written (then other processes would measure again). */
static bool write_cache(int dirfd, const char *dir, const struct emu_machine *m)
{
    char text[512], id[160], fig[128];
    int fd;

    identity(id, sizeof(id));
    emu_machine_format(m, fig, sizeof(fig));
    int len = snprintf(text, sizeof(text), "%s %s\n%s\n", CACHE_MAGIC, id, fig);
    (void)unlinkat(dirfd, "machine.new", 0); /* a writer that died; we hold the lock */
    if (emu_secure_dir_open_at(dirfd, dir, "machine.new", O_WRONLY | O_CREAT | O_EXCL, 0600,
                               &fd) != EMU_OK)
        return false;
    bool ok = len > 0 && write(fd, text, (size_t)len) == len && fsync(fd) == 0;
    close(fd);
    ok = ok && renameat(dirfd, "machine.new", dirfd, "machine") == 0;
    if (!ok)
        (void)unlinkat(dirfd, "machine.new", 0);
    return ok;
}

/* The cache: read it under its lock, or measure and write it there. False when there is no
 * usable cache folder or the lock stayed taken (then the caller measures alone). */
static bool from_cache(struct emu_machine *m, enum emu_machine_source *src)
{
    char dir[4096], parent[4096];
    int dirfd, lockfd, fd;
    bool got = false;

    if (!emu_machine_cache_path(dir, sizeof(dir)))
        return false;
    /* The parent (~/.cache) may be missing; a folder we cannot make means no cache, quietly. */
    snprintf(parent, sizeof(parent), "%s", dir);
    *strrchr(parent, '/') = '\0';
    if ((mkdir(parent, 0700) != 0 && errno != EEXIST) || (mkdir(dir, 0700) != 0 && errno != EEXIST))
        return false;
    if (emu_secure_dir_open(dir, &dirfd) != EMU_OK)
        return false;
    if (emu_secure_dir_open_at(dirfd, dir, "machine.lock", O_RDWR | O_CREAT, 0600, &lockfd) !=
        EMU_OK) {
        close(dirfd);
        return false;
    }
    uint64_t deadline = emu_os_deadline_ms(LOCK_MS);
    bool locked;
    while (!(locked = flock(lockfd, LOCK_EX | LOCK_NB) == 0) && errno == EWOULDBLOCK &&
           emu_os_now_ns() < deadline)
        usleep(1000);
    struct stat st;
    if (fstatat(dirfd, "machine", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        emu_secure_dir_open_at(dirfd, dir, "machine", O_RDONLY, 0, &fd) == EMU_OK) {
        /* Written whole by rename: a reader without the lock sees all of it or none. */
        got = read_cache(fd, m);
        close(fd);
    }
    *src = EMU_MACHINE_CACHE;
    if (locked && !got) {
        emu_machine_measure(m);
        /* Once per machine, then kept: these take a few tenths of a second. */
        m->handoff_us = measure_handoffs(m->handoff_us);
        m->cache_mib = emu_cache_probe_mib(m->cache_mib);
        *src = write_cache(dirfd, dir, m) ? EMU_MACHINE_MEASURED : EMU_MACHINE_ALONE;
        got = true;
    }
    if (locked)
        flock(lockfd, LOCK_UN);
    close(lockfd);
    close(dirfd);
    return got;
}

static struct emu_machine the_machine;
static enum emu_machine_source the_source;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void get_once(void)
{
    const char *s = emu_settings_str(EMU_SET_MACHINE);

    if (strcmp(s, "card") == 0) {
        the_machine = (struct emu_machine){1.0, 1.0, 1, 0};
        the_source = EMU_MACHINE_CARD;
        return;
    }
    if (*s != '\0') {
        if (emu_machine_parse(s, &the_machine)) {
            the_source = EMU_MACHINE_SETTING;
            return;
        }
        EMU_LOG_WARN("HCEMU_MACHINE: ignoring \"%.80s\" (want copy=GB/s,handoff=us,cores=N or "
                     "card)", s);
    }
    if (from_cache(&the_machine, &the_source))
        return;
    /* Figures measured here alone could differ from another rank process's: the caller
     * then keeps the card's rule (host/coll/coll_cost.c). */
    EMU_LOG_INFO("no usable machine cache under XDG_CACHE_HOME or HOME, and no HCEMU_MACHINE");
    emu_machine_measure(&the_machine);
    the_source = EMU_MACHINE_ALONE;
}

const char *emu_machine_source_name(enum emu_machine_source s)
{
    switch (s) {
    case EMU_MACHINE_SETTING: return "HCEMU_MACHINE";
    case EMU_MACHINE_CACHE: return "cache";
    case EMU_MACHINE_MEASURED: return "measured, cached";
    case EMU_MACHINE_CARD: return "HCEMU_MACHINE=card: the card's rule";
    default: return "measured, not cached";
    }
}

void emu_machine_get(struct emu_machine *m, enum emu_machine_source *src)
{
    pthread_once(&once, get_once);
    *m = the_machine;
    if (src != NULL)
        *src = the_source;
}
