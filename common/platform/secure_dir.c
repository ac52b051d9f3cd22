/* secure_dir.c - private folders and files in shared places (see secure_dir.h). Every check
 * is made on an open descriptor (fstat), so nothing can be swapped between check and use. */
#include "secure_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

#define REMOVE_DEPTH_MAX 16 /* job folders are flat; a deeper tree is not ours to walk */

/* Why `st` is not private to us, or NULL when it is. */
static const char *not_private(const struct stat *st, int want_dir)
{
    if (want_dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
        return want_dir ? "is not a folder" : "is not a regular file";
    if (st->st_uid != geteuid())
        return "belongs to another user";
    if ((st->st_mode & 077) != 0)
        return "is open to other users (group/other mode bits)";
    return NULL;
}

emu_status emu_secure_dir_check_parent(const char *parent)
{
    struct stat st;

    if (stat(parent, &st) != 0) {
        EMU_LOG_ERR("job folder parent %s: %s", parent, strerror(errno));
        return EMU_EFILE;
    }
    if (!S_ISDIR(st.st_mode)) {
        EMU_LOG_ERR("job folder parent %s is not a folder", parent);
        return EMU_EFILE;
    }
    /* Its owner can rename or replace what we make inside, whatever the mode: only our own
     * folders and root's (like /dev/shm and /tmp) are safe places. */
    if (st.st_uid != geteuid() && st.st_uid != 0) {
        EMU_LOG_ERR("job folder parent %s belongs to uid %u, not to us (uid %u) or root: its "
                    "owner could replace our folders; use a folder of your own",
                    parent, (unsigned)st.st_uid, (unsigned)geteuid());
        return EMU_EINVAL;
    }
    if ((st.st_mode & S_IWOTH) != 0 && (st.st_mode & S_ISVTX) == 0) {
        EMU_LOG_ERR("job folder parent %s is writable by every user without the sticky bit "
                    "(others could replace our folders); use a private folder",
                    parent);
        return EMU_EINVAL;
    }
    return EMU_OK;
}

emu_status emu_secure_dir_open(const char *path, int *fd)
{
    int d = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;

    if (d < 0) {
        EMU_LOG_ERR("cannot open folder %s: %s%s", path, strerror(errno),
                    errno == ELOOP || errno == ENOTDIR ? " (refusing a symlink or a file)" : "");
        return EMU_EFILE;
    }
    const char *why = fstat(d, &st) != 0 ? "cannot be checked" : not_private(&st, 1);
    if (why != NULL) {
        EMU_LOG_ERR("refusing folder %s: it %s (uid %u, mode %03o)", path, why,
                    (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
        close(d);
        return EMU_EFILE;
    }
    *fd = d;
    return EMU_OK;
}

/* Create the missing folders along `path` (mode 0700: nobody else needs to enter them). */
static void make_parents(const char *path)
{
    char buf[PATH_MAX];

    if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
        return;
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return;
        if (c == '\0')
            return;
        *p = c;
    }
}

emu_status emu_secure_dir_make(const char *parent, const char *prefix, char *out, size_t len)
{
    int fd;

    if (access(parent, F_OK) != 0 && errno == ENOENT)
        make_parents(parent);
    emu_status s = emu_secure_dir_check_parent(parent);

    if (s != EMU_OK)
        return s;
    int n = snprintf(out, len, "%s/%sXXXXXX", parent, prefix);
    if (n < 0 || (size_t)n >= len) {
        EMU_LOG_ERR("job folder parent %s is too long", parent);
        return EMU_EINVAL;
    }
    if (mkdtemp(out) == NULL) {
        EMU_LOG_ERR("cannot create a folder in %s: %s", parent, strerror(errno));
        return EMU_EFILE;
    }
    if ((s = emu_secure_dir_open(out, &fd)) != EMU_OK)
        return s;
    close(fd);
    return EMU_OK;
}

emu_status emu_secure_dir_ensure(const char *path)
{
    int fd;

    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        EMU_LOG_ERR("cannot create folder %s: %s", path, strerror(errno));
        return EMU_EFILE;
    }
    emu_status s = emu_secure_dir_open(path, &fd);
    if (s == EMU_OK)
        close(fd);
    return s;
}

emu_status emu_secure_dir_open_at(int dirfd, const char *dir, const char *name, int flags,
                                  unsigned mode, int *fd)
{
    int f = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, (mode_t)mode);
    struct stat st;

    if (f < 0 && errno == EEXIST && (flags & O_EXCL))
        return EMU_EAGAIN; /* the caller decides: join the existing file, or fail */
    if (f < 0) {
        EMU_LOG_ERR("cannot %s %s/%s: %s", (flags & O_CREAT) ? "create" : "open", dir, name,
                    strerror(errno));
        return EMU_EFILE;
    }
    const char *why = fstat(f, &st) != 0 ? "cannot be checked" : not_private(&st, 0);
    if (why != NULL) {
        EMU_LOG_ERR("refusing %s/%s: it %s", dir, name, why);
        close(f);
        return EMU_EFILE;
    }
    /* O_NONBLOCK only guarded the open; regular files ignore it, but callers expect none. */
    fcntl(f, F_SETFL, fcntl(f, F_GETFL) & ~O_NONBLOCK);
    *fd = f;
    return EMU_OK;
}

emu_status emu_secure_dir_open_in(const char *dir, const char *name, int flags, unsigned mode,
                                  int *fd)
{
    int d;
    emu_status s = emu_secure_dir_open(dir, &d);

    if (s != EMU_OK)
        return s;
    s = emu_secure_dir_open_at(d, dir, name, flags, mode, fd);
    close(d);
    return s;
}

emu_status emu_secure_dir_open_path(const char *path, int flags, unsigned mode, int *fd)
{
    char dir[PATH_MAX];

    if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
        return EMU_EINVAL;
    char *slash = strrchr(dir, '/');
    if (slash == NULL || slash == dir || slash[1] == '\0') {
        EMU_LOG_ERR("%s is not a file inside a folder", path);
        return EMU_EINVAL;
    }
    *slash = '\0';
    return emu_secure_dir_open_in(dir, slash + 1, flags, mode, fd);
}

static void remove_tree_at(int dirfd, const char *name, int depth)
{
    if (unlinkat(dirfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM) ||
        depth >= REMOVE_DEPTH_MAX)
        goto last;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    DIR *d = fdopendir(fd);
    if (d == NULL) {
        close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            remove_tree_at(fd, e->d_name, depth + 1);
    closedir(d);
last:
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

void emu_secure_dir_remove_at(int dirfd, const char *name)
{
    remove_tree_at(dirfd, name, 0);
}

void emu_secure_dir_remove(const char *path)
{
    char buf[PATH_MAX];

    if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
        return;
    size_t n = strlen(buf);
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = '\0';
    char *slash = strrchr(buf, '/');
    const char *name = slash != NULL ? slash + 1 : buf;
    const char *parent = slash == NULL ? "." : slash == buf ? "/" : buf;
    if (slash != NULL && slash != buf)
        *slash = '\0';
    if (*name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return;
    int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0)
        return;
    remove_tree_at(pfd, name, 0);
    close(pfd);
}

emu_status emu_secure_dir_read_input(const char *path, size_t max, char **buf, size_t *len,
                                     char *why, size_t why_len)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer before we can refuse it. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    char *b = NULL;
    size_t n = 0;

    if (fd < 0) {
        snprintf(why, why_len, "%s", strerror(errno));
        return EMU_EFILE;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "not a regular file (a FIFO, device or folder is refused)");
        goto fail;
    }
    if ((uint64_t)st.st_size > (uint64_t)max) {
        snprintf(why, why_len, "%lld bytes; at most %zu are accepted", (long long)st.st_size, max);
        goto fail;
    }
    if ((b = malloc(max + 1)) == NULL) {
        snprintf(why, why_len, "out of memory");
        goto fail;
    }
    /* The file may grow after fstat: read at most max + 1 bytes and refuse if it did. */
    for (ssize_t r; n <= max && (r = read(fd, b + n, max + 1 - n)) != 0; n += (size_t)r) {
        if (r < 0 && errno == EINTR)
            r = 0;
        else if (r < 0) {
            snprintf(why, why_len, "%s", strerror(errno));
            goto fail;
        }
    }
    if (n > max) {
        snprintf(why, why_len, "more than %zu bytes", max);
        goto fail;
    }
    close(fd);
    b[n] = '\0';
    *buf = b;
    *len = n;
    return EMU_OK;
fail:
    free(b);
    close(fd);
    return EMU_EFILE;
}
