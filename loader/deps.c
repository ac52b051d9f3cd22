/* deps.c - checks and preloads the libraries an image brings in its own folder (deps.h).
 *
 * Both walks visit each library once, dependencies before dependents, so a library used by
 * two others is inspected and opened once. */
#include "deps.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/platform/log.h"
#include "import.h"

struct walk {
    const char *dir;
    struct emu_elf_info libs[EMU_DEPS_MAX];
    const struct emu_elf_info *views[EMU_DEPS_MAX];
    char names[EMU_DEPS_MAX][256];
    size_t n;
    char *why;
    size_t why_len;
};

static emu_status refuse(struct walk *w, const char *fmt, const char *a, const char *b)
{
    char line[768];

    snprintf(line, sizeof(line), fmt, a, b);
    EMU_LOG_ERR("%s", line);
    if (w->why != NULL && w->why_len > 0)
        snprintf(w->why, w->why_len, "%s", line);
    return EMU_EINVAL;
}

static int seen(const struct walk *w, const char *name)
{
    for (size_t i = 0; i < w->n; i++)
        if (strcmp(w->names[i], name) == 0)
            return 1;
    return 0;
}

/* Path of `name` in the image's folder when such a file exists; names with a '/' never do. */
static int sibling(const char *dir, const char *name, char *path, size_t len)
{
    if (dir == NULL || strchr(name, '/') != NULL)
        return 0;
    int w = snprintf(path, len, "%s/%s", dir, name);
    return w > 0 && (size_t)w < len && access(path, R_OK) == 0;
}

static emu_status visit(struct walk *w, const struct emu_elf_info *info, unsigned depth);

static emu_status visit_needed(struct walk *w, const char *owner, const char *name,
                               unsigned depth)
{
    char path[PATH_MAX];

    if (emu_import_is_runtime_file(name) || strcmp(name, EMU_DEVICE_LIBRARY) == 0 ||
        seen(w, name))
        return EMU_OK;
    /* Not next to the image: a system library (libasan, libz...) the dynamic linker finds
     * itself; the import policy still decides what the image may take from it. */
    if (!sibling(w->dir, name, path, sizeof(path)))
        return EMU_OK;
    if (depth >= EMU_DEPS_DEPTH || w->n >= EMU_DEPS_MAX)
        return refuse(w, "%s: too many or too deeply nested libraries at %s", owner, name);
    struct emu_elf_info *lib = &w->libs[w->n];
    emu_status st = emu_elf_inspect_file(path, lib);
    if (st != EMU_OK)
        return st;
    snprintf(w->names[w->n], sizeof(w->names[0]), "%s", name);
    w->views[w->n] = lib;
    w->n++;
    return visit(w, lib, depth + 1);
}

/* Checks info's libraries, then info itself against the libraries known so far. */
static emu_status visit(struct walk *w, const struct emu_elf_info *info, unsigned depth)
{
    for (size_t i = 0; i < info->n_needed; i++) {
        emu_status st = visit_needed(w, info->name, info->needed[i], depth);
        if (st != EMU_OK)
            return st;
    }
    if (depth == 0)
        return EMU_OK;
    return emu_import_check_image_with(info, NULL, 0, w->views, w->n, w->why, w->why_len);
}

emu_status emu_deps_check(const struct emu_elf_info *info, const char *dir,
                          const char *const *entries, size_t n_entries, char *why,
                          size_t why_len)
{
    struct walk *w;
    emu_status st;

    if (info == NULL)
        return EMU_ENULL;
    if ((w = calloc(1, sizeof(*w))) == NULL)
        return EMU_ENOMEM;
    w->dir = dir;
    w->why = why;
    w->why_len = why_len;
    if (why != NULL && why_len > 0)
        why[0] = '\0';
    st = visit(w, info, 0);
    if (st == EMU_OK)
        st = emu_import_check_image_with(info, entries, n_entries, w->views, w->n, why, why_len);
    for (size_t i = 0; i < w->n; i++)
        emu_elf_info_fini(&w->libs[i]);
    free(w);
    return st;
}

struct load {
    char dir[PATH_MAX];
    void **handles;
    size_t max, n;
    char opened[EMU_DEPS_MAX][256];
    size_t n_opened;
    char *why;
    size_t why_len;
};

static emu_status load_lib(struct load *l, const char *path, unsigned depth);

static emu_status load_needed(struct load *l, const char *path, unsigned depth)
{
    struct emu_elf_info info;
    char dep[PATH_MAX];
    emu_status st = emu_elf_inspect_file(path, &info);

    if (st != EMU_OK) {
        snprintf(l->why, l->why_len, "cannot inspect %s", path);
        return st;
    }
    for (size_t i = 0; i < info.n_needed && st == EMU_OK; i++) {
        const char *name = info.needed[i];
        int known = 0;
        for (size_t k = 0; k < l->n_opened; k++)
            known |= strcmp(l->opened[k], name) == 0;
        if (known || emu_import_is_runtime_file(name) ||
            !sibling(l->dir, name, dep, sizeof(dep)))
            continue;
        if (depth >= EMU_DEPS_DEPTH || l->n_opened >= EMU_DEPS_MAX || l->n >= l->max) {
            snprintf(l->why, l->why_len, "%s: too many libraries next to the image", path);
            st = EMU_EINVAL;
            break;
        }
        snprintf(l->opened[l->n_opened++], sizeof(l->opened[0]), "%s", name);
        st = load_lib(l, dep, depth + 1);
    }
    emu_elf_info_fini(&info);
    return st;
}

static emu_status load_lib(struct load *l, const char *path, unsigned depth)
{
    emu_status st = load_needed(l, path, depth);

    if (st != EMU_OK)
        return st;
    if (l->n >= l->max) {
        snprintf(l->why, l->why_len, "%s: too many libraries next to the image", path);
        return EMU_EINVAL;
    }
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL) {
        snprintf(l->why, l->why_len, "dlopen %s: %s", path, dlerror());
        return EMU_EINVAL;
    }
    l->handles[l->n++] = dl;
    return EMU_OK;
}

emu_status emu_deps_preload(const char *path, void **handles, size_t max, size_t *n, char *why,
                            size_t why_len)
{
    struct load *l;
    emu_status st;

    if (path == NULL || handles == NULL || n == NULL || why == NULL)
        return EMU_ENULL;
    if ((l = calloc(1, sizeof(*l))) == NULL)
        return EMU_ENOMEM;
    snprintf(l->dir, sizeof(l->dir), "%s", path);
    char *slash = strrchr(l->dir, '/');
    if (slash != NULL)
        *slash = '\0';
    else
        snprintf(l->dir, sizeof(l->dir), ".");
    l->handles = handles;
    l->max = max;
    l->why = why;
    l->why_len = why_len;
    why[0] = '\0';
    st = load_needed(l, path, 0);
    *n = l->n;
    free(l);
    return st;
}
