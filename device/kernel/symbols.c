/* symbols.c - call sites as source lines: inside kernel images (libdw through the loader's
 * symbolizer; one cached symbolizer per image, created on first use) and inside host
 * programs (their mappings read from /proc). */
#include "symbols.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/platform/os.h"
#include "device/exec.h"
#include "kernel.h"
#include "loader/symbolize.h"

#define MAX_CACHED 64u

struct cached {
    char path[256];
    struct emu_symbolizer *sym;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct cached cache[MAX_CACHED];
static uint32_t n_cached;

bool emu_symbols_lookup(const char *path, uint64_t offset, char *out, size_t len)
{
    struct emu_symbolizer *s = NULL;
    bool ok = false;

    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < n_cached && s == NULL; i++)
        if (strcmp(cache[i].path, path) == 0)
            s = cache[i].sym;
    if (s == NULL && n_cached < MAX_CACHED && strlen(path) < sizeof(cache[0].path)) {
        s = emu_symbolize_create(path);
        if (s != NULL) {
            memcpy(cache[n_cached].path, path, strlen(path) + 1);
            cache[n_cached++].sym = s;
        }
    }
    /* A symbolizer is not thread-safe: look up under the lock. */
    if (s != NULL)
        ok = emu_symbolize_lookup(s, offset, out, len) == EMU_OK;
    pthread_mutex_unlock(&lock);
    return ok;
}

void emu_symbols_kernel_pc(uint64_t pc, char *out, size_t len)
{
    uint64_t base;
    const char *path;

    if (emu_kernel_image_of(pc, &base, &path) && emu_symbols_lookup(path, pc - base, out, len))
        return;
    if (emu_os_symbol_of(pc, out, len))
        return;
    snprintf(out, len, "0x%llx", (unsigned long long)pc);
}

/* A host program address: find its file in /proc/<pid>/maps and ask libdw. */
static bool host_symbolize(int pid, uint64_t pc, char *out, size_t len)
{
    char path[64], line[512], file[400];
    bool ok = false;

    snprintf(path, sizeof(path), "/proc/%d/maps", pid);
    FILE *f = pid > 0 ? fopen(path, "re") : NULL;
    if (f == NULL)
        return false;
    while (!ok && fgets(line, sizeof(line), f) != NULL) {
        unsigned long long lo, hi, off;
        file[0] = '\0';
        if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %399s", &lo, &hi, &off, file) < 3 || pc < lo ||
            pc >= hi || file[0] != '/')
            continue;
        ok = emu_symbols_lookup(file, pc - lo + off, out, len);
        break;
    }
    fclose(f);
    return ok;
}

void emu_symbols_callsite(uint64_t pc, uint32_t stream, bool from_kernel, char *out, size_t len)
{
    struct emu_devctl *ctl = emu_exec_ctl();

    if (pc == 0) {
        snprintf(out, len, "unknown call site");
        return;
    }
    /* pc is a return address: pc - 1 lies in the call instruction, so the line is the
     * call's and not the next statement's. */
    if (from_kernel || stream >= EMU_MAX_STREAMS ||
        ctl->streams[stream].kind == EMU_STREAM_DEVICE) {
        emu_symbols_kernel_pc(pc - 1, out, len);
        return;
    }
    if (!host_symbolize(ctl->streams[stream].owner_pid, pc - 1, out, len))
        snprintf(out, len, "host program at 0x%llx", (unsigned long long)pc);
}
