/* runtime.c - process-wide state of the host library: configuration, the job folder, the
 * current device of each OS thread, and clean-up at aclFinalize, exit, SIGINT and SIGTERM. */
#include "runtime.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

void emu_runtime_cleanup_now(void)
{
    if (atomic_exchange(&cleanup_started, 1))
        return;
    for (uint32_t i = 0; i < EMU_MAX_DEVICES; i++)
        if (emu_rt.devs[i].sock >= 0)
            close(emu_rt.devs[i].sock); /* the executor ends when its hosts hang up */
    /* Reap the executors we started, so none is left a zombie (waitpid and usleep are
     * async-signal-safe: this also runs from signal handlers). */
    for (uint32_t i = 0; i < EMU_MAX_DEVICES; i++) {
        pid_t pid = emu_rt.devs[i].child_pid;
        for (int k = 0; pid > 0 && k < 200; k++) {
            pid_t r = waitpid(pid, NULL, WNOHANG);
            if (r == pid || r < 0)
                break;
            usleep(10000);
        }
    }
    if (emu_rt.own_job_dir && emu_rt.job_dir[0] != '\0')
        emu_secure_dir_remove(emu_rt.job_dir);
}

static void on_exit_cb(void)
{
    emu_runtime_cleanup_now();
}

static void on_signal(int sig)
{
    emu_runtime_cleanup_now();
    signal(sig, SIG_DFL);
    raise(sig);
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

emu_status emu_runtime_init(void)
{
    emu_status s = EMU_OK;

    pthread_mutex_lock(&emu_rt.lock);
    if (!emu_rt.job_ready) {
        emu_os_raise_nofile();
        read_config();
        s = make_job_dir();
        if (s == EMU_OK) {
            atomic_store(&cleanup_started, 0);
            emu_rt.job_ready = true;
            emu_spin_open(emu_rt.job_dir); /* stream syncs spin within the job's budget */
            static bool registered;
            if (!registered) {
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
        for (uint32_t i = 0; i < EMU_MAX_DEVICES; i++)
            emu_device_close(&emu_rt.devs[i]);
        emu_pin_fini();
        if (emu_rt.own_job_dir)
            emu_secure_dir_remove(emu_rt.job_dir);
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
