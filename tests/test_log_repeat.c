/* test_log_repeat.c - repeated identical log lines are throttled (common/platform/log.c): the first
 * EMU_LOG_REPEAT_MAX of a text are printed, then only a count at 10x, 100x, ... that number;
 * other texts and info lines are not held back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/platform/log.h"

/* Run `n` identical error lines (and one other) with stderr in a file; returns its text. */
static char *logged(int n, const char *text)
{
    char path[] = "/dev/shm/hcemu-logtest-XXXXXX";
    int fd = mkstemp(path), saved = dup(STDERR_FILENO);
    static char buf[65536];

    assert_true(fd >= 0 && saved >= 0);
    unlink(path);
    assert_true(dup2(fd, STDERR_FILENO) >= 0);
    for (int i = 0; i < n; i++)
        EMU_LOG_ERR("%s", text);
    EMU_LOG_ERR("%s and another text", text);
    dup2(saved, STDERR_FILENO);
    close(saved);
    ssize_t got = pread(fd, buf, sizeof(buf) - 1, 0);
    close(fd);
    buf[got > 0 ? got : 0] = '\0';
    return buf;
}

static int count(const char *text, const char *needle)
{
    int k = 0;

    for (const char *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle))
        k++;
    return k;
}

static void the_first_lines_then_counts(void **state)
{
    (void)state;
    const char *t = logged(1000, "refused: count 7 is too large");

    assert_int_equal(count(t, "\n"), EMU_LOG_REPEAT_MAX + 2 + 1);
    assert_int_equal(count(t, "error: refused: count 7 is too large\n"), EMU_LOG_REPEAT_MAX);
    assert_int_equal(count(t, "(100 times now, shown the first 10) refused: count 7"), 1);
    assert_int_equal(count(t, "(1000 times now, shown the first 10) refused: count 7"), 1);
    assert_int_equal(count(t, "refused: count 7 is too large and another text\n"), 1);
}

static void a_few_repeats_are_all_shown(void **state)
{
    (void)state;
    const char *t = logged(EMU_LOG_REPEAT_MAX, "a text seen ten times");

    assert_int_equal(count(t, "error: a text seen ten times\n"), EMU_LOG_REPEAT_MAX);
    /* The last error is kept for aclGetRecentErrMsg whether it was shown or not. */
    assert_string_equal(emu_log_last_error(1), "a text seen ten times and another text");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_first_lines_then_counts),
        cmocka_unit_test(a_few_repeats_are_all_shown),
    };

    setenv("HCEMU_LOG_LEVEL", "warn", 1);
    return cmocka_run_group_tests_name("log_repeat", tests, NULL, NULL);
}
