/* test_comm_util.c - see test_comm_util.h. */
#include "test_comm_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <acl/acl.h>

void cu_tmpdir(char *out, size_t len)
{
    snprintf(out, len, "/dev/shm/hcemu-commtest-XXXXXX");
    assert_non_null(mkdtemp(out));
}

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

void cu_rmtree(const char *path)
{
    nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

int cu_count_files(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;

    if (d == NULL)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (prefix == NULL || strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            n++;
    }
    closedir(d);
    return n;
}

int cu_executors(const char *needle)
{
    DIR *d = opendir("/proc");
    int n = 0;

    if (d == NULL)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char path[300], buf[4096], stat[512];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        size_t k = fread(stat, 1, sizeof(stat) - 1, f);
        fclose(f);
        stat[k] = '\0';
        char *rp = strrchr(stat, ')');
        if (strstr(stat, "(hcemu-device)") == NULL || rp == NULL || rp[2] == 'Z')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
        f = fopen(path, "r");
        if (f == NULL)
            continue;
        k = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        for (size_t i = 0; i < k; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
        buf[k] = '\0';
        n += strstr(buf, needle) != NULL;
    }
    closedir(d);
    return n;
}

int cu_wait_executors_gone(const char *needle, int ms)
{
    int left = cu_executors(needle);

    for (int t = 0; left > 0 && t < ms; t += 20) {
        usleep(20000);
        left = cu_executors(needle);
    }
    return left;
}

void cu_capture_begin(struct cu_capture *c)
{
    char path[] = "/dev/shm/hcemu-commtest-log-XXXXXX";

    fflush(stderr);
    c->fd = mkstemp(path);
    assert_true(c->fd >= 0);
    unlink(path);
    c->saved = dup(STDERR_FILENO);
    assert_true(c->saved >= 0);
    assert_true(dup2(c->fd, STDERR_FILENO) >= 0);
}

void cu_capture_end(struct cu_capture *c)
{
    fflush(stderr);
    dup2(c->saved, STDERR_FILENO);
    close(c->saved);
    ssize_t n = pread(c->fd, c->text, sizeof(c->text) - 1, 0);
    close(c->fd);
    c->text[n > 0 ? n : 0] = '\0';
    c->lines = 0;
    c->errors = 0;
    for (char *p = c->text; *p != '\0';) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        c->lines++;
        if (memmem(p, len, "] error: ", 9) != NULL)
            c->errors++;
        p += len + (nl != NULL);
    }
}

void cu_assert_one_error(const struct cu_capture *c, const char *n1, const char *n2)
{
    if (c->errors != 1 || (n1 && strstr(c->text, n1) == NULL) ||
        (n2 && strstr(c->text, n2) == NULL))
        fail_msg("expected one error line with \"%s\" and \"%s\", got %d:\n%s", n1 ? n1 : "",
                 n2 ? n2 : "", c->errors, c->text);
}

const struct emu_devctl *cu_ctl_map(const char *job, int dev)
{
    char path[CU_PATH];

    snprintf(path, sizeof(path), "%s/dev%d.ctl", job, dev);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    void *p = mmap(NULL, sizeof(struct emu_devctl), PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

void cu_ctl_unmap(const struct emu_devctl *ctl)
{
    if (ctl != NULL)
        munmap((void *)ctl, sizeof(*ctl));
}

int cu_live_streams(const struct emu_devctl *ctl, uint32_t kind)
{
    int n = 0;

    for (uint32_t i = 0; i < EMU_MAX_STREAMS; i++)
        n += atomic_load(&((struct emu_devctl *)ctl)->streams[i].kind) == kind;
    return n;
}

int cu_live_channels(const struct emu_devctl *ctl)
{
    int n = 0;

    for (uint32_t i = 0; i < EMU_MAX_CHANNELS; i++)
        n += atomic_load(&((struct emu_devctl *)ctl)->channels[i].state) != 0;
    return n;
}

int cu_live_comms(const struct emu_devctl *ctl)
{
    int n = 0;

    for (uint32_t i = 0; i < EMU_MAX_COMMS; i++)
        n += atomic_load(&((struct emu_devctl *)ctl)->comms[i].state) != 0;
    return n;
}

uint64_t cu_notifies_used(const struct emu_devctl *ctl)
{
    return ctl->notify_ranges.set.used;
}

uint32_t cu_allocs(const struct emu_devctl *ctl)
{
    return ctl->alloc.set.count;
}

/* ---- ranks as threads ------------------------------------------------------------------ */

static pthread_barrier_t barrier;
static bool barrier_live;

void cu_barrier_init(int n)
{
    if (barrier_live)
        pthread_barrier_destroy(&barrier);
    pthread_barrier_init(&barrier, NULL, (unsigned)n);
    barrier_live = true;
}

void cu_barrier_wait(void)
{
    pthread_barrier_wait(&barrier);
}

static void *rank_main(void *arg)
{
    struct cu_rank *r = arg;

    if (aclrtSetDevice(r->rank) != ACL_SUCCESS) {
        r->init_rc = HCCL_E_RUNTIME;
        return NULL;
    }
    r->init_rc = HcclCommInitRootInfo((uint32_t)r->n, r->root, (uint32_t)r->rank, &r->comm);
    if (r->init_rc == HCCL_SUCCESS && r->body != NULL)
        r->body(r);
    if (r->init_rc == HCCL_SUCCESS && !r->keep)
        r->destroy_rc = HcclCommDestroy(r->comm);
    aclrtResetDevice(r->rank);
    return NULL;
}

void cu_run_ranks(struct cu_rank *ranks, int n, const HcclRootInfo *root, cu_rank_fn body,
                  void *arg)
{
    pthread_t tid[64];

    cu_barrier_init(n);
    for (int i = 0; i < n; i++) {
        ranks[i] = (struct cu_rank){
            .rank = i, .n = n, .root = root, .body = body, .arg = arg, .keep = ranks[i].keep};
        assert_int_equal(pthread_create(&tid[i], NULL, rank_main, &ranks[i]), 0);
    }
    for (int i = 0; i < n; i++)
        pthread_join(tid[i], NULL);
}

/* ---- files and children ------------------------------------------------------------------ */

void cu_write(const char *dir, const char *name, const char *text, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", dir, name);
    FILE *f = fopen(out, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

pid_t cu_spawn(const char *self, const char *scenario, const char *arg, char *const *env)
{
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        for (int i = 0; env != NULL && env[i] != NULL; i++)
            putenv(env[i]);
        execl(self, self, "--child", scenario, arg ? arg : "", (char *)NULL);
        _exit(127);
    }
    return pid;
}

int cu_wait(pid_t pid, int ms)
{
    int st;

    for (int t = 0; t <= ms; t += 10) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return -1;
}

HcclResult cu_desc_to(HcclComm comm, uint32_t me, uint32_t peer, int protocol, uint32_t notifies,
                      HcclChannelDesc *d)
{
    for (uint32_t layer = 0; layer < 2; layer++) {
        CommLink *links;
        uint32_t n;
        HcclResult rc = HcclRankGraphGetLinks(comm, layer, me, peer, &links, &n);
        if (rc != HCCL_SUCCESS)
            return layer == 0 ? rc : HCCL_E_NOT_FOUND;
        for (uint32_t i = 0; i < n; i++) {
            if (protocol >= 0 && links[i].linkAttr.linkProtocol != protocol)
                continue;
            HcclChannelDescInit(d, 1);
            d->remoteRank = peer;
            d->channelProtocol = links[i].linkAttr.linkProtocol;
            d->localEndpoint = links[i].srcEndpointDesc;
            d->remoteEndpoint = links[i].dstEndpointDesc;
            d->notifyNum = notifies;
            return HCCL_SUCCESS;
        }
    }
    return HCCL_E_NOT_FOUND;
}

void cu_job_begin(char *job, size_t len, const char *devices, const char *buffsize)
{
    cu_tmpdir(job, len);
    setenv("HCEMU_JOB_PATH", job, 1);
    setenv("HCEMU_DEVICES", devices, 1);
    setenv("HCEMU_DEVICE_MEM_GB", "1", 1);
    setenv("HCCL_BUFFSIZE", buffsize, 1);
    setenv("HCCL_CONNECT_TIMEOUT", "20", 1);
    unsetenv("HCEMU_RANK");
    unsetenv("HCEMU_TOPOLOGY");
    unsetenv("HCEMU_SOC");
}

int cu_job_end(const char *job, int rc)
{
    int left = cu_wait_executors_gone(job, 5000);

    cu_rmtree(job);
    if (left != 0) {
        fprintf(stderr, "%d executors of %s are still running\n", left, job);
        return 1;
    }
    return rc;
}

int cu_acl_setup(void **state)
{
    (void)state;
    return aclInit(NULL) == ACL_SUCCESS ? 0 : -1;
}

int cu_acl_teardown(void **state)
{
    (void)state;
    aclFinalize();
    return 0;
}
