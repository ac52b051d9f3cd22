/* import.c - classifies a kernel's imports and checks its entries (import.h).
 *
 * Entry points: emu_import_classify(), emu_import_check_image(). */
#include "import.h"

#include <ctype.h>
#include <elf.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/platform/log.h"
#include "device_api_names.h"

static const char *const device_api[] = {
#define EMU_DEVICE_API_STRING(name) #name,
    EMU_DEVICE_API_NAMES(EMU_DEVICE_API_STRING)
#undef EMU_DEVICE_API_STRING
};

/* Files whose versioned symbols make up the C/C++/math/thread runtime (sonames without the
 * version suffix, so libstdc++.so.6 and a future .so.7 both match). */
static const char *const runtime_files[] = {
    "libc.so",  "libm.so",      "libmvec.so",  "libpthread.so", "libdl.so",
    "librt.so", "libstdc++.so", "libgcc_s.so", "libatomic.so",  "ld-linux",
};

static const char *const runtime_weak_hooks[] = {
    "__gmon_start__",          "_ITM_registerTMCloneTable", "_ITM_deregisterTMCloneTable",
    "__cxa_finalize",          "_Jv_RegisterClasses",       "__register_frame_info",
    "__deregister_frame_info",
};

static const char *const sanitizer_prefixes[] = {
    "__asan_", "__ubsan_", "__tsan_", "__lsan_", "__sanitizer_",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Rule 5 of import.h: the runtime libraries, opened once and never closed (the
 * executor loads them with the kernel anyway). A library that cannot be opened is skipped. */
static const char *const runtime_sonames[] = {
    "libc.so.6",
    "libm.so.6",
    "libstdc++.so.6",
    "libgcc_s.so.1",
};
static void *runtime_handles[COUNT(runtime_sonames)];
static pthread_once_t runtime_once = PTHREAD_ONCE_INIT;

static void open_runtime(void)
{
    for (size_t i = 0; i < COUNT(runtime_sonames); i++)
        runtime_handles[i] = dlopen(runtime_sonames[i], RTLD_LAZY | RTLD_LOCAL);
}

static int defined_by_runtime(const char *name)
{
    pthread_once(&runtime_once, open_runtime);
    for (size_t i = 0; i < COUNT(runtime_sonames); i++)
        if (runtime_handles[i] != NULL && dlsym(runtime_handles[i], name) != NULL)
            return 1;
    return 0;
}

int emu_import_is_device_api(const char *name)
{
    for (size_t i = 0; name != NULL && i < COUNT(device_api); i++)
        if (strcmp(name, device_api[i]) == 0)
            return 1;
    return 0;
}

/* "acl" + letter is the ACL runtime (aclInit, aclrtMalloc, aclmdl...); libacl's acl_get_file
 * and the like are not. "Hccl" + letter is the HCCL control plane. */
static int is_host_api(const char *name)
{
    if (strncmp(name, "acl", 3) == 0 && isalpha((unsigned char)name[3]))
        return 1;
    return strncmp(name, "Hccl", 4) == 0 && isalpha((unsigned char)name[4]);
}

int emu_import_is_runtime_file(const char *soname)
{
    for (size_t i = 0; soname != NULL && i < COUNT(runtime_files); i++)
        if (strncmp(soname, runtime_files[i], strlen(runtime_files[i])) == 0)
            return 1;
    return 0;
}

static int is_runtime(const struct emu_elf_symbol *imp)
{
    if (imp->version_file != NULL)
        return emu_import_is_runtime_file(imp->version_file);
    for (size_t i = 0; i < COUNT(runtime_weak_hooks); i++)
        if (strcmp(imp->name, runtime_weak_hooks[i]) == 0)
            return 1;
    for (size_t i = 0; i < COUNT(sanitizer_prefixes); i++)
        if (strncmp(imp->name, sanitizer_prefixes[i], strlen(sanitizer_prefixes[i])) == 0)
            return 1;
    return defined_by_runtime(imp->name);
}

enum emu_import_class emu_import_classify(const struct emu_elf_symbol *import)
{
    if (import == NULL || import->name == NULL)
        return EMU_IMPORT_UNKNOWN;
    if (emu_import_is_device_api(import->name))
        return EMU_IMPORT_DEVICE_API;
    if (is_host_api(import->name))
        return EMU_IMPORT_HOST_ONLY;
    if (is_runtime(import))
        return EMU_IMPORT_RUNTIME;
    return EMU_IMPORT_UNKNOWN;
}

const char *emu_import_class_name(enum emu_import_class c)
{
    switch (c) {
    case EMU_IMPORT_DEVICE_API:
        return "device";
    case EMU_IMPORT_RUNTIME:
        return "runtime";
    case EMU_IMPORT_HOST_ONLY:
        return "HOST-ONLY";
    case EMU_IMPORT_UNKNOWN:
        return "UNKNOWN";
    default:
        return "UNKNOWN";
    }
}

static emu_status refuse(char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static emu_status refuse(char *why, size_t why_len, const char *fmt, ...)
{
    char line[768];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    EMU_LOG_ERR("%s", line);
    if (why != NULL && why_len > 0)
        snprintf(why, why_len, "%s", line);
    return EMU_EINVAL;
}

static const char *image_name(const struct emu_elf_info *info)
{
    return info->name != NULL ? info->name : "image";
}

/* A C++ entry compiled without extern "C" is exported as _Z<len><name>...: say so. */
static int exported_mangled(const struct emu_elf_info *info, const char *name)
{
    char prefix[300];

    snprintf(prefix, sizeof(prefix), "_Z%zu%s", strlen(name), name);
    for (size_t i = 0; i < info->n_exports; i++)
        if (strncmp(info->exports[i].name, prefix, strlen(prefix)) == 0)
            return 1;
    return 0;
}

static emu_status check_entry(const struct emu_elf_info *info, const char *name, char *why,
                              size_t why_len)
{
    const struct emu_elf_symbol *sym = emu_elf_find_export(info, name);

    if (sym == NULL && exported_mangled(info, name))
        return refuse(why, why_len,
                      "%s: entry function %s is exported only with a C++ mangled name; declare "
                      "it extern \"C\" uint32_t %s(void *args)",
                      image_name(info), name, name);
    if (sym == NULL)
        return refuse(why, why_len,
                      "%s: entry function %s is not exported (missing, static, hidden or "
                      "misspelled); define extern \"C\" uint32_t %s(void *args) with default "
                      "visibility",
                      image_name(info), name, name);
    if (!emu_elf_symbol_is_function(sym))
        return refuse(why, why_len,
                      "%s: entry %s is exported but is not a function (ELF symbol type %u); "
                      "functionName must name the kernel's entry function",
                      image_name(info), name, sym->type);
    return EMU_OK;
}

/* What else may satisfy an import: the image's own dependencies (emu_import_check_image_with). */
struct providers {
    const struct emu_elf_info *const *libs;
    size_t n;
};

static int tolerated(const struct emu_elf_symbol *imp, const struct providers *p)
{
    if (imp->bind == STB_WEAK)
        return 1;
    for (size_t i = 0; i < p->n; i++)
        if (emu_elf_find_export(p->libs[i], imp->name) != NULL)
            return 1;
    return 0;
}

/* Index of the first import of class `c` and the total of refused imports. */
static size_t first_of(const struct emu_elf_info *info, const struct providers *p,
                       enum emu_import_class c, size_t *refused)
{
    size_t first = info->n_imports;

    for (size_t i = 0; i < info->n_imports; i++) {
        enum emu_import_class k = emu_import_classify(&info->imports[i]);
        if ((k == EMU_IMPORT_HOST_ONLY || k == EMU_IMPORT_UNKNOWN) &&
            tolerated(&info->imports[i], p))
            continue;
        if (k == EMU_IMPORT_HOST_ONLY || k == EMU_IMPORT_UNKNOWN)
            (*refused)++;
        if (k == c && first == info->n_imports)
            first = i;
    }
    return first;
}

static emu_status check_imports(const struct emu_elf_info *info, const struct providers *p,
                                char *why, size_t why_len)
{
    size_t refused = 0, unused = 0;
    size_t h = first_of(info, p, EMU_IMPORT_HOST_ONLY, &refused);
    size_t u = first_of(info, p, EMU_IMPORT_UNKNOWN, &unused);
    char more[96] = "";

    if (refused > 1)
        snprintf(more, sizeof(more), " (and %zu more refused imports; hcemu-inspect lists them)",
                 refused - 1);
    if (h < info->n_imports)
        return refuse(why, why_len,
                      "%s: kernel imports host API %s: an AICPU kernel cannot call a host API; "
                      "move this call to the host program%s",
                      image_name(info), info->imports[h].name, more);
    if (u < info->n_imports) {
        const struct emu_elf_symbol *s = &info->imports[u];
        return refuse(why, why_len,
                      "%s: kernel imports unknown symbol %s%s%s%s%s: it is neither a device API "
                      "(Hcomm*) nor C/C++ runtime, so the emulated AICPU cannot provide it; link "
                      "its definition into the kernel%s",
                      image_name(info), s->name, s->version ? "@" : "",
                      s->version ? s->version : "", s->version_file ? " from " : "",
                      s->version_file ? s->version_file : "", more);
    }
    return EMU_OK;
}

emu_status emu_import_check_image(const struct emu_elf_info *info, const char *const *entries,
                                  size_t n_entries, char *why, size_t why_len)
{
    return emu_import_check_image_with(info, entries, n_entries, NULL, 0, why, why_len);
}

emu_status emu_import_check_image_with(const struct emu_elf_info *info, const char *const *entries,
                                size_t n_entries, const struct emu_elf_info *const *provided,
                                size_t n_provided, char *why, size_t why_len)
{
    struct providers p = {provided, provided != NULL ? n_provided : 0};

    if (why != NULL && why_len > 0)
        why[0] = '\0';
    if (info == NULL || (entries == NULL && n_entries > 0))
        return EMU_ENULL;
    for (size_t i = 0; i < n_entries; i++) {
        if (entries[i] == NULL)
            return EMU_ENULL;
        emu_status st = check_entry(info, entries[i], why, why_len);
        if (st != EMU_OK)
            return st;
    }
    return check_imports(info, &p, why, why_len);
}
