/* symbols.c - call sites inside kernel images as source lines (libdw through the loader's
 * symbolizer; one cached symbolizer per image, created on first use). */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernel_run.h"
#include "loader/symbolize.h"

#define MAX_CACHED 64u

struct cached {
    char path[256];
    struct emu_symbolizer *sym;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct cached cache[MAX_CACHED];
static uint32_t n_cached;

bool emu_symbolize_pc(const char *path, uint64_t offset, char *out, size_t len)
{
    struct emu_symbolizer *s = NULL;
    bool ok = false;

    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < n_cached && s == NULL; i++)
        if (strcmp(cache[i].path, path) == 0)
            s = cache[i].sym;
    if (s == NULL && n_cached < MAX_CACHED && strlen(path) < sizeof(cache[0].path)) {
        s = emu_symbolizer_create(path);
        if (s != NULL) {
            memcpy(cache[n_cached].path, path, strlen(path) + 1);
            cache[n_cached++].sym = s;
        }
    }
    /* A symbolizer is not thread-safe: look up under the lock. */
    if (s != NULL)
        ok = emu_symbolizer_lookup(s, offset, out, len) == EMU_OK;
    pthread_mutex_unlock(&lock);
    return ok;
}
