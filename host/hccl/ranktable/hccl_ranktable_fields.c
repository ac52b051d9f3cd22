/* hccl_ranktable_fields.c - the field checks of the rank-table readers
 * (hccl_ranktable_fields.h). */
#include "hccl_ranktable_fields.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/log.h"

emu_status rt_bad(const struct rt_parse *p, const char *where, const char *fmt, ...)
{
    char why[192];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    EMU_LOG_ERR("%s: rank %u: rank table %s: field \"%s\": %s", p->fn, p->rank, p->path, where,
                why);
    return EMU_EINVAL;
}

/* "<where>.<key>", or "<key>" at the top level. */
static const char *field(char *buf, size_t n, const char *where, const char *key)
{
    snprintf(buf, n, "%s%s%s", where, where[0] != '\0' ? "." : "", key);
    return buf;
}

emu_status rt_uint(const struct rt_parse *p, json_object *o, const char *where, const char *key,
                   enum rt_num form, bool required, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char f[320];
    json_object *v;
    int64_t n;

    if (!json_object_object_get_ex(o, key, &v))
        return required ? rt_bad(p, field(f, sizeof(f), where, key), "is missing") : EMU_ENOTFOUND;
    if (json_object_is_type(v, json_type_int)) {
        n = json_object_get_int64(v);
    } else if (form == RT_NUM_INT_OR_STRING && json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        char *end;
        errno = 0;
        long long ll = strtoll(s, &end, 10);
        if (*s == '\0' || *end != '\0' || errno != 0)
            return rt_bad(p, field(f, sizeof(f), where, key), "\"%.32s\" is not a decimal number",
                          s);
        n = ll;
    } else {
        return rt_bad(p, field(f, sizeof(f), where, key), "is not %s",
                      form == RT_NUM_INT ? "an integer" : "a number (integer or decimal string)");
    }
    if (n < (int64_t)lo || n > (int64_t)hi)
        return rt_bad(p, field(f, sizeof(f), where, key), "%lld is outside [%u, %u]", (long long)n,
                      lo, hi);
    *out = (uint32_t)n;
    return EMU_OK;
}

emu_status rt_str(const struct rt_parse *p, json_object *o, const char *where, const char *key,
                  bool required, size_t lo, size_t hi, const char **out)
{
    char f[320];
    json_object *v;

    if (!json_object_object_get_ex(o, key, &v))
        return required ? rt_bad(p, field(f, sizeof(f), where, key), "is missing") : EMU_ENOTFOUND;
    if (!json_object_is_type(v, json_type_string))
        return rt_bad(p, field(f, sizeof(f), where, key), "is not a string");
    size_t len = (size_t)json_object_get_string_len(v);
    if (len < lo || len > hi)
        return rt_bad(p, field(f, sizeof(f), where, key), "its length %zu is outside [%zu, %zu]",
                      len, lo, hi);
    *out = json_object_get_string(v);
    return EMU_OK;
}

emu_status rt_array(const struct rt_parse *p, json_object *o, const char *where, const char *key,
                    bool required, size_t min, json_object **out)
{
    char f[320];
    json_object *v;

    if (!json_object_object_get_ex(o, key, &v))
        return required ? rt_bad(p, field(f, sizeof(f), where, key), "is missing") : EMU_ENOTFOUND;
    if (!json_object_is_type(v, json_type_array))
        return rt_bad(p, field(f, sizeof(f), where, key), "is not an array");
    if (json_object_array_length(v) < min)
        return rt_bad(p, field(f, sizeof(f), where, key), "needs at least %zu entr%s", min,
                      min == 1 ? "y" : "ies");
    *out = v;
    return EMU_OK;
}

emu_status rt_take_rank(struct rt_parse *p, const char *where, uint32_t id)
{
    if (id >= EMU_COMM_MAX_RANKS)
        return rt_bad(p, where, "%u: hcemu emulates at most %u ranks", id, EMU_COMM_MAX_RANKS);
    if (p->seen[id])
        return rt_bad(p, where, "rank_id %u appears twice", id);
    p->seen[id] = true;
    p->nranks++;
    return EMU_OK;
}

emu_status rt_check_ranks(struct rt_parse *p)
{
    for (uint32_t r = 0; r < p->nranks; r++)
        if (!p->seen[r])
            return rt_bad(p, "rank_id", "the %u ranks are not numbered 0..%u: %u is missing",
                          p->nranks, p->nranks - 1, r);
    if (!p->found) {
        EMU_LOG_ERR("%s: rank %u: rank table %s has no device with rank_id %u (it lists %u ranks)",
                    p->fn, p->rank, p->path, p->rank, p->nranks);
        return EMU_EINVAL;
    }
    p->out->nranks = p->nranks;
    return EMU_OK;
}
