/* diag_trace.c - the timeline (HCEMU_TRACE=path.json): Chrome trace-event JSON.
 *
 * One file for the whole job. Every executor buffers its events (one track per device =
 * pid and stream = tid, named "rank R thread 'x'"; a complete "X" slice per task with its
 * bytes and call site; flow "s"/"f" pairs from each notify record to the wait that consumed
 * it, ids from diag.shm) and appends them under flock(2). The file always ends with "\n]\n"
 * and each append rewrites that tail, so it parses as a JSON array after any append: a job
 * that fails (or an executor that dies between appends) still leaves a valid file. Buffers
 * are appended by the watchdog thread every tick (<= 200 ms), when they grow past 1 MiB, and
 * at executor exit. The first executor of the job truncates the file. */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/atomic.h"
#include "common/log.h"
#include "common/os.h"
#include "diag.h"
#include "diag_priv.h"
#include "exec.h"
#include "report.h"

#define FLUSH_AT (1u << 20)
#define TAIL "\n]\n"

/* buf_lock protects the buffer and the naming state. */
static pthread_mutex_t buf_lock = PTHREAD_MUTEX_INITIALIZER;
static char *buf;
static size_t len, cap;
static bool dev_named, rank_named;
static uint8_t stream_named[EMU_MAX_STREAMS];
static bool write_failed;

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

void emu_trace_task_start(struct emu_task *t, const struct emu_diag_desc *d)
{
    uint64_t id = 0;

    if (d->sync_op != EMU_SYNC_RECORD || t->stream >= EMU_MAX_STREAMS)
        return;
    id = emu_fetch_add_relaxed(&emu_diag_shm->next_flow, 1);
    emu_diag_shm_lock();
    struct emu_race_notify *e = emu_diag_notify_entry(d->sync_dev, d->sync_slot, d->event, true);
    if (e != NULL) {
        e->flow = id;
        e->flow_dev = emu_exec_g.dev;
        e->flow_stream = t->stream;
    }
    emu_diag_shm_unlock();
    if (e == NULL)
        return;
    pthread_mutex_lock(&buf_lock);
    name_tracks(t->stream);
    emit(",\n{\"ph\":\"s\",\"name\":\"notify\",\"cat\":\"notify\",\"id\":%llu,\"pid\":%u,"
         "\"tid\":%u,\"ts\":%.3f}",
         (unsigned long long)id, emu_exec_g.dev, t->stream, us(t->start_ns));
    pthread_mutex_unlock(&buf_lock);
}

static uint64_t bytes_of(const struct emu_diag_desc *d)
{
    uint64_t b = 0;

    for (uint32_t i = 0; i < d->n_acc; i++)
        if (d->acc[i].len > b)
            b = d->acc[i].len;
    return b;
}

void emu_trace_task_end(struct emu_task *t, const struct emu_diag_desc *d, bool done)
{
    uint64_t end = emu_now_ns(), flow = 0;
    char site[EMU_DIAG_SITE_LEN * 2], what[200], esc[420];

    if (t->stream >= EMU_MAX_STREAMS)
        return;
    if (d->sync_op == EMU_SYNC_WAIT && done) {
        emu_diag_shm_lock();
        struct emu_race_notify *e =
            emu_diag_notify_entry(d->sync_dev, d->sync_slot, d->event, false);
        if (e != NULL) {
            flow = e->flow;
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
    pthread_mutex_lock(&buf_lock);
    name_tracks(t->stream);
    char status[96] = "";
    if (!done)
        snprintf(status, sizeof(status), ",\"status\":\"%s\"", emu_status_str(t->status));
    emit(",\n{\"ph\":\"X\",\"name\":\"%s%s\",\"cat\":\"task\",\"pid\":%u,\"tid\":%u,"
         "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"bytes\":%llu,\"site\":\"%s\",\"seq\":%llu%s%s}}",
         emu_report_kind_name(t->kind), done ? "" : " (failed)", emu_exec_g.dev, t->stream,
         us(start), us(end - start) + 0.002, (unsigned long long)bytes_of(d), site,
         (unsigned long long)t->seq, what, status);
    if (flow != 0)
        emit(",\n{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"notify\",\"cat\":\"notify\","
             "\"id\":%llu,\"pid\":%u,\"tid\":%u,\"ts\":%.3f}",
             (unsigned long long)flow, emu_exec_g.dev, t->stream, us(end));
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
    int fd = open(emu_diag_cfg.trace_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
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

void emu_trace_init(void)
{
    uint32_t zero = 0;
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
    if (b != NULL)
        append(b, n, first);
    free(b);
}

void emu_trace_fini(void)
{
    emu_trace_flush();
}
