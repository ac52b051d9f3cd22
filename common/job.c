/* job.c - path helpers for the job folder. */
#include "job.h"

#include <stdarg.h>
#include <stdio.h>

#include "log.h"

emu_status emu_job_path(char *buf, size_t len, const char *dir, const char *fmt, ...)
{
    char name[128];
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf(name, sizeof(name), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(name))
        return EMU_EINVAL;
    n = snprintf(buf, len, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= len) {
        EMU_LOG_ERR("job path %s/%s is too long", dir, name);
        return EMU_EINVAL;
    }
    return EMU_OK;
}
