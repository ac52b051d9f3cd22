/* rt_support.c - see rt_support.h. */
#include "rt_support.h"

#include <acl/acl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/contract/devctl.h"

uint64_t rt_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int rt_job_parent_make(char *out, size_t len)
{
    if (snprintf(out, len, "/dev/shm/hcemu-test-XXXXXX") >= (int)len || mkdtemp(out) == NULL)
        return -1;
    return setenv("HCEMU_JOB_DIR", out, 1);
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);

    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char child[RT_PATH * 2];
            struct stat st;
            snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
            if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
                remove_tree(child);
            else
                unlink(child);
        }
        closedir(d);
    }
    rmdir(path);
}

void rt_job_parent_remove(const char *parent)
{
    if (parent != NULL && parent[0] != '\0')
        remove_tree(parent);
}

int rt_job_dirs(const char *parent, char *out, size_t len)
{
    DIR *d = opendir(parent);
    int n = 0;

    if (d == NULL)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n++ == 0 && out != NULL)
            snprintf(out, len, "%s/%s", parent, e->d_name);
    }
    closedir(d);
    return n;
}

/* The NUL-separated command line of pid, or 0 bytes when it is gone or a zombie. */
static size_t read_cmdline(const char *pid, char *buf, size_t len)
{
    char path[300];

    snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return (size_t)n;
}

/* Whether the command line is an executor of a job under `prefix` (and of device `dev`). */
static int is_executor_of(const char *cmd, size_t n, const char *prefix, int dev)
{
    const char *job = NULL, *devarg = NULL;

    for (const char *a = cmd; a < cmd + n; a += strlen(a) + 1) {
        const char *next = a + strlen(a) + 1;
        if (next >= cmd + n)
            break;
        if (strcmp(a, "--job") == 0)
            job = next;
        else if (strcmp(a, "--dev") == 0)
            devarg = next;
    }
    if (job == NULL || strncmp(job, prefix, strlen(prefix)) != 0)
        return 0;
    return dev < 0 || (devarg != NULL && atoi(devarg) == dev);
}

int rt_executors(const char *prefix, int dev, pid_t *pids, int max)
{
    DIR *d = opendir("/proc");
    int n = 0;

    if (d == NULL)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char cmd[4096];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        size_t len = read_cmdline(e->d_name, cmd, sizeof(cmd));
        if (len == 0 || !is_executor_of(cmd, len, prefix, dev))
            continue;
        if (n < max && pids != NULL)
            pids[n] = (pid_t)atoi(e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

int rt_wait_executors_gone(const char *prefix, int ms)
{
    uint64_t end = rt_now_ms() + (uint64_t)ms;
    int n;

    while ((n = rt_executors(prefix, -1, NULL, 0)) > 0 && rt_now_ms() < end)
        usleep(10000);
    return n;
}

pid_t rt_exec_pid(const char *job, int dev)
{
    char path[RT_PATH + 32];
    pid_t pid = -1;

    snprintf(path, sizeof(path), "%s/dev%d.ctl", job, dev);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    void *p = mmap(NULL, sizeof(struct emu_devctl), PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return -1;
    pid = ((const struct emu_devctl *)p)->exec_pid;
    munmap(p, sizeof(struct emu_devctl));
    return pid;
}

static void child_exec(const char *scenario, const char *job_parent, const char *env, int out_fd,
                       int err_fd)
{
    char *argv[] = {"/proc/self/exe", "--child", (char *)scenario, NULL};

    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    setenv("HCEMU_JOB_DIR", job_parent, 1);
    if (env != NULL)
        putenv((char *)env);
    execv(argv[0], argv);
    _exit(127);
}

/* Read what is available on fd into buf (appending, bounded). Returns 0 at EOF. */
static int drain(int fd, char *buf, size_t cap, size_t *used)
{
    char tmp[1024];
    ssize_t n = read(fd, tmp, sizeof(tmp));

    if (n <= 0)
        return n < 0 && errno == EINTR;
    size_t room = cap - 1 - *used;
    size_t k = (size_t)n < room ? (size_t)n : room;
    memcpy(buf + *used, tmp, k);
    *used += k;
    buf[*used] = '\0';
    return 1;
}

int rt_child_run(const char *scenario, const char *job_parent, const char *env, int sig,
                 int timeout_ms, struct rt_child *out)
{
    int po[2], pe[2];
    char obuf[256] = "";
    size_t oused = 0, eused = 0;

    memset(out, 0, sizeof(*out));
    if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        child_exec(scenario, job_parent, env, po[1], pe[1]);
    close(po[1]);
    close(pe[1]);
    uint64_t end = rt_now_ms() + (uint64_t)timeout_ms;
    int open_o = 1, open_e = 1, sent = 0;
    /* Read both pipes until the child closes them (it exited) or the deadline passes. */
    while ((open_o || open_e) && rt_now_ms() < end) {
        struct pollfd p[2] = {{.fd = open_o ? po[0] : -1, .events = POLLIN},
                              {.fd = open_e ? pe[0] : -1, .events = POLLIN}};
        if (poll(p, 2, 20) < 0 && errno != EINTR)
            break;
        if (p[0].revents)
            open_o = drain(po[0], obuf, sizeof(obuf), &oused);
        if (p[1].revents)
            open_e = drain(pe[0], out->err, sizeof(out->err), &eused);
        if (!out->saw_ready && strstr(obuf, "READY") != NULL)
            out->saw_ready = 1;
        if (sig != 0 && out->saw_ready && !sent) {
            kill(pid, sig);
            sent = 1;
        }
    }
    close(po[0]);
    close(pe[0]);
    for (;;) {
        pid_t r = waitpid(pid, &out->status, WNOHANG);
        if (r == pid)
            break;
        if (r < 0)
            return -1;
        if (rt_now_ms() >= end) {
            out->timed_out = 1;
            kill(pid, SIGKILL);
            waitpid(pid, &out->status, 0);
            break;
        }
        usleep(5000);
    }
    return 0;
}

static uint8_t pattern_byte(size_t i, uint32_t seed)
{
    uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u;
    return (uint8_t)((x >> 13) ^ (x >> 24));
}

void rt_fill(void *p, size_t n, uint32_t seed)
{
    uint8_t *b = p;

    for (size_t i = 0; i < n; i++)
        b[i] = pattern_byte(i, seed);
}

long rt_check(const void *p, size_t n, uint32_t seed)
{
    const uint8_t *b = p;

    for (size_t i = 0; i < n; i++)
        if (b[i] != pattern_byte(i, seed))
            return (long)i;
    return -1;
}

int rt_all_bytes(const void *p, size_t n, uint8_t v)
{
    const uint8_t *b = p;

    for (size_t i = 0; i < n; i++)
        if (b[i] != v)
            return 0;
    return 1;
}

int rt_group_open(char *parent, size_t len, int ndev)
{
    if (rt_job_parent_make(parent, len) != 0 || aclInit(NULL) != ACL_SUCCESS)
        return -1;
    for (int d = ndev - 1; d >= 0; d--)
        if (aclrtSetDevice(d) != ACL_SUCCESS)
            return -1;
    return 0;
}

int rt_group_close(const char *parent, int ndev)
{
    int ok = 1;

    for (int d = ndev - 1; d >= 0; d--)
        ok = aclrtResetDevice(d) == ACL_SUCCESS && ok;
    ok = aclFinalize() == ACL_SUCCESS && ok;
    /* Nothing may outlive aclFinalize: no job folder, no executor. */
    ok = ok && rt_job_dirs(parent, NULL, 0) == 0 && rt_wait_executors_gone(parent, 5000) == 0;
    rt_job_parent_remove(parent);
    return ok ? 0 : -1;
}

int rt_job_parent_finish(const char *parent)
{
    int left = rt_wait_executors_gone(parent, 5000);

    rt_job_parent_remove(parent);
    return left == 0 ? 0 : -1;
}
