/* hcemu_inspect.c - `hcemu-inspect IMAGE.json|IMAGE.so`: lints an AICPU kernel image exactly
 * as aclrtBinaryLoadFromFile() will, and prints what it found.
 *
 * Prints the image, its entries (descriptor) or exported functions (bare .so), DT_NEEDED, each
 * import with its class, whether it has debug info, and a verdict line.
 * Exit status: 0 loadable, 1 refused (including unreadable files), 2 usage error. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/platform/log.h"
#include "loader/deps.h"
#include "loader/descriptor.h"
#include "loader/elf.h"
#include "loader/import.h"

enum { EXIT_LOADABLE = 0, EXIT_REFUSED = 1, EXIT_USAGE = 2 };

static void usage(FILE *f)
{
    fprintf(f, "usage: hcemu-inspect IMAGE.json|IMAGE.so\n"
               "Checks an AICPU kernel image (operator-info JSON or shared object) the way the\n"
               "hcemu loader will. Exit status: 0 loadable, 1 refused, 2 usage error.\n");
}

/* The descriptor path is taken for anything that does not start with the ELF magic, so a
 * JSON file with another extension still works. */
static int looks_like_elf(const char *path)
{
    unsigned char magic[4] = {0};
    /* O_NONBLOCK: a FIFO or device must not block here; the loader refuses it right after. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;

    if (fd < 0)
        return 0;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, magic, sizeof(magic)) : 0;
    close(fd);
    return n == 4 && memcmp(magic, "\177ELF", 4) == 0;
}

static void print_refused(void)
{
    const char *why = emu_log_last_error(1);

    printf("verdict:    refused: %s\n", why != NULL ? why : "see the message above");
}

static void print_entries(const struct emu_descriptor *d, const struct emu_elf_info *info)
{
    printf("entries:\n");
    for (size_t i = 0; i < d->n_entries; i++) {
        const struct emu_descriptor_entry *e = &d->entries[i];
        const struct emu_elf_symbol *s = emu_elf_find_export(info, e->function_name);
        printf("  %-24s -> %-24s [%s] %s\n", e->kernel_name, e->function_name,
               e->op_kernel_lib ? e->op_kernel_lib : "no opKernelLib",
               s == NULL                        ? "NOT EXPORTED"
               : !emu_elf_symbol_is_function(s) ? "NOT A FUNCTION"
                                                : "ok");
    }
}

static void print_exports(const struct emu_elf_info *info)
{
    printf("functions:\n");
    for (size_t i = 0; i < info->n_exports; i++)
        if (emu_elf_symbol_is_function(&info->exports[i]))
            printf("  %-40s at 0x%llx, %llu bytes\n", info->exports[i].name,
                   (unsigned long long)info->exports[i].value,
                   (unsigned long long)info->exports[i].size);
}

static void print_image(const struct emu_elf_info *info)
{
    printf("needed:    ");
    for (size_t i = 0; i < info->n_needed; i++)
        printf(" %s", info->needed[i]);
    printf("%s\nimports:\n", info->n_needed ? "" : " (none)");
    for (size_t i = 0; i < info->n_imports; i++) {
        const struct emu_elf_symbol *s = &info->imports[i];
        printf("  %-9s %s%s%s", emu_import_class_name(emu_import_classify(s)), s->name,
               s->version ? "@" : "", s->version ? s->version : "");
        printf(s->version_file ? " (%s)\n" : "\n", s->version_file);
    }
    printf("debug info: %s\n", info->has_debug_info && info->has_debug_line ? "yes"
                               : info->has_debug_info                       ? "partial (no lines)"
                                                                            : "no");
}

/* Prints the listing and returns the verdict's exit status. */
static int report(const struct emu_descriptor *d, const struct emu_elf_info *info)
{
    const char **entries = calloc(d->n_entries + 1, sizeof(*entries));
    char why[768];

    if (entries == NULL)
        return EXIT_REFUSED;
    for (size_t i = 0; i < d->n_entries; i++)
        entries[i] = d->entries[i].function_name;
    if (d->n_entries > 0)
        print_entries(d, info);
    else
        print_exports(info);
    print_image(info);
    /* Libraries the image brings are looked for in its own folder, as at load. */
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", d->n_entries > 0 ? d->so_path : info->name);
    char *slash = strrchr(dir, '/');
    if (slash != NULL)
        *slash = '\0';
    emu_status st = emu_deps_check(info, slash != NULL ? dir : ".", entries, d->n_entries, why,
                                   sizeof(why));
    free(entries);
    if (st != EMU_OK)
        return EXIT_REFUSED;
    printf("verdict:    loadable\n");
    return EXIT_LOADABLE;
}

static int inspect(const char *path)
{
    struct emu_descriptor d = {0};
    struct emu_elf_info info = {0};
    const char *so = path;
    int rc = EXIT_REFUSED;

    if (!looks_like_elf(path)) {
        if (emu_descriptor_load(path, &d) != EMU_OK)
            goto out;
        so = d.so_path;
        printf("descriptor: %s\n", path);
    }
    printf("image:      %s\n", so);
    if (emu_elf_inspect_file(so, &info) != EMU_OK)
        goto out;
    rc = report(&d, &info);
out:
    if (rc != EXIT_LOADABLE)
        print_refused(); /* every refusal logged exactly one error line: repeat it on stdout */
    emu_elf_info_fini(&info);
    emu_descriptor_fini(&d);
    return rc;
}

int main(int argc, char **argv)
{
    emu_log_set_role("inspect");
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return EXIT_LOADABLE;
    }
    if (argc != 2 || argv[1][0] == '\0' || argv[1][0] == '-') {
        usage(stderr);
        return EXIT_USAGE;
    }
    return inspect(argv[1]);
}
