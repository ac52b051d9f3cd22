/* krt_crash.c - kernels that crash on purpose, one way each, for the fault report tests.
 *
 * The crashing helpers opt out of UBSan: in a sanitizer build it would stop the executor
 * with its own report before the real signal happens, and the point here is the signal. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NO_UBSAN __attribute__((no_sanitize("undefined"), noinline))

static uint64_t addr_arg(const void *args)
{
    uint64_t v;

    memcpy(&v, args, sizeof(v));
    return v;
}

/* SIGSEGV on address 0. */
NO_UBSAN uint32_t krt_crash_null(void *args)
{
    volatile uint32_t *p = (volatile uint32_t *)(uintptr_t)(addr_arg(args) & 0);

    *p = 1; /* KRT_CRASH_NULL_LINE */
    return 0;
}

/* SIGSEGV on an address the host passes: another device's memory or a host pointer. */
NO_UBSAN uint32_t krt_crash_store(void *args)
{
    volatile uint32_t *p = (volatile uint32_t *)(uintptr_t)addr_arg(args);

    *p = 0xDEAD; /* KRT_CRASH_STORE_LINE */
    return 0;
}

/* SIGBUS: a shared mapping two pages long over a one-page file; the second page has no
 * backing, so touching it is a bus error (not a segmentation fault). */
NO_UBSAN uint32_t krt_crash_bus(void *args)
{
    long page = sysconf(_SC_PAGESIZE);
    int fd = memfd_create("krt_crash_bus", 0);

    (void)args;
    if (fd < 0 || ftruncate(fd, page) != 0)
        return 11;
    volatile uint8_t *p = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return 12;
    p[page] = 1; /* KRT_CRASH_BUS_LINE */
    return 13;
}

/* SIGFPE: integer division by zero, through volatiles so the compiler cannot fold it. */
NO_UBSAN uint32_t krt_crash_fpe(void *args)
{
    volatile uint32_t zero = (uint32_t)(addr_arg(args) & 0);
    volatile uint32_t one = 1;

    return one / zero; /* KRT_CRASH_FPE_LINE */
}

/* SIGILL: ud2. */
NO_UBSAN uint32_t krt_crash_ill(void *args)
{
    (void)args;
    __builtin_trap(); /* KRT_CRASH_ILL_LINE */
}

/* SIGABRT. */
uint32_t krt_crash_abort(void *args)
{
    (void)args;
    abort(); /* KRT_CRASH_ABORT_LINE */
}

/* exit(3) from kernel code: the executor process ends without a fault record. */
uint32_t krt_exit(void *args)
{
    (void)args;
    exit(3);
}

/* Closes every descriptor from 3 up: the executor loses its connection to the host (and its
 * other files) while its process goes on running. */
uint32_t krt_close_fds(void *args)
{
    (void)args;
    for (int fd = 3; fd < 1024; fd++)
        close(fd);
    return 0;
}
