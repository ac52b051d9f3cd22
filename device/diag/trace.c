/* trace.c - the timeline (HCEMU_TRACE=path.json): Chrome trace-event JSON, fed by the
 * scheduler hooks start and end (and submit with HCEMU_SEED), registered by emu_trace_init().
 *
 * One file for the whole job. Every executor buffers its events (one track per device =
 * pid and stream = tid, named "rank R thread 'x'"; a complete "X" slice per task with its
 * bytes and call site; flow "s"/"f" pairs from each notify record to the wait that consumed
 * it, ids from diag.shm) and appends them under flock(2). The file always ends with "\n]\n"
 * and each append rewrites that tail, so it parses as a JSON array after any append: a job
 * that fails (or an executor that dies between appends) still leaves a valid file. Buffers
 * are appended by the watchdog thread every tick (<= 200 ms), when they grow past 1 MiB, and
 * at executor exit. The first executor of the job truncates the file.
 *
 * With HCEMU_SEED the trace is a function of the program (and the seed), not of the clock:
 *  - virtual time: every stream (device, slot) has a virtual clock. A task starts at the
 *    latest of the end of the previous task of its stream, the virtual start of the kernel
 *    that queued it (kstart[] of its origin host stream, noted when it is queued), and for a
 *    wait the virtual end of the record that released it (flow_vend in the shared notify
 *    entry). Its duration comes from a fixed cost model (vcost). Only the one scheduler
 *    worker of the device calls the start/end hooks, so the clocks need no lock.
 *  - ids: a flow id is (device, stream, index of the record in its stream); "seq" is that
 *    index.
 *  - order: the last executor of the job to leave rewrites the file sorted by (pid, tid, ts,
 *    text), dropping duplicate lines (emu_trace_sort). */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "diag_priv.h"
#include "device/exec.h"
#include "device/report.h"

#define TRUNCATE_WAIT_NS 2000000000ull /* the first executor emptying the file */
#define FLUSH_AT (1u << 20)
#define TAIL "\n]\n"

/* buf_lock protects the buffer and the naming state. */
static pthread_mutex_t buf_lock = PTHREAD_MUTEX_INITIALIZER;
static char *buf;
static size_t len, cap;
static bool dev_named, rank_named;
static uint8_t stream_named[EMU_MAX_STREAMS];
static bool write_failed;

/* HCEMU_SEED virtual time (see the top of the file). */
#define VT_TASK_NS 1000u    /* every task: 1 us */
#define VT_BYTES_PER_NS 20u /* plus its bytes at 20 GB/s */
#define VT_KERNEL_NS 5000u  /* a kernel launch: 5 us */
static bool vt;
static uint64_t vclock[EMU_MAX_STREAMS]; /* virtual end of the last task of each stream */
static uint64_t kstart[EMU_MAX_STREAMS]; /* virtual start of each host stream's last kernel */
static uint32_t vindex[EMU_MAX_STREAMS]; /* tasks queued so far per stream (scheduler lock) */

/* Notify names for slices, per (device, slot, event): naming scans the control block. */
#define NAME_CACHE 4096u
struct name_ent {
    uint64_t key; /* 0 = empty */
    char name[120];
};
static pthread_mutex_t name_lock = PTHREAD_MUTEX_INITIALIZER;
static struct name_ent *names;

static void notify_name(const struct emu_diag_desc *d, char *out, size_t n)
{
    uint64_t key = ((uint64_t)d->sync_dev << 40 | (uint64_t)d->sync_slot << 1 | d->event) + 1;
    uint32_t h = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) % NAME_CACHE;

    pthread_mutex_lock(&name_lock);
    if (names == NULL)
        names = calloc(NAME_CACHE, sizeof(*names));
    if (names != NULL && names[h].key == key) {
        snprintf(out, n, "%s", names[h].name);
        pthread_mutex_unlock(&name_lock);
        return;
    }
    pthread_mutex_unlock(&name_lock);
    emu_diag_notify_name(d->sync_dev, d->sync_slot, d->event, out, n);
    pthread_mutex_lock(&name_lock);
    if (names != NULL) {
        names[h].key = key;
        size_t k = strnlen(out, sizeof(names[h].name) - 1);
        memcpy(names[h].name, out, k);
        names[h].name[k] = '\0';
    }
    pthread_mutex_unlock(&name_lock);
}

/* Append one event (a JSON object, with its leading ",\n"). buf_lock held. */
static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
    va_list ap;

    for (;;) {
        if (cap - len < 2) {
            size_t ncap = cap < 65536 ? 65536 : cap * 2;
            char *nb = realloc(buf, ncap);
            if (nb == NULL)
                return;
            buf = nb;
            cap = ncap;
        }
        va_start(ap, fmt);
        int n = vsnprintf(buf + len, cap - len, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if ((size_t)n < cap - len) {
            len += (size_t)n;
            return;
        }
        size_t ncap = (len + (size_t)n + 1) * 2;
        char *nb = realloc(buf, ncap);
        if (nb == NULL)
            return;
        buf = nb;
        cap = ncap;
    }
}

/* Copy s into out as the inside of a JSON string. */
static void json_esc(const char *s, char *out, size_t n)
{
    size_t o = 0;

    for (; *s != '\0' && o + 7 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c < 0x20) {
            o += (size_t)snprintf(out + o, n - o, "\\u%04x", c);
        } else {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
}

static double us(uint64_t ns)
{
    return (double)ns / 1000.0;
}

/* Track names, emitted once per track (buf_lock held). */
static void name_tracks(uint32_t s)
{
    struct emu_stream_ctl *sc = &emu_exec_ctl()->streams[s];
    char name[160], esc[200];
    uint32_t dev = emu_exec_g.dev;

    if (!dev_named || (!rank_named && sc->rank != UINT32_MAX)) {
        if (sc->rank != UINT32_MAX)
            snprintf(name, sizeof(name), "rank %u (device %u)", sc->rank, dev);
        else
            snprintf(name, sizeof(name), "device %u", dev);
        emit(",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"tid\":0,"
             "\"args\":{\"name\":\"%s\"}}",
             dev, name);
        emit(",\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%u,\"tid\":0,"
             "\"args\":{\"sort_index\":%u}}",
             dev, sc->rank != UINT32_MAX ? sc->rank : dev);
        dev_named = true;
        rank_named = sc->rank != UINT32_MAX;
    }
    if (stream_named[s])
        return;
    stream_named[s] = 1;
    emu_diag_thread_name(dev, s, name, sizeof(name));
    json_esc(name, esc, sizeof(esc));
    emit(",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,"
         "\"args\":{\"name\":\"%s\"}}",
         dev, s, esc);
    emit(",\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%u,\"tid\":%u,"
         "\"args\":{\"sort_index\":%u}}",
         dev, s, s);
}

static uint64_t bytes_of(const struct emu_diag_desc *d)
{
    uint64_t b = 0;

    for (uint32_t i = 0; i < d->n_acc; i++)
        if (d->acc[i].len > b)
            b = d->acc[i].len;
    return b;
}

/* Virtual duration of a task (ns). */
static uint64_t vcost(const struct emu_task *t, const struct emu_diag_desc *d)
{
    if (t->kind == EMU_TASK_KERNEL)
        return VT_KERNEL_NS;
    return VT_TASK_NS + bytes_of(d) / VT_BYTES_PER_NS;
}

/* A flow id that names its record: (device, stream, index in the stream), below 2^53 so
 * JSON readers keep it exact. */
static uint64_t vt_flow_id(uint32_t stream, uint32_t index)
{
    return ((uint64_t)emu_exec_g.dev * EMU_MAX_STREAMS + stream) << 32 | index;
}

static void on_submit(struct emu_task *t)
{
    if (t->stream >= EMU_MAX_STREAMS)
        return;
    t->vt_index = ++vindex[t->stream];
    /* The kernel of `origin` is running (it is queuing this task), so kstart[origin] is its
     * start, written by the worker before the kernel's blocks were posted. */
    if (t->from_kernel && t->origin < EMU_MAX_STREAMS)
        t->vt_floor = kstart[t->origin];
}

static void on_start(struct emu_task *t)
{
    struct emu_diag_desc desc, *d = &desc;
    uint64_t id = 0;

    if (t->stream >= EMU_MAX_STREAMS)
        return;
    emu_diag_describe(t, d);
    t->start_ns = emu_os_now_ns();
    if (vt) {
        t->start_ns = vclock[t->stream] > t->vt_floor ? vclock[t->stream] : t->vt_floor;
        if (t->kind == EMU_TASK_KERNEL)
            kstart[t->stream] = t->start_ns;
    }
    if (d->sync_op != EMU_SYNC_RECORD)
        return;
    id = vt ? vt_flow_id(t->stream, t->vt_index)
            : emu_fetch_add_relaxed(&emu_diag_shm->next_flow, 1);
    emu_diag_shm_lock();
    struct emu_race_notify *e = emu_diag_notify_entry(d->sync_dev, d->sync_slot, d->event, true);
    if (e != NULL) {
        e->flow = id;
        e->flow_dev = emu_exec_g.dev;
        e->flow_stream = t->stream;
        e->flow_vend = t->start_ns + vcost(t, d);
    }
    emu_diag_shm_unlock();
    if (e == NULL)
        return;
    /* Virtual slices touch: a flow end inside a slice, not on its edge, binds to it. */
    uint64_t ts = vt ? t->start_ns + vcost(t, d) / 2 : t->start_ns;
    pthread_mutex_lock(&buf_lock);
    name_tracks(t->stream);
    emit(",\n{\"ph\":\"s\",\"name\":\"notify\",\"cat\":\"notify\",\"id\":%llu,\"pid\":%u,"
         "\"tid\":%u,\"ts\":%.3f}",
         (unsigned long long)id, emu_exec_g.dev, t->stream, us(ts));
    pthread_mutex_unlock(&buf_lock);
}

static void on_end(struct emu_task *t, enum emu_run_result res)
{
    struct emu_diag_desc desc, *d = &desc;
    bool done = res == EMU_RUN_DONE;
    uint64_t end = emu_os_now_ns(), flow = 0, flow_vend = 0;
    char site[EMU_DIAG_SITE_LEN * 2], what[200], esc[420];

    if (t->stream >= EMU_MAX_STREAMS)
        return;
    emu_diag_describe(t, d);
    if (d->sync_op == EMU_SYNC_WAIT && done) {
        emu_diag_shm_lock();
        struct emu_race_notify *e =
            emu_diag_notify_entry(d->sync_dev, d->sync_slot, d->event, false);
        if (e != NULL) {
            flow = e->flow;
            flow_vend = e->flow_vend;
            if (!d->event)
                e->flow = 0; /* consumed: later waits need a new record */
        }
        emu_diag_shm_unlock();
    }
    json_esc(emu_diag_site_text(emu_diag_site(t)), site, sizeof(site));
    what[0] = '\0';
    if (d->sync_op != EMU_SYNC_NONE) {
        char n[200];
        notify_name(d, n, sizeof(n));
        json_esc(n, esc, sizeof(esc));
        snprintf(what, sizeof(what), ",\"notify\":\"%.150s\"", esc);
    }
    uint64_t start = t->start_ns != 0 ? t->start_ns : end;
    double pad = 0.002, flow_ts;
    uint64_t seq = t->seq;
    if (vt) {
        start = t->start_ns;
        if (flow != 0 && flow_vend > start)
            start = flow_vend; /* a wait ends no earlier than the record that released it */
        end = start + vcost(t, d);
        vclock[t->stream] = end;
        pad = 0;
        seq = t->vt_index;
        flow_ts = us(start + (end - start) / 2);
    } else {
        flow_ts = us(end);
    }
    pthread_mutex_lock(&buf_lock);
    name_tracks(t->stream);
    char status[96] = "";
    if (!done)
        snprintf(status, sizeof(status), ",\"status\":\"%s\"", emu_status_str(t->status));
    emit(",\n{\"ph\":\"X\",\"name\":\"%s%s\",\"cat\":\"task\",\"pid\":%u,\"tid\":%u,"
         "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"bytes\":%llu,\"site\":\"%s\",\"seq\":%llu%s%s}}",
         emu_report_kind_name(t->kind), done ? "" : " (failed)", emu_exec_g.dev, t->stream,
         us(start), us(end - start) + pad, (unsigned long long)bytes_of(d), site,
         (unsigned long long)seq, what, status);
    if (flow != 0)
        emit(",\n{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"notify\",\"cat\":\"notify\","
             "\"id\":%llu,\"pid\":%u,\"tid\":%u,\"ts\":%.3f}",
             (unsigned long long)flow, emu_exec_g.dev, t->stream, flow_ts);
    bool full = len >= FLUSH_AT;
    pthread_mutex_unlock(&buf_lock);
    if (full)
        emu_trace_flush();
}

static bool write_all(int fd, const char *p, size_t n, off_t at)
{
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, at);
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
        at += w;
    }
    return true;
}

/* Append `n` bytes of events (each starting with ",\n") to the file, keeping it a valid
 * JSON array. */
static void append(const char *ev, size_t n, bool truncate)
{
    int fd = open(emu_diag_cfg.trace_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    struct stat st;
    char tail[3] = {0};

    if (fd < 0) {
        if (!write_failed)
            EMU_LOG_WARN("trace: cannot open %s: %m", emu_diag_cfg.trace_path);
        write_failed = true;
        return;
    }
    flock(fd, LOCK_EX);
    if (truncate && ftruncate(fd, 0) != 0)
        write_failed = true;
    bool ok = fstat(fd, &st) == 0;
    off_t size = ok ? st.st_size : 0;
    if (ok && size >= 3 && pread(fd, tail, 3, size - 3) == 3 && memcmp(tail, TAIL, 3) == 0)
        ok = write_all(fd, ev, n, size - 3) && write_all(fd, TAIL, 3, size - 3 + (off_t)n);
    else if (ok && size == 0)
        ok = write_all(fd, "[\n", 2, 0) && write_all(fd, ev + 2, n - 2, 2) &&
             write_all(fd, TAIL, 3, (off_t)n);
    else
        ok = false;
    if (!ok && !write_failed)
        EMU_LOG_WARN("trace: cannot append to %s", emu_diag_cfg.trace_path);
    write_failed = write_failed || !ok;
    flock(fd, LOCK_UN);
    close(fd);
}

void emu_trace_flush(void)
{
    pthread_mutex_lock(&buf_lock);
    char *b = buf;
    size_t n = len;
    buf = NULL;
    len = cap = 0;
    pthread_mutex_unlock(&buf_lock);
    if (n > 2)
        append(b, n, false);
    free(b);
}

/* `submit` only with HCEMU_SEED (virtual time numbers the tasks of each stream). */
static struct emu_sched_hooks trace_hooks = {.start = on_start, .end = on_end};

bool emu_trace_init(void)
{
    uint32_t zero = 0;

    vt = emu_diag_cfg.seed != 0;
    trace_hooks.submit = vt ? on_submit : NULL;
    if (emu_sched_register(&trace_hooks) != EMU_OK)
        return false;
    /* trace_started: 0, then 1 while the first executor empties the file, then 2. Another
     * executor appends only once it is 2: its lines would otherwise be cut by that
     * truncation when it got the file's lock first (its "device N" name went missing in
     * about one seeded run in a few hundred). Bounded: a first executor that died before
     * saying so is waited for 2 s. */
    bool first = atomic_compare_exchange_strong(&emu_diag_shm->trace_started, &zero, 1);

    pthread_mutex_lock(&buf_lock);
    emit(",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"tid\":0,"
         "\"args\":{\"name\":\"device %u\"}}",
         emu_exec_g.dev, emu_exec_g.dev);
    dev_named = true;
    char *b = buf;
    size_t n = len;
    buf = NULL;
    len = cap = 0;
    pthread_mutex_unlock(&buf_lock);
    if (!first) {
        uint64_t end = emu_os_now_ns() + TRUNCATE_WAIT_NS;
        while (atomic_load(&emu_diag_shm->trace_started) != 2 && emu_os_now_ns() < end) {
            struct timespec pause = {0, 100000};
            nanosleep(&pause, NULL);
        }
    }
    if (b != NULL)
        append(b, n, first);
    if (first)
        atomic_store(&emu_diag_shm->trace_started, 2);
    free(b);
    return true;
}

void emu_trace_fini(void)
{
    emu_trace_flush();
}

/* One event of the file, for emu_trace_sort. */
struct line {
    const char *p;
    size_t n;
    long long pid, tid;
    double ts; /* -1 for metadata ("M", no ts) */
};

static long long field_ll(const char *p, const char *key)
{
    const char *f = strstr(p, key);

    return f != NULL ? strtoll(f + strlen(key), NULL, 10) : -1;
}

static int line_cmp(const void *a, const void *b)
{
    const struct line *x = a, *y = b;

    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    size_t n = x->n < y->n ? x->n : y->n;
    int c = memcmp(x->p, y->p, n);
    return c != 0 ? c : (x->n > y->n) - (x->n < y->n);
}

/* Split the body of the file (between "[\n" and "\n]\n") into its event lines, each NUL
 * terminated in place (the trailing "," dropped). */
static size_t split_lines(char *body, size_t n, struct line *out)
{
    size_t k = 0;
    char *p = body, *end = body + n;

    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *e = nl != NULL ? nl : end;
        size_t len = (size_t)(e - p);
        if (len > 0 && p[len - 1] == ',')
            len--;
        p[len] = '\0';
        if (len > 0) {
            const char *ts = strstr(p, "\"ts\":");
            out[k] = (struct line){.p = p,
                                   .n = len,
                                   .pid = field_ll(p, "\"pid\":"),
                                   .tid = field_ll(p, "\"tid\":"),
                                   .ts = ts != NULL ? strtod(ts + 5, NULL) : -1.0};
            k++;
        }
        p = e + 1;
    }
    return k;
}

void emu_trace_sort(void)
{
    int fd = open(emu_diag_cfg.trace_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    char *text = NULL, *outb = NULL;
    struct line *lines = NULL;

    if (fd < 0)
        return;
    flock(fd, LOCK_EX);
    if (fstat(fd, &st) != 0 || st.st_size < 5)
        goto out;
    size_t size = (size_t)st.st_size;
    text = malloc(size + 1);
    if (text == NULL || pread(fd, text, size, 0) != (ssize_t)size)
        goto out;
    text[size] = '\0';
    if (memcmp(text, "[\n", 2) != 0 || memcmp(text + size - 3, TAIL, 3) != 0)
        goto out; /* not ours: leave it */
    size_t body = size - 5, n_lines = 1;
    for (size_t i = 2; i < size - 3; i++)
        n_lines += text[i] == '\n';
    lines = calloc(n_lines, sizeof(*lines));
    outb = malloc(size + 8);
    if (lines == NULL || outb == NULL)
        goto out;
    size_t n = split_lines(text + 2, body, lines);
    qsort(lines, n, sizeof(*lines), line_cmp);
    size_t o = 0;
    memcpy(outb, "[\n", 2);
    o = 2;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && line_cmp(&lines[i], &lines[i - 1]) == 0)
            continue; /* the same event twice (a track named by two executors' tables) */
        if (o > 2) {
            memcpy(outb + o, ",\n", 2);
            o += 2;
        }
        memcpy(outb + o, lines[i].p, lines[i].n);
        o += lines[i].n;
    }
    memcpy(outb + o, TAIL, 3);
    o += 3;
    /* Never longer than the input: write over it, then cut. */
    if (!write_all(fd, outb, o, 0) || ftruncate(fd, (off_t)o) != 0)
        EMU_LOG_WARN("trace: cannot rewrite %s in canonical order", emu_diag_cfg.trace_path);
out:
    flock(fd, LOCK_UN);
    close(fd);
    free(lines);
    free(outb);
    free(text);
}
