/* net_lazy.c - the executor's side of the transport to other hosts (net.h) when hcemu is built
 * with UCX: the transport itself (net_ucx.c) is a plug-in, libhcemu_net_ucx.so, loaded on
 * the first request for this executor's network address or a connection. A job on one host
 * never asks, so its executors neither map UCX's five libraries nor run their constructors
 * (patching mmap, reading /proc and /sys, installing signal handlers): about a third of an
 * executor's start-up CPU before (docs/ARCHITECTURE.md, "Start-up cost"). */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/platform/log.h"
#include "common/platform/os.h"
#include "device/exec.h"
#include "net.h"
#include "net_ops.h"

#ifndef HCEMU_INSTALL_LIBDIR
#define HCEMU_INSTALL_LIBDIR "lib"
#endif

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
/* Set once by load() (release), read by any thread (acquire); NULL until loaded or when the
 * load failed. */
static const struct emu_net_ops *_Atomic ops;
static char load_why[320];

/* Defaults for a transport between hosts, set before UCX is loaded so that its constructors
 * see them too; a user's UCX_* variables win (no overwrite). TCP only: the shared-memory
 * transports would leave files in /dev/shm and are of no use between hosts. No memory
 * hooks: nothing is registered, and the executor's kernels must not see UCX patching mmap.
 * Large TCP segments: 4x the bandwidth of the default. A peer that vanished without closing
 * its sockets is found by keepalive: the default 20 s interval took ~50 s to fail the waits
 * on a killed host; 1 s takes a few seconds. */
static void ucx_defaults(void)
{
    static const char *const kv[][2] = {
        {"UCX_TLS", "tcp"},
        {"UCX_TCP_TX_SEG_SIZE", "512k"},
        {"UCX_TCP_RX_SEG_SIZE", "512k"},
        {"UCX_MEM_MALLOC_HOOKS", "n"},
        {"UCX_MEM_EVENTS", "n"},
        {"UCX_WARN_UNUSED_ENV_VARS", "n"},
        {"UCX_KEEPALIVE_INTERVAL", "1s"},
        {"UCX_TCP_KEEPIDLE", "1s"},
        {"UCX_TCP_KEEPINTVL", "1s"},
    };

    for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++)
        setenv(kv[i][0], kv[i][1], 0);
}

/* UCX's constructors install handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGHUP and an
 * alternate stack on the loading thread. The executor's own (its crash report, fault.c; the
 * server's signalfd) were installed first when UCX was linked in, and must stay in force:
 * every disposition and the alternate stack are put back as they were. */
struct saved_signals {
    struct sigaction act[NSIG];
    bool valid[NSIG];
    stack_t alt;
    bool alt_valid;
};

static void save_signals(struct saved_signals *s)
{
    for (int sig = 1; sig < NSIG; sig++)
        s->valid[sig] = sigaction(sig, NULL, &s->act[sig]) == 0;
    s->alt_valid = sigaltstack(NULL, &s->alt) == 0;
}

static void restore_signals(const struct saved_signals *s)
{
    for (int sig = 1; sig < NSIG; sig++)
        if (s->valid[sig] && sig != SIGKILL && sig != SIGSTOP)
            (void)sigaction(sig, &s->act[sig], NULL);
    if (s->alt_valid)
        (void)sigaltstack(&s->alt, NULL);
}

/* The plug-in lies in lib/ beside the executor's bin/ (the build tree, and an installation
 * whose library folder is lib/ or HCEMU_INSTALL_LIBDIR). Opened by path: a bare name would be
 * looked up through the run path of whoever calls dlopen, which is the sanitizer's runtime
 * when it intercepts dlopen. Last, the bare name (LD_LIBRARY_PATH, the system's folders). */
static void *open_plugin(void)
{
    static const char *const libdirs[] = {"lib", HCEMU_INSTALL_LIBDIR};
    char dir[PATH_MAX], path[PATH_MAX + 64];

    if (emu_os_exe_dir(dir, sizeof(dir)) == EMU_OK) {
        for (size_t i = 0; i < sizeof(libdirs) / sizeof(libdirs[0]); i++) {
            snprintf(path, sizeof(path), "%s/../%s/%s", dir, libdirs[i], EMU_NET_PLUGIN);
            if (access(path, F_OK) == 0)
                return dlopen(path, RTLD_NOW | RTLD_LOCAL);
        }
    }
    return dlopen(EMU_NET_PLUGIN, RTLD_NOW | RTLD_LOCAL);
}

static void load(void)
{
    static struct saved_signals saved; /* 8 KiB: not on the server thread's stack */

    ucx_defaults();
    save_signals(&saved);
    void *h = open_plugin();
    restore_signals(&saved);
    const struct emu_net_ops *t = h != NULL ? dlsym(h, EMU_NET_OPS_SYMBOL) : NULL;
    if (h == NULL)
        snprintf(load_why, sizeof(load_why), "cannot load %s: %s", EMU_NET_PLUGIN, dlerror());
    else if (t == NULL || t->version != EMU_NET_OPS_VERSION)
        snprintf(load_why, sizeof(load_why), "%s is of another hcemu build (no table version %u)",
                 EMU_NET_PLUGIN, EMU_NET_OPS_VERSION);
    if (h == NULL || t == NULL || t->version != EMU_NET_OPS_VERSION) {
        EMU_LOG_ERR("device %u: %s; ranks of other hosts are unreachable", emu_exec_g.dev,
                    load_why);
        return; /* a plug-in of another build stays mapped: unloading it could run its code */
    }
    atomic_store_explicit(&ops, t, memory_order_release);
}

/* The plug-in's table, loading it first when nobody has tried yet; NULL (and msg says why)
 * when it cannot be loaded. */
static const struct emu_net_ops *load_ops(char *msg, size_t msg_len)
{
    pthread_once(&load_once, load);
    const struct emu_net_ops *t = atomic_load_explicit(&ops, memory_order_acquire);
    if (t == NULL)
        snprintf(msg, msg_len, "%s", load_why);
    return t;
}

emu_status emu_net_address(const struct emu_net_job *job, uint8_t *buf, size_t cap,
                           uint32_t *len, char *msg, size_t msg_len)
{
    /* UCX listens on the interface the job was given, not on every one of the machine: set
     * before the plug-in loads (a user's UCX_NET_DEVICES wins). */
    if (job->ifname[0] != '\0' && memchr(job->ifname, '\0', sizeof(job->ifname)) != NULL)
        setenv("UCX_NET_DEVICES", job->ifname, 0);
    const struct emu_net_ops *t = load_ops(msg, msg_len);

    *len = 0;
    return t != NULL ? t->address(job, buf, cap, len, msg, msg_len) : EMU_ENOTSUP;
}

emu_status emu_net_connect(uint32_t peer, const uint8_t *addr, uint32_t len,
                           const uint8_t *token, char *msg, size_t msg_len)
{
    const struct emu_net_ops *t = load_ops(msg, msg_len);

    return t != NULL ? t->connect(peer, addr, len, token, msg, msg_len) : EMU_ENOTSUP;
}

/* A channel reaches the network only after a connection succeeded, so the plug-in is loaded
 * when these run; without it they fail the task rather than load it from a worker. */
static const char not_loaded[] = "the transport to other hosts is not loaded";

emu_status emu_net_check(uint32_t channel, uint32_t peer, char *why, size_t len)
{
    const struct emu_net_ops *t = atomic_load_explicit(&ops, memory_order_acquire);

    if (t != NULL)
        return t->check(channel, peer, why, len);
    snprintf(why, len, "%s", not_loaded);
    return EMU_EREMOTE;
}

enum emu_run_result emu_net_run(struct emu_task *t)
{
    const struct emu_net_ops *n = atomic_load_explicit(&ops, memory_order_acquire);

    if (n != NULL)
        return n->run(t);
    snprintf(t->note, sizeof(t->note), "%s", not_loaded);
    t->status = EMU_ENOTSUP;
    return EMU_RUN_FAIL;
}

emu_status emu_net_flush(uint32_t channel, uint32_t peer, uint32_t timeout_s, char *why,
                         size_t len)
{
    const struct emu_net_ops *t = atomic_load_explicit(&ops, memory_order_acquire);

    if (t != NULL)
        return t->flush(channel, peer, timeout_s, why, len);
    snprintf(why, len, "%s", not_loaded);
    return EMU_EREMOTE;
}

/* The watchdog asks another host for its parked waits only about a peer it has a channel to,
 * so the transport is loaded by then; if it is not, there is nobody to ask. */
void emu_net_hang_ask(uint32_t peer)
{
    const struct emu_net_ops *t = atomic_load_explicit(&ops, memory_order_acquire);

    if (t != NULL)
        t->hang_ask(peer);
}

/* Executor exit: nothing to stop when the transport was never loaded. */
void emu_net_stop(void)
{
    const struct emu_net_ops *t = atomic_load_explicit(&ops, memory_order_acquire);

    if (t != NULL)
        t->stop();
}
