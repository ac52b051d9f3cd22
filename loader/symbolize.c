/* symbolize.c - address -> "function (file:line)" for kernel images, with libdwfl
 * (symbolize.h). The image is reported "offline" (as a file, not a live process), so the
 * same code serves the executor after a fault and hcemu-inspect-style tools. */
#include "symbolize.h"

#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

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

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = no_separate_debuginfo,
    .section_address = dwfl_offline_section_address,
};

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
        dwfl_end(s->dwfl);
    free(s->image_name);
    free(s);
}

struct emu_symbolizer *emu_symbolize_create(const char *image_path)
{
    if (image_path == NULL)
        return NULL;
    struct emu_symbolizer *s = calloc(1, sizeof(*s));
    if (s == NULL || (s->image_name = strdup(base_name(image_path))) == NULL)
        goto fail;
    if ((s->dwfl = dwfl_begin(&offline_callbacks)) == NULL)
        goto fail;
    dwfl_report_begin(s->dwfl);
    s->mod = dwfl_report_offline(s->dwfl, s->image_name, image_path, -1);
    dwfl_report_end(s->dwfl, NULL, NULL);
    if (s->mod == NULL || dwfl_module_getelf(s->mod, &s->bias) == NULL)
        goto fail;
    return s; /* caller owns; emu_symbolize_destroy() */
fail:
    EMU_LOG_ERR("%s: cannot read for symbolization: %s", image_path,
                s != NULL && s->dwfl != NULL ? dwfl_errmsg(-1) : "out of memory");
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
    const char *fn = dwfl_module_addrinfo(s->mod, a, &off, &sym, NULL, NULL, NULL);
    Dwfl_Line *line = dwfl_module_getsrc(s->mod, a);
    const char *src = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
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
