/* job.c - the job folder: paths, making and claiming it, and collecting folders of dead jobs
 * (see job.h). */
#include "job.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/platform/secure_dir.h"

#define UNCLAIMED_S 60 /* an unclaimed folder older than this is a dead job's */
#define OWNERS_MAX 16384 /* bytes of the owners file read: ~680 processes (256 ranks + launchers) */

emu_status emu_job_path(char *buf, size_t len, const char *dir, const char *fmt, ...)
{
    char name[128];
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf(name, sizeof(name), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(name))
        return EMU_EINVAL;
    n = snprintf(buf, len, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= len) {
        EMU_LOG_ERR("job path %s/%s is too long", dir, name);
        return EMU_EINVAL;
    }
    return EMU_OK;
}

/* Start time of `pid` (field 22 of /proc/<pid>/stat), 0 when it is gone or a zombie.
 * *exiting: it is inside exit() (PF_EXITING in field 9), closing its descriptors one by one;
 * its lock on a job may outlive, by a moment, the socket whose end woke one of its
 * executors. */
static uint64_t pid_stat(int pid, bool *exiting)
{
    char buf[512];
    const char *p = emu_os_proc_stat(pid, buf, sizeof(buf)); /* field 3, the state */

    *exiting = false;
    if (p == NULL || *p == 'Z' || *p == 'X')
        return 0;
    for (int field = 3; field < 22 && p != NULL; field++) {
        if (field == 9)
            *exiting = (strtoull(p, NULL, 10) & 0x4u) != 0; /* PF_EXITING */
        p = strchr(p, ' ');
        if (p != NULL)
            p++;
    }
    return p != NULL ? strtoull(p, NULL, 10) : 0;
}

uint64_t emu_job_pid_start(int pid)
{
    bool exiting;

    return pid_stat(pid, &exiting);
}

static emu_status add_owner(int dirfd, const char *dir)
{
    char line[64];
    int fd;
    uint64_t start = emu_job_pid_start((int)getpid());
    emu_status s = emu_secure_dir_open_at(dirfd, dir, EMU_JOB_OWNERS,
                                          O_WRONLY | O_APPEND | O_CREAT, 0600, &fd);

    if (s != EMU_OK)
        return s;
    /* One short O_APPEND write: lines of concurrent claimers never interleave. */
    int n = snprintf(line, sizeof(line), "%d %llu\n", (int)getpid(), (unsigned long long)start);
    if (write(fd, line, (size_t)n) != n) {
        EMU_LOG_ERR("cannot record this process in %s/%s: %s", dir, EMU_JOB_OWNERS,
                    strerror(errno));
        s = EMU_EFILE;
    }
    close(fd);
    return s;
}

/* The owners file, held open with a shared flock while this process uses its job: the
 * kernel drops the lock however the process ends, so whoever gets it exclusively knows every
 * other user of the folder is gone. One job folder per process at a time. */
static int held_fd = -1;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* A child forked by the process (a kernel's, a host's helper) does not hold the job: only
 * its copy of the descriptor goes, the parent's lock stays. */
static void drop_in_child(void)
{
    if (held_fd >= 0)
        close(held_fd);
    held_fd = -1;
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, drop_in_child);
}

static void hold(int dirfd)
{
    pthread_once(&atfork_once, register_atfork);
    int fd = openat(dirfd, EMU_JOB_OWNERS, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

    if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) != 0) {
        close(fd);
        fd = -1;
    }
    if (fd >= 0) {
        if (held_fd >= 0)
            close(held_fd);
        held_fd = fd;
    }
}

emu_status emu_job_claim(const char *dir)
{
    int d;
    emu_status s = emu_secure_dir_open(dir, &d);

    if (s != EMU_OK)
        return s;
    s = add_owner(d, dir);
    if (s == EMU_OK)
        hold(d);
    close(d);
    return s;
}

void emu_job_hold(const char *dir)
{
    int d;

    if (emu_secure_dir_open(dir, &d) != EMU_OK)
        return;
    hold(d);
    close(d);
}

bool emu_job_leave(const char *dir)
{
    struct stat st;

    if (held_fd < 0)
        return false;
    close(held_fd);
    held_fd = -1;
    /* Quiet: the other users of the folder leave at the same moment and may remove it. */
    int d = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d < 0)
        return false;
    int fd = openat(d, EMU_JOB_OWNERS, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    /* Last by the lock, or every recorded owner is gone (a process that does not hold the
     * lock may still keep it: one forked before the atfork handler existed). */
    bool last = fd >= 0 && fstat(d, &st) == 0 && st.st_uid == geteuid() &&
                (st.st_mode & 077) == 0 &&
                (flock(fd, LOCK_EX | LOCK_NB) == 0 || emu_job_is_dead_at(d));
    close(d);
    if (last)
        emu_secure_dir_remove(dir); /* the lock goes with the file's last descriptor */
    if (fd >= 0)
        close(fd);
    return last;
}

emu_status emu_job_make(const char *parent, const char *kind, char *out, size_t len)
{
    char prefix[64];

    (void)emu_job_collect(parent);
    snprintf(prefix, sizeof(prefix), "hcemu-%u-%s", (unsigned)geteuid(), kind);
    emu_status s = emu_secure_dir_make(parent, prefix, out, len);
    if (s == EMU_OK && (s = emu_job_claim(out)) != EMU_OK)
        emu_secure_dir_remove(out);
    return s;
}

bool emu_job_is_dead_at(int dirfd)
{
    char buf[OWNERS_MAX + 1];
    struct stat st;
    int fd = openat(dirfd, EMU_JOB_OWNERS, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

    /* A folder is claimed right after it is made; one still unclaimed long after was made
     * by a process killed in between. */
    if (fd < 0)
        return errno == ENOENT && fstat(dirfd, &st) == 0 &&
               time(NULL) - st.st_mtime > UNCLAIMED_S;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
        close(fd);
        return false;
    }
    ssize_t n = read(fd, buf, OWNERS_MAX);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    unsigned owners = 0;
    for (char *line = buf, *next; *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next == NULL)
            break; /* a partial line: being written */
        *next++ = '\0';
        int pid;
        unsigned long long start;
        if (sscanf(line, "%d %llu", &pid, &start) != 2)
            return false; /* not ours to judge */
        owners++;
        /* An owner inside exit() is gone for the job: it will not touch the folder again,
         * and the last executor must not leave the folder behind while it closes its
         * descriptors (seen under load: the folder of a SIGKILLed hcemu-run stayed). */
        bool exiting;
        uint64_t now = pid_stat(pid, &exiting);
        if (now != 0 && now == start && !exiting)
            return false;
    }
    return owners > 0;
}

/* "hcemu-<our uid>-...": our folders; others are never looked into. */
static bool is_our_name(const char *name)
{
    char prefix[32];
    int n = snprintf(prefix, sizeof(prefix), "hcemu-%u-", (unsigned)geteuid());

    return strncmp(name, prefix, (size_t)n) == 0 && name[n] != '\0';
}

unsigned emu_job_collect(const char *parent)
{
    unsigned removed = 0;
    int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (pfd < 0)
        return 0;
    DIR *d = fdopendir(pfd);
    if (d == NULL) {
        close(pfd);
        return 0;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!is_our_name(e->d_name))
            continue;
        int fd = openat(pfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (fd < 0)
            continue;
        bool dead = fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
                    (st.st_mode & 077) == 0 && emu_job_is_dead_at(fd);
        close(fd);
        if (!dead)
            continue;
        EMU_LOG_INFO("removing %s/%s, the folder of a job whose processes are gone", parent,
                     e->d_name);
        emu_secure_dir_remove_at(pfd, e->d_name);
        removed++;
    }
    closedir(d);
    return removed;
}
