/* log.c - formatting and filtering for log.h. A whole line is written with one write(2) so
 * lines of concurrent threads and processes never interleave. */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settings.h"

static char log_role[32] = "host";
static _Atomic int log_level = -1;
static _Thread_local char log_context[48];
static _Thread_local char log_last_error[512];
static _Thread_local int log_has_error;

static const char *const level_names[] = {"error", "warning", "info", "debug"};

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
    int n = snprintf(line, sizeof(line), "[hcemu %s%s%s] %s: %.1024s\n", log_role,
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
