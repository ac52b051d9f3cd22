/* elf.c - validates a kernel image and lists its symbols with libelf (elf.h).
 *
 * Entry points: emu_elf_inspect_file(), emu_elf_inspect_mem(). The identity and the section
 * header table are bounds-checked here before libelf walks them, so a truncated or hostile file
 * gets a precise message instead of whatever libelf makes of it. */
#include "elf.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/log.h"
#include "file_map.h"

#ifndef DF_1_PIE
#define DF_1_PIE 0x08000000
#endif

struct reader {
    Elf *elf;
    const char *name;
    size_t len;
    size_t shstrndx;
    Elf_Scn *dynsym, *dynamic, *versym, *verneed;
    struct emu_elf_info *out;
};

/* One version requirement of .gnu.version_r: index -> (name, file). Strings are libelf's. */
struct vneed {
    unsigned idx;
    const char *name;
    const char *file;
};

void emu_elf_info_fini(struct emu_elf_info *info)
{
    if (info == NULL)
        return;
    for (size_t i = 0; info->exports != NULL && i < info->n_exports; i++)
        free(info->exports[i].name);
    for (size_t i = 0; info->imports != NULL && i < info->n_imports; i++) {
        free(info->imports[i].name);
        free(info->imports[i].version);
        free(info->imports[i].version_file);
    }
    for (size_t i = 0; info->needed != NULL && i < info->n_needed; i++)
        free(info->needed[i]);
    free(info->exports);
    free(info->imports);
    free(info->needed);
    free(info->soname);
    free(info->name);
    memset(info, 0, sizeof(*info));
}

const struct emu_elf_symbol *emu_elf_find_export(const struct emu_elf_info *info, const char *name)
{
    if (info == NULL || name == NULL)
        return NULL;
    for (size_t i = 0; i < info->n_exports; i++)
        if (strcmp(info->exports[i].name, name) == 0)
            return &info->exports[i];
    return NULL;
}

bool emu_elf_symbol_is_function(const struct emu_elf_symbol *sym)
{
    return sym != NULL && (sym->type == STT_FUNC || sym->type == STT_GNU_IFUNC);
}

/* Grows *arr (of *n elements of `size` bytes) so one more fits; 0 on success. */
static int grow(void *arr, size_t *cap, size_t n, size_t size)
{
    void **p = arr;

    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *q = realloc(*p, ncap * size);
    if (q == NULL)
        return -1;
    memset((char *)q + *cap * size, 0, (ncap - *cap) * size);
    *p = q;
    *cap = ncap;
    return 0;
}

/* The e_ident checks, on raw bytes: libelf would accept a 32-bit or big-endian file and
 * convert it, but the executor could never dlopen it. */
static emu_status check_ident(const unsigned char *b, size_t len, const char *name)
{
    if (len < SELFMAG || memcmp(b, ELFMAG, SELFMAG) != 0) {
        EMU_LOG_ERR("%s: not an ELF file (%s); an AICPU kernel is a shared object (.so)", name,
                    len < SELFMAG ? "too short" : "bad magic");
        return EMU_EPARSE;
    }
    if (len < EI_NIDENT) {
        EMU_LOG_ERR("%s: truncated ELF file (%zu bytes)", name, len);
        return EMU_EPARSE;
    }
    if (b[EI_CLASS] == ELFCLASS32) {
        EMU_LOG_ERR("%s: 32-bit ELF file; build the kernel as a 64-bit %s shared object", name,
                    EMU_ELF_MACHINE_NAME);
        return EMU_EINVAL;
    }
    if (b[EI_CLASS] != ELFCLASS64) {
        EMU_LOG_ERR("%s: corrupt ELF header (class %u)", name, b[EI_CLASS]);
        return EMU_EPARSE;
    }
    if (b[EI_DATA] != ELFDATA2LSB) {
        EMU_LOG_ERR("%s: %s ELF file; build the kernel for little-endian %s", name,
                    b[EI_DATA] == ELFDATA2MSB ? "big-endian" : "corrupt (data encoding)",
                    EMU_ELF_MACHINE_NAME);
        return b[EI_DATA] == ELFDATA2MSB ? EMU_EINVAL : EMU_EPARSE;
    }
    if (len < sizeof(Elf64_Ehdr)) {
        EMU_LOG_ERR("%s: truncated ELF file (%zu bytes, the header alone needs %zu)", name, len,
                    sizeof(Elf64_Ehdr));
        return EMU_EPARSE;
    }
    return EMU_OK;
}

/* Machine and type checks on the raw header, then the section header table must lie inside
 * the file (libelf would refuse it too, but only with "invalid ELF file"). */
static emu_status check_header(const Elf64_Ehdr *eh, const char *buf, size_t len, const char *name)
{
    if (eh->e_machine != EMU_ELF_MACHINE) {
        EMU_LOG_ERR("%s: built for ELF machine %u, not %s; compile the kernel for the machine "
                    "hcemu runs on",
                    name, eh->e_machine, EMU_ELF_MACHINE_NAME);
        return EMU_EINVAL;
    }
    if (eh->e_type != ET_DYN) {
        EMU_LOG_ERR("%s: %s, not a shared object; link the kernel with -shared -fPIC", name,
                    eh->e_type == ET_EXEC  ? "an executable"
                    : eh->e_type == ET_REL ? "a relocatable object (.o)"
                                           : "an ELF file of another type");
        return EMU_EINVAL;
    }
    if (eh->e_shoff == 0) {
        EMU_LOG_ERR("%s: no section headers (stripped with sstrip?); cannot find the dynamic "
                    "symbol table",
                    name);
        return EMU_EINVAL;
    }
    uint64_t shnum = eh->e_shnum;
    int fits = eh->e_shentsize == sizeof(Elf64_Shdr) && eh->e_shoff <= len &&
               len - eh->e_shoff >= sizeof(Elf64_Shdr);
    if (fits && shnum == 0) {
        Elf64_Shdr sh0; /* more than 0xff00 sections: the count lives in section 0 */
        memcpy(&sh0, buf + eh->e_shoff, sizeof(sh0));
        shnum = sh0.sh_size;
    }
    if (!fits || shnum > (len - eh->e_shoff) / sizeof(Elf64_Shdr)) {
        EMU_LOG_ERR("%s: truncated or corrupt ELF file (section headers at offset %llu, file "
                    "has %zu bytes)",
                    name, (unsigned long long)eh->e_shoff, len);
        return EMU_EPARSE;
    }
    return EMU_OK;
}

static emu_status corrupt(struct reader *r, const char *what)
{
    int err = elf_errno();
    const char *msg = err != 0 ? elf_errmsg(err) : NULL;

    EMU_LOG_ERR("%s: corrupt ELF file: %s%s%s", r->name, what, msg ? ": " : "", msg ? msg : "");
    return EMU_EPARSE;
}

static void note_section(struct reader *r, Elf_Scn *scn, const GElf_Shdr *sh)
{
    const char *nm = elf_strptr(r->elf, r->shstrndx, sh->sh_name);

    if (sh->sh_type == SHT_DYNSYM && r->dynsym == NULL)
        r->dynsym = scn;
    else if (sh->sh_type == SHT_DYNAMIC && r->dynamic == NULL)
        r->dynamic = scn;
    else if (sh->sh_type == SHT_GNU_versym && r->versym == NULL)
        r->versym = scn;
    else if (sh->sh_type == SHT_GNU_verneed && r->verneed == NULL)
        r->verneed = scn;
    if (nm == NULL || sh->sh_type == SHT_NOBITS)
        return;
    if (strcmp(nm, ".debug_info") == 0 || strcmp(nm, ".zdebug_info") == 0)
        r->out->has_debug_info = true;
    else if (strcmp(nm, ".debug_line") == 0 || strcmp(nm, ".zdebug_line") == 0)
        r->out->has_debug_line = true;
}

/* Every section's bytes must lie in the file: that is what "truncated" means to a user. */
static emu_status scan_sections(struct reader *r)
{
    size_t shnum;

    if (elf_getshdrnum(r->elf, &shnum) != 0 || elf_getshdrstrndx(r->elf, &r->shstrndx) != 0)
        return corrupt(r, "section header table");
    for (Elf_Scn *scn = elf_nextscn(r->elf, NULL); scn != NULL; scn = elf_nextscn(r->elf, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == NULL)
            return corrupt(r, "section header");
        if (sh.sh_type != SHT_NOBITS &&
            (sh.sh_offset > r->len || sh.sh_size > r->len - sh.sh_offset)) {
            EMU_LOG_ERR("%s: truncated ELF file (section %zu ends at byte %llu, file has %zu)",
                        r->name, elf_ndxscn(scn),
                        (unsigned long long)sh.sh_offset + (unsigned long long)sh.sh_size, r->len);
            return EMU_EPARSE;
        }
        note_section(r, scn, &sh);
    }
    if (r->dynsym == NULL) {
        EMU_LOG_ERR("%s: no dynamic symbol table (.dynsym); link the kernel with -shared", r->name);
        return EMU_EINVAL;
    }
    return EMU_OK;
}

/* Section data plus its header; NULL when libelf refuses it or the section is empty. */
static Elf_Data *section_data(Elf_Scn *scn, GElf_Shdr *sh)
{
    if (gelf_getshdr(scn, sh) == NULL)
        return NULL;
    Elf_Data *d = elf_getdata(scn, NULL);
    return d != NULL && d->d_buf != NULL ? d : NULL;
}

static emu_status read_dynamic(struct reader *r)
{
    struct emu_elf_info *o = r->out;
    size_t cap = 0;
    GElf_Shdr sh;
    GElf_Dyn dyn;

    if (r->dynamic == NULL)
        return EMU_OK; /* a .so with no dependencies and no dynamic section is odd but harmless */
    Elf_Data *d = section_data(r->dynamic, &sh);
    if (d == NULL)
        return corrupt(r, "dynamic section");
    for (int i = 0; gelf_getdyn(d, i, &dyn) != NULL && dyn.d_tag != DT_NULL; i++) {
        if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE)) {
            EMU_LOG_ERR("%s: a position-independent executable, not a shared object; link the "
                        "kernel with -shared -fPIC",
                        r->name);
            return EMU_EINVAL;
        }
        if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_SONAME)
            continue;
        const char *s = elf_strptr(r->elf, sh.sh_link, dyn.d_un.d_val);
        if (s == NULL)
            return corrupt(r, "dynamic section string");
        if (dyn.d_tag == DT_SONAME) {
            free(o->soname);
            if ((o->soname = strdup(s)) == NULL)
                return EMU_ENOMEM;
            continue;
        }
        if (grow(&o->needed, &cap, o->n_needed, sizeof(*o->needed)) != 0 ||
            (o->needed[o->n_needed] = strdup(s)) == NULL)
            return EMU_ENOMEM;
        o->n_needed++;
    }
    return EMU_OK;
}

/* Collects .gnu.version_r. A damaged table only loses version names (imports then look
 * unversioned and are judged by name), so it is not an error. The loop bound stops cycles. */
static emu_status read_verneed(struct reader *r, struct vneed **tab, size_t *n)
{
    size_t cap = 0, off = 0;
    GElf_Shdr sh;
    GElf_Verneed vn;
    GElf_Vernaux va;

    Elf_Data *d = r->verneed ? section_data(r->verneed, &sh) : NULL;
    if (d == NULL)
        return EMU_OK;
    size_t budget = d->d_size / sizeof(GElf_Vernaux) + 1; /* more steps means a cycle */
    while (budget-- > 0 && gelf_getverneed(d, (int)off, &vn) != NULL) {
        const char *file = elf_strptr(r->elf, sh.sh_link, vn.vn_file);
        size_t aoff = off + vn.vn_aux;
        for (unsigned k = 0; k < vn.vn_cnt && budget > 0; k++) {
            budget--;
            if (aoff > INT32_MAX || gelf_getvernaux(d, (int)aoff, &va) == NULL)
                break;
            const char *name = elf_strptr(r->elf, sh.sh_link, va.vna_name);
            if (name != NULL && file != NULL) {
                if (grow(tab, &cap, *n, sizeof(**tab)) != 0)
                    return EMU_ENOMEM;
                (*tab)[(*n)++] = (struct vneed){va.vna_other & 0x7fff, name, file};
            }
            if (va.vna_next == 0)
                break;
            aoff += va.vna_next;
        }
        if (vn.vn_next == 0 || off + vn.vn_next > INT32_MAX)
            break;
        off += vn.vn_next;
    }
    return EMU_OK;
}

static emu_status set_version(struct emu_elf_symbol *s, Elf_Data *versym, size_t i,
                              const struct vneed *tab, size_t n)
{
    GElf_Versym v;

    /* Indexes 0 and 1 mean "local" and "global, unversioned". */
    if (versym == NULL || i >= versym->d_size / sizeof(GElf_Versym) ||
        gelf_getversym(versym, (int)i, &v) == NULL || (v & 0x7fff) < 2)
        return EMU_OK;
    for (size_t k = 0; k < n; k++) {
        if (tab[k].idx != (unsigned)(v & 0x7fff))
            continue;
        s->version = strdup(tab[k].name);
        s->version_file = strdup(tab[k].file);
        return s->version && s->version_file ? EMU_OK : EMU_ENOMEM;
    }
    return EMU_OK;
}

struct sym_lists {
    size_t cap_exp, cap_imp;
    Elf_Data *versym;
    struct vneed *vn;
    size_t n_vn;
};

static emu_status add_symbol(struct reader *r, struct sym_lists *l, const GElf_Sym *sym,
                             const char *name, size_t i)
{
    struct emu_elf_info *o = r->out;
    unsigned char bind = GELF_ST_BIND(sym->st_info), type = GELF_ST_TYPE(sym->st_info);
    struct emu_elf_symbol *s;

    if (name[0] == '\0' || bind == STB_LOCAL || type == STT_SECTION || type == STT_FILE)
        return EMU_OK;
    if (sym->st_shndx == SHN_UNDEF) {
        if (grow(&o->imports, &l->cap_imp, o->n_imports, sizeof(*s)) != 0)
            return EMU_ENOMEM;
        s = &o->imports[o->n_imports++];
    } else {
        if (grow(&o->exports, &l->cap_exp, o->n_exports, sizeof(*s)) != 0)
            return EMU_ENOMEM;
        s = &o->exports[o->n_exports++];
    }
    *s = (struct emu_elf_symbol){strdup(name), sym->st_value, sym->st_size, type, bind, 0, 0};
    if (s->name == NULL)
        return EMU_ENOMEM;
    return sym->st_shndx == SHN_UNDEF ? set_version(s, l->versym, i, l->vn, l->n_vn) : EMU_OK;
}

static emu_status read_symbols(struct reader *r)
{
    struct sym_lists l = {0};
    GElf_Shdr sh, vsh;
    GElf_Sym sym;

    Elf_Data *d = section_data(r->dynsym, &sh);
    if (d == NULL)
        return corrupt(r, "dynamic symbol table");
    l.versym = r->versym ? section_data(r->versym, &vsh) : NULL;
    emu_status st = read_verneed(r, &l.vn, &l.n_vn);
    size_t count = d->d_size / sizeof(Elf64_Sym);
    for (size_t i = 1; st == EMU_OK && i < count && i <= INT32_MAX; i++) {
        if (gelf_getsym(d, (int)i, &sym) == NULL) {
            st = corrupt(r, "dynamic symbol");
            break;
        }
        const char *name = elf_strptr(r->elf, sh.sh_link, sym.st_name);
        if (name == NULL) {
            EMU_LOG_ERR("%s: corrupt ELF file: dynamic symbol %zu has an invalid name", r->name, i);
            st = EMU_EPARSE;
            break;
        }
        st = add_symbol(r, &l, &sym, name, i);
    }
    free(l.vn);
    return st;
}

/* `buf` must stay valid and writable until this returns; libelf reads it in place. */
static emu_status inspect(char *buf, size_t len, const char *name, struct emu_elf_info *out)
{
    struct reader r = {.name = name, .len = len, .out = out};
    Elf64_Ehdr eh;

    emu_status st = check_ident((const unsigned char *)buf, len, name);
    if (st != EMU_OK)
        return st;
    memcpy(&eh, buf, sizeof(eh)); /* check_ident() made sure it is native-endian ELF64 */
    if ((st = check_header(&eh, buf, len, name)) != EMU_OK)
        return st;
    if ((out->name = strdup(name)) == NULL)
        return EMU_ENOMEM;
    elf_version(EV_CURRENT);
    r.elf = elf_memory(buf, len);
    if (r.elf == NULL || elf_kind(r.elf) != ELF_K_ELF)
        st = corrupt(&r, "header");
    if (st == EMU_OK)
        st = scan_sections(&r);
    if (st == EMU_OK)
        st = read_dynamic(&r);
    if (st == EMU_OK)
        st = read_symbols(&r);
    elf_end(r.elf);
    return st;
}

emu_status emu_elf_inspect_mem(const void *data, size_t len, const char *name_for_messages,
                               struct emu_elf_info *out)
{
    if (out == NULL)
        return EMU_ENULL;
    memset(out, 0, sizeof(*out));
    if (data == NULL && len > 0)
        return EMU_ENULL;
    /* A private copy: libelf wants a writable buffer and the caller's may be read-only. */
    char *copy = malloc(len > 0 ? len : 1);
    if (copy == NULL)
        return EMU_ENOMEM;
    if (len > 0)
        memcpy(copy, data, len);
    emu_status st = inspect(copy, len, name_for_messages ? name_for_messages : "image", out);
    free(copy);
    if (st != EMU_OK)
        emu_elf_info_fini(out);
    return st;
}

emu_status emu_elf_inspect_file(const char *path, struct emu_elf_info *out)
{
    struct emu_file_map map;

    if (out == NULL)
        return EMU_ENULL;
    memset(out, 0, sizeof(*out));
    emu_status st = emu_file_map_open(path, &map);
    if (st != EMU_OK)
        return st;
    st = inspect(map.data != NULL ? map.data : "", map.len, path, out);
    emu_file_map_close(&map);
    if (st != EMU_OK)
        emu_elf_info_fini(out);
    return st;
}
