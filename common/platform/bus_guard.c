/* bus_guard.c - see bus_guard.h. One jump buffer per thread; set only while a guarded call
 * runs, so a SIGBUS anywhere else still reaches the process's own report. */
#include "bus_guard.h"

#include <pthread.h>
#include <setjmp.h>
#include <string.h>

#include "copy.h"

static _Thread_local sigjmp_buf *guard_env;

emu_status emu_bus_guard_run(void (*fn)(void *ctx), void *ctx)
{
    sigjmp_buf env;

    /* No signal mask saved: that would be a system call on every copy. The mask is mended
     * on the way back instead, where the handler left SIGBUS blocked. */
    if (sigsetjmp(env, 0) != 0) {
        sigset_t bus;
        sigemptyset(&bus);
        sigaddset(&bus, SIGBUS);
        pthread_sigmask(SIG_UNBLOCK, &bus, NULL);
        return EMU_ENOMEM;
    }
    __atomic_store_n(&guard_env, &env, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    fn(ctx);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&guard_env, NULL, __ATOMIC_RELAXED);
    return EMU_OK;
}

void emu_bus_guard_catch(int sig, const siginfo_t *si)
{
    sigjmp_buf *env = __atomic_load_n(&guard_env, __ATOMIC_RELAXED);

    /* BUS_ADRERR: the page has no backing (a sparse file whose file system is full). Any
     * other fault, even inside a guarded call, is a bug to report, not memory to refuse. */
    if (env == NULL || sig != SIGBUS || si == NULL || si->si_code != BUS_ADRERR)
        return;
    __atomic_store_n(&guard_env, NULL, __ATOMIC_RELAXED);
    siglongjmp(*env, 1);
}

struct copy_args {
    void *dst;
    const void *src;
    size_t len;
    int value;
};

static void do_copy(void *ctx)
{
    struct copy_args *a = ctx;

    emu_copy(a->dst, a->src, a->len);
}

static void do_memset(void *ctx)
{
    struct copy_args *a = ctx;

    memset(a->dst, a->value, a->len);
}

emu_status emu_bus_guard_copy(void *dst, const void *src, size_t len)
{
    struct copy_args a = {.dst = dst, .src = src, .len = len};

    return emu_bus_guard_run(do_copy, &a);
}

emu_status emu_bus_guard_memset(void *dst, int value, size_t len)
{
    struct copy_args a = {.dst = dst, .len = len, .value = value};

    return emu_bus_guard_run(do_memset, &a);
}
