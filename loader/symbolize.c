/* symbolize.c - address -> "function (file:line)" for kernel images, with libdwfl
 * (symbolize.h). The image is reported "offline" (as a file, not a live process), so the
 * same code serves the executor after a fault and hcemu-inspect-style tools.
 *
 * libdw is opened on the first lookup (dlopen), not linked: it and the compression
 * libraries it needs (liblzma, libbz2) cost every executor and host ~2.5 ms of dynamic
 * linking at start, while only a report or a source line ever needs them. */
#include "symbolize.h"

#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/log.h"

#define LIBDW_SONAME "libdw.so.1"

/* The libdwfl functions used here, resolved from LIBDW_SONAME; typeof keeps each pointer's
 * type the header's, so a mismatch is a compile error. */
#define DW_FUNCS(X)                                                                               \
    X(dwfl_begin) X(dwfl_end) X(dwfl_errmsg) X(dwfl_report_begin) X(dwfl_report_offline)          \
    X(dwfl_report_end) X(dwfl_module_getelf) X(dwfl_module_addrinfo) X(dwfl_module_getsrc)        \
    X(dwfl_lineinfo) X(dwfl_build_id_find_elf) X(dwfl_offline_section_address)

static struct {
#define DW_FIELD(f) __typeof__(&f) f;
    DW_FUNCS(DW_FIELD)
#undef DW_FIELD
} dw;
static bool dw_ok;
static int no_separate_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                                 Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                                 GElf_Word debuglink_crc, char **debuginfo_file_name);
/* Completed from the loaded library (dw_open) before any dwfl_begin. */
static Dwfl_Callbacks offline_callbacks = {.find_debuginfo = no_separate_debuginfo};
static pthread_once_t dw_once = PTHREAD_ONCE_INIT;

static void dw_open(void)
{
    void *h = dlopen(LIBDW_SONAME, RTLD_NOW | RTLD_LOCAL);

    if (h == NULL) {
        EMU_LOG_WARN("source lines unavailable: cannot load %s: %s", LIBDW_SONAME, dlerror());
        return;
    }
    bool ok = true;
#define DW_LOAD(f) ok = ok && (*(void **)&dw.f = dlsym(h, #f)) != NULL;
    DW_FUNCS(DW_LOAD)
#undef DW_LOAD
    if (!ok) {
        EMU_LOG_WARN("source lines unavailable: %s lacks a libdwfl function", LIBDW_SONAME);
        return;
    }
    offline_callbacks.find_elf = dw.dwfl_build_id_find_elf;
    offline_callbacks.section_address = dw.dwfl_offline_section_address;
    dw_ok = true; /* the handle stays open for the process's life */
}

static bool dw_loaded(void)
{
    pthread_once(&dw_once, dw_open);
    return dw_ok;
}

struct emu_symbolizer {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    GElf_Addr bias;   /* dwfl address = ELF virtual address + bias */
    char *image_name; /* basename, for the fallback formats */
};

/* Only DWARF inside the image counts; see symbolize.h for why. */
static int no_separate_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                                 Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                                 GElf_Word debuglink_crc, char **debuginfo_file_name)
{
    (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
    (void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
    return -1;
}


static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash != NULL ? slash + 1 : path;
}

void emu_symbolize_destroy(struct emu_symbolizer *s)
{
    if (s == NULL)
        return;
    if (s->dwfl != NULL)
        dw.dwfl_end(s->dwfl);
    free(s->image_name);
    free(s);
}

struct emu_symbolizer *emu_symbolize_create(const char *image_path)
{
    if (image_path == NULL || !dw_loaded())
        return NULL;
    struct emu_symbolizer *s = calloc(1, sizeof(*s));
    if (s == NULL || (s->image_name = strdup(base_name(image_path))) == NULL)
        goto fail;
    if ((s->dwfl = dw.dwfl_begin(&offline_callbacks)) == NULL)
        goto fail;
    dw.dwfl_report_begin(s->dwfl);
    s->mod = dw.dwfl_report_offline(s->dwfl, s->image_name, image_path, -1);
    dw.dwfl_report_end(s->dwfl, NULL, NULL);
    if (s->mod == NULL || dw.dwfl_module_getelf(s->mod, &s->bias) == NULL)
        goto fail;
    return s; /* caller owns; emu_symbolize_destroy() */
fail:
    EMU_LOG_ERR("%s: cannot read for symbolization: %s", image_path,
                s != NULL && s->dwfl != NULL ? dw.dwfl_errmsg(-1) : "out of memory");
    emu_symbolize_destroy(s);
    return NULL;
}

emu_status emu_symbolize_lookup(struct emu_symbolizer *s, uint64_t addr, char *out, size_t out_len)
{
    GElf_Off off = 0;
    GElf_Sym sym;
    int lineno = 0;

    if (s == NULL || out == NULL)
        return EMU_ENULL;
    if (out_len == 0)
        return EMU_EINVAL;
    Dwarf_Addr a = addr + s->bias;
    const char *fn = dw.dwfl_module_addrinfo(s->mod, a, &off, &sym, NULL, NULL, NULL);
    Dwfl_Line *line = dw.dwfl_module_getsrc(s->mod, a);
    const char *src = line ? dw.dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (src != NULL && lineno > 0)
        snprintf(out, out_len, "%s (%s:%d)", fn ? fn : "??", base_name(src), lineno);
    else if (fn != NULL)
        snprintf(out, out_len, "%s+0x%llx (%s)", fn, (unsigned long long)off, s->image_name);
    else
        snprintf(out, out_len, "0x%llx (%s)", (unsigned long long)addr, s->image_name);
    return EMU_OK;
}

emu_status emu_symbolize(const char *image_path, uint64_t file_offset_or_vaddr, char *out,
                         size_t out_len)
{
    if (image_path == NULL || out == NULL)
        return EMU_ENULL;
    if (out_len == 0)
        return EMU_EINVAL;
    struct emu_symbolizer *s = emu_symbolize_create(image_path);
    if (s == NULL) {
        snprintf(out, out_len, "0x%llx (%s)", (unsigned long long)file_offset_or_vaddr,
                 base_name(image_path));
        return EMU_EFILE;
    }
    emu_status st = emu_symbolize_lookup(s, file_offset_or_vaddr, out, out_len);
    emu_symbolize_destroy(s);
    return st;
}
