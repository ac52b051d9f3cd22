/* test_package.c - package.c: an image found in the package beside a descriptor, extracted
 * byte for byte into the job folder once, and nothing else of the package; refused
 * (EMU_ENOTFOUND) until the whitelist lists the package with its path; EMU_EFILE when no
 * package holds it. Crafted packages and whitelists: two files of the image's name, an image
 * over the size cap, too many entries (EMU_EFILE, nothing extracted); a "name:" line hidden
 * in the tail of an over-long comment, a FIFO for a whitelist (refused at once, never
 * blocking); the package_path the refusal message prints for a package outside an opp/ tree
 * is the one that lists it. */
#include <setjmp.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>

#include "common/platform/os.h"
#include "common/platform/secure_dir.h"
#include "host/acl/package.h"

static const char IMAGE[] = "\177ELF pretend image bytes";

struct fixture {
    char root[64];
    char json[256];
    char job[256];
    char ini[256];
};

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A package of `n` regular files: names[i] with `size` bytes each (the image's bytes, or
 * zeros when size is not sizeof(IMAGE): libarchive pads an entry to its announced size). */
static void make_package(const char *path, const char *const *names, unsigned n, int64_t size)
{
    struct archive *a = archive_write_new();
    struct archive_entry *e = archive_entry_new();

    archive_write_add_filter_gzip(a);
    archive_write_set_format_pax_restricted(a);
    assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
    for (unsigned i = 0; i < n; i++) {
        archive_entry_clear(e);
        archive_entry_set_pathname(e, names[i]);
        archive_entry_set_size(e, size);
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0755);
        archive_write_header(a, e);
        if (size == (int64_t)sizeof(IMAGE))
            archive_write_data(a, IMAGE, sizeof(IMAGE));
        archive_write_finish_entry(a);
    }
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
}

static void make_tarball(const char *path)
{
    static const char *const names[] = {"aicpu_kernels_device/libk.so",
                                        "aicpu_kernels_device/libother.so"};
    make_package(path, names, 2, sizeof(IMAGE));
}

/* mkdir -p for the fixture's toolkit tree (private folders under /tmp). */
static emu_status mkdir_p(const char *path, unsigned mode)
{
    char buf[512];

    snprintf(buf, sizeof(buf), "%s", path);
    for (char *p = buf + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, mode) != 0 && errno != EEXIST)
            return EMU_EFILE;
        *p = '/';
    }
    return mkdir(buf, mode) == 0 || errno == EEXIST ? EMU_OK : EMU_EFILE;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    char path[512];

    snprintf(f->root, sizeof(f->root), "/tmp/hcemu-pkg-test-%d", (int)getpid());
    snprintf(path, sizeof(path), "%s/opp/vendors/v/aicpu/config", f->root);
    assert_int_equal(mkdir_p(path, 0700), EMU_OK);
    snprintf(path, sizeof(path), "%s/opp/vendors/v/aicpu/kernel", f->root);
    assert_int_equal(mkdir_p(path, 0700), EMU_OK);
    snprintf(path, sizeof(path), "%s/conf", f->root);
    assert_int_equal(mkdir_p(path, 0700), EMU_OK);
    snprintf(f->job, sizeof(f->job), "%s/job", f->root);
    assert_int_equal(mkdir_p(f->job, 0700), EMU_OK);
    snprintf(f->json, sizeof(f->json), "%s/opp/vendors/v/aicpu/config/libk.json", f->root);
    write_file(f->json, "{}");
    snprintf(path, sizeof(path), "%s/opp/vendors/v/aicpu/kernel/aicpu_k.tar.gz", f->root);
    make_tarball(path);
    snprintf(f->ini, sizeof(f->ini), "%s/conf/ascend_package_load.ini", f->root);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    emu_secure_dir_remove(f->root);
    free(f);
    return 0;
}

static void test_whitelisted_package(void **state)
{
    struct fixture *f = *state;
    char out[512], got[64] = {0};

    write_file(f->ini, "name:other.tar.gz\npackage_path:opp/vendors/v/aicpu/kernel\n"
                       "name:aicpu_k.tar.gz\ninstall_path:2\noptional:true\n"
                       "package_path:opp/vendors/v/aicpu/kernel\nload_as_per_soc:false\n");
    assert_int_equal(emu_package_find_image(f->json, "/x/libk.so", f->job, out, sizeof(out)),
                     EMU_OK);
    assert_non_null(strstr(out, "/job/aicpu-packages/aicpu_k.tar.gz/libk.so"));
    FILE *fp = fopen(out, "rb");
    assert_non_null(fp);
    assert_int_equal(fread(got, 1, sizeof(got), fp), sizeof(IMAGE));
    fclose(fp);
    assert_memory_equal(got, IMAGE, sizeof(IMAGE));
    /* Second time: the job's copy is reused. */
    assert_int_equal(emu_package_find_image(f->json, "libk.so", f->job, out, sizeof(out)),
                     EMU_OK);
}

static void test_not_whitelisted(void **state)
{
    struct fixture *f = *state;
    char out[512];
    struct stat st;

    write_file(f->ini, "name:aicpu_k.tar.gz\npackage_path:opp/vendors/other/aicpu/kernel\n");
    assert_int_equal(emu_package_find_image(f->json, "libk.so", f->job, out, sizeof(out)),
                     EMU_ENOTFOUND);
    unlink(f->ini);
    assert_int_equal(emu_package_find_image(f->json, "libk.so", f->job, out, sizeof(out)),
                     EMU_ENOTFOUND);
    snprintf(out, sizeof(out), "%s/aicpu-packages", f->job);
    assert_int_not_equal(stat(out, &st), 0); /* nothing extracted */
}

static void test_no_package_holds_it(void **state)
{
    struct fixture *f = *state;
    char out[512];

    write_file(f->ini, "name:aicpu_k.tar.gz\npackage_path:opp/vendors/v/aicpu/kernel\n");
    assert_int_equal(emu_package_find_image(f->json, "libnone.so", f->job, out, sizeof(out)),
                     EMU_EFILE);
}

static const char WHITELIST[] = "name:aicpu_k.tar.gz\npackage_path:opp/vendors/v/aicpu/kernel\n";

static void package_path(const struct fixture *f, char *out, size_t len)
{
    snprintf(out, len, "%s/opp/vendors/v/aicpu/kernel/aicpu_k.tar.gz", f->root);
}

static bool nothing_extracted(const struct fixture *f)
{
    char path[512];
    struct stat st;

    snprintf(path, sizeof(path), "%s/aicpu-packages/aicpu_k.tar.gz/libk.so", f->job);
    return lstat(path, &st) != 0;
}

/* A package of these entries, whitelisted: asking for libk.so fails, nothing extracted. */
static void assert_package_refused(const struct fixture *f, const char *const *names, unsigned n,
                                   int64_t size)
{
    char out[512], tarball[512];

    package_path(f, tarball, sizeof(tarball));
    make_package(tarball, names, n, size);
    write_file(f->ini, WHITELIST);
    assert_int_equal(emu_package_find_image(f->json, "libk.so", f->job, out, sizeof(out)),
                     EMU_EFILE);
    assert_true(nothing_extracted(f));
}

/* Only the image asked for leaves the package; a second image is extracted when asked. */
static void test_only_the_image_is_extracted(void **state)
{
    struct fixture *f = *state;
    char out[512], other[512];
    struct stat st;

    write_file(f->ini, WHITELIST);
    assert_int_equal(emu_package_find_image(f->json, "libk.so", f->job, out, sizeof(out)),
                     EMU_OK);
    snprintf(other, sizeof(other), "%s/aicpu-packages/aicpu_k.tar.gz/libother.so", f->job);
    assert_int_not_equal(lstat(other, &st), 0);
    assert_int_equal(emu_package_find_image(f->json, "libother.so", f->job, out, sizeof(out)),
                     EMU_OK);
    assert_string_equal(out, other);
    assert_int_equal(lstat(other, &st), 0);
    assert_int_equal(st.st_size, sizeof(IMAGE));
}

/* a/libk.so then b/libk.so: which one would be the image depends on the order: refused. */
static void test_two_files_of_the_image_name_are_refused(void **state)
{
    static const char *const names[] = {"a/libk.so", "b/libk.so"};

    assert_package_refused(*state, names, 2, sizeof(IMAGE));
}

/* An image announcing more than the cap (a few hundred KiB of gzip for 300 MiB of zeros) is
 * refused before a byte is written. */
static void test_an_image_over_the_size_cap_is_refused(void **state)
{
    static const char *const names[] = {"aicpu_kernels_device/libk.so"};

    assert_package_refused(*state, names, 1, 300ll << 20);
}

/* 5000 entries (the image among them) are more than a package may have. */
static void test_a_package_of_too_many_entries_is_refused(void **state)
{
    enum { N = 5000 };
    static char names_buf[N][32];
    static const char *names[N];

    for (unsigned i = 0; i < N; i++) {
        snprintf(names_buf[i], sizeof(names_buf[i]), i == N - 1 ? "d/libk.so" : "d/f%u", i);
        names[i] = names_buf[i];
    }
    assert_package_refused(*state, names, N, sizeof(IMAGE));
}

/* A comment of 1100 characters whose tail reads "name:aicpu_k.tar.gz" lists nothing; nor
 * does a line longer than the parser takes. */
static void test_a_name_in_a_long_comment_is_not_a_listing(void **state)
{
    struct fixture *f = *state;
    char out[512];
    static char text[8192];

    memset(text, 0, sizeof(text));
    text[0] = '#';
    memset(text + 1, 'x', 1022);
    strcat(text, "name:aicpu_k.tar.gz\n");
    write_file(f->ini, text);
    assert_int_equal(emu_package_find_image(f->json, "libk.so", f->job, out, sizeof(out)),
                     EMU_ENOTFOUND);
    memset(text, 'x', 5000);
    snprintf(text + 5000, sizeof(text) - 5000, "\n%s", WHITELIST);
    write_file(f->ini, text);
    assert_int_equal(emu_package_find_image(f->json, "libk.so", f->job, out, sizeof(out)),
                     EMU_ENOTFOUND);
    assert_true(nothing_extracted(f));
}

/* A FIFO in the whitelist's place is refused at once (the test would block forever on the
 * old fopen, so the refusal runs in a child with a deadline). */
static void test_a_fifo_whitelist_is_refused_without_blocking(void **state)
{
    struct fixture *f = *state;
    char out[512];

    assert_int_equal(mkfifo(f->ini, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(10);
        _exit(emu_package_find_image(f->json, "libk.so", f->job, out, sizeof(out)) ==
                      EMU_ENOTFOUND
                  ? 0
                  : 1);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    unlink(f->ini);
}

/* A package outside any opp/ tree belongs to ASCEND_HOME_PATH's toolkit: the package_path
 * the refusal asks for (its absolute folder) is the one that then lists it. */
static void test_the_package_path_asked_for_lists_the_package(void **state)
{
    struct fixture *f = *state;
    char dir[300], kdir[300], json[512], tarball[600], out[512], text[1200];

    snprintf(dir, sizeof(dir), "%s/loose/aicpu/config", f->root);
    snprintf(kdir, sizeof(kdir), "%s/loose/aicpu/kernel", f->root);
    assert_int_equal(mkdir_p(dir, 0700), EMU_OK);
    assert_int_equal(mkdir_p(kdir, 0700), EMU_OK);
    snprintf(json, sizeof(json), "%s/libk.json", dir);
    write_file(json, "{}");
    snprintf(tarball, sizeof(tarball), "%s/aicpu_k.tar.gz", kdir);
    make_tarball(tarball);
    setenv("ASCEND_HOME_PATH", f->root, 1);
    write_file(f->ini, "");
    assert_int_equal(emu_package_find_image(json, "libk.so", f->job, out, sizeof(out)),
                     EMU_ENOTFOUND);
    /* The message asks for package_path:<kdir without its leading slash>. */
    snprintf(text, sizeof(text), "name:aicpu_k.tar.gz\ninstall_path:2\noptional:true\n"
                                 "package_path:%s\nload_as_per_soc:false\n", kdir + 1);
    write_file(f->ini, text);
    assert_int_equal(emu_package_find_image(json, "libk.so", f->job, out, sizeof(out)), EMU_OK);
    unsetenv("ASCEND_HOME_PATH");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_whitelisted_package, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_whitelisted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_package_holds_it, setup, teardown),
        cmocka_unit_test_setup_teardown(test_only_the_image_is_extracted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_files_of_the_image_name_are_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_an_image_over_the_size_cap_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_package_of_too_many_entries_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_name_in_a_long_comment_is_not_a_listing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_fifo_whitelist_is_refused_without_blocking, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_the_package_path_asked_for_lists_the_package, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
