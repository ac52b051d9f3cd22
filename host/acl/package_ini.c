/* package_ini.c - the AICPU package whitelist (package_ini.h). The file is read whole and
 * bounded (emu_secure_dir_read_input: regular files only, opened without blocking), and each
 * line is taken whole: the tail of an over-long comment can never pass for a "name:" line. */
#include "package_ini.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/secure_dir.h"

/* [*s, *e) without blanks at either end, then without slashes at either end. */
static void strip(const char **s, const char **e, bool slashes)
{
    while (*s < *e && (**s == ' ' || **s == '\t' || (slashes && **s == '/')))
        (*s)++;
    while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r' ||
                       (slashes && (*e)[-1] == '/')))
        (*e)--;
}

static bool same(const char *s, const char *e, const char *want, size_t want_len)
{
    return (size_t)(e - s) == want_len && memcmp(s, want, want_len) == 0;
}

bool emu_package_ini_lists(const char *ini, const char *pkg, const char *dir, size_t dir_len,
                           char *why, size_t why_len)
{
    char *buf = NULL, reason[160];
    size_t len = 0;

    if (emu_secure_dir_read_input(ini, EMU_PACKAGE_INI_MAX, &buf, &len, reason,
                                  sizeof(reason)) != EMU_OK) {
        snprintf(why, why_len, "it cannot be read: %s", reason);
        return false;
    }
    const char *want_dir = dir, *want_end = dir + dir_len;
    strip(&want_dir, &want_end, true);
    bool in_block = false, path_ok = true, listed = false;
    unsigned line_no = 0;
    snprintf(why, why_len, "no block names the package with that package_path");
    for (const char *p = buf; p < buf + len && !listed;) {
        const char *nl = memchr(p, '\n', (size_t)(buf + len - p));
        const char *e = nl != NULL ? nl : buf + len;
        line_no++;
        if ((size_t)(e - p) > EMU_PACKAGE_INI_LINE_MAX) {
            snprintf(why, why_len, "its line %u is longer than %u bytes (the whole file is "
                     "refused)", line_no, EMU_PACKAGE_INI_LINE_MAX);
            free(buf);
            return false;
        }
        const char *s = p;
        p = nl != NULL ? nl + 1 : e;
        strip(&s, &e, false);
        if (s == e || *s == '#' || *s == ';')
            continue;
        if ((size_t)(e - s) >= 5 && memcmp(s, "name:", 5) == 0) {
            listed = in_block && path_ok;
            const char *v = s + 5;
            strip(&v, &e, false);
            in_block = same(v, e, pkg, strlen(pkg));
            path_ok = true;
        } else if (in_block && (size_t)(e - s) >= 13 && memcmp(s, "package_path:", 13) == 0) {
            const char *v = s + 13;
            strip(&v, &e, true);
            path_ok = same(v, e, want_dir, (size_t)(want_end - want_dir));
        }
    }
    free(buf);
    return listed || (in_block && path_ok);
}
