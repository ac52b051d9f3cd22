/* test_package.c - package.c: an image found in the package beside a descriptor, extracted
 * byte for byte into the job folder once; refused (EMU_ENOTFOUND) until the whitelist lists
 * the package with its path; EMU_EFILE when no package holds it. */
#include <setjmp.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>

#include "common/os.h"
#include "common/secure_dir.h"
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

static void make_tarball(const char *path)
{
    struct archive *a = archive_write_new();
    struct archive_entry *e = archive_entry_new();

    archive_write_add_filter_gzip(a);
    archive_write_set_format_pax_restricted(a);
    assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
    archive_entry_set_pathname(e, "aicpu_kernels_device/libk.so");
    archive_entry_set_size(e, sizeof(IMAGE));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0755);
    archive_write_header(a, e);
    archive_write_data(a, IMAGE, sizeof(IMAGE));
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_whitelisted_package, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_whitelisted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_package_holds_it, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
