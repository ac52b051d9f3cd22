/* test_securec.c - libc_sec (shim/api_securec.c): results, truncation and the *_AND_RESET
 * codes with the destination cleared. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <securec.h>

static void test_memcpy(void **state)
{
    (void)state;
    char d[8] = "xxxxxxx";
    assert_int_equal(memcpy_s(d, sizeof(d), "abcd", 4), EOK);
    assert_memory_equal(d, "abcdxxx", 8);
    assert_int_equal(memcpy_s(d, sizeof(d), "0123456789", 10), ERANGE_AND_RESET);
    assert_memory_equal(d, "\0\0\0\0\0\0\0\0", 8);
    assert_int_equal(memcpy_s(d, 0, "a", 1), ERANGE);
    assert_int_equal(memcpy_s(NULL, 8, "a", 1), EINVAL);
    memset(d, 'q', sizeof(d));
    assert_int_equal(memcpy_s(d, sizeof(d), NULL, 1), EINVAL_AND_RESET);
    assert_int_equal(d[0], 0);
    memcpy(d, "abcdefg", 8);
    assert_int_equal(memcpy_s(d + 1, 7, d, 4), EOVERLAP_AND_RESET);
    memcpy(d, "abcdefg", 8);
    assert_int_equal(memmove_s(d + 1, 7, d, 4), EOK);
    assert_memory_equal(d, "aabcdfg", 8);
}

static void test_memset(void **state)
{
    (void)state;
    unsigned char d[4] = {1, 2, 3, 4};
    assert_int_equal(memset_s(d, sizeof(d), 7, 2), EOK);
    assert_memory_equal(d, "\x07\x07\x03\x04", 4);
    assert_int_equal(memset_s(d, sizeof(d), 9, 5), ERANGE_AND_RESET);
    assert_memory_equal(d, "\x09\x09\x09\x09", 4);
    assert_int_equal(memset_s(NULL, 4, 0, 1), EINVAL);
}

static void test_strings(void **state)
{
    (void)state;
    char d[6];
    assert_int_equal(strcpy_s(d, sizeof(d), "hello"), EOK);
    assert_string_equal(d, "hello");
    assert_int_equal(strcpy_s(d, sizeof(d), "hello!"), ERANGE_AND_RESET);
    assert_string_equal(d, "");
    assert_int_equal(strncpy_s(d, sizeof(d), "abcdefgh", 3), EOK);
    assert_string_equal(d, "abc");
    assert_int_equal(strcat_s(d, sizeof(d), "de"), EOK);
    assert_string_equal(d, "abcde");
    assert_int_equal(strcat_s(d, sizeof(d), "f"), ERANGE_AND_RESET);
    assert_string_equal(d, "");
    assert_int_equal(strcpy_s(d, sizeof(d), "ab"), EOK);
    assert_int_equal(strncat_s(d, sizeof(d), "xyz", 2), EOK);
    assert_string_equal(d, "abxy");
    assert_int_equal(strcpy_s(d, sizeof(d), NULL), EINVAL_AND_RESET);
    assert_int_equal(strcpy_s(NULL, sizeof(d), "a"), EINVAL);
    char text[] = "a,b";
    char *ctx = NULL;
    assert_string_equal(strtok_s(text, ",", &ctx), "a");
    assert_string_equal(strtok_s(NULL, ",", &ctx), "b");
    assert_null(strtok_s(NULL, ",", &ctx));
}

static void test_printf(void **state)
{
    (void)state;
    char d[8];
    assert_int_equal(sprintf_s(d, sizeof(d), "%s-%d", "ab", 42), 5);
    assert_string_equal(d, "ab-42");
    assert_int_equal(sprintf_s(d, sizeof(d), "%s", "too long!"), -1);
    assert_string_equal(d, "");
    /* count < destMax: truncation to count characters, reported as -1 */
    assert_int_equal(snprintf_s(d, sizeof(d), 3, "%s", "abcdef"), -1);
    assert_string_equal(d, "abc");
    assert_int_equal(snprintf_s(d, sizeof(d), 7, "%d", 123), 3);
    assert_string_equal(d, "123");
    assert_int_equal(snprintf_s(d, sizeof(d), 20, "%s", "abcdefgh"), -1);
    assert_string_equal(d, "");
    assert_int_equal(sprintf_s(NULL, 8, "x"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memcpy),
        cmocka_unit_test(test_memset),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_printf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
