/* runtime.c - process-wide state of the host library: configuration, the job folder, the
 * current device of each OS thread, and clean-up at aclFinalize, exit, SIGINT and SIGTERM. */
#include "runtime.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/job.h"
#include "common/log.h"
#include "common/os.h"
#include "common/product.h"
#include "common/secure_dir.h"
#include "common/settings.h"
#include "common/spin.h"
#include "fault.h"
#include "model_time.h"
#include "pin.h"

#define MAX_WATCHERS 8

struct emu_runtime emu_rt = {.lock = PTHREAD_MUTEX_INITIALIZER};
static _Thread_local int current_dev = -1;
static _Atomic int cleanup_started;

/* Modules that keep per-device state register here; the list is under watch_lock. */
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static emu_device_lost_cb watchers[MAX_WATCHERS];
static uint32_t n_watchers;

void emu_runtime_on_device_lost(emu_device_lost_cb cb)
{
    bool known = false;

    pthread_mutex_lock(&watch_lock);
    for (uint32_t i = 0; i < n_watchers; i++)
        known = known || watchers[i] == cb;
    if (!known && n_watchers < MAX_WATCHERS)
        watchers[n_watchers++] = cb;
    else if (!known)
        EMU_LOG_ERR("more than %u device-lost callbacks: raise MAX_WATCHERS", MAX_WATCHERS);
    pthread_mutex_unlock(&watch_lock);
}

void emu_runtime_device_lost(struct emu_hdev *d)
{
    emu_device_lost_cb list[MAX_WATCHERS];
    uint32_t n;

    pthread_mutex_lock(&watch_lock);
    n = n_watchers;
    memcpy(list, watchers, sizeof(list));
    pthread_mutex_unlock(&watch_lock);
    for (uint32_t i = 0; i < n; i++)
        list[i](d);
}

static void read_config(void)
{
    emu_rt.ndev = (uint32_t)emu_settings_u64(EMU_SET_DEVICES);
    emu_rt.dev_mem = emu_settings_u64(EMU_SET_DEVICE_MEM_GB) << 30;
    snprintf(emu_rt.soc, sizeof(emu_rt.soc), "%s", emu_product_soc());
    for (uint32_t i = 0; i < EMU_MAX_DEVICES; i++) {
        emu_rt.devs[i].id = i;
        pthread_mutex_init(&emu_rt.devs[i].lock, NULL);
        pthread_mutex_init(&emu_rt.devs[i].rpc_lock, NULL);
        emu_rt.devs[i].sock = -1;
    }
}

static emu_status make_job_dir(void)
{
    const char *path = emu_settings_str(EMU_SET_JOB_PATH);

    if (*path != '\0') {
        /* hcemu-run (or another launcher) made the folder and removes it; it must be a
         * private folder of ours, and we join its owners so it is not collected under us. */
        if (snprintf(emu_rt.job_dir, sizeof(emu_rt.job_dir), "%s", path) >=
            (int)sizeof(emu_rt.job_dir) - 16) {
            EMU_LOG_ERR("HCEMU_JOB_PATH %s is too long", path);
            return EMU_EINVAL;
        }
        emu_rt.own_job_dir = false;
        emu_status s = emu_secure_dir_ensure(emu_rt.job_dir);
        return s == EMU_OK ? emu_job_claim(emu_rt.job_dir) : s;
    }
    const char *parent = emu_settings_str(EMU_SET_JOB_DIR);
    /* Room for the longest file name inside. */
    emu_status s = emu_job_make(parent, "", emu_rt.job_dir, sizeof(emu_rt.job_dir) - 16);
    emu_rt.own_job_dir = s == EMU_OK;
    return s;
}

/* Clean-up runs once per job, from whichever of exit(), a signal or aclFinalize comes first;
 * every other thread that gets there meanwhile waits for it to finish (bounded), so no
 * exit() of another thread ends the process while the folder is half removed. */
enum { CLEANUP_NONE, CLEANUP_RUNNING, CLEANUP_DONE };
#define CLEANUP_WAIT_MS 10000
static _Atomic pid_t cleaner_tid;  /* the thread running it */
static _Atomic int exit_signal;    /* the first terminating signal received, 0 if none */

static void wait_cleanup_done(void)
{
    for (int i = 0; i < CLEANUP_WAIT_MS / 5 && atomic_load(&cleanup_started) != CLEANUP_DONE; i++)
        usleep(5000);
}

/* Wait (bounded) for the executors we started, all hung up on already, so they end side by
 * side; one that does not end within EMU_DEVICE_REAP_MS (stopped, or stuck in a kernel's
 * constructor) is killed, so none outlives us. Async-signal-safe (emu_os_wait_child, kill,
 * waitpid): this also runs from signal handlers. */
static void reap_all(void)
{
    for (uint32_t i = 0; i < EMU_MAX_DEVICES; i++) {
        pid_t pid = emu_rt.devs[i].child_pid;
        if (pid > 0 && !emu_os_wait_child(pid, EMU_DEVICE_REAP_MS)) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
        }
    }
}

void emu_runtime_cleanup_now(void)
{
    int expected = CLEANUP_NONE;
    pid_t self = (pid_t)syscall(SYS_gettid);

    if (!atomic_compare_exchange_strong(&cleanup_started, &expected, CLEANUP_RUNNING)) {
        /* A signal that interrupted this very thread's clean-up must not wait for itself. */
        if (expected == CLEANUP_RUNNING && atomic_load(&cleaner_tid) != self)
            wait_cleanup_done();
        return;
    }
    atomic_store(&cleaner_tid, self);
    /* The folder first: whatever ends this process from here on, nothing is left in it. */
    if (emu_rt.own_job_dir && emu_rt.job_dir[0] != '\0')
        emu_secure_dir_remove(emu_rt.job_dir);
    for (uint32_t i = 0; i < EMU_MAX_DEVICES; i++)
        if (emu_rt.devs[i].sock >= 0)
            close(emu_rt.devs[i].sock); /* the executor ends when its hosts hang up */
    reap_all();
    /* A joined folder (hcemu-run's): the last of its users to leave removes it. */
    if (!emu_rt.own_job_dir && emu_rt.job_dir[0] != '\0')
        (void)emu_job_leave(emu_rt.job_dir);
    atomic_store(&cleanup_started, CLEANUP_DONE);
}

/* Die of `sig` as a shell expects (status 128 + sig). */
static void die_of(int sig)
{
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_exit_cb(void)
{
    emu_runtime_cleanup_now();
    /* A thread that called exit() (say, after a call failed because a Ctrl-C shut the devices
     * down) ends the process with the signal's status, not its own. */
    int sig = atomic_load(&exit_signal);
    if (sig != 0)
        die_of(sig);
}

/* Registered before on_exit_cb, so it runs after it: a second thread calling exit() while
 * the first runs on_exit_cb finds on_exit_cb taken and reaches this instead. */
static void on_exit_barrier(void)
{
    if (atomic_load(&cleanup_started) == CLEANUP_RUNNING &&
        atomic_load(&cleaner_tid) != (pid_t)syscall(SYS_gettid))
        wait_cleanup_done();
}

void emu_runtime_park_if_dying(void)
{
    if (atomic_load(&exit_signal) == 0 ||
        atomic_load(&cleaner_tid) == (pid_t)syscall(SYS_gettid))
        return;
    /* The process ends once the clean-up is over; this wait only bounds a surprise. */
    for (int i = 0; i < 2 * CLEANUP_WAIT_MS / 5; i++)
        usleep(5000);
}

static void on_signal(int sig)
{
    int none = 0;

    atomic_compare_exchange_strong(&exit_signal, &none, sig);
    emu_runtime_cleanup_now();
    if (atomic_load(&cleanup_started) == CLEANUP_RUNNING)
        return; /* we interrupted our own clean-up: it finishes, then exit_signal is raised */
    die_of(sig);
}

static void install_signal_cleanup(void)
{
    /* Signals that end the process by default: clean up, then die of the same signal. */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGABRT};

    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            signal(sigs[i], on_signal);
    }
}

/* A fresh generation for this start; a fresh key for a new process. */
static void new_incarnation(void)
{
    if (emu_rt.proc_key_pid != (int32_t)getpid() || emu_rt.proc_key == 0) {
        uint64_t k = 0;
        if (getrandom(&k, sizeof(k), GRND_NONBLOCK) != (ssize_t)sizeof(k))
            k = emu_os_now_ns() ^ ((uint64_t)getpid() << 32);
        emu_rt.proc_key = k != 0 ? k : 1;
        emu_rt.proc_key_pid = (int32_t)getpid();
    }
    emu_rt.generation++;
}

emu_status emu_runtime_init(void)
{
    emu_status s = EMU_OK;

    pthread_mutex_lock(&emu_rt.lock);
    if (!emu_rt.job_ready) {
        emu_os_raise_nofile();
        read_config();
        s = make_job_dir();
        if (s == EMU_OK) {
            atomic_store(&cleanup_started, CLEANUP_NONE);
            new_incarnation();
            emu_rt.job_ready = true;
            emu_spin_open(emu_rt.job_dir); /* stream syncs spin within the job's budget */
            static bool registered;
            if (!registered) {
                atexit(on_exit_barrier);
                atexit(on_exit_cb);
                registered = true;
            }
            install_signal_cleanup();
            emu_fault_install_host();
        }
    }
    pthread_mutex_unlock(&emu_rt.lock);
    return s;
}

void emu_runtime_fini(void)
{
    pthread_mutex_lock(&emu_rt.lock);
    if (emu_rt.job_ready) {
        emu_device_close_all(emu_rt.devs, EMU_MAX_DEVICES);
        emu_pin_fini();
        if (emu_rt.own_job_dir)
            emu_secure_dir_remove(emu_rt.job_dir);
        (void)emu_job_leave(emu_rt.job_dir);
        emu_model_time_job_end();
        emu_rt.job_ready = false;
        emu_rt.own_job_dir = false;
    }
    pthread_mutex_unlock(&emu_rt.lock);
}

bool emu_runtime_is_initialized(void)
{
    return emu_rt.init_refs > 0;
}

int emu_runtime_current_device(void)
{
    return current_dev;
}

void emu_runtime_set_current_device(int dev)
{
    char ctx[16];

    current_dev = dev;
    snprintf(ctx, sizeof(ctx), "dev%d", dev);
    emu_log_set_context(dev >= 0 ? ctx : NULL);
}

emu_status emu_runtime_current(struct emu_hdev **out)
{
    if (current_dev < 0) {
        EMU_LOG_ERR("no device is set on this thread: call aclrtSetDevice first");
        return EMU_ENODEVICE;
    }
    emu_status s = emu_device_open((uint32_t)current_dev, out);
    if (s != EMU_OK)
        return s;
    return emu_device_check(*out);
}
