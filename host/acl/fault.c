/* fault.c - the two reports hardware cannot give: which device allocation host code touched
 * by mistake, and where and why a kernel brought its device down. */
#include "fault.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/platform/bus_guard.h"
#include "common/contract/layout.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "loader/symbolize.h"
#include "runtime.h"

static struct sigaction prev_segv, prev_bus;

/* Best-effort lookup without locks: we are in a signal handler and about to die anyway. */
static void describe_alloc(uint32_t dev, uint64_t addr, char *out, size_t len)
{
    struct emu_hdev *d = &emu_rt.devs[dev];
    uint64_t off = addr - emu_window_base(dev);

    if (!d->open || d->ctl == NULL) {
        snprintf(out, len, "device %u is not open in this process", dev);
        return;
    }
    int i = emu_range_find(&d->ctl->alloc.set, d->ctl->alloc.recs, off);
    if (i < 0) {
        snprintf(out, len, "not inside any allocation of device %u", dev);
        return;
    }
    const struct emu_range *r = &d->ctl->alloc.recs[i];
    snprintf(out, len, "inside the %llu-byte allocation at 0x%llx on device %u (offset %llu)",
             (unsigned long long)r->size, (unsigned long long)(emu_window_base(dev) + r->off),
             dev, (unsigned long long)(off - r->off));
}

static void on_host_fault(int sig, siginfo_t *si, void *uc)
{
    uint64_t addr = (uint64_t)(uintptr_t)si->si_addr;
    int dev = emu_window_device(addr);
    struct sigaction *prev = sig == SIGSEGV ? &prev_segv : &prev_bus;

    /* hcemu's own copy into a device page that cannot be had: that call fails instead. */
    emu_bus_guard_catch(sig, si);
    /* From here on the process dies: a fault of the report itself, or one the previous
     * handler lets happen again, goes straight to the previous handler. */
    sigaction(sig, prev, NULL);
    if (dev >= 0) {
        char what[256], line[640];
        describe_alloc((uint32_t)dev, addr, what, sizeof(what));
        int n = snprintf(line, sizeof(line),
                         "[hcemu host] error: host code dereferenced device address 0x%llx (%s). "
                         "Device memory is not accessible from the host, as on hardware: copy "
                         "it with aclrtMemcpy.\n",
                         (unsigned long long)addr, what);
        if (n > 0)
            emu_log_write_raw(line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line));
    }
    /* The process is about to die: leave no executors or job files behind. */
    emu_runtime_cleanup_now();
    /* Hand over to whoever was there before (a sanitizer, the user, or the default). */
    if (prev->sa_flags & SA_SIGINFO) {
        if (prev->sa_sigaction != NULL) {
            prev->sa_sigaction(sig, si, uc);
            return;
        }
    } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void emu_fault_install_host(void)
{
    static int installed;
    struct sigaction sa;

    if (installed)
        return;
    installed = 1;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_host_fault;
    /* Not SA_RESETHAND: after a guarded copy's SIGBUS the handler must still be there. */
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &prev_segv);
    sigaction(SIGBUS, &sa, &prev_bus);
}

void emu_fault_classify(uint32_t dev, uint64_t addr, char *out, size_t len)
{
    int owner = emu_window_device(addr);
    long page = sysconf(_SC_PAGESIZE);

    if (addr < 4096) {
        snprintf(out, len, "a null pointer");
    } else if (owner == (int)dev) {
        snprintf(out, len, "memory of this device that is not allocated (freed or out of "
                           "bounds)");
    } else if (owner >= 0) {
        snprintf(out, len,
                 "memory of device %d: a kernel cannot dereference another device's memory; "
                 "use HcommReadOnThread/HcommWriteOnThread through a channel",
                 owner);
    } else if (msync((void *)(uintptr_t)(addr & ~(uint64_t)(page - 1)), (size_t)page,
                     MS_ASYNC) == 0) {
        snprintf(out, len,
                 "host-only memory of the host program: a kernel cannot reach host pointers; "
                 "copy the data to device memory first");
    } else {
        snprintf(out, len, "an unmapped address");
    }
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV:
        return "SIGSEGV";
    case SIGBUS:
        return "SIGBUS";
    case SIGFPE:
        return "SIGFPE";
    case SIGILL:
        return "SIGILL";
    case SIGABRT:
        return "SIGABRT (abort)";
    default:
        return "a signal";
    }
}

/* What went wrong, after "crashed with SIG... at frame; ". Only SIGSEGV and SIGBUS carry
 * a data address worth classifying: SIGFPE and SIGILL give the instruction (already named
 * as the frame), and a signal sent with kill/raise (abort) gives no address at all. */
static void describe_cause(uint32_t dev, const struct emu_fault_record *f, char *out, size_t len)
{
    char what[320];

    if (f->signo == SIGABRT) {
        snprintf(out, len, "the kernel called abort() (a failed assert() does too)");
    } else if (f->code <= 0) {
        snprintf(out, len, "the signal was sent (kill/raise), not caused by an instruction");
    } else if (f->signo == SIGSEGV) {
        emu_fault_classify(dev, f->addr, what, sizeof(what));
        snprintf(out, len, "faulting address 0x%llx is %s", (unsigned long long)f->addr, what);
    } else if (f->signo == SIGBUS) {
        snprintf(out, len,
                 "faulting address 0x%llx is mapped but has no backing (a mapped file past "
                 "its end) or is misaligned",
                 (unsigned long long)f->addr);
    } else if (f->signo == SIGFPE) {
        snprintf(out, len, "%s", f->code == FPE_INTDIV   ? "integer division by zero"
                                 : f->code == FPE_INTOVF ? "integer overflow in division"
                                                         : "floating-point exception");
    } else if (f->signo == SIGILL) {
        snprintf(out, len, "illegal instruction (__builtin_trap(), or code built for a CPU "
                           "this machine is not)");
    } else {
        snprintf(out, len, "signal code %d at address 0x%llx", f->code,
                 (unsigned long long)f->addr);
    }
}

/* Source line of the faulting pc; emu_symbolize() writes "0xaddr (image)" itself when the
 * image cannot be read. */
static void describe_pc(const struct emu_fault_record *f, char *out, size_t len)
{
    if (f->image[0] == '\0')
        snprintf(out, len, "0x%llx (outside any kernel image)", (unsigned long long)f->pc);
    else if (emu_symbolize(f->image, f->pc - f->image_base, out, len) != EMU_OK)
        EMU_LOG_DEBUG("no source line for 0x%llx in %s", (unsigned long long)f->pc, f->image);
}

/* How the executor ended, from its exit status when this process started it. A death noticed
 * through the socket may precede the status by a moment: wait up to 1 s for it. */
static void describe_end(struct emu_hdev *d, char *out, size_t len)
{
    int st = 0;
    pid_t r = 0;

    snprintf(out, len, "ended unexpectedly (exit status unknown: another process started it)");
    for (int i = 0; d->child_pid > 0 && i < 100 && r == 0; i++) {
        r = waitpid(d->child_pid, &st, WNOHANG);
        if (r == 0)
            usleep(10000);
    }
    if (r != d->child_pid) {
        char st_now = emu_os_proc_state(d->exec_pid);
        if (st_now != 0 && st_now != 'Z' && st_now != 'X')
            snprintf(out, len, "is still running but closed its connection to the host (did "
                               "a kernel close the executor's file descriptors?)");
        return;
    }
    d->child_pid = 0; /* reaped here */
    if (WIFEXITED(st))
        snprintf(out, len, "exited with code %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(out, len, "was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
}

/* The kernels running when the executor died (streams parked on a kernel entry). */
static void running_kernels(const struct emu_devctl *ctl, char *out, size_t len)
{
    size_t off = 0;

    out[0] = '\0';
    for (uint32_t s = 0, n = emu_devctl_streams_span(ctl); s < n && off + 64 < len; s++) {
        const struct emu_stream_ctl *sc = &ctl->streams[s];
        if (emu_load_acquire(&sc->parked) != EMU_PARK_KERNEL)
            continue;
        int n = snprintf(out + off, len - off, "%s%.*s", off == 0 ? "" : ", ",
                         (int)sizeof(sc->kernel), sc->kernel);
        if (n > 0)
            off += (size_t)n;
    }
}

/* The executor died without a fault record: exit(), _exit(), a signal it could not catch. */
static void report_death(struct emu_hdev *d)
{
    char how[160], kernels[400];

    describe_end(d, how, sizeof(how));
    running_kernels(d->ctl, kernels, sizeof(kernels));
    if (kernels[0] != '\0')
        EMU_LOG_ERR("device %u failed: its executor (pid %d) %s while kernel %s was running; the "
                    "device is marked failed and its calls return errors, other devices keep "
                    "working",
                    d->id, d->exec_pid, how, kernels);
    else
        EMU_LOG_ERR("device %u failed: its executor (pid %d) %s; the device is "
                    "marked failed and its calls return errors, other devices keep working",
                    d->id, d->exec_pid, how);
}

void emu_fault_report_device(struct emu_hdev *d)
{
    pthread_mutex_lock(&d->lock);
    int already = d->failure_reported;
    d->failure_reported = true;
    pthread_mutex_unlock(&d->lock);
    if (already || d->ctl == NULL)
        return;
    const struct emu_fault_record *f = &d->ctl->fault;
    if (f->timed_out) {
        EMU_LOG_ERR("device %u failed: kernel %s exceeded its launch timeout; the device is "
                    "marked failed and its calls return errors, other devices keep working",
                    d->id, f->kernel[0] ? f->kernel : "?");
        return;
    }
    if (f->closed_fds) {
        EMU_LOG_ERR("device %u failed: kernel %s closed the executor's own file descriptors "
                    "(its connection to the host); the device is marked failed and its calls "
                    "return errors, other devices keep working",
                    d->id, f->kernel[0] ? f->kernel : "?");
        return;
    }
    if (emu_load_acquire(&d->ctl->state) == EMU_DEV_STOPPED) {
        /* An orderly exit: this process (or the last host of the job) shut it down. */
        EMU_LOG_DEBUG("device %u: its executor was shut down", d->id);
        return;
    }
    if (f->signo == 0) {
        report_death(d);
        return;
    }
    char where[512] = "", what[400];
    describe_pc(f, where, sizeof(where));
    describe_cause(d->id, f, what, sizeof(what));
    EMU_LOG_ERR("device %u failed: kernel %s crashed with %s at %s; %s. The device is marked "
                "failed and its calls return errors; other devices and the host keep working",
                d->id, f->kernel[0] ? f->kernel : "(not in a kernel)", signal_name(f->signo),
                where, what);
}
