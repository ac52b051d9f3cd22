/* env.c - see env.h. */
#include "env.h"

#include <stdlib.h>

#include "log.h"

uint64_t emu_env_u64(const char *name, uint64_t def, uint64_t lo, uint64_t hi)
{
    const char *s = getenv(name);
    char *end;

    if (s == NULL || *s == '\0')
        return def;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || v < lo || v > hi) {
        EMU_LOG_WARN("%s=%s is not a number in [%llu, %llu]; using %llu", name, s,
                     (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)def);
        return def;
    }
    return v;
}
