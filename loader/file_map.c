/* file_map.c - maps whole files for descriptor.c and elf.c (see file_map.h). */
#include "file_map.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/platform/log.h"

/* Kernel images with full debug info reach tens of MiB; beyond 1 GiB something is wrong. */
#define EMU_FILE_MAP_MAX ((size_t)1 << 30)

static emu_status map_fd(int fd, const char *path, struct emu_file_map *out)
{
    struct stat st;

    if (fstat(fd, &st) != 0) {
        EMU_LOG_ERR("%s: cannot stat: %s", path, strerror(errno));
        return EMU_EFILE;
    }
    if (!S_ISREG(st.st_mode)) {
        EMU_LOG_ERR("%s: not a regular file", path);
        return EMU_EFILE;
    }
    if ((uint64_t)st.st_size > EMU_FILE_MAP_MAX) {
        EMU_LOG_ERR("%s: file too large (%lld bytes)", path, (long long)st.st_size);
        return EMU_EFILE;
    }
    if (st.st_size == 0)
        return EMU_OK; /* mmap refuses length 0; an empty view is still a valid answer */
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        EMU_LOG_ERR("%s: cannot map: %s", path, strerror(errno));
        return EMU_EFILE;
    }
    out->data = p;
    out->len = (size_t)st.st_size;
    return EMU_OK;
}

emu_status emu_file_map_open(const char *path, struct emu_file_map *out)
{
    if (out == NULL)
        return EMU_ENULL;
    memset(out, 0, sizeof(*out));
    if (path == NULL)
        return EMU_ENULL;
    /* O_NONBLOCK: a FIFO must be refused (map_fd) before anything waits for a writer. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        EMU_LOG_ERR("%s: cannot open: %s", path, strerror(errno));
        return EMU_EFILE;
    }
    emu_status st = map_fd(fd, path, out);
    close(fd); /* the mapping keeps the file alive */
    return st;
}

void emu_file_map_close(struct emu_file_map *m)
{
    if (m == NULL || m->data == NULL)
        return;
    munmap(m->data, m->len);
    m->data = NULL;
    m->len = 0;
}
