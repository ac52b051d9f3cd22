/* api_dlog.c - libunified_dlog: the CANN log calls, as one stderr line per record at or
 * above the global level (ASCEND_GLOBAL_LOG_LEVEL, default error; dlog_setlevel changes it). */
#include <dlog_pub.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int level = -1;

/* The one read of the vendor log-level variable. */
static int level_from_env(void)
{
    const char *s = getenv("ASCEND_GLOBAL_LOG_LEVEL");
    if (s == NULL || s[0] < '0' || s[0] > '4' || s[1] != '\0')
        return DLOG_ERROR;
    return s[0] - '0';
}

static int current(void)
{
    int l = __atomic_load_n(&level, __ATOMIC_RELAXED);
    if (l < 0) {
        l = level_from_env();
        __atomic_store_n(&level, l, __ATOMIC_RELAXED);
    }
    return l;
}

int CheckLogLevel(int moduleId, int logLevel)
{
    (void)moduleId;
    return logLevel >= current() && logLevel < DLOG_NULL;
}

void DlogRecord(int moduleId, int lvl, const char *fmt, ...)
{
    static const char *const names[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
    char line[1024];
    va_list ap;

    if (fmt == NULL || !CheckLogLevel(moduleId, lvl) || lvl < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "[%s] module %d: %s\n", names[lvl], moduleId, line);
}

int dlog_getlevel(int moduleId, int *enableEvent)
{
    (void)moduleId;
    if (enableEvent != NULL)
        *enableEvent = 0;
    return current();
}

int dlog_setlevel(int moduleId, int lvl, int enableEvent)
{
    (void)moduleId;
    (void)enableEvent;
    if (lvl < DLOG_DEBUG || lvl > DLOG_NULL)
        return -1;
    __atomic_store_n(&level, lvl, __ATOMIC_RELAXED);
    return 0;
}

void DlogFlush(void)
{
    fflush(stderr);
}
