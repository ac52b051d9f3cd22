/* test_settings.c - common/contract/settings.c: typed parsing with ranges, one warning per bad value,
 * the block a host hands to its executors (adopted instead of the environment, and the
 * warning for a later host that disagrees), and the environment table of docs/SETTINGS.md
 * checked against the settings table both ways. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/contract/settings.h"

/* ---- stderr capture -------------------------------------------------------------------- */

struct capture {
    int saved;
    FILE *f;
    char text[4096];
};

static void capture_begin(struct capture *c)
{
    fflush(stderr);
    c->f = tmpfile();
    assert_non_null(c->f);
    c->saved = dup(STDERR_FILENO);
    dup2(fileno(c->f), STDERR_FILENO);
}

/* Ends the capture; returns the number of lines captured. */
static int capture_end(struct capture *c)
{
    int lines = 0;

    fflush(stderr);
    dup2(c->saved, STDERR_FILENO);
    close(c->saved);
    rewind(c->f);
    size_t n = fread(c->text, 1, sizeof(c->text) - 1, c->f);
    c->text[n] = '\0';
    fclose(c->f);
    for (size_t i = 0; i < n; i++)
        lines += c->text[i] == '\n';
    return lines;
}

/* ---- docs/SETTINGS.md ------------------------------------------------------------------ */

#define MAX_DOC 64

struct doc_row {
    char name[64];
    char def[128];
};

/* The rows of docs/SETTINGS.md's "## Environment variables" table: `NAME` (one or more per cell) and
 * the default cell without backticks ("—" reads as no default). */
static size_t read_settings_doc(struct doc_row *rows)
{
    FILE *f = fopen(HCEMU_SETTINGS_DOC, "r");
    char line[1024];
    size_t n = 0;
    int in_section = 0;

    assert_non_null(f);
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "## ", 3) == 0)
            in_section = strncmp(line, "## Environment variables", 24) == 0;
        if (!in_section || strncmp(line, "| `", 3) != 0)
            continue;
        char *cell1 = line + 1;
        char *bar = strchr(cell1, '|');
        assert_non_null(bar);
        char *cell2 = bar + 1;
        char *bar2 = strchr(cell2, '|');
        assert_non_null(bar2);
        *bar = *bar2 = '\0';
        char def[128] = "";
        size_t k = 0;
        for (const char *p = cell2; *p != '\0' && k + 1 < sizeof(def); p++)
            if (*p != '`' && !(*p == ' ' && (k == 0 || p[1] == '\0')))
                def[k++] = *p;
        while (k > 0 && def[k - 1] == ' ')
            k--;
        def[k] = '\0';
        if (strcmp(def, "—") == 0)
            def[0] = '\0';
        for (char *p = strchr(cell1, '`'); p != NULL; p = strchr(p, '`')) {
            char *close_tick = strchr(p + 1, '`');
            assert_non_null(close_tick);
            assert_true(n < MAX_DOC);
            snprintf(rows[n].name, sizeof(rows[n].name), "%.*s", (int)(close_tick - p - 1), p + 1);
            snprintf(rows[n].def, sizeof(rows[n].def), "%s", def);
            n++;
            p = close_tick + 1;
        }
    }
    fclose(f);
    return n;
}

static void the_doc_documents_exactly_the_table(void **state)
{
    struct doc_row doc[MAX_DOC];
    size_t n = read_settings_doc(doc);
    (void)state;

    assert_true(n > 0);
    for (int i = 0; i < EMU_SET_COUNT; i++) {
        const struct emu_setting_info *r = emu_settings_info((enum emu_setting)i);
        size_t j = 0;
        while (j < n && strcmp(doc[j].name, r->name) != 0)
            j++;
        if (j == n)
            fail_msg("%s is in the settings table but not in docs/SETTINGS.md", r->name);
        if (strcmp(doc[j].def, r->def) != 0)
            fail_msg("%s: docs/SETTINGS.md says the default is \"%s\", the table \"%s\"", r->name,
                     doc[j].def, r->def);
    }
    for (size_t j = 0; j < n; j++) {
        int i = 0;
        while (i < EMU_SET_COUNT &&
               strcmp(emu_settings_info((enum emu_setting)i)->name, doc[j].name) != 0)
            i++;
        if (i == EMU_SET_COUNT)
            fail_msg("docs/SETTINGS.md documents %s, which the settings table lacks", doc[j].name);
    }
}

/* ---- the table itself ------------------------------------------------------------------ */

static void every_row_is_well_formed(void **state)
{
    struct emu_setting_value v;
    (void)state;

    for (int i = 0; i < EMU_SET_COUNT; i++) {
        const struct emu_setting_info *r = emu_settings_info((enum emu_setting)i);
        if (r->def[0] != '\0' && !emu_settings_parse((enum emu_setting)i, r->def, &v))
            fail_msg("%s: the default \"%s\" does not parse", r->name, r->def);
        assert_true(r->doc[0] != '\0');
        /* Launchers' own variables are read, never set, by hcemu (rows set by a launcher). */
        bool launcher = r->reader == EMU_SET_RUN &&
                        (strncmp(r->name, "OMPI_", 5) == 0 || strncmp(r->name, "PMIX_", 5) == 0 ||
                         strncmp(r->name, "SLURM_", 6) == 0);
        assert_true(strncmp(r->name, "HCEMU_", 6) == 0 || strncmp(r->name, "HCCL_", 5) == 0 ||
                    strncmp(r->name, "ASCEND_", 7) == 0 || launcher);
        for (int k = 0; k < i; k++)
            assert_string_not_equal(r->name, emu_settings_info((enum emu_setting)k)->name);
    }
}

/* ---- parsing --------------------------------------------------------------------------- */

static uint64_t parse_u(enum emu_setting id, const char *text, bool *ok)
{
    struct emu_setting_value v;

    *ok = emu_settings_parse(id, text, &v);
    return v.u;
}

static void numbers_honour_their_range(void **state)
{
    static const struct {
        const char *text;
        bool ok;
        uint64_t want;
    } cases[] = {
        {"1", true, 1},     {"65536", true, 65536}, {"7", true, 7},
        {"0", false, 200},  {"65537", false, 200},  {"abc", false, 200},
        {"-1", false, 200}, {" 5", false, 200},     {"5x", false, 200},
        {"", true, 200},    {NULL, true, 200},      {"99999999999999999999999", false, 200},
    };
    bool ok;
    (void)state;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t got = parse_u(EMU_SET_HCCL_BUFFSIZE, cases[i].text, &ok);
        if (ok != cases[i].ok || got != cases[i].want)
            fail_msg("HCCL_BUFFSIZE=\"%s\": ok %d value %llu",
                     cases[i].text ? cases[i].text : "(unset)", ok, (unsigned long long)got);
    }
    assert_int_equal(parse_u(EMU_SET_SEED, "18446744073709551615", &ok), UINT64_MAX);
    assert_true(ok);
    assert_int_equal(parse_u(EMU_SET_HANG_MS, "0", &ok), 0);
    assert_true(ok);
    assert_int_equal(parse_u(EMU_SET_HANG_MS, "86400001", &ok), 2000);
    assert_false(ok);
    /* Yielding polls: 300 us by default; at most 10 ms per wait; a bad value reads as the
     * default. */
    assert_int_equal(parse_u(EMU_SET_POLL_US, NULL, &ok), 300);
    assert_true(ok);
    assert_int_equal(parse_u(EMU_SET_POLL_US, "300", &ok), 300);
    assert_true(ok);
    assert_int_equal(parse_u(EMU_SET_POLL_US, "10000", &ok), 10000);
    assert_true(ok);
    assert_int_equal(parse_u(EMU_SET_POLL_US, "10001", &ok), 300);
    assert_false(ok);
    assert_int_equal(parse_u(EMU_SET_POLL_US, "fast", &ok), 300);
    assert_false(ok);
}

static void switches_and_choices_parse_their_spellings(void **state)
{
    struct emu_setting_value v;
    (void)state;

    assert_true(emu_settings_parse(EMU_SET_RACECHECK, "1", &v) && v.u == 1);
    assert_true(emu_settings_parse(EMU_SET_RACECHECK, "ON", &v) && v.u == 1);
    assert_true(emu_settings_parse(EMU_SET_RACECHECK, "no", &v) && v.u == 0);
    assert_false(emu_settings_parse(EMU_SET_RACECHECK, "2", &v));
    assert_int_equal(v.u, 0);

    assert_true(emu_settings_parse(EMU_SET_LOG_LEVEL, "warning", &v));
    assert_int_equal(v.u, 1);
    assert_string_equal(v.s, "warn");
    assert_true(emu_settings_parse(EMU_SET_LOG_LEVEL, "DEBUG", &v));
    assert_int_equal(v.u, 3);
    assert_string_equal(v.s, "debug");
    assert_true(emu_settings_parse(EMU_SET_LOG_LEVEL, "0", &v));
    assert_string_equal(v.s, "error");
    assert_false(emu_settings_parse(EMU_SET_LOG_LEVEL, "4", &v));
    assert_string_equal(v.s, "warn");
    assert_false(emu_settings_parse(EMU_SET_LOG_LEVEL, "war", &v));
    assert_false(emu_settings_parse(EMU_SET_REDUCE_ISA, "avx", &v));
    assert_string_equal(v.s, "auto");
    assert_true(emu_settings_parse(EMU_SET_REDUCE_ISA, "avx512", &v));
    assert_string_equal(v.s, "avx512");

    char longer[EMU_SETTING_STR_MAX + 8];
    memset(longer, 'x', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    assert_false(emu_settings_parse(EMU_SET_TRACE, longer, &v));
    assert_string_equal(v.s, "");
    assert_true(emu_settings_parse(EMU_SET_JOB_DIR, NULL, &v));
    assert_string_equal(v.s, "/dev/shm");
}

/* ---- the environment ------------------------------------------------------------------- */

static void a_bad_value_warns_once_and_reads_as_the_default(void **state)
{
    struct capture c;
    (void)state;

    setenv("HCCL_BUFFSIZE", "abc", 1);
    capture_begin(&c);
    uint64_t a = emu_settings_u64(EMU_SET_HCCL_BUFFSIZE);
    uint64_t b = emu_settings_u64(EMU_SET_HCCL_BUFFSIZE);
    int lines = capture_end(&c);
    assert_int_equal(a, 200);
    assert_int_equal(b, 200);
    assert_int_equal(lines, 1);
    assert_non_null(strstr(c.text, "HCCL_BUFFSIZE=abc"));
    assert_non_null(strstr(c.text, "[1, 65536]"));
    assert_non_null(strstr(c.text, "using 200"));

    setenv("HCCL_BUFFSIZE", "5", 1); /* a changed variable is parsed again */
    assert_int_equal(emu_settings_u64(EMU_SET_HCCL_BUFFSIZE), 5);
    unsetenv("HCCL_BUFFSIZE");
    assert_int_equal(emu_settings_u64(EMU_SET_HCCL_BUFFSIZE), 200);

    setenv("HCEMU_REDUCE_ISA", "fastest", 1);
    capture_begin(&c);
    assert_string_equal(emu_settings_str(EMU_SET_REDUCE_ISA), "auto");
    assert_int_equal(capture_end(&c), 1);
    assert_non_null(strstr(c.text, "HCEMU_REDUCE_ISA=fastest is not one of"));
    unsetenv("HCEMU_REDUCE_ISA");
}

/* A host remembers where each variable's value lies in the environment while the
 * environment's entry pointers stay as they were; every way a program changes its
 * environment must still be seen at the next read. */
static void every_change_of_the_environment_is_seen(void **state)
{
    static char entry[] = "HCEMU_HANG_MS=41";
    (void)state;

    unsetenv("HCEMU_HANG_MS");
    assert_int_equal(emu_settings_u64(EMU_SET_HANG_MS), 2000); /* absent: the default */
    setenv("HCEMU_HANG_MS", "42", 1);                            /* added */
    assert_int_equal(emu_settings_u64(EMU_SET_HANG_MS), 42);
    setenv("HCEMU_HANG_MS", "43", 1); /* replaced */
    assert_int_equal(emu_settings_u64(EMU_SET_HANG_MS), 43);
    setenv("TEST_SETTINGS_OTHER", "1", 1); /* another one added, then removed: nothing moves */
    unsetenv("TEST_SETTINGS_OTHER");
    assert_int_equal(emu_settings_u64(EMU_SET_HANG_MS), 43);
    unsetenv("HCEMU_HANG_MS"); /* removed */
    assert_int_equal(emu_settings_u64(EMU_SET_HANG_MS), 2000);
    assert_int_equal(putenv(entry), 0); /* the program's own buffer */
    assert_int_equal(emu_settings_u64(EMU_SET_HANG_MS), 41);
    entry[15] = '7'; /* changed in place: the same entry pointer */
    assert_int_equal(emu_settings_u64(EMU_SET_HANG_MS), 47);
    unsetenv("HCEMU_HANG_MS");
    assert_int_equal(emu_settings_u64(EMU_SET_HANG_MS), 2000);
}

/* ---- the control block ----------------------------------------------------------------- */

static void a_joining_host_that_disagrees_is_warned_once(void **state)
{
    struct emu_settings_block b;
    struct capture c;
    (void)state;

    setenv("HCEMU_HANG_MS", "77", 1);
    emu_settings_export(&b);
    assert_int_equal(b.magic, EMU_SETTINGS_MAGIC);
    assert_int_equal(b.v[EMU_SET_HANG_MS].u, 77);
    capture_begin(&c);
    emu_settings_check_joined(&b, 3); /* the same settings: silent */
    assert_int_equal(capture_end(&c), 0);

    setenv("HCEMU_HANG_MS", "99", 1);
    capture_begin(&c);
    emu_settings_check_joined(&b, 3);
    emu_settings_check_joined(&b, 4);
    assert_int_equal(capture_end(&c), 1);
    assert_non_null(strstr(c.text, "device 3 was started"));
    assert_non_null(strstr(c.text, "HCEMU_HANG_MS=77; this process has 99"));
    unsetenv("HCEMU_HANG_MS");
}

/* In a child: adopting is for good. Exit code 0 when every check holds. */
static int adopt_in_child(const struct emu_settings_block *b)
{
    setenv("HCEMU_HANG_MS", "99", 1);
    setenv("HCEMU_TRACE", "/elsewhere.json", 1);
    setenv("HCCL_BUFFSIZE", "5", 1);
    emu_settings_adopt(b);
    if (b != NULL)
        return emu_settings_u64(EMU_SET_HANG_MS) == 1234 &&
                       strcmp(emu_settings_str(EMU_SET_TRACE), "/t.json") == 0 &&
                       strcmp(emu_settings_str(EMU_SET_LOG_LEVEL), "info") == 0 &&
                       emu_settings_u64(EMU_SET_HCCL_BUFFSIZE) == 200 /* a host row */
                   ? 0
                   : 1;
    return emu_settings_u64(EMU_SET_HANG_MS) == 2000 &&
                   strcmp(emu_settings_str(EMU_SET_TRACE), "") == 0
               ? 0
               : 1;
}

static int run_child(const struct emu_settings_block *b)
{
    int status = 0;

    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(adopt_in_child(b));
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void an_executor_takes_its_hosts_values_not_its_environment(void **state)
{
    struct emu_settings_block b;
    struct capture c;
    (void)state;

    setenv("HCEMU_HANG_MS", "1234", 1);
    setenv("HCEMU_TRACE", "/t.json", 1);
    setenv("HCEMU_LOG_LEVEL", "info", 1);
    emu_settings_export(&b);
    unsetenv("HCEMU_HANG_MS");
    unsetenv("HCEMU_TRACE");
    unsetenv("HCEMU_LOG_LEVEL");
    assert_int_equal(run_child(&b), 0);

    capture_begin(&c);
    assert_int_equal(run_child(NULL), 0); /* no block: the defaults, one warning */
    assert_int_equal(capture_end(&c), 1);
    assert_non_null(strstr(c.text, "using the defaults"));

    b.table_hash ^= 1; /* another build's table */
    capture_begin(&c);
    /* Refused: the child runs with the defaults, so its check of the block's values fails. */
    assert_int_equal(run_child(&b), 1);
    assert_int_equal(capture_end(&c), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_doc_documents_exactly_the_table),
        cmocka_unit_test(every_row_is_well_formed),
        cmocka_unit_test(numbers_honour_their_range),
        cmocka_unit_test(switches_and_choices_parse_their_spellings),
        cmocka_unit_test(a_bad_value_warns_once_and_reads_as_the_default),
        cmocka_unit_test(every_change_of_the_environment_is_seen),
        cmocka_unit_test(a_joining_host_that_disagrees_is_warned_once),
        cmocka_unit_test(an_executor_takes_its_hosts_values_not_its_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
