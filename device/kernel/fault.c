/* fault.c - a crash in kernel code ends this emulated device, never the host.
 *
 * The handler runs async-signal-safe code only: it fills the fault record in the control
 * block, marks the device failed, wakes everyone waiting on the device, writes one line and
 * exits. Host processes notice the state change and print the full report (source line via
 * libdw, address classified) where it is safe to do so. */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/platform/bus_guard.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "device/exec.h"
#include "fault.h"

#define ALT_STACK_SIZE (64u * 1024u)

static void copy_str(char *dst, size_t len, const char *src)
{
    size_t i = 0;

    for (; src != NULL && src[i] != '\0' && i + 1 < len; i++)
        dst[i] = src[i];
    dst[i] = '\0';
}

/* Mark the device failed and wake every process that could be waiting on it. */
static void publish_failure(struct emu_devctl *ctl)
{
    emu_store_release(&ctl->state, EMU_DEV_FAILED);
    emu_os_futex_wake(&ctl->state, INT32_MAX);
    for (uint32_t s = 0, n = emu_devctl_streams_span(ctl); s < n; s++) {
        if (emu_load_relaxed(&ctl->streams[s].kind) != EMU_STREAM_FREE &&
            emu_load_relaxed(&ctl->streams[s].waiters) != 0)
            emu_os_futex_wake(&ctl->streams[s].completed, INT32_MAX);
    }
}

/* The innermost frame inside a kernel image: the pc itself, or the first return address
 * into an image found on the stack (a fault inside libc called by the kernel). The scan
 * stays below `hi` (the AICPU thread's frame that called the kernel): past the top of the
 * thread's stack may lie a guard page, and a fault in here would kill the report. */
static const struct emu_fault_locator *locator; /* set by emu_fault_install */

static uint64_t kernel_frame(uint64_t pc, uint64_t sp, uint64_t hi, uint64_t *base,
                             const char **path)
{
    if (locator->image_of(pc, base, path))
        return pc;
    for (uint64_t p = sp & ~7ull, n = 0; n < 2048 && (hi == 0 || p + 8 <= hi); p += 8, n++) {
        uint64_t v = *(volatile uint64_t *)(uintptr_t)p;
        if (locator->image_of(v, base, path))
            return v - 1; /* inside the call instruction */
    }
    return 0;
}

static void on_fault(int sig, siginfo_t *si, void *uc_)
{
    struct emu_devctl *ctl = emu_exec_ctl();
    struct emu_fault_record *f = &ctl->fault;
    ucontext_t *uc = uc_;
    const char *kernel = NULL;
    uint64_t stack_hi = 0;
    bool in_kernel = locator->current(&kernel, &stack_hi);
    uint64_t pc = 0, sp = 0, base = 0;
    const char *path = NULL;

    emu_bus_guard_catch(sig, si); /* a task's copy into a page that cannot be had */

#if defined(__x86_64__)
    pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    pc = uc->uc_mcontext.pc;
    sp = uc->uc_mcontext.sp;
#endif
    f->signo = sig;
    f->code = si->si_code;
    f->addr = (uint64_t)(uintptr_t)si->si_addr;
    f->in_kernel = in_kernel;
    f->pc = in_kernel ? kernel_frame(pc, sp, stack_hi, &base, &path) : pc;
    if (f->pc == 0)
        f->pc = pc;
    f->image_base = base;
    copy_str(f->kernel, sizeof(f->kernel), in_kernel ? kernel : "");
    copy_str(f->image, sizeof(f->image), path);
    /* The line goes out before the host is told: a host that reads its stderr once it has
     * seen the failure must find it there, never have it land after (or over) its read. */
    static const char msg[] = "[hcemu exec] error: fatal signal in device executor; the "
                              "device is marked failed (report follows from the host)\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof(msg) - 1);
    (void)ignored;
    publish_failure(ctl);
    _exit(128 + sig);
}

void emu_fault_device_failed(const char *kernel, int timed_out)
{
    struct emu_devctl *ctl = emu_exec_ctl();

    ctl->fault.timed_out = (uint32_t)timed_out;
    ctl->fault.in_kernel = 1;
    copy_str(ctl->fault.kernel, sizeof(ctl->fault.kernel), kernel);
    EMU_LOG_ERR("kernel %s exceeded its timeout: the device is marked failed", kernel);
    publish_failure(ctl);
    _exit(124);
}

/* The executor's own descriptors a kernel must leave alone (the host's socket, its signal
 * descriptor), with the file each one named when it was registered: a kernel that closed one
 * (and perhaps got its number back for another file) is caught on return. */
#define VITAL_MAX 4
static struct vital {
    _Atomic int fd; /* -1: unused */
    dev_t dev;
    ino_t ino;
} vitals[VITAL_MAX] = {{-1, 0, 0}, {-1, 0, 0}, {-1, 0, 0}, {-1, 0, 0}};
static _Atomic unsigned n_vitals;
static _Atomic int vitals_closing; /* the executor itself is closing them: ending */

void emu_fault_watch_fd(int fd)
{
    struct stat st;

    if (fd < 0 || fstat(fd, &st) != 0)
        return;
    unsigned i = atomic_fetch_add(&n_vitals, 1);
    if (i >= VITAL_MAX)
        return;
    vitals[i].dev = st.st_dev;
    vitals[i].ino = st.st_ino;
    atomic_store(&vitals[i].fd, fd);
}

static bool vitals_intact(void)
{
    struct stat st;

    for (unsigned i = 0; i < VITAL_MAX; i++) {
        int fd = atomic_load(&vitals[i].fd);
        if (fd >= 0 && (fstat(fd, &st) != 0 || st.st_dev != vitals[i].dev ||
                        st.st_ino != vitals[i].ino))
            return false;
    }
    return true;
}

void emu_fault_unwatch_fds(void)
{
    atomic_store(&vitals_closing, 1);
}

/* The device failed because its own descriptors were closed under it: recorded once,
 * then the process ends. */
static void __attribute__((noreturn)) fds_closed_by(const char *kernel)
{
    struct emu_devctl *ctl = emu_exec_ctl();
    /* Only the first thread to notice reports; the others wait for the process to end. */
    static atomic_flag once = ATOMIC_FLAG_INIT;
    if (atomic_flag_test_and_set(&once))
        for (;;)
            pause();
    ctl->fault.in_kernel = 1;
    ctl->fault.closed_fds = 1;
    copy_str(ctl->fault.kernel, sizeof(ctl->fault.kernel), kernel);
    EMU_LOG_ERR("kernel %s closed the executor's own file descriptors (its connection to the "
                "host): the device is marked failed",
                kernel);
    publish_failure(ctl);
    _exit(EMU_FAULT_EXIT_FDS);
}

void emu_fault_check_fds(const char *kernel)
{
    /* `vitals_closing` is set before the executor closes them: a change seen while it is
     * set may be the executor's own doing. */
    if (vitals_intact() || atomic_load(&vitals_closing))
        return;
    fds_closed_by(kernel);
}

void emu_fault_fds_invalid(void)
{
    struct emu_devctl *ctl = emu_exec_ctl();
    char kernel[sizeof(ctl->streams[0].kernel) + 1] = "?";

    /* The kernel still runs (it is caught on its return otherwise): name it from the
     * stream parked on it, as the host's reports do. */
    for (uint32_t s = 0, n = emu_devctl_streams_span(ctl); s < n; s++)
        if (emu_load_acquire(&ctl->streams[s].parked) == EMU_PARK_KERNEL) {
            copy_str(kernel, sizeof(kernel), ctl->streams[s].kernel);
            break;
        }
    fds_closed_by(kernel);
}

void emu_fault_thread_init(void)
{
    stack_t ss = {.ss_size = ALT_STACK_SIZE, .ss_flags = 0};

    /* Leaked on purpose: the stack must outlive every signal of the thread. */
    ss.ss_sp = malloc(ALT_STACK_SIZE);
    if (ss.ss_sp != NULL)
        sigaltstack(&ss, NULL);
}

emu_status emu_fault_install(const struct emu_fault_locator *loc)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    struct sigaction sa;

    locator = loc;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        if (sigaction(sigs[i], &sa, NULL) != 0)
            return EMU_ESYSCALL;
    emu_fault_thread_init();
    return EMU_OK;
}
