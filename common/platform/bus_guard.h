/* bus_guard.h - hcemu's own touches of device memory fail with EMU_ENOMEM, never a SIGBUS.
 *
 * Device memory is a sparse file in the job folder. Small allocations are populated when they
 * are made (mem.c), but the pages of large ones, of HCCL buffers and of launch arguments are
 * had on first touch: when the folder's file system filled up in between (any local user can
 * fill /dev/shm), that touch is a SIGBUS with code BUS_ADRERR. Every copy, reduction or memset
 * hcemu itself makes into or out of device memory (aclrtMemcpy/Memset, the executor's tasks,
 * packed launch arguments) runs under a guard: the process's fault handler calls
 * emu_bus_guard_catch() first, which returns to the guarded call when the fault is such a
 * SIGBUS on this thread, and the call fails with EMU_ENOMEM. A kernel's own loads and stores
 * are not guarded: they bring down its device with a report that names the cause. */
#ifndef HCEMU_COMMON_BUS_GUARD_H
#define HCEMU_COMMON_BUS_GUARD_H

#include <signal.h>
#include <stddef.h>

#include "common/contract/status.h"

/* Run fn(ctx) under the guard: EMU_OK, or EMU_ENOMEM when a page it touched could not be had
 * (what fn wrote before that stays written). Not reentrant on one thread: fn must not guard. */
emu_status emu_bus_guard_run(void (*fn)(void *ctx), void *ctx) EMU_MUST_CHECK;

/* The common forms: memcpy (through emu_copy) and memset under the guard. */
emu_status emu_bus_guard_copy(void *dst, const void *src, size_t len) EMU_MUST_CHECK;
emu_status emu_bus_guard_memset(void *dst, int value, size_t len) EMU_MUST_CHECK;

/* For a SIGBUS/SIGSEGV handler, before anything else: does not return when the signal is a
 * SIGBUS for a missing page raised on this thread inside emu_bus_guard_run(). */
void emu_bus_guard_catch(int sig, const siginfo_t *si);

#endif
