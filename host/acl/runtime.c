/* runtime.c - process-wide state of the host library: the current device of each OS thread,
 * the device-lost callbacks, and clean-up at exit, SIGINT and SIGTERM. Starting and ending
 * the job (configuration, the job folder, aclFinalize): runtime_life.c. */
#include "runtime.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/contract/job.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/platform/secure_dir.h"

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

void emu_runtime_arm_cleanup(void)
{
    static bool registered;

    atomic_store(&cleanup_started, CLEANUP_NONE);
    if (!registered) {
        atexit(on_exit_barrier);
        atexit(on_exit_cb);
        registered = true;
    }
    install_signal_cleanup();
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
