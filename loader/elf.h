/* elf.h - reads what the loader needs to know about a kernel image, with libelf,
 * before anything of it is mapped for execution.
 *
 * Entry points: emu_elf_inspect_file(), emu_elf_inspect_mem(). The input may be anything
 * (this path is fuzzed): bad bytes yield a status and one log line, never a crash.
 * Statuses: EMU_EPARSE when the bytes cannot be read as an ELF file (not ELF, truncated,
 * corrupt tables); EMU_EINVAL when they are a valid ELF file that hcemu cannot load
 * (32-bit, big-endian, another machine, not a shared object, no dynamic symbol table). */
#ifndef HCEMU_LOADER_ELF_H
#define HCEMU_LOADER_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/contract/status.h"

/* The machine kernels must be built for: the one hcemu itself runs on, since the executor
 * dlopen()s them. */
#if defined(__x86_64__)
#define EMU_ELF_MACHINE 62 /* EM_X86_64 */
#define EMU_ELF_MACHINE_NAME "x86-64"
#elif defined(__aarch64__)
#define EMU_ELF_MACHINE 183 /* EM_AARCH64 */
#define EMU_ELF_MACHINE_NAME "AArch64"
#else
#error "hcemu runs kernels natively: add this machine's EM_ value here"
#endif

struct emu_elf_symbol {
    char *name;
    uint64_t value; /* defined symbols: virtual address (relative to the load base) */
    uint64_t size;
    unsigned char type; /* STT_FUNC, STT_OBJECT, STT_GNU_IFUNC, ... */
    unsigned char bind; /* STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE */
    /* Imports only: the version the symbol requires (.gnu.version_r), e.g. "GLIBC_2.2.5" and
     * the file that must provide it, e.g. "libc.so.6"; both NULL for an unversioned import. */
    char *version;
    char *version_file;
};

struct emu_elf_info {
    char *name;   /* the name used in messages (the path, or name_for_messages) */
    char *soname; /* DT_SONAME, or NULL */
    /* Every defined global/weak symbol of .dynsym, whatever its type; functions are those
     * with type STT_FUNC or STT_GNU_IFUNC (see emu_elf_symbol_is_function()). */
    struct emu_elf_symbol *exports;
    size_t n_exports;
    /* Every undefined symbol of .dynsym. */
    struct emu_elf_symbol *imports;
    size_t n_imports;
    char **needed; /* DT_NEEDED, in order */
    size_t n_needed;
    bool has_debug_info; /* a .debug_info section is present (DWARF in the image itself) */
    bool has_debug_line;
};

/* Inspects the file at `path`. On success `out` owns everything; release with
 * emu_elf_info_fini(). On failure `out` is zeroed. Returns EMU_OK, EMU_ENULL, EMU_ENOMEM,
 * EMU_EFILE (cannot read), EMU_EPARSE or EMU_EINVAL (see above); one log line per failure. */
emu_status emu_elf_inspect_file(const char *path, struct emu_elf_info *out) EMU_MUST_CHECK;

/* Same for `len` bytes at `data` (copied; the caller keeps `data`). `name_for_messages` names
 * the image in log lines (NULL: "image"). */
emu_status emu_elf_inspect_mem(const void *data, size_t len, const char *name_for_messages,
                               struct emu_elf_info *out) EMU_MUST_CHECK;

/* Frees what `info` owns and zeroes it; accepts NULL and half-built infos. */
void emu_elf_info_fini(struct emu_elf_info *info);

/* The defined symbol called `name`, or NULL. */
const struct emu_elf_symbol *emu_elf_find_export(const struct emu_elf_info *info, const char *name);
/* Whether a defined symbol is code (STT_FUNC or STT_GNU_IFUNC). */
bool emu_elf_symbol_is_function(const struct emu_elf_symbol *sym);

#endif
