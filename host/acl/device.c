/* device.c - starting, joining and watching device executors.
 *
 * The first process of a job that uses device N starts hcemu-device for it (a flock on
 * dev<N>.lock makes that race-free across processes); later ones join it through its socket.
 * The executor is detached from the terminal (setsid), so Ctrl-C reaches only the host,
 * which then cleans up; it ends when its last host disconnects, and its parent reaps it when
 * it closes the device. */
#include "device.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/contract/job.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/platform/secure_dir.h"
#include "common/contract/settings.h"
#include "fault.h"
#include "runtime.h"

#define START_BASE_MS 30000.0
#define START_PER_DEV_MS 500.0 /* per device of the job per core */
#define START_MAX_MS 300000
#define LIVENESS_SLICE_NS 50000000ull
#define HANGUP_POLL_NS 1000000ull

static emu_status find_executor(char *out, size_t len)
{
    const char *env = emu_settings_str(EMU_SET_DEVICE_BIN);
    Dl_info info;

    if (*env != '\0') {
        snprintf(out, len, "%s", env);
        return access(out, X_OK) == 0 ? EMU_OK : EMU_EFILE;
    }
    /* Installed and build trees alike: <prefix>/lib/libhcemu.so -> <prefix>/bin. */
    if (dladdr((void *)find_executor, &info) != 0 && info.dli_fname != NULL) {
        char lib[PATH_MAX];
        snprintf(lib, sizeof(lib), "%s", info.dli_fname);
        char *dir = dirname(lib);
        snprintf(out, len, "%s/../bin/hcemu-device", dir);
        if (access(out, X_OK) == 0)
            return EMU_OK;
        snprintf(out, len, "%s/hcemu-device", dir);
        if (access(out, X_OK) == 0)
            return EMU_OK;
    }
    EMU_LOG_ERR("cannot find the hcemu-device executor next to libhcemu; set HCEMU_DEVICE_BIN");
    return EMU_EFILE;
}

/* A fresh control file holding only this process's settings: the executor adopts them, so
 * it never reads its own environment. Called under the device's start lock. */
static emu_status write_settings(uint32_t id)
{
    struct emu_settings_block b;
    char path[512];
    emu_status s;

    if ((s = emu_job_path(path, sizeof(path), emu_rt.job_dir, "dev%u.ctl", id)) != EMU_OK)
        return s;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    emu_settings_export(&b);
    bool ok = fd >= 0 && ftruncate(fd, (off_t)sizeof(struct emu_devctl)) == 0 &&
              pwrite(fd, &b, sizeof(b), (off_t)offsetof(struct emu_devctl, settings)) ==
                  (ssize_t)sizeof(b);
    if (fd >= 0)
        close(fd);
    if (!ok) {
        EMU_LOG_ERR("device %u: cannot write %s: %s", id, path, strerror(errno));
        return EMU_EFILE;
    }
    return EMU_OK;
}

/* How long an executor may take to start. Start-up is CPU work (exec, dynamic linking,
 * mapping, threads), and every device of a job may start at once on a few cores: the time
 * grows with the job's device count per core and with the machine's load, so the limit
 * does too, within START_MAX_MS, so that a broken executor is still named in bounded time. */
static int start_timeout_ms(void)
{
    double cores = (double)emu_os_cpu_count(), load = 0;
    double ms = START_BASE_MS + START_PER_DEV_MS * (double)emu_rt.ndev / cores;

    if (getloadavg(&load, 1) == 1 && load > cores)
        ms *= load / cores;
    return ms < START_MAX_MS ? (int)ms : START_MAX_MS;
}

/* posix_spawn, not fork: it does not copy the host's page tables, which in a process with
 * hundreds of devices mapped is most of the cost of starting one more. */
static emu_status start_child(const char *bin, char *const argv[], int keep_fd, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    int rc;

    if (posix_spawn_file_actions_init(&fa) != 0)
        return EMU_ENOMEM;
    if (posix_spawnattr_init(&at) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return EMU_ENOMEM;
    }
    /* dup2 onto itself clears close-on-exec: the ready pipe survives exec. setsid detaches
     * the executor from the terminal, so terminal signals (Ctrl-C) never reach it. */
    rc = posix_spawn_file_actions_adddup2(&fa, keep_fd, keep_fd);
    if (rc == 0)
        rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
    if (rc == 0)
        rc = posix_spawn(pid, bin, &fa, &at, argv, environ);
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        EMU_LOG_ERR("cannot start the executor %s: %s", bin, strerror(rc));
        return EMU_ESYSCALL;
    }
    return EMU_OK;
}

static emu_status spawn(uint32_t id, pid_t *child)
{
    char bin[PATH_MAX], dev[16], mem[32], rfd[16];
    int pfd[2];
    pid_t pid;

    if (find_executor(bin, sizeof(bin)) != EMU_OK || write_settings(id) != EMU_OK)
        return EMU_EFILE;
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return EMU_ESYSCALL;
    snprintf(dev, sizeof(dev), "%u", id);
    snprintf(mem, sizeof(mem), "%llu", (unsigned long long)emu_rt.dev_mem);
    snprintf(rfd, sizeof(rfd), "%d", pfd[1]);
    char *argv[] = {bin,     "--job", emu_rt.job_dir, "--dev", dev,
                    "--mem", mem,     "--ready-fd",   rfd,     NULL};
    emu_status s = start_child(bin, argv, pfd[1], &pid);
    close(pfd[1]);
    if (s != EMU_OK) {
        close(pfd[0]);
        return s;
    }
    *child = pid;
    int timeout = start_timeout_ms();
    struct pollfd p = {.fd = pfd[0], .events = POLLIN};
    char c = 0;
    int ok = poll(&p, 1, timeout) == 1 && read(pfd[0], &c, 1) == 1 && c == 'R';
    close(pfd[0]);
    if (!ok) {
        EMU_LOG_ERR("device %u: the executor %s did not start (%s within %d ms)", id, bin,
                    p.revents == 0 ? "no answer" : "it ended first", timeout);
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        *child = 0;
        return EMU_EDEVLOST;
    }
    return EMU_OK;
}

static int connect_sock(uint32_t id)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    char path[512];

    if (emu_job_path(path, sizeof(path), emu_rt.job_dir, "dev%u.sock", id) != EMU_OK ||
        snprintf(a.sun_path, sizeof(a.sun_path), "%s", path) >= (int)sizeof(a.sun_path))
        return -1;
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static emu_status map_device(struct emu_hdev *d)
{
    char path[512];
    void *p;
    emu_status s;
    int fd;

    if ((s = emu_job_path(path, sizeof(path), emu_rt.job_dir, "dev%u.ctl", d->id)) != EMU_OK)
        return s;
    if (emu_secure_dir_open_path(path, O_RDWR, 0, &fd) != EMU_OK)
        return EMU_EFILE;
    s = emu_os_map_shared(fd, 0, sizeof(struct emu_devctl), NULL, 0, &p);
    close(fd);
    if (s != EMU_OK)
        return s;
    d->ctl = p;
    if (d->ctl->magic != EMU_DEVCTL_MAGIC || d->ctl->version != EMU_DEVCTL_VERSION) {
        EMU_LOG_ERR("device %u: control block has the wrong version", d->id);
        return EMU_EINTERNAL;
    }
    emu_settings_check_joined(&d->ctl->settings, d->id);
    d->mem_size = d->ctl->mem_size;
    if ((s = emu_job_path(path, sizeof(path), emu_rt.job_dir, "dev%u.mem", d->id)) != EMU_OK)
        return s;
    if (emu_secure_dir_open_path(path, O_RDWR, 0, &fd) != EMU_OK)
        return EMU_EFILE;
    /* Never at the device's window: host code must not reach device memory directly. */
    s = emu_os_map_shared(fd, 0, d->mem_size, NULL, 0, &p);
    close(fd);
    if (s == EMU_OK)
        d->alias = p;
    return s;
}

static emu_status hello(struct emu_hdev *d)
{
    struct emu_rpc_req q = {.op = EMU_RPC_HELLO};
    struct emu_rpc_rep r;
    emu_status s = emu_device_rpc(d, &q, &r);

    if (s == EMU_OK)
        d->exec_pid = (int)r.val0;
    return s;
}

static emu_status open_locked(struct emu_hdev *d)
{
    char path[512];
    emu_status s;

    if ((s = emu_job_path(path, sizeof(path), emu_rt.job_dir, "dev%u.lock", d->id)) != EMU_OK)
        return s;
    int lfd;
    if (emu_secure_dir_open_path(path, O_RDWR | O_CREAT, 0600, &lfd) != EMU_OK)
        return EMU_EFILE;
    flock(lfd, LOCK_EX);
    d->sock = connect_sock(d->id);
    if (d->sock < 0) {
        s = spawn(d->id, &d->child_pid);
        if (s == EMU_OK && (d->sock = connect_sock(d->id)) < 0)
            s = EMU_EDEVLOST;
    }
    flock(lfd, LOCK_UN);
    close(lfd);
    if (s == EMU_OK)
        s = map_device(d);
    if (s == EMU_OK)
        s = hello(d);
    if (s != EMU_OK) {
        EMU_LOG_ERR("device %u could not be opened: %s", d->id, emu_status_str(s));
        emu_device_close(d);
        return s;
    }
    d->open = true;
    d->failed = false;
    d->failure_reported = false;
    return EMU_OK;
}

emu_status emu_device_open(uint32_t id, struct emu_hdev **out)
{
    if (id >= emu_rt.ndev)
        return EMU_EDEVICE;
    struct emu_hdev *d = &emu_rt.devs[id];
    emu_status s = EMU_OK;

    pthread_mutex_lock(&d->lock);
    if (d->failed)
        s = EMU_EDEVLOST;
    else if (!d->open)
        s = open_locked(d);
    pthread_mutex_unlock(&d->lock);
    *out = d;
    return s;
}

/* Collect the executor we started: it ends promptly once its hosts hang up (closing many
 * devices then costs about one executor's exit, not a sleep each). One that outlives its
 * hang-up by EMU_DEVICE_REAP_MS is left to be collected when this process ends. */
static void reap(struct emu_hdev *d)
{
    if (d->child_pid > 0)
        (void)emu_os_wait_child(d->child_pid, EMU_DEVICE_REAP_MS);
    d->child_pid = 0;
}

/* Let go of the device's mappings and socket: its executor ends when its last host has. */
static void hang_up(struct emu_hdev *d)
{
    emu_runtime_device_lost(d);
    if (d->alias != NULL)
        emu_os_unmap(d->alias, d->mem_size);
    d->alias = NULL;
    if (d->ctl != NULL)
        emu_os_unmap(d->ctl, sizeof(struct emu_devctl));
    d->ctl = NULL;
    if (d->sock >= 0)
        close(d->sock);
    d->sock = -1;
}

/* After hang_up: collect the executor and forget the device. */
static void forget(struct emu_hdev *d)
{
    reap(d);
    d->open = false;
    d->failed = false; /* a later aclInit starts a fresh executor */
    d->default_stream = NULL;
    d->set_refs = 0;
}

void emu_device_close(struct emu_hdev *d)
{
    hang_up(d);
    forget(d);
}

void emu_device_close_all(struct emu_hdev *devs, uint32_t n)
{
    /* Every hang-up first, so the executors end side by side: one after the other, an
     * 8-device job's aclFinalize took 80-90 ms here, each executor's exit about 10. */
    for (uint32_t i = 0; i < n; i++)
        hang_up(&devs[i]);
    for (uint32_t i = 0; i < n; i++)
        forget(&devs[i]);
}

/* Whether the executor hung up (it died without publishing a state: SIGKILL). poll() is a
 * syscall and every copy checks liveness, so the socket is polled at most once per
 * HANGUP_POLL_NS per device; a death is still noticed within that time and a timer tick.
 * The coarse clock: a host checks its devices eight times an 8-rank 1 KiB allgather call,
 * and reading the time-stamp counter there took 2 % of the loop's `perf` samples on a VM
 * (0.3 % now). A benign race: two threads may both poll. */
static bool hung_up(struct emu_hdev *d)
{
    uint64_t now = emu_os_coarse_ns();

    if (now < emu_load_relaxed(&d->next_poll_ns))
        return false;
    emu_store_relaxed(&d->next_poll_ns, now + HANGUP_POLL_NS);
    struct pollfd p = {.fd = d->sock, .events = 0};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR));
}

emu_status emu_device_check(struct emu_hdev *d)
{
    emu_runtime_park_if_dying();
    if (d->failed)
        return EMU_EDEVLOST;
    if (!d->open || d->ctl == NULL)
        return EMU_EDEVLOST;
    uint32_t st = emu_load_acquire(&d->ctl->state);
    if (st == EMU_DEV_READY && !hung_up(d))
        return EMU_OK;
    pthread_mutex_lock(&d->lock);
    d->failed = true;
    pthread_mutex_unlock(&d->lock);
    emu_fault_report_device(d);
    /* The call that notices a kernel timeout says so (507017); later calls only see a
     * failed device. */
    return d->ctl->fault.timed_out ? EMU_EKERNEL_TIMEOUT : EMU_EDEVLOST;
}

emu_status emu_device_check_now(struct emu_hdev *d)
{
    emu_store_relaxed(&d->next_poll_ns, 0);
    return emu_device_check(d);
}

/* The executor answers every request quickly, except loading an image, which runs the
 * image's constructors: one that never returns would block this thread forever. The reply
 * is awaited in slices (a dead executor is noticed at once) up to HCEMU_RPC_TIMEOUT_MS;
 * then the executor is killed and the device failed, so no executor is left behind. */
static emu_status await_reply(struct emu_hdev *d, const struct emu_rpc_req *q)
{
    uint64_t limit_ms = emu_settings_u64(EMU_SET_RPC_TIMEOUT_MS);
    uint64_t deadline = emu_os_now_ns() + limit_ms * 1000000ull;

    for (;;) {
        struct pollfd p = {.fd = d->sock, .events = POLLIN};
        int n = poll(&p, 1, (int)(LIVENESS_SLICE_NS / 1000000ull));
        if (n == 1)
            return (p.revents & POLLIN) ? EMU_OK : EMU_EDEVLOST;
        if (n < 0 && errno != EINTR)
            return EMU_EDEVLOST;
        if (emu_os_now_ns() >= deadline)
            break;
    }
    EMU_LOG_ERR("device %u: its executor did not answer request %u%s%.*s within %llu ms "
                "(HCEMU_RPC_TIMEOUT_MS; an image constructor that never returns?): the device "
                "is failed and its executor killed",
                d->id, (unsigned)q->op, q->text[0] != 0 ? " for " : "", (int)strnlen(q->text, 200),
                q->text, (unsigned long long)limit_ms);
    pthread_mutex_lock(&d->lock);
    d->failed = true;
    pthread_mutex_unlock(&d->lock);
    if (d->exec_pid > 0)
        kill(d->exec_pid, SIGKILL);
    return EMU_ETIMEOUT;
}

emu_status emu_device_rpc(struct emu_hdev *d, const struct emu_rpc_req *q, struct emu_rpc_rep *r)
{
    emu_status s = EMU_OK;

    emu_devctl_release(); /* a ring this thread held back may be what the reply needs */
    pthread_mutex_lock(&d->rpc_lock);
    if (send(d->sock, q, sizeof(*q), MSG_NOSIGNAL) != (ssize_t)sizeof(*q))
        s = EMU_EDEVLOST;
    else if ((s = await_reply(d, q)) == EMU_OK &&
             recv(d->sock, r, sizeof(*r), 0) != (ssize_t)sizeof(*r))
        s = EMU_EDEVLOST;
    pthread_mutex_unlock(&d->rpc_lock);
    if (s == EMU_ETIMEOUT)
        return EMU_ETIMEOUT;
    if (s != EMU_OK) {
        emu_store_relaxed(&d->next_poll_ns, 0); /* the socket just failed: poll it now */
        return emu_device_check(d) == EMU_OK ? EMU_EINTERNAL : EMU_EDEVLOST;
    }
    r->msg[sizeof(r->msg) - 1] = '\0';
    return (emu_status)r->status;
}

void emu_device_post(struct emu_hdev *d, const struct emu_rpc_req *q)
{
    struct emu_rpc_rep r;

    if (emu_device_rpc(d, q, &r) != EMU_OK)
        EMU_LOG_DEBUG("device %u: request %u was not served", d->id, (unsigned)q->op);
}

emu_status emu_device_wait(struct emu_hdev *d, _Atomic uint32_t *word, uint32_t seen,
                           uint64_t deadline)
{
    uint64_t start = emu_os_now_ns(), hang_ns = UINT64_MAX; /* read once the wait is long */

    emu_devctl_release(); /* a ring this thread held back may be what we wait for */

    for (;;) {
        if (emu_load_acquire(word) != seen)
            return EMU_OK;
        emu_status s = emu_device_check(d);
        if (s != EMU_OK)
            return s;
        uint64_t now = emu_os_now_ns();
        if (now >= deadline)
            return EMU_ETIMEOUT;
        /* A stopped executor cannot report itself, and a job of one device has no peer
         * executor to do it: the host waiting on it does (HCEMU_HANG_MS=0 turns it off). */
        if (hang_ns == UINT64_MAX && now - start >= LIVENESS_SLICE_NS)
            hang_ns = emu_settings_u64(EMU_SET_HANG_MS) * 1000000ull;
        if (hang_ns != 0 && hang_ns != UINT64_MAX && now - start >= hang_ns)
            (void)emu_devctl_check_stopped(d->ctl);
        uint64_t slice = now + LIVENESS_SLICE_NS;
        (void)emu_os_futex_wait(word, seen, slice < deadline ? slice : deadline);
    }
}

emu_status emu_device_current(struct emu_hdev **out)
{
    if (emu_runtime_current_device() < 0) {
        EMU_LOG_ERR("no device is set on this thread: call aclrtSetDevice first");
        return EMU_ENODEVICE;
    }
    emu_status s = emu_device_open((uint32_t)emu_runtime_current_device(), out);
    if (s != EMU_OK)
        return s;
    return emu_device_check(*out);
}
