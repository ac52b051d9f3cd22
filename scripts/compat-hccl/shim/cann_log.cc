// cann_log.cc (hcemu compat shim) - the dlog entry points HCCL's logging macros call, built
// into each HCCL library: warnings and errors go to stderr, the rest only when
// HCEMU_HCCL_LOG=debug|info asks for it.
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/log_types.h"

static int32_t threshold()
{
    const char *v = std::getenv("HCEMU_HCCL_LOG");
    if (v == nullptr)
        return DLOG_WARN;
    if (std::strcmp(v, "debug") == 0)
        return DLOG_DEBUG;
    return std::strcmp(v, "info") == 0 ? DLOG_INFO : DLOG_WARN;
}

extern "C" int32_t acllogCheckDebugLevel(int32_t moduleId, int32_t level)
{
    (void)moduleId;
    return level >= threshold() ? 1 : 0;
}

extern "C" int32_t dlog_getlevel(int32_t moduleId, int32_t *enableEvent)
{
    (void)moduleId;
    if (enableEvent != nullptr)
        *enableEvent = 0;
    return threshold();
}

extern "C" void DlogRecord(int32_t moduleId, int32_t level, const char *fmt, ...)
{
    static const char *const names[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    if ((moduleId & RUN_LOG_MASK) == 0 && level < threshold())
        return;
    if (level < DLOG_DEBUG || level > DLOG_ERROR)
        level = DLOG_INFO;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "hccl %s: %s\n", names[level], line);
}
