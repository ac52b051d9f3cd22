/* log.h - the one logger of hcemu.
 *
 * Lines go to stderr as "[hcemu <role> <context>] LEVEL: message". The level comes from
 * HCEMU_LOG_LEVEL (error, warn, info, debug; default warn). Log once, where the context is
 * richest. Errors are also kept per OS thread for aclGetRecentErrMsg(). An error or warning
 * text logged more than EMU_LOG_REPEAT_MAX times by a process is shown again only as a
 * count, when it reaches 10x, 100x, ... that number. */
#ifndef HCEMU_COMMON_LOG_H
#define HCEMU_COMMON_LOG_H

#include <stddef.h>

#define EMU_LOG_REPEAT_MAX 10u

enum emu_log_level {
    EMU_LOG_LEVEL_ERR = 0,
    EMU_LOG_LEVEL_WARN = 1,
    EMU_LOG_LEVEL_INFO = 2,
    EMU_LOG_LEVEL_DEBUG = 3,
};

/* Name the process role once at start-up ("host", "dev3"). The string is copied. */
void emu_log_set_role(const char *role);
/* Name what the calling OS thread works for ("rank 2", "stream 5"); NULL clears it. Copied. */
void emu_log_set_context(const char *context);
/* Whether messages of this level are printed; cheap, for guarding expensive formatting. */
int emu_log_enabled(enum emu_log_level level);
void emu_log_print(enum emu_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Read the level from the settings again (after an executor adopted its host's). */
void emu_log_reset_level(void);
/* The last error line logged on this OS thread, or NULL; cleared by the call when `clear`. */
const char *emu_log_last_error(int clear);
/* Write bytes to stderr as they are (async-signal-safe: for signal handlers). */
void emu_log_write_raw(const char *buf, size_t len);

#define EMU_LOG_ERR(...) emu_log_print(EMU_LOG_LEVEL_ERR, __VA_ARGS__)
#define EMU_LOG_WARN(...) emu_log_print(EMU_LOG_LEVEL_WARN, __VA_ARGS__)
#define EMU_LOG_INFO(...) emu_log_print(EMU_LOG_LEVEL_INFO, __VA_ARGS__)
#define EMU_LOG_DEBUG(...)                                                                     \
    do {                                                                                       \
        if (emu_log_enabled(EMU_LOG_LEVEL_DEBUG))                                              \
            emu_log_print(EMU_LOG_LEVEL_DEBUG, __VA_ARGS__);                                   \
    } while (0)

#endif
