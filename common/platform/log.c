/* log.c - formatting and filtering for log.h. A whole line is written with one write(2) so
 * lines of concurrent threads and processes never interleave. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/contract/settings.h"

static char log_role[32] = "host";
static _Atomic int log_level = -1;
static _Thread_local char log_context[48];
static _Thread_local char log_last_error[512];
static _Thread_local int log_has_error;

static const char *const level_names[] = {"error", "warning", "info", "debug"};

/* ---- repeated lines ------------------------------------------------------------------------
 * A program that retries a refused call in a loop printed one identical line per call (an
 * API fuzzer: millions in seconds). Per process, each distinct error or warning text is
 * printed EMU_LOG_REPEAT_MAX times; after that only a count, when it reaches 10x, 100x, ...
 * that number. A direct-mapped table of text hashes: two texts sharing a slot just restart
 * each other's count. Its lock is only ever tried, never waited for (a fork child inherits it
 * as it was), so a contended or inherited lock means the line is printed unthrottled. */
#define REPEAT_SLOTS 256u

struct repeat_slot {
    uint64_t hash;
    uint64_t count;
};

static atomic_flag repeat_lock = ATOMIC_FLAG_INIT;
static struct repeat_slot repeats[REPEAT_SLOTS];

static uint64_t text_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h | 1; /* 0 marks an empty slot */
}

/* How many times this text was logged before, counting this time (0: not counted). */
static uint64_t repeat_count(const char *msg)
{
    uint64_t h = text_hash(msg), n = 0;

    if (atomic_flag_test_and_set_explicit(&repeat_lock, memory_order_acquire))
        return 0;
    struct repeat_slot *r = &repeats[h % REPEAT_SLOTS];
    if (r->hash != h)
        *r = (struct repeat_slot){h, 0};
    n = ++r->count;
    atomic_flag_clear_explicit(&repeat_lock, memory_order_release);
    return n;
}

/* Whether the n-th time of a line is printed; *note says when it is a count line. */
static bool repeat_shown(uint64_t n, bool *note)
{
    *note = false;
    if (n <= EMU_LOG_REPEAT_MAX)
        return true;
    for (uint64_t at = EMU_LOG_REPEAT_MAX * 10; at <= n && at != 0; at *= 10)
        if (at == n)
            return *note = true;
    return false;
}

void emu_log_set_role(const char *role)
{
    snprintf(log_role, sizeof(log_role), "%s", role);
}

void emu_log_set_context(const char *context)
{
    snprintf(log_context, sizeof(log_context), "%s", context ? context : "");
}

int emu_log_enabled(enum emu_log_level level)
{
    /* Every thread computes the same value, so racing first calls agree. */
    int current = atomic_load_explicit(&log_level, memory_order_relaxed);
    if (current < 0) {
        /* A bad HCEMU_LOG_LEVEL is reported by a warning: at the default level, not here. */
        atomic_store_explicit(&log_level, EMU_LOG_LEVEL_WARN, memory_order_relaxed);
        current = (int)emu_settings_enum(EMU_SET_LOG_LEVEL);
        atomic_store_explicit(&log_level, current, memory_order_relaxed);
    }
    return (int)level <= current;
}

void emu_log_print(enum emu_log_level level, const char *fmt, ...)
{
    char msg[1024];
    char line[1200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (level == EMU_LOG_LEVEL_ERR) {
        size_t keep = strnlen(msg, sizeof(log_last_error) - 1);
        memcpy(log_last_error, msg, keep);
        log_last_error[keep] = '\0';
        log_has_error = 1;
    }
    if (!emu_log_enabled(level))
        return;
    bool note = false;
    uint64_t times = level <= EMU_LOG_LEVEL_WARN ? repeat_count(msg) : 0;
    if (!repeat_shown(times, &note))
        return;
    int n = note ? snprintf(line, sizeof(line),
                            "[hcemu %s%s%s] %s: (%llu times now, shown the first %u) %.900s\n",
                            log_role, log_context[0] ? " " : "", log_context, level_names[level],
                            (unsigned long long)times, EMU_LOG_REPEAT_MAX, msg)
                 : snprintf(line, sizeof(line), "[hcemu %s%s%s] %s: %.1024s\n", log_role,
                            log_context[0] ? " " : "", log_context, level_names[level], msg);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof(line)) {
        n = sizeof(line) - 1;
        line[n - 1] = '\n';
    }
    emu_log_write_raw(line, (size_t)n);
}

void emu_log_write_raw(const char *buf, size_t len)
{
    /* stderr is all we have: a failed write has nowhere to be reported. */
    while (len > 0) {
        ssize_t w = write(STDERR_FILENO, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        buf += w;
        len -= (size_t)w;
    }
}

void emu_log_reset_level(void)
{
    atomic_store_explicit(&log_level, -1, memory_order_relaxed);
}

const char *emu_log_last_error(int clear)
{
    if (!log_has_error)
        return NULL;
    if (clear)
        log_has_error = 0;
    return log_last_error;
}
