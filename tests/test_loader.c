/* test_loader.c - the kernel-image loader: descriptor JSON, ELF inspection (including bad and
 * mutated images), import policy, symbolization and the hcemu-inspect exit codes.
 *
 * Every refusal must come with its exact status and exactly one log line; stderr is captured
 * around the call under test to count the lines. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/platform/os.h"
#include "common/platform/secure_dir.h"
#include "loader/deps.h"
#include "loader/descriptor.h"
#include "loader/device_api_names.h"
#include "loader/elf.h"
#include "loader/import.h"
#include "loader/symbolize.h"

static char tmpdir[PATH_MAX];
static char *ok_so; /* the bytes of libloader_ok.so */
static size_t ok_len;

/* ---- helpers ---------------------------------------------------------------------------- */

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;

    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Writes data to tmpdir/name and returns the path (static storage, one at a time). */
static const char *write_tmp(const char *name, const void *data, size_t len)
{
    static char path[PATH_MAX + 64];

    snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
    return path;
}

struct capture {
    int saved;
    FILE *f;
    char text[4096];
    int lines;
};

/* Sends fd 2 (where the logger writes) to a temporary file until capture_end(). */
static void capture_begin(struct capture *c)
{
    fflush(stderr);
    c->f = tmpfile();
    assert_non_null(c->f);
    c->saved = dup(STDERR_FILENO);
    assert_true(c->saved >= 0);
    assert_true(dup2(fileno(c->f), STDERR_FILENO) >= 0);
}

static void capture_end(struct capture *c)
{
    fflush(stderr);
    dup2(c->saved, STDERR_FILENO);
    close(c->saved);
    rewind(c->f);
    size_t n = fread(c->text, 1, sizeof(c->text) - 1, c->f);
    c->text[n] = '\0';
    fclose(c->f);
    c->lines = 0;
    for (size_t i = 0; i < n; i++)
        c->lines += c->text[i] == '\n';
}

static void assert_one_line_with(const struct capture *c, const char *needle)
{
    if (c->lines != 1 || strstr(c->text, needle) == NULL)
        fail_msg("expected one log line containing \"%s\", got %d:\n%s", needle, c->lines, c->text);
}

static emu_status parse(const char *json, struct emu_descriptor *d, struct capture *c)
{
    capture_begin(c);
    emu_status st = emu_descriptor_parse(json, strlen(json), "t.json", "/base", d);
    capture_end(c);
    return st;
}

/* Parsing must fail with `status` and exactly one line containing `needle`. */
static void refuse_json(const char *json, emu_status status, const char *needle)
{
    struct emu_descriptor d;
    struct capture c;

    emu_status st = parse(json, &d, &c);
    if (st != status)
        fail_msg("%s: status %s, expected %s", json, emu_status_name(st), emu_status_name(status));
    assert_one_line_with(&c, needle);
    assert_null(d.entries);
    assert_null(d.so_path);
    emu_descriptor_fini(&d);
}

#define OPINFO(so, fn)                                                                             \
    "{\"opInfo\":{\"opKernelLib\":\"AICPUKernel\",\"kernelSo\":" so ",\"functionName\":" fn "}}"

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/hcemu-test-loader-XXXXXX");
    if (mkdtemp(tmpdir) == NULL)
        return -1;
    ok_so = read_all(LOADER_OK_SO, &ok_len);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    emu_secure_dir_remove(tmpdir);
    free(ok_so);
    return 0;
}

/* ---- descriptor ------------------------------------------------------------------------- */

static void descriptor_parses_entry_and_resolves_kernel_so_against_base_dir(void **state)
{
    struct emu_descriptor d;
    struct capture c;
    (void)state;

    assert_int_equal(
        parse("{\"AllGather\":" OPINFO("\"libx.so\"", "\"AllGatherKernel\"") "}", &d, &c), EMU_OK);
    assert_int_equal(c.lines, 0);
    assert_string_equal(d.so_path, "/base/libx.so");
    assert_int_equal(d.n_entries, 1);
    assert_string_equal(d.entries[0].kernel_name, "AllGather");
    assert_string_equal(d.entries[0].function_name, "AllGatherKernel");
    assert_string_equal(d.entries[0].op_kernel_lib, "AICPUKernel");
    emu_descriptor_fini(&d);
    assert_null(d.entries);
}

static void descriptor_keeps_several_entries_in_file_order(void **state)
{
    struct emu_descriptor d;
    struct capture c;
    (void)state;

    assert_int_equal(
        parse("{\"B\":" OPINFO("\"libx.so\"", "\"fb\"") ",\"A\":" OPINFO(
                  "\"libx.so\"", "\"fa\"") ",\"C\":" OPINFO("\"libx.so\"", "\"fc\"") "}",
              &d, &c),
        EMU_OK);
    assert_int_equal(d.n_entries, 3);
    assert_string_equal(d.entries[0].kernel_name, "B");
    assert_string_equal(d.entries[1].function_name, "fa");
    assert_string_equal(d.entries[2].kernel_name, "C");
    emu_descriptor_fini(&d);
}

static void descriptor_allows_kernel_so_in_a_subfolder(void **state)
{
    struct emu_descriptor d;
    (void)state;

    const char *j = "{\"K\":" OPINFO("\"./lib/libx.so\"", "\"f\"") "}";
    assert_int_equal(emu_descriptor_parse(j, strlen(j), "t.json", "/base/", &d), EMU_OK);
    assert_string_equal(d.so_path, "/base/./lib/libx.so");
    emu_descriptor_fini(&d);
    /* A relative base folder is taken from the current directory. */
    char cwd[PATH_MAX], want[PATH_MAX + 32];
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    snprintf(want, sizeof(want), "%s/cfg/./lib/libx.so", cwd);
    assert_int_equal(emu_descriptor_parse(j, strlen(j), NULL, "cfg", &d), EMU_OK);
    assert_string_equal(d.so_path, want);
    emu_descriptor_fini(&d);
}

static void descriptor_ignores_entries_without_op_info(void **state)
{
    struct emu_descriptor d;
    struct capture c;
    (void)state;

    assert_int_equal(
        parse("{\"meta\":{\"version\":1},\"K\":" OPINFO("\"libx.so\"", "\"f\"") "}", &d, &c),
        EMU_OK);
    assert_int_equal(d.n_entries, 1);
    assert_string_equal(d.entries[0].kernel_name, "K");
    emu_descriptor_fini(&d);
}

static void descriptor_refuses_malformed_json(void **state)
{
    (void)state;
    refuse_json("", EMU_EPARSE, "t.json: invalid JSON");
    refuse_json("{", EMU_EPARSE, "t.json: invalid JSON");
    refuse_json("{\"K\": }", EMU_EPARSE, "t.json: invalid JSON");
    refuse_json("{\"K\": {},}", EMU_EPARSE, "t.json: invalid JSON");
    refuse_json("{\"K\":" OPINFO("\"libx.so\"", "\"f\"") "} trailing", EMU_EPARSE,
                "t.json: invalid JSON at byte");
    refuse_json("[1, 2]", EMU_EPARSE, "top level must be an object");
    refuse_json("\"text\"", EMU_EPARSE, "top level must be an object");

    struct emu_descriptor d;
    struct capture c;
    capture_begin(&c);
    assert_int_equal(emu_descriptor_parse("{\"K\"\0:1}", 8, "t.json", "/b", &d), EMU_EPARSE);
    capture_end(&c);
    assert_one_line_with(&c, "NUL byte at offset 4");
}

static void descriptor_refuses_empty_object_and_entries_all_without_op_info(void **state)
{
    (void)state;
    refuse_json("{}", EMU_EPARSE, "t.json: no kernel entries");
    refuse_json("{\"a\":{},\"b\":{\"x\":1}}", EMU_EPARSE, "t.json: no kernel entries");
}

static void descriptor_refuses_missing_kernel_so_or_function_name(void **state)
{
    (void)state;
    refuse_json("{\"AllGather\":{\"opInfo\":{\"kernelSo\":\"libx.so\"}}}", EMU_EPARSE,
                "t.json: entry \"AllGather\": opInfo.functionName is missing");
    refuse_json("{\"AllGather\":{\"opInfo\":{\"functionName\":\"f\"}}}", EMU_EPARSE,
                "t.json: entry \"AllGather\": opInfo.kernelSo is missing");
    refuse_json("{\"K\":" OPINFO("\"libx.so\"", "\"\"") "}", EMU_EPARSE,
                "entry \"K\": opInfo.functionName is empty");
    refuse_json("{\"\":" OPINFO("\"libx.so\"", "\"f\"") "}", EMU_EPARSE, "empty kernel name");
}

static void descriptor_refuses_non_string_values(void **state)
{
    (void)state;
    refuse_json("{\"K\":" OPINFO("7", "\"f\"") "}", EMU_EPARSE,
                "entry \"K\": opInfo.kernelSo must be a string, found int");
    refuse_json("{\"K\":" OPINFO("\"libx.so\"", "null") "}", EMU_EPARSE,
                "opInfo.functionName is missing");
    refuse_json("{\"K\":" OPINFO("\"libx.so\"", "[\"f\"]") "}", EMU_EPARSE,
                "opInfo.functionName must be a string, found array");
    refuse_json("{\"K\":{\"opInfo\":{\"opKernelLib\":5,\"kernelSo\":\"l.so\",\"functionName\":"
                "\"f\"}}}",
                EMU_EPARSE, "opInfo.opKernelLib must be a string, found int");
    refuse_json("{\"K\":{\"opInfo\":[]}}", EMU_EPARSE, "entry \"K\": opInfo must be an object");
    refuse_json("{\"K\":\"libx.so\"}", EMU_EPARSE, "entry \"K\": value must be an object");
    refuse_json("{\"K\":" OPINFO("\"lib\\u0000x.so\"", "\"f\"") "}", EMU_EPARSE,
                "opInfo.kernelSo contains a NUL character");
}

static void descriptor_refuses_kernel_so_escaping_its_folder(void **state)
{
    (void)state;
    refuse_json("{\"K\":" OPINFO("\"/etc/libx.so\"", "\"f\"") "}", EMU_EPARSE,
                "opInfo.kernelSo \"/etc/libx.so\" is an absolute path");
    refuse_json("{\"K\":" OPINFO("\"../libx.so\"", "\"f\"") "}", EMU_EPARSE,
                "has a \"..\" component");
    refuse_json("{\"K\":" OPINFO("\"a/../../x.so\"", "\"f\"") "}", EMU_EPARSE,
                "has a \"..\" component");
    refuse_json("{\"K\":" OPINFO("\"lib/\"", "\"f\"") "}", EMU_EPARSE, "names a folder");
    refuse_json("{\"K\":" OPINFO("\"\"", "\"f\"") "}", EMU_EPARSE, "opInfo.kernelSo is empty");
}

static void descriptor_refuses_entries_naming_different_kernel_so(void **state)
{
    (void)state;
    refuse_json(
        "{\"A\":" OPINFO("\"libx.so\"", "\"f\"") ",\"B\":" OPINFO("\"liby.so\"", "\"g\"") "}",
        EMU_EPARSE, "entry \"B\": kernelSo \"liby.so\" differs from \"libx.so\" of entry \"A\"");
}

static void descriptor_keeps_entry_with_unknown_or_missing_op_kernel_lib(void **state)
{
    struct emu_descriptor d;
    struct capture c;
    (void)state;

    assert_int_equal(
        parse("{\"A\":{\"opInfo\":{\"opKernelLib\":\"GPUKernel\",\"kernelSo\":\"l.so\","
              "\"functionName\":\"f\"}},\"B\":{\"opInfo\":{\"kernelSo\":\"l.so\","
              "\"functionName\":\"g\"}}}",
              &d, &c),
        EMU_OK);
    assert_int_equal(d.n_entries, 2);
    assert_string_equal(d.entries[0].op_kernel_lib, "GPUKernel");
    assert_null(d.entries[1].op_kernel_lib);
    assert_int_equal(c.lines, 2); /* one warning per entry */
    assert_non_null(strstr(c.text, "unknown opKernelLib \"GPUKernel\""));
    assert_non_null(strstr(c.text, "entry \"B\": opInfo.opKernelLib is missing"));
    assert_true(emu_descriptor_is_known_kernel_lib("CUSTAICPUKernel"));
    assert_false(emu_descriptor_is_known_kernel_lib(NULL));
    emu_descriptor_fini(&d);
}

static void descriptor_load_resolves_kernel_so_against_the_json_folder(void **state)
{
    struct emu_descriptor d;
    char want[PATH_MAX + 32], real[PATH_MAX];
    (void)state;

    const char *j = "{\"K\":" OPINFO("\"libloader_ok.so\"", "\"loader_ok_entry\"") "}\n";
    const char *path = write_tmp("kernel.json", j, strlen(j));
    assert_int_equal(emu_descriptor_load(path, &d), EMU_OK);
    assert_non_null(realpath(tmpdir, real));
    snprintf(want, sizeof(want), "%s/libloader_ok.so", real);
    assert_string_equal(d.so_path, want);
    emu_descriptor_fini(&d);
}

static void descriptor_load_reports_missing_file_as_efile(void **state)
{
    struct emu_descriptor d;
    struct capture c;
    (void)state;

    capture_begin(&c);
    assert_int_equal(emu_descriptor_load("/nonexistent/kernel.json", &d), EMU_EFILE);
    capture_end(&c);
    assert_one_line_with(&c, "/nonexistent/kernel.json: cannot open");
    capture_begin(&c);
    assert_int_equal(emu_descriptor_load(tmpdir, &d), EMU_EFILE);
    capture_end(&c);
    assert_one_line_with(&c, "not a regular file");
    emu_descriptor_fini(&d);
}

static void descriptor_rejects_null_arguments(void **state)
{
    struct emu_descriptor d;
    (void)state;

    assert_int_equal(emu_descriptor_parse("{}", 2, "t", "/b", NULL), EMU_ENULL);
    assert_int_equal(emu_descriptor_parse(NULL, 2, "t", "/b", &d), EMU_ENULL);
    assert_int_equal(emu_descriptor_parse("{}", 2, "t", NULL, &d), EMU_ENULL);
    assert_int_equal(emu_descriptor_load(NULL, &d), EMU_ENULL);
    assert_int_equal(emu_descriptor_load("x.json", NULL), EMU_ENULL);
    emu_descriptor_fini(NULL);
    emu_descriptor_fini(&d);
}

/* ---- ELF inspection --------------------------------------------------------------------- */

static const struct emu_elf_symbol *find_import(const struct emu_elf_info *info, const char *n)
{
    for (size_t i = 0; i < info->n_imports; i++)
        if (strcmp(info->imports[i].name, n) == 0)
            return &info->imports[i];
    return NULL;
}

static void elf_inspect_lists_exports_imports_versions_and_needed(void **state)
{
    struct emu_elf_info info;
    (void)state;

    assert_int_equal(emu_elf_inspect_file(LOADER_OK_SO, &info), EMU_OK);
    const struct emu_elf_symbol *e = emu_elf_find_export(&info, "loader_ok_entry");
    assert_non_null(e);
    assert_true(emu_elf_symbol_is_function(e));
    assert_true(e->value != 0 && e->size != 0);
    assert_false(emu_elf_symbol_is_function(emu_elf_find_export(&info, "loader_ok_data")));
    assert_null(emu_elf_find_export(&info, "memcpy"));
    const struct emu_elf_symbol *m = find_import(&info, "memcpy");
    assert_non_null(m);
    const struct emu_elf_symbol *v = find_import(&info, "strlen");
    assert_non_null(v);
#ifndef __SANITIZE_ADDRESS__ /* ASan builds bind libc calls to its unversioned interceptors */
    assert_non_null(v->version);
#endif
    if (v->version != NULL) {
        assert_non_null(strstr(v->version, "GLIBC_2."));
        assert_string_equal(v->version_file, "libc.so.6");
    }
    assert_int_equal(emu_import_classify(m), EMU_IMPORT_RUNTIME);
    const struct emu_elf_symbol *h = find_import(&info, "HcommWriteOnThread");
    assert_non_null(h);
    assert_null(h->version);
    int has_libc = 0;
    for (size_t i = 0; i < info.n_needed; i++)
        has_libc |= strcmp(info.needed[i], "libc.so.6") == 0;
    assert_true(has_libc);
    assert_true(info.has_debug_info && info.has_debug_line);
    emu_elf_info_fini(&info);
    assert_null(info.exports);
}

static void elf_inspect_reads_cxx_kernel_versions(void **state)
{
    struct emu_elf_info info;
    int cxx = 0;
    (void)state;

    assert_int_equal(emu_elf_inspect_file(LOADER_CXX_SO, &info), EMU_OK);
    for (size_t i = 0; i < info.n_imports; i++)
        if (info.imports[i].version_file != NULL &&
            strcmp(info.imports[i].version_file, "libstdc++.so.6") == 0)
            cxx++;
    assert_true(cxx > 0);
    assert_true(emu_elf_symbol_is_function(emu_elf_find_export(&info, "loader_cxx_entry")));
    emu_elf_info_fini(&info);
}

static void patch_ehdr(char *buf, void (*fn)(Elf64_Ehdr *))
{
    Elf64_Ehdr eh;

    memcpy(&eh, buf, sizeof(eh));
    fn(&eh);
    memcpy(buf, &eh, sizeof(eh));
}

static void set_exec(Elf64_Ehdr *eh)
{
    eh->e_type = ET_EXEC;
}
static void set_rel(Elf64_Ehdr *eh)
{
    eh->e_type = ET_REL;
}
static void set_machine(Elf64_Ehdr *eh)
{
    eh->e_machine = EMU_ELF_MACHINE == EM_X86_64 ? EM_AARCH64 : EM_X86_64;
}
static void set_shoff_far(Elf64_Ehdr *eh)
{
    eh->e_shoff = (Elf64_Off)1 << 40;
}
static void set_shoff_zero(Elf64_Ehdr *eh)
{
    eh->e_shoff = 0;
}
static void set_shentsize(Elf64_Ehdr *eh)
{
    eh->e_shentsize = 12;
}

/* Applies fn to every section header of buf whose type is `type`. */
static void patch_sections(char *buf, Elf64_Word type, void (*fn)(Elf64_Shdr *))
{
    Elf64_Ehdr eh;

    memcpy(&eh, buf, sizeof(eh));
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, buf + eh.e_shoff + i * sizeof(sh), sizeof(sh));
        if (sh.sh_type != type)
            continue;
        fn(&sh);
        memcpy(buf + eh.e_shoff + i * sizeof(sh), &sh, sizeof(sh));
    }
}

static void no_dynsym(Elf64_Shdr *sh)
{
    sh->sh_type = SHT_PROGBITS;
}
static void far_section(Elf64_Shdr *sh)
{
    sh->sh_offset = 0x7ffffff0;
}
static void bad_strtab_link(Elf64_Shdr *sh)
{
    sh->sh_link = 0xfff0;
}

enum variant {
    V_EMPTY,
    V_TINY,
    V_HALF,
    V_HEADER_ONLY,
    V_ZERO_MAGIC,
    V_TEXT,
    V_CLASS32,
    V_CLASS_BAD,
    V_BIG_ENDIAN,
    V_MACHINE,
    V_EXEC,
    V_REL,
    V_SHOFF_FAR,
    V_SHOFF_ZERO,
    V_SHENTSIZE,
    V_NO_DYNSYM,
    V_SECTION_PAST_END,
    V_BAD_LINK,
    V_COUNT
};

static const struct {
    emu_status status;
    const char *needle;
} expect[V_COUNT] = {
    [V_EMPTY] = {EMU_EPARSE, "not an ELF file (too short)"},
    [V_TINY] = {EMU_EPARSE, "truncated ELF file (10 bytes)"},
    [V_HALF] = {EMU_EPARSE, "truncated or corrupt ELF file (section headers"},
    [V_HEADER_ONLY] = {EMU_EPARSE, "truncated or corrupt ELF file"},
    [V_ZERO_MAGIC] = {EMU_EPARSE, "not an ELF file (bad magic)"},
    [V_TEXT] = {EMU_EPARSE, "not an ELF file"},
    [V_CLASS32] = {EMU_EINVAL, "32-bit ELF file"},
    [V_CLASS_BAD] = {EMU_EPARSE, "corrupt ELF header (class 9)"},
    [V_BIG_ENDIAN] = {EMU_EINVAL, "big-endian"},
    [V_MACHINE] = {EMU_EINVAL, "built for ELF machine"},
    [V_EXEC] = {EMU_EINVAL, "an executable, not a shared object"},
    [V_REL] = {EMU_EINVAL, "a relocatable object (.o), not a shared object"},
    [V_SHOFF_FAR] = {EMU_EPARSE, "truncated or corrupt ELF file"},
    [V_SHOFF_ZERO] = {EMU_EINVAL, "no section headers"},
    [V_SHENTSIZE] = {EMU_EPARSE, "truncated or corrupt ELF file"},
    [V_NO_DYNSYM] = {EMU_EINVAL, "no dynamic symbol table"},
    [V_SECTION_PAST_END] = {EMU_EPARSE, "truncated ELF file (section"},
    [V_BAD_LINK] = {EMU_EPARSE, "corrupt ELF file"},
};

/* A patched copy of libloader_ok.so; *len is set. */
static char *make_variant(enum variant v, size_t *len)
{
    char *b = malloc(ok_len);

    assert_non_null(b);
    memcpy(b, ok_so, ok_len);
    *len = ok_len;
    switch (v) {
    case V_EMPTY:
        *len = 0;
        break;
    case V_TINY:
        *len = 10;
        break;
    case V_HALF:
        *len = ok_len / 2;
        break;
    case V_HEADER_ONLY:
        *len = sizeof(Elf64_Ehdr);
        break;
    case V_ZERO_MAGIC:
        memset(b, 0, 4);
        break;
    case V_TEXT:
        memcpy(b, "#!/bin/sh\n", 10);
        *len = 10;
        break;
    case V_CLASS32:
        b[EI_CLASS] = ELFCLASS32;
        break;
    case V_CLASS_BAD:
        b[EI_CLASS] = 9;
        break;
    case V_BIG_ENDIAN:
        b[EI_DATA] = ELFDATA2MSB;
        break;
    case V_MACHINE:
        patch_ehdr(b, set_machine);
        break;
    case V_EXEC:
        patch_ehdr(b, set_exec);
        break;
    case V_REL:
        patch_ehdr(b, set_rel);
        break;
    case V_SHOFF_FAR:
        patch_ehdr(b, set_shoff_far);
        break;
    case V_SHOFF_ZERO:
        patch_ehdr(b, set_shoff_zero);
        break;
    case V_SHENTSIZE:
        patch_ehdr(b, set_shentsize);
        break;
    case V_NO_DYNSYM:
        patch_sections(b, SHT_DYNSYM, no_dynsym);
        break;
    case V_SECTION_PAST_END:
        patch_sections(b, SHT_DYNSYM, far_section);
        break;
    case V_BAD_LINK:
        patch_sections(b, SHT_DYNSYM, bad_strtab_link);
        break;
    default:
        fail();
    }
    return b;
}

static void elf_inspect_refuses_bad_variants_with_exact_status(void **state)
{
    (void)state;
    for (int v = 0; v < V_COUNT; v++) {
        struct emu_elf_info info;
        struct capture c;
        size_t len;
        char *b = make_variant((enum variant)v, &len);
        capture_begin(&c);
        emu_status st = emu_elf_inspect_mem(b, len, "bad.so", &info);
        capture_end(&c);
        if (st != expect[v].status)
            fail_msg("variant %d: status %s, expected %s (%s)", v, emu_status_name(st),
                     emu_status_name(expect[v].status), c.text);
        assert_one_line_with(&c, expect[v].needle);
        assert_non_null(strstr(c.text, "bad.so: "));
        assert_null(info.name);
        emu_elf_info_fini(&info);
        free(b);
    }
}

static void elf_inspect_file_refuses_truncated_copy_and_missing_file(void **state)
{
    struct emu_elf_info info;
    struct capture c;
    (void)state;

    const char *p = write_tmp("half.so", ok_so, ok_len / 2);
    capture_begin(&c);
    assert_int_equal(emu_elf_inspect_file(p, &info), EMU_EPARSE);
    capture_end(&c);
    assert_one_line_with(&c, "half.so: truncated");
    p = write_tmp("empty.so", "", 0);
    capture_begin(&c);
    assert_int_equal(emu_elf_inspect_file(p, &info), EMU_EPARSE);
    capture_end(&c);
    assert_one_line_with(&c, "empty.so: not an ELF file");
    capture_begin(&c);
    assert_int_equal(emu_elf_inspect_file("/nonexistent/libx.so", &info), EMU_EFILE);
    capture_end(&c);
    assert_one_line_with(&c, "/nonexistent/libx.so: cannot open");
    emu_elf_info_fini(&info);
}

/* This test program is an executable: position-independent (ET_DYN + DF_1_PIE) or not. */
static void elf_inspect_refuses_executables(void **state)
{
    struct emu_elf_info info;
    struct capture c;
    (void)state;

    capture_begin(&c);
    assert_int_equal(emu_elf_inspect_file("/proc/self/exe", &info), EMU_EINVAL);
    capture_end(&c);
    assert_one_line_with(&c, "executable");
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A deterministic mini-fuzz of the bytes libelf and the inspector look at; the real fuzzer
 * is scripts/fuzz. Any status is fine, crashing or leaking is not. */
static void elf_inspect_survives_random_mutations(void **state)
{
    struct capture c;
    char *b = malloc(ok_len);
    (void)state;

    assert_non_null(b);
    capture_begin(&c); /* thousands of refusals: keep them out of the test log */
    for (int iter = 0; iter < 3000; iter++) {
        struct emu_elf_info info;
        memcpy(b, ok_so, ok_len);
        Elf64_Ehdr eh;
        memcpy(&eh, b, sizeof(eh));
        int flips = 1 + (int)(rng() % 8);
        for (int k = 0; k < flips; k++) {
            size_t at = (rng() & 1) ? rng() % 64 : (size_t)(rng() % ok_len);
            if ((rng() & 3) == 0 && eh.e_shoff < ok_len)
                at = eh.e_shoff + rng() % (ok_len - eh.e_shoff);
            b[at] = (char)rng();
        }
        size_t len = (rng() % 16 == 0) ? rng() % ok_len : ok_len;
        emu_status st = emu_elf_inspect_mem(b, len, "mut.so", &info);
        if (st == EMU_OK) {
            const char *entries[] = {"loader_ok_entry"};
            char why[256];
            /* Any verdict will do; a refusal always says why. */
            if (emu_import_check_image(&info, entries, 1, why, sizeof(why)) != EMU_OK)
                assert_true(why[0] != '\0');
        } else if (st != EMU_EPARSE && st != EMU_EINVAL) {
            capture_end(&c);
            fail_msg("iteration %d: unexpected status %s", iter, emu_status_name(st));
        }
        emu_elf_info_fini(&info);
    }
    capture_end(&c);
    free(b);
}

static void elf_inspect_rejects_null_arguments(void **state)
{
    struct emu_elf_info info;
    (void)state;

    assert_int_equal(emu_elf_inspect_mem(ok_so, ok_len, "x", NULL), EMU_ENULL);
    assert_int_equal(emu_elf_inspect_mem(NULL, 4, "x", &info), EMU_ENULL);
    assert_int_equal(emu_elf_inspect_file(NULL, &info), EMU_ENULL);
    assert_int_equal(emu_elf_inspect_file(LOADER_OK_SO, NULL), EMU_ENULL);
    assert_null(emu_elf_find_export(NULL, "x"));
    assert_false(emu_elf_symbol_is_function(NULL));
    emu_elf_info_fini(NULL);
    /* A name for messages is optional. */
    assert_int_equal(emu_elf_inspect_mem(ok_so, ok_len, NULL, &info), EMU_OK);
    assert_string_equal(info.name, "image");
    emu_elf_info_fini(&info);
}

/* ---- import policy ---------------------------------------------------------------------- */

static enum emu_import_class classify(const char *name, const char *ver, const char *file)
{
    struct emu_elf_symbol s = {(char *)name, 0, 0, STT_FUNC, STB_GLOBAL, (char *)ver, (char *)file};
    return emu_import_classify(&s);
}

static void import_classes_follow_the_policy(void **state)
{
    (void)state;
    assert_int_equal(classify("HcommWriteOnThread", NULL, NULL), EMU_IMPORT_DEVICE_API);
    assert_int_equal(classify("HcommThreadJoin", NULL, NULL), EMU_IMPORT_DEVICE_API);
    assert_int_equal(classify("HcommWrite", NULL, NULL), EMU_IMPORT_UNKNOWN); /* never existed */
    assert_int_equal(classify("aclrtMalloc", NULL, NULL), EMU_IMPORT_HOST_ONLY);
    assert_int_equal(classify("aclInit", NULL, NULL), EMU_IMPORT_HOST_ONLY);
    assert_int_equal(classify("HcclThreadAcquire", NULL, NULL), EMU_IMPORT_HOST_ONLY);
    assert_int_equal(classify("HcclCommInitClusterInfo", NULL, NULL), EMU_IMPORT_HOST_ONLY);
    assert_int_equal(classify("acl_get_file", "ACL_1.0", "libacl.so.1"), EMU_IMPORT_UNKNOWN);
    assert_int_equal(classify("memcpy", "GLIBC_2.14", "libc.so.6"), EMU_IMPORT_RUNTIME);
    assert_int_equal(classify("sqrt", "GLIBC_2.2.5", "libm.so.6"), EMU_IMPORT_RUNTIME);
    assert_int_equal(classify("_Znwm", "GLIBCXX_3.4", "libstdc++.so.6"), EMU_IMPORT_RUNTIME);
    assert_int_equal(classify("_Unwind_Resume", "GCC_3.0", "libgcc_s.so.1"), EMU_IMPORT_RUNTIME);
    assert_int_equal(classify("__tls_get_addr", "GLIBC_2.3", "ld-linux-x86-64.so.2"),
                     EMU_IMPORT_RUNTIME);
    /* Unversioned: accepted only when the runtime really defines the name (ASan builds). */
    assert_int_equal(classify("memcpy", NULL, NULL), EMU_IMPORT_RUNTIME);
    assert_int_equal(classify("_ZSt9terminatev", NULL, NULL), EMU_IMPORT_RUNTIME);
    assert_int_equal(classify("vendor_helper", NULL, NULL), EMU_IMPORT_UNKNOWN);
    assert_int_equal(classify("__gmon_start__", NULL, NULL), EMU_IMPORT_RUNTIME);
    assert_int_equal(classify("__cxa_finalize", NULL, NULL), EMU_IMPORT_RUNTIME);
    assert_int_equal(classify("__asan_report_load8", NULL, NULL), EMU_IMPORT_RUNTIME);
    assert_int_equal(classify("__ubsan_handle_add_overflow", NULL, NULL), EMU_IMPORT_RUNTIME);
    assert_int_equal(classify("vendor_helper", "V_1", "libvendor.so"), EMU_IMPORT_UNKNOWN);
    assert_int_equal(emu_import_classify(NULL), EMU_IMPORT_UNKNOWN);
    assert_string_equal(emu_import_class_name(EMU_IMPORT_HOST_ONLY), "HOST-ONLY");
    assert_string_equal(emu_import_class_name((enum emu_import_class)99), "UNKNOWN");
}

static void device_api_list_has_every_hcomm_function(void **state)
{
    (void)state;
#define COUNT_ONE(name) +1
    /* 40 documented + 2 internal Hcomm, 19 HCCL 9.2 device functions, hcemu's own 10 */
    assert_int_equal(0 EMU_DEVICE_API_NAMES(COUNT_ONE), 71);
#undef COUNT_ONE
#define ALL_DEVICE(name) assert_true(emu_import_is_device_api(#name));
    EMU_DEVICE_API_NAMES(ALL_DEVICE)
#undef ALL_DEVICE
    assert_true(emu_import_is_device_api("HcommThreadSynchronize"));
    assert_false(emu_import_is_device_api("HcommResult"));
    assert_false(emu_import_is_device_api(NULL));
}

/* Inspects `so` and checks it with `entries`, expecting `status` and (for a refusal) exactly
 * one log line that equals `why` and contains `needle`. */
static void check_image(const char *so, const char *const *entries, size_t n, emu_status status,
                        const char *needle)
{
    struct emu_elf_info info;
    struct capture c;
    char why[768];

    assert_int_equal(emu_elf_inspect_file(so, &info), EMU_OK);
    capture_begin(&c);
    emu_status st = emu_import_check_image(&info, entries, n, why, sizeof(why));
    capture_end(&c);
    emu_elf_info_fini(&info);
    if (st != status)
        fail_msg("%s: status %s, expected %s: %s", so, emu_status_name(st), emu_status_name(status),
                 why);
    if (status == EMU_OK) {
        assert_string_equal(why, "");
        assert_int_equal(c.lines, 0);
        return;
    }
    assert_one_line_with(&c, needle);
    assert_non_null(strstr(c.text, why));
}

static void image_check_accepts_good_kernels_with_their_entries(void **state)
{
    const char *ok[] = {"loader_ok_entry", "loader_ok_second"};
    const char *cxx[] = {"loader_cxx_entry"};
    (void)state;

    check_image(LOADER_OK_SO, ok, 2, EMU_OK, NULL);
    check_image(LOADER_OK_SO, NULL, 0, EMU_OK, NULL);
    check_image(LOADER_CXX_SO, cxx, 1, EMU_OK, NULL);
}

/* The JSON names a function the image does not export (stripped, static or misspelled). */
static void image_check_refuses_entry_missing_from_the_image(void **state)
{
    struct emu_descriptor d;
    (void)state;

    const char *j = "{\"K\":" OPINFO("\"libloader_ok.so\"", "\"loader_ok_missing\"") "}";
    assert_int_equal(emu_descriptor_parse(j, strlen(j), "k.json", "/b", &d), EMU_OK);
    const char *entries[] = {d.entries[0].function_name};
    check_image(LOADER_OK_SO, entries, 1, EMU_EINVAL,
                "entry function loader_ok_missing is not exported");
    emu_descriptor_fini(&d);
}

static void image_check_refuses_data_symbol_as_entry(void **state)
{
    const char *entries[] = {"loader_ok_entry", "loader_ok_data"};
    (void)state;

    check_image(LOADER_OK_SO, entries, 2, EMU_EINVAL,
                "entry loader_ok_data is exported but is not a function");
}

static void image_check_refuses_host_import_naming_it(void **state)
{
    const char *entries[] = {"loader_host_entry"};
    (void)state;

    check_image(LOADER_HOST_SO, entries, 1, EMU_EINVAL,
                "kernel imports host API aclrtMalloc: an AICPU kernel cannot call a host API; "
                "move this call to the host program");
}

static void image_check_refuses_unknown_import_naming_it(void **state)
{
    const char *entries[] = {"loader_unknown_entry"};
    (void)state;

    check_image(LOADER_UNKNOWN_SO, entries, 1, EMU_EINVAL,
                "kernel imports unknown symbol vendor_secret_helper");
}

static void image_check_hints_extern_c_for_a_mangled_entry(void **state)
{
    const char *entries[] = {"loader_cxx_mangled"};
    (void)state;

    check_image(LOADER_CXX_SO, entries, 1, EMU_EINVAL, "declare it extern \"C\"");
}

static void image_check_rejects_null_arguments(void **state)
{
    struct emu_elf_info info = {0};
    const char *null_entry[] = {NULL};
    char why[8] = "x";
    (void)state;

    assert_int_equal(emu_import_check_image(NULL, NULL, 0, why, sizeof(why)), EMU_ENULL);
    assert_string_equal(why, "");
    assert_int_equal(emu_import_check_image(&info, NULL, 1, NULL, 0), EMU_ENULL);
    assert_int_equal(emu_import_check_image(&info, null_entry, 1, NULL, 0), EMU_ENULL);
    assert_int_equal(emu_import_check_image(&info, NULL, 0, NULL, 0), EMU_OK);
}

/* ---- symbolization ---------------------------------------------------------------------- */

/* The line of loader_ok.c that carries the marker comment. */
static int marker_line(void)
{
    size_t len;
    char *src = read_all(LOADER_OK_SRC, &len);
    int line = 1;
    char *at = strstr(src, "LOADER_OK_ENTRY_LINE");

    assert_non_null(at);
    for (char *p = src; p < at; p++)
        line += *p == '\n';
    free(src);
    return line;
}

static uint64_t export_addr(const char *so, const char *name, uint64_t *size)
{
    struct emu_elf_info info;

    assert_int_equal(emu_elf_inspect_file(so, &info), EMU_OK);
    const struct emu_elf_symbol *s = emu_elf_find_export(&info, name);
    assert_non_null(s);
    uint64_t v = s->value;
    if (size != NULL)
        *size = s->size;
    emu_elf_info_fini(&info);
    return v;
}

static void symbolize_reports_function_file_and_line_with_debug_info(void **state)
{
    char out[256], gcc_line[128], clang_line[128];
    (void)state;

    uint64_t a = export_addr(LOADER_OK_SO, "loader_ok_entry", NULL);
    assert_int_equal(emu_symbolize(LOADER_OK_SO, a, out, sizeof(out)), EMU_OK);
    snprintf(gcc_line, sizeof(gcc_line), "loader_ok_entry (loader_ok.c:%d)", marker_line());
    snprintf(clang_line, sizeof(clang_line), "loader_ok_entry (loader_ok.c:%d)", marker_line() - 1);
    if (strcmp(out, gcc_line) != 0 && strcmp(out, clang_line) != 0)
        fail_msg("got \"%s\", expected \"%s\"", out, gcc_line);
}

static void symbolizer_resolves_many_addresses_without_reopening(void **state)
{
    char out[256];
    uint64_t size;
    (void)state;

    uint64_t a = export_addr(LOADER_OK_SO, "loader_ok_entry", &size);
    uint64_t b = export_addr(LOADER_OK_SO, "loader_ok_second", NULL);
    struct emu_symbolizer *s = emu_symbolize_create(LOADER_OK_SO);
    assert_non_null(s);
    for (int i = 0; i < 100; i++) {
        assert_int_equal(emu_symbolize_lookup(s, a + size / 2, out, sizeof(out)), EMU_OK);
        assert_non_null(strstr(out, "loader_ok_entry (loader_ok.c:"));
        assert_true(atoi(strchr(out, ':') + 1) > marker_line());
        assert_int_equal(emu_symbolize_lookup(s, b, out, sizeof(out)), EMU_OK);
        assert_non_null(strstr(out, "loader_ok_second (loader_ok.c:"));
    }
    /* Truncation keeps the string terminated. */
    assert_int_equal(emu_symbolize_lookup(s, b, out, 5), EMU_OK);
    assert_string_equal(out, "load");
    assert_int_equal(emu_symbolize_lookup(s, b, out, 0), EMU_EINVAL);
    assert_int_equal(emu_symbolize_lookup(NULL, b, out, sizeof(out)), EMU_ENULL);
    emu_symbolize_destroy(s);
    emu_symbolize_destroy(NULL);
}

static void symbolize_falls_back_to_symbol_offset_without_debug_info(void **state)
{
    char out[256];
    (void)state;

    uint64_t a = export_addr(LOADER_HOST_SO, "loader_host_entry", NULL);
    assert_int_equal(emu_symbolize(LOADER_HOST_SO, a + 4, out, sizeof(out)), EMU_OK);
    assert_string_equal(out, "loader_host_entry+0x4 (libloader_host_import.so)");
}

static void symbolize_falls_back_to_address_when_nothing_is_known(void **state)
{
    char out[256];
    struct capture c;
    (void)state;

    assert_int_equal(emu_symbolize(LOADER_HOST_SO, 0x10000000, out, sizeof(out)), EMU_OK);
    assert_string_equal(out, "0x10000000 (libloader_host_import.so)");
    capture_begin(&c);
    assert_int_equal(emu_symbolize("/nonexistent/libgone.so", 0x42, out, sizeof(out)), EMU_EFILE);
    capture_end(&c);
    assert_one_line_with(&c, "/nonexistent/libgone.so: cannot read");
    assert_string_equal(out, "0x42 (libgone.so)");
    assert_null(emu_symbolize_create(NULL));
}

/* ---- hcemu-inspect ---------------------------------------------------------------------- */

static int run_inspect(const char *args)
{
#ifdef HCEMU_INSPECT
    char cmd[PATH_MAX * 3];

    snprintf(cmd, sizeof(cmd), "%s %s >/dev/null 2>&1", HCEMU_INSPECT, args);
    int rc = system(cmd);
    assert_true(WIFEXITED(rc));
    return WEXITSTATUS(rc);
#else
    (void)args;
    return -1;
#endif
}

/* ---- an image's own libraries and weak imports (deps.h) ---------------------------------- */

static void dir_of(const char *path, char *dir, size_t len)
{
    snprintf(dir, len, "%s", path);
    char *slash = strrchr(dir, '/');
    assert_non_null(slash);
    *slash = '\0';
}

static void library_next_to_the_image_satisfies_its_imports(void **state)
{
    static const char *const entries[] = {"loader_uses_dep"};
    struct emu_elf_info info;
    struct capture c;
    char dir[PATH_MAX], why[768];
    (void)state;

    assert_int_equal(emu_elf_inspect_file(LOADER_USES_DEP_SO, &info), EMU_OK);
    dir_of(LOADER_USES_DEP_SO, dir, sizeof(dir));
    capture_begin(&c);
    assert_int_equal(emu_deps_check(&info, dir, entries, 1, why, sizeof(why)), EMU_OK);
    capture_end(&c);
    assert_int_equal(c.lines, 0);
    assert_string_equal(why, "");
    /* Without its folder the same import is unknown: the library is what makes it loadable. */
    capture_begin(&c);
    assert_int_equal(emu_import_check_image(&info, entries, 1, why, sizeof(why)), EMU_EINVAL);
    capture_end(&c);
    assert_one_line_with(&c, "loader_dep_value");
    emu_elf_info_fini(&info);
}

static void missing_library_leaves_its_imports_refused(void **state)
{
    static const char *const entries[] = {"loader_uses_dep"};
    struct emu_elf_info info;
    struct capture c;
    char why[768];
    size_t len;
    (void)state;

    /* The image alone in another folder: its libloader_dep.so is not beside it. */
    char *bytes = read_all(LOADER_USES_DEP_SO, &len);
    const char *copy = write_tmp("libloader_uses_dep.so", bytes, len);
    free(bytes);
    assert_int_equal(emu_elf_inspect_file(copy, &info), EMU_OK);
    capture_begin(&c);
    assert_int_equal(emu_deps_check(&info, tmpdir, entries, 1, why, sizeof(why)), EMU_EINVAL);
    capture_end(&c);
    assert_one_line_with(&c, "loader_dep_value");
    /* An image from memory has no folder, so no libraries of its own. */
    capture_begin(&c);
    assert_int_equal(emu_deps_check(&info, NULL, entries, 1, why, sizeof(why)), EMU_EINVAL);
    capture_end(&c);
    assert_one_line_with(&c, "loader_dep_value");
    emu_elf_info_fini(&info);
    assert_int_equal(emu_deps_check(NULL, tmpdir, entries, 1, why, sizeof(why)), EMU_ENULL);
}

static void preload_opens_the_library_so_the_image_binds_to_it(void **state)
{
    void *handles[EMU_DEPS_MAX];
    size_t n = 99;
    char why[512];
    (void)state;

    assert_int_equal(emu_deps_preload(LOADER_USES_DEP_SO, handles, EMU_DEPS_MAX, &n, why,
                                      sizeof(why)),
                     EMU_OK);
    assert_int_equal(n, 1);
    void *dl = dlopen(LOADER_USES_DEP_SO, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(dl);
    uint32_t (*entry)(void *) = (uint32_t(*)(void *))dlsym(dl, "loader_uses_dep");
    assert_non_null(entry);
    /* 0: the sibling's function answered and the weak import nothing defines is NULL. */
    assert_int_equal(entry(NULL), 0);
    dlclose(dl);
    dlclose(handles[0]);
    assert_int_equal(emu_deps_preload(NULL, handles, 1, &n, why, sizeof(why)), EMU_ENULL);
}

static void weak_imports_of_any_class_are_accepted(void **state)
{
    struct emu_elf_symbol host = {.name = "HcclRankGraphGetEndpointInfo", .bind = STB_WEAK};
    struct emu_elf_symbol unknown = {.name = "hcemu_test_nowhere", .bind = STB_WEAK};
    struct emu_elf_symbol *imports[] = {&host, &unknown};
    struct emu_elf_info info = {.name = "weak.so", .n_imports = 1};
    char why[256];
    (void)state;

    for (size_t i = 0; i < 2; i++) {
        info.imports = imports[i];
        assert_int_equal(emu_import_check_image(&info, NULL, 0, why, sizeof(why)), EMU_OK);
        imports[i]->bind = STB_GLOBAL;
        struct capture c;
        capture_begin(&c);
        assert_int_equal(emu_import_check_image(&info, NULL, 0, why, sizeof(why)), EMU_EINVAL);
        capture_end(&c);
        assert_one_line_with(&c, imports[i]->name);
    }
}

static void device_library_is_an_accepted_dependency(void **state)
{
    static const char *const entries[] = {"loader_ccl"};
    struct emu_elf_info info;
    char why[512];
    (void)state;

    assert_int_equal(emu_elf_inspect_file(LOADER_CCL_SO, &info), EMU_OK);
    int needs = 0;
    for (size_t i = 0; i < info.n_needed; i++)
        needs |= strcmp(info.needed[i], EMU_DEVICE_LIBRARY) == 0;
    assert_true(needs);
    assert_int_equal(emu_deps_check(&info, "/nonexistent", entries, 1, why, sizeof(why)), EMU_OK);
    emu_elf_info_fini(&info);
}

static void inspect_exit_status_tells_loadable_refused_and_usage(void **state)
{
    char arg[PATH_MAX + 64];
    (void)state;
#ifndef HCEMU_INSPECT
    skip();
#endif
    assert_int_equal(run_inspect(""), 2);
    assert_int_equal(run_inspect("a b"), 2);
    assert_int_equal(run_inspect("--bogus"), 2);
    assert_int_equal(run_inspect("--help"), 0);
    assert_int_equal(run_inspect(LOADER_OK_SO), 0);
    assert_int_equal(run_inspect(LOADER_CXX_SO), 0);
    assert_int_equal(run_inspect(LOADER_HOST_SO), 1);
    assert_int_equal(run_inspect(LOADER_UNKNOWN_SO), 1);
    assert_int_equal(run_inspect("/nonexistent/kernel.json"), 1);
    write_tmp("libloader_ok.so", ok_so, ok_len);
    const char *j = "{\"K\":" OPINFO("\"libloader_ok.so\"", "\"loader_ok_entry\"") "}";
    snprintf(arg, sizeof(arg), "%s", write_tmp("good.json", j, strlen(j)));
    assert_int_equal(run_inspect(arg), 0);
    j = "{\"K\":" OPINFO("\"libloader_ok.so\"", "\"loader_ok_missing\"") "}";
    snprintf(arg, sizeof(arg), "%s", write_tmp("missing.json", j, strlen(j)));
    assert_int_equal(run_inspect(arg), 1);
    snprintf(arg, sizeof(arg), "%s", write_tmp("bad.json", "{\"K\":", 5));
    assert_int_equal(run_inspect(arg), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(descriptor_parses_entry_and_resolves_kernel_so_against_base_dir),
        cmocka_unit_test(descriptor_keeps_several_entries_in_file_order),
        cmocka_unit_test(descriptor_allows_kernel_so_in_a_subfolder),
        cmocka_unit_test(descriptor_ignores_entries_without_op_info),
        cmocka_unit_test(descriptor_refuses_malformed_json),
        cmocka_unit_test(descriptor_refuses_empty_object_and_entries_all_without_op_info),
        cmocka_unit_test(descriptor_refuses_missing_kernel_so_or_function_name),
        cmocka_unit_test(descriptor_refuses_non_string_values),
        cmocka_unit_test(descriptor_refuses_kernel_so_escaping_its_folder),
        cmocka_unit_test(descriptor_refuses_entries_naming_different_kernel_so),
        cmocka_unit_test(descriptor_keeps_entry_with_unknown_or_missing_op_kernel_lib),
        cmocka_unit_test(descriptor_load_resolves_kernel_so_against_the_json_folder),
        cmocka_unit_test(descriptor_load_reports_missing_file_as_efile),
        cmocka_unit_test(descriptor_rejects_null_arguments),
        cmocka_unit_test(elf_inspect_lists_exports_imports_versions_and_needed),
        cmocka_unit_test(elf_inspect_reads_cxx_kernel_versions),
        cmocka_unit_test(elf_inspect_refuses_bad_variants_with_exact_status),
        cmocka_unit_test(elf_inspect_file_refuses_truncated_copy_and_missing_file),
        cmocka_unit_test(elf_inspect_refuses_executables),
        cmocka_unit_test(elf_inspect_survives_random_mutations),
        cmocka_unit_test(elf_inspect_rejects_null_arguments),
        cmocka_unit_test(import_classes_follow_the_policy),
        cmocka_unit_test(device_api_list_has_every_hcomm_function),
        cmocka_unit_test(image_check_accepts_good_kernels_with_their_entries),
        cmocka_unit_test(image_check_refuses_entry_missing_from_the_image),
        cmocka_unit_test(image_check_refuses_data_symbol_as_entry),
        cmocka_unit_test(image_check_refuses_host_import_naming_it),
        cmocka_unit_test(image_check_refuses_unknown_import_naming_it),
        cmocka_unit_test(image_check_hints_extern_c_for_a_mangled_entry),
        cmocka_unit_test(image_check_rejects_null_arguments),
        cmocka_unit_test(symbolize_reports_function_file_and_line_with_debug_info),
        cmocka_unit_test(symbolizer_resolves_many_addresses_without_reopening),
        cmocka_unit_test(symbolize_falls_back_to_symbol_offset_without_debug_info),
        cmocka_unit_test(symbolize_falls_back_to_address_when_nothing_is_known),
        cmocka_unit_test(library_next_to_the_image_satisfies_its_imports),
        cmocka_unit_test(missing_library_leaves_its_imports_refused),
        cmocka_unit_test(preload_opens_the_library_so_the_image_binds_to_it),
        cmocka_unit_test(weak_imports_of_any_class_are_accepted),
        cmocka_unit_test(device_library_is_an_accepted_dependency),
        cmocka_unit_test(inspect_exit_status_tells_loadable_refused_and_usage),
    };
    return cmocka_run_group_tests_name("loader", tests, setup, teardown);
}
