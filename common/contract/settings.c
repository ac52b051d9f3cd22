/* settings.c - see settings.h. A host parses each variable once per distinct text (tests
 * change variables between calls, so the text is compared on every read); an executor reads
 * only the block its host wrote into the control block. */
#include "settings.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/platform/log.h"

static const struct emu_setting_info rows[EMU_SET_COUNT] = {
#define EMU_SET_ROW(id, name, type, def, lo, hi, choices, reader, doc)                             \
    [EMU_SET_##id] = {name, type, def, (uint64_t)(lo), (uint64_t)(hi), choices, reader, doc},
    EMU_SETTINGS_TABLE(EMU_SET_ROW)
#undef EMU_SET_ROW
};

/* A host's parsed value of one variable, keyed by the text it was parsed from. */
struct cached {
    bool valid;
    bool present; /* the variable existed */
    size_t raw_len;
    char raw[EMU_SETTING_STR_MAX];
    struct emu_setting_value v;
    uint64_t env_gen;  /* env_gen when `text` was found */
    const char *text;  /* its value in the environment then (NULL: unset) */
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cached cache[EMU_SET_COUNT];
/* The environment as last seen: `environ` and a copy of its entry pointers up to the NULL.
 * getenv() compares the name of every variable (700 instructions with 40 of them, twice per
 * collective call), while setenv, unsetenv and putenv each change an entry pointer or the
 * array's length. So while the pointers are those seen last, a variable's value is where it
 * was found then (its text is still compared: a putenv()'d buffer can change in place). */
static char **env_seen;
static char **env_copy;
static size_t env_len;
static uint64_t env_gen = 1;
static _Atomic bool adopted;
static struct emu_setting_value adopted_v[EMU_SET_COUNT];

const struct emu_setting_info *emu_settings_info(enum emu_setting id)
{
    return &rows[id];
}

/* ---- parsing ----------------------------------------------------------------------------- */

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;

    if (*s < '0' || *s > '9')
        return false; /* strtoull would take "-1" and leading blanks */
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return false;
    *out = v;
    return true;
}

static bool parse_bool(const char *s, uint64_t *out)
{
    static const char *const names[] = {"0", "false", "off", "no", "1", "true", "on", "yes"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcasecmp(s, names[i]) == 0) {
            *out = i >= 4;
            return true;
        }
    return false;
}

/* Choice `s` of "a|b,b2|c" (case-insensitive spelling, or the index): its index and
 * canonical name. */
static bool parse_enum(const char *choices, const char *s, uint64_t *idx, char *canon, size_t len)
{
    uint64_t want = UINT64_MAX;
    uint64_t n = 0;
    const char *p = choices;

    if (!parse_u64(s, &want))
        want = UINT64_MAX;
    while (*p != '\0') {
        size_t group = strcspn(p, "|");
        size_t first = strcspn(p, "|,");
        bool hit = n == want;
        for (const char *q = p; !hit && q < p + group;) {
            size_t w = strcspn(q, "|,");
            hit = strlen(s) == w && strncasecmp(q, s, w) == 0;
            q += w + (q[w] == ',');
        }
        if (hit) {
            *idx = n;
            snprintf(canon, len, "%.*s", (int)first, p);
            return true;
        }
        p += group + (p[group] == '|');
        n++;
    }
    return false;
}

static bool parse_text(const struct emu_setting_info *r, const char *s,
                       struct emu_setting_value *out)
{
    memset(out, 0, sizeof(*out));
    switch (r->type) {
    case EMU_SET_STR:
        if (strlen(s) >= sizeof(out->s))
            return false;
        snprintf(out->s, sizeof(out->s), "%s", s);
        return true;
    case EMU_SET_U64:
        return parse_u64(s, &out->u) && out->u >= r->lo && out->u <= r->hi;
    case EMU_SET_BOOL:
        return parse_bool(s, &out->u);
    case EMU_SET_ENUM:
        return parse_enum(r->choices, s, &out->u, out->s, sizeof(out->s));
    }
    return false;
}

bool emu_settings_parse(enum emu_setting id, const char *text, struct emu_setting_value *out)
{
    const struct emu_setting_info *r = &rows[id];

    if (text != NULL && *text != '\0' && parse_text(r, text, out))
        return true;
    if (!parse_text(r, r->def, out))
        memset(out, 0, sizeof(*out)); /* a bad default row; test_settings refuses it */
    return text == NULL || *text == '\0';
}

/* "a number in [lo, hi]" and the like, for the one warning about a bad value. */
static void describe(const struct emu_setting_info *r, char *buf, size_t len)
{
    switch (r->type) {
    case EMU_SET_STR:
        snprintf(buf, len, "a text shorter than %u bytes", EMU_SETTING_STR_MAX);
        return;
    case EMU_SET_U64:
        snprintf(buf, len, "a number in [%llu, %llu]", (unsigned long long)r->lo,
                 (unsigned long long)r->hi);
        return;
    case EMU_SET_BOOL:
        snprintf(buf, len, "0 or 1");
        return;
    case EMU_SET_ENUM:
        snprintf(buf, len, "one of %s", r->choices);
        return;
    }
}

/* ---- reading ----------------------------------------------------------------------------- */

static bool same_text(const struct cached *c, const char *raw)
{
    if (!c->valid || c->present != (raw != NULL))
        return false;
    if (raw == NULL)
        return true;
    size_t n = strlen(raw);
    return n == c->raw_len && strncmp(raw, c->raw, sizeof(c->raw) - 1) == 0;
}

/* Whether the environment's entry pointers changed since the last look; if so, take the
 * new ones as seen (a new generation). Under cache_lock. */
static void env_look(void)
{
    extern char **environ;
    char **env = environ;

    if (env != NULL && env == env_seen && env_copy != NULL &&
        memcmp(env, env_copy, (env_len + 1) * sizeof(*env)) == 0)
        return;
    size_t n = 0;
    while (env != NULL && env[n] != NULL)
        n++;
    char **copy = realloc(env_copy, (n + 1) * sizeof(*copy));
    env_gen++;
    if (copy == NULL) { /* no copy: the next look scans again */
        free(env_copy);
        env_copy = NULL, env_seen = NULL;
        return;
    }
    if (n > 0)
        memcpy(copy, env, n * sizeof(*copy));
    copy[n] = NULL;
    env_copy = copy, env_seen = env, env_len = n;
}

/* The variable's value text, from where it was found while the environment is unchanged. */
static const char *env_text(enum emu_setting id)
{
    struct cached *c = &cache[id];

    env_look();
    if (c->env_gen != env_gen) {
        c->text = getenv(rows[id].name);
        c->env_gen = env_gen;
    }
    return c->text;
}

/* The host's value of `id`, parsed again only when the variable's text changed. Returns a
 * pointer into the cache; `copy` (if not NULL) gets a copy taken under the lock, `num` (if
 * not NULL) just its number (the copy is 520 bytes). */
static const struct emu_setting_value *lookup(enum emu_setting id, struct emu_setting_value *copy,
                                              uint64_t *num)
{
    const struct emu_setting_info *r = &rows[id];

    if (atomic_load_explicit(&adopted, memory_order_acquire)) {
        if (copy != NULL)
            *copy = adopted_v[id];
        if (num != NULL)
            *num = adopted_v[id].u;
        return &adopted_v[id];
    }
    struct cached *c = &cache[id];
    bool bad = false;
    pthread_mutex_lock(&cache_lock);
    const char *raw = env_text(id);
    if (!same_text(c, raw)) {
        c->valid = true;
        c->present = raw != NULL;
        c->raw_len = raw != NULL ? strlen(raw) : 0;
        snprintf(c->raw, sizeof(c->raw), "%s", raw != NULL ? raw : "");
        bad = !emu_settings_parse(id, raw, &c->v);
    }
    if (copy != NULL)
        *copy = c->v;
    if (num != NULL)
        *num = c->v.u;
    pthread_mutex_unlock(&cache_lock);
    if (bad) {
        char range[160];
        describe(r, range, sizeof(range));
        EMU_LOG_WARN("%s=%s is not %s; using %s", r->name, raw, range,
                     r->def[0] != '\0' ? r->def : "the default (unset)");
    }
    return &c->v;
}

uint64_t emu_settings_u64(enum emu_setting id)
{
    uint64_t u;

    lookup(id, NULL, &u);
    return u;
}

bool emu_settings_bool(enum emu_setting id)
{
    return emu_settings_u64(id) != 0;
}

const char *emu_settings_str(enum emu_setting id)
{
    return lookup(id, NULL, NULL)->s;
}

bool emu_settings_is_set(enum emu_setting id)
{
    /* An executor has no environment: what its host wrote is what is set. */
    if (atomic_load_explicit(&adopted, memory_order_acquire))
        return *lookup(id, NULL, NULL)->s != '\0' || rows[id].type != EMU_SET_STR;
    const char *raw = getenv(rows[id].name);
    return raw != NULL && *raw != '\0';
}

/* ---- the control block ------------------------------------------------------------------- */

static uint64_t table_hash(void)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (uint32_t i = 0; i < EMU_SET_COUNT; i++)
        for (const char *s = rows[i].name; *s != '\0'; s++)
            h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

static bool for_executor(const struct emu_setting_info *r)
{
    return (r->reader & EMU_SET_EXEC) != 0 && r->reader != EMU_SET_RUN;
}

void emu_settings_export(struct emu_settings_block *b)
{
    memset(b, 0, sizeof(*b));
    b->magic = EMU_SETTINGS_MAGIC;
    b->table_hash = table_hash();
    b->rows = EMU_SET_COUNT;
    b->writer_pid = (int32_t)getpid();
    for (uint32_t i = 0; i < EMU_SET_COUNT; i++)
        if (for_executor(&rows[i]))
            lookup((enum emu_setting)i, &b->v[i], NULL);
}

static bool block_ok(const struct emu_settings_block *b)
{
    return b != NULL && b->magic == EMU_SETTINGS_MAGIC && b->table_hash == table_hash() &&
           b->rows == EMU_SET_COUNT;
}

void emu_settings_adopt(const struct emu_settings_block *b)
{
    bool ok = block_ok(b);

    for (uint32_t i = 0; i < EMU_SET_COUNT; i++) {
        emu_settings_parse((enum emu_setting)i, NULL, &adopted_v[i]);
        if (ok && for_executor(&rows[i])) {
            adopted_v[i] = b->v[i];
            adopted_v[i].s[sizeof(adopted_v[i].s) - 1] = '\0';
        }
    }
    /* Pairs with the acquire in lookup(): the values are complete before they are used. */
    atomic_store_explicit(&adopted, true, memory_order_release);
    emu_log_reset_level();
    if (!ok)
        EMU_LOG_WARN("no settings from a host in the control block; using the defaults");
}

static void show(const struct emu_setting_info *r, const struct emu_setting_value *v, char *buf,
                 size_t len)
{
    if (r->type == EMU_SET_STR || r->type == EMU_SET_ENUM)
        snprintf(buf, len, "\"%.*s\"", (int)(len > 3 ? len - 3 : 0), v->s);
    else
        snprintf(buf, len, "%llu", (unsigned long long)v->u);
}

void emu_settings_check_joined(const struct emu_settings_block *b, uint32_t dev)
{
    static atomic_flag warned = ATOMIC_FLAG_INIT;

    if (!block_ok(b))
        return;
    for (uint32_t i = 0; i < EMU_SET_COUNT; i++) {
        struct emu_setting_value mine;
        const struct emu_setting_info *r = &rows[i];
        if (!for_executor(r))
            continue;
        lookup((enum emu_setting)i, &mine, NULL);
        if (mine.u == b->v[i].u && strncmp(mine.s, b->v[i].s, sizeof(mine.s)) == 0)
            continue;
        if (atomic_flag_test_and_set(&warned))
            return;
        char theirs[96], ours[96];
        show(r, &b->v[i], theirs, sizeof(theirs));
        show(r, &mine, ours, sizeof(ours));
        EMU_LOG_WARN("device %u was started by process %d with %s=%s; this process has %s; "
                     "the device keeps the settings of the process that started it",
                     dev, (int)b->writer_pid, r->name, theirs, ours);
        return;
    }
}
