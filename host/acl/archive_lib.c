/* archive_lib.c - libarchive opened on first use (archive_lib.h). Its file name, with the ABI
 * version it was built against (libarchive.so.13), comes from the build (HCEMU_LIBARCHIVE_SO). */
#include "archive_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "common/platform/log.h"

#ifndef HCEMU_LIBARCHIVE_SO
#define HCEMU_LIBARCHIVE_SO "libarchive.so.13"
#endif

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static struct emu_archive_lib lib;
static const struct emu_archive_lib *loaded; /* written under load_once */

static void load(void)
{
    static const struct {
        const char *name;
        size_t off;
    } fns[] = {
        {"archive_read_new", offsetof(struct emu_archive_lib, read_new)},
        {"archive_read_support_filter_all",
         offsetof(struct emu_archive_lib, read_support_filter_all)},
        {"archive_read_support_format_all",
         offsetof(struct emu_archive_lib, read_support_format_all)},
        {"archive_read_open_filename", offsetof(struct emu_archive_lib, read_open_filename)},
        {"archive_read_next_header", offsetof(struct emu_archive_lib, read_next_header)},
        {"archive_read_data_block", offsetof(struct emu_archive_lib, read_data_block)},
        {"archive_read_free", offsetof(struct emu_archive_lib, read_free)},
        {"archive_entry_filetype", offsetof(struct emu_archive_lib, entry_filetype)},
        {"archive_entry_pathname", offsetof(struct emu_archive_lib, entry_pathname)},
        {"archive_entry_size", offsetof(struct emu_archive_lib, entry_size)},
        {"archive_entry_size_is_set", offsetof(struct emu_archive_lib, entry_size_is_set)},
    };
    /* Never closed: the table stays valid for the life of the process. */
    void *h = dlopen(HCEMU_LIBARCHIVE_SO, RTLD_NOW | RTLD_LOCAL);

    if (h == NULL) {
        EMU_LOG_ERR("cannot load %s to read AICPU packages: %s", HCEMU_LIBARCHIVE_SO, dlerror());
        return;
    }
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
        void *f = dlsym(h, fns[i].name);
        if (f == NULL) {
            EMU_LOG_ERR("%s has no %s: cannot read AICPU packages", HCEMU_LIBARCHIVE_SO,
                        fns[i].name);
            return;
        }
        /* POSIX lets a dlsym result be used as a function pointer; each slot is one. */
        memcpy((char *)&lib + fns[i].off, &f, sizeof(f));
    }
    loaded = &lib;
}

const struct emu_archive_lib *emu_archive_lib(void)
{
    pthread_once(&load_once, load);
    return loaded;
}
