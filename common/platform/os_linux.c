/* os_linux.c - the Linux implementation of os.h. */
#include "os.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static uint64_t ns_of(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t emu_os_now_ns(void)
{
    return ns_of(CLOCK_MONOTONIC);
}

uint64_t emu_os_coarse_ns(void)
{
    return ns_of(CLOCK_MONOTONIC_COARSE);
}

uint64_t emu_os_deadline_ms(int64_t ms)
{
    if (ms < 0)
        return UINT64_MAX;
    return emu_os_now_ns() + (uint64_t)ms * 1000000ull;
}

uint64_t emu_os_deadline_s(uint64_t s)
{
    if (s == 0 || s > UINT64_MAX / 2000000000ull)
        return UINT64_MAX;
    return emu_os_now_ns() + s * 1000000000ull;
}

emu_status emu_os_futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t deadline)
{
    struct timespec ts;
    struct timespec *tsp = NULL;

    if (deadline != UINT64_MAX) {
        uint64_t now = emu_os_now_ns();
        if (now >= deadline)
            return EMU_ETIMEOUT;
        uint64_t left = deadline - now;
        ts.tv_sec = (time_t)(left / 1000000000ull);
        ts.tv_nsec = (long)(left % 1000000000ull);
        tsp = &ts;
    }
    /* Not FUTEX_PRIVATE_FLAG: the word may live in memory shared with other processes. */
    long rc = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, expected, tsp, NULL, 0);
    if (rc != 0 && errno == ETIMEDOUT)
        return EMU_ETIMEOUT;
    return EMU_OK;
}

void emu_os_futex_wake(_Atomic uint32_t *word, int n)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, n, NULL, NULL, 0);
}

emu_status emu_os_map_shared(int fd, uint64_t offset, size_t len, void *addr, int fixed, void **out)
{
    int flags = MAP_SHARED;

    if (fixed) {
#if defined(__SANITIZE_THREAD__)
        /* ThreadSanitizer's mmap does not know MAP_FIXED_NOREPLACE; the windows it allows
         * (common/contract/layout.h) are reserved for devices, so MAP_FIXED is safe there. */
        flags |= MAP_FIXED;
#else
        flags |= MAP_FIXED_NOREPLACE;
#endif
    }
    void *p = mmap(addr, len, PROT_READ | PROT_WRITE, flags, fd, (off_t)offset);
    if (p == MAP_FAILED) {
        EMU_LOG_ERR("mmap of %zu bytes at %p failed: %s", len, addr, strerror(errno));
        return EMU_ENOMEM;
    }
    if (fixed && p != addr) {
        /* Old kernels ignore MAP_FIXED_NOREPLACE and treat the address as a hint. */
        munmap(p, len);
        EMU_LOG_ERR("address window %p is taken in this process", addr);
        return EMU_ENOMEM;
    }
    *out = p;
    return EMU_OK;
}

emu_status emu_os_map_reserve(size_t len, void **out)
{
    void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        EMU_LOG_ERR("cannot reserve %zu bytes of address space: %s", len, strerror(errno));
        return EMU_ENOMEM;
    }
    *out = p;
    return EMU_OK;
}

void emu_os_unmap(void *addr, size_t len)
{
    if (addr != NULL && len != 0)
        munmap(addr, len);
}

emu_status emu_os_populate(void *addr, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)addr & ~((uintptr_t)page - 1);
    size_t span = (size_t)((uintptr_t)addr + len - start);

    if (len == 0 || madvise((void *)start, span, MADV_POPULATE_WRITE) == 0)
        return EMU_OK;
    /* EFAULT: a page of the file could not be had (its file system is full: touching it
     * would be a SIGBUS); ENOMEM: no memory. Never touch the pages then. */
    if (errno != EINVAL)
        return EMU_ENOMEM;
    /* Kernels before 5.14 do not know MADV_POPULATE_WRITE: the pages are faulted in by
     * their first use instead (touching them here could not be undone on a full tmpfs). */
    return EMU_OK;
}

void emu_os_discard(void *addr, size_t len)
{
    if (len != 0)
        madvise(addr, len, MADV_REMOVE);
}

void emu_os_zero(void *addr, size_t len)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)addr, end = a + len;
    uintptr_t lo = (a + page - 1) & ~(page - 1), hi = end & ~(page - 1);

    if (lo >= hi || madvise((void *)lo, hi - lo, MADV_REMOVE) != 0) {
        memset(addr, 0, len);
        return;
    }
    memset(addr, 0, lo - a);
    memset((void *)hi, 0, end - hi);
}

bool emu_os_wait_child(int pid, int ms)
{
    /* Only system calls and monotonic clock reads: safe in a signal handler. */
    uint64_t deadline = emu_os_deadline_ms(ms);
    int pidfd = -1;
    bool done = false;
#ifdef SYS_pidfd_open
    pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
    for (;;) {
        pid_t r = waitpid(pid, NULL, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) {
            done = true;
            break;
        }
        uint64_t now = emu_os_now_ns();
        if (now >= deadline)
            break;
        if (pidfd >= 0) {
            struct pollfd p = {.fd = pidfd, .events = POLLIN};
            (void)poll(&p, 1, (int)((deadline - now) / 1000000u) + 1);
        } else {
            struct timespec ms1 = {0, 1000000};
            nanosleep(&ms1, NULL);
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    return done;
}

/* A "Name:   N kB" line of /proc/meminfo, in bytes; 0 when missing. */
static uint64_t meminfo_bytes(const char *text, const char *name)
{
    const char *p = strstr(text, name);

    return p != NULL ? strtoull(p + strlen(name), NULL, 10) * 1024ull : 0;
}

uint64_t emu_os_mem_room(const char *dir)
{
    char buf[4096];
    struct statvfs vfs;
    uint64_t mem = UINT64_MAX;
    int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);

    if (fd >= 0) {
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        buf[n > 0 ? n : 0] = '\0';
        if (n > 0 && strstr(buf, "MemAvailable:") != NULL)
            mem = meminfo_bytes(buf, "MemAvailable:") + meminfo_bytes(buf, "SwapFree:");
    }
    if (statvfs(dir, &vfs) == 0) {
        uint64_t fs = (uint64_t)vfs.f_bavail * vfs.f_frsize;
        if (fs < mem)
            mem = fs;
    }
    return mem;
}

void emu_os_raise_nofile(void)
{
    struct rlimit r;

    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
        r.rlim_cur = r.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &r); /* best effort: fewer devices still work */
    }
}

/* sysconf(_SC_NPROCESSORS_ONLN) opens, reads and closes /sys/devices/system/cpu/online on
 * every call, and the spin budget asks at every wait (spin.c): an 8-rank job's first
 * collective read it ~120 times. Cores come and go rarely; once a second is often enough. */
#define CPU_COUNT_TTL_NS 1000000000ull

unsigned emu_os_cpu_count(void)
{
    static _Atomic uint64_t read_at; /* 0: never read */
    static _Atomic unsigned cached;
    uint64_t now = emu_os_now_ns(), at = atomic_load_explicit(&read_at, memory_order_relaxed);

    if (at != 0 && now - at < CPU_COUNT_TTL_NS)
        return atomic_load_explicit(&cached, memory_order_relaxed);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned v = n < 1 ? 1u : (unsigned)n;
    atomic_store_explicit(&cached, v, memory_order_relaxed);
    atomic_store_explicit(&read_at, now != 0 ? now : 1, memory_order_relaxed);
    return v;
}

emu_status emu_os_exe_dir(char *out, size_t len)
{
    if (len == 0)
        return EMU_EINVAL;
    ssize_t n = readlink("/proc/self/exe", out, len);
    if (n <= 0)
        return EMU_ESYSCALL;
    if ((size_t)n >= len)
        return EMU_EINVAL;
    out[n] = '\0';
    char *slash = strrchr(out, '/');
    if (slash == NULL)
        return EMU_ESYSCALL;
    *slash = '\0';
    return EMU_OK;
}

int emu_os_gettid(void)
{
    return (int)syscall(SYS_gettid);
}

const char *emu_os_proc_stat(int pid, char *buf, size_t len)
{
    char path[64];

    if (pid <= 0 || len < 2)
        return NULL;
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the name may contain spaces and parentheses */
    return p != NULL && p[1] == ' ' && p[2] != '\0' ? p + 2 : NULL;
}

char emu_os_proc_state(int pid)
{
    char buf[512];
    const char *state = emu_os_proc_stat(pid, buf, sizeof(buf));

    return state != NULL ? *state : 0;
}

int emu_os_symbol_of(uint64_t pc, char *out, size_t len)
{
    Dl_info info;

    if (pc == 0 || dladdr((void *)(uintptr_t)pc, &info) == 0 || info.dli_sname == NULL)
        return 0;
    const char *img = info.dli_fname ? strrchr(info.dli_fname, '/') : NULL;
    snprintf(out, len, "%s+0x%llx (%s)", info.dli_sname,
             (unsigned long long)(pc - (uint64_t)(uintptr_t)info.dli_saddr), img ? img + 1 : "?");
    return 1;
}
