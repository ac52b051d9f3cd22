/* os.h - the whole platform contract of hcemu: futexes on shared memory, clocks, mappings.
 * Implemented once, in os_linux.c, so no other file needs an #ifdef. */
#ifndef HCEMU_COMMON_OS_H
#define HCEMU_COMMON_OS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/contract/status.h"

/* Monotonic nanoseconds. */
uint64_t emu_os_now_ns(void);
/* The same clock as of the last timer tick (a few milliseconds behind at most), read
 * without the CPU's time-stamp counter: for throttles checked on every call, where a
 * millisecond-scale period needs no finer reading. */
uint64_t emu_os_coarse_ns(void);
/* A deadline `ms` milliseconds from now; UINT64_MAX when ms is negative (forever). */
uint64_t emu_os_deadline_ms(int64_t ms);
/* Same with seconds; 0 seconds means forever, as in every vendor timeout. */
uint64_t emu_os_deadline_s(uint64_t s);

/* Sleep while *word == expected, at most until `deadline` (emu_os_now_ns() clock; UINT64_MAX =
 * forever). Shared futex: works across processes on MAP_SHARED memory.
 * Returns EMU_OK when woken or when the word changed, EMU_ETIMEOUT at the deadline. Spurious
 * returns happen; callers re-check their condition in a loop. */
emu_status emu_os_futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t deadline);
/* Wake up to `n` sleepers on word (INT32_MAX for all). */
void emu_os_futex_wake(_Atomic uint32_t *word, int n);

/* Map `len` bytes of fd at `offset`, shared, read/write. With `fixed` the mapping must land at
 * `addr` exactly and must not replace an existing one. */
emu_status emu_os_map_shared(int fd, uint64_t offset, size_t len, void *addr, int fixed,
                          void **out) EMU_MUST_CHECK;
/* Reserve address space (PROT_NONE, no backing) so nothing else lands there. */
emu_status emu_os_map_reserve(size_t len, void **out) EMU_MUST_CHECK;
void emu_os_unmap(void *addr, size_t len);
/* Fault in the pages of [addr, addr+len) for writing now, so later copies take no fault.
 * EMU_ENOMEM when the pages cannot be had (a full tmpfs, no memory): the caller fails its
 * allocation, where touching them would have been a SIGBUS. */
emu_status emu_os_populate(void *addr, size_t len) EMU_MUST_CHECK;
/* Give the pages of a shared range back to the file system (they read as zero afterwards). */
void emu_os_discard(void *addr, size_t len);

/* Zero [addr, addr+len) of a shared file mapping without touching new pages: whole pages are
 * given back to the file system (they read as zero), only the partial edges are written. */
void emu_os_zero(void *addr, size_t len);
/* Bytes of new shared memory this machine can still hold in folder `dir`: the smaller of
 * the memory available (MemAvailable + SwapFree) and the free space of dir's file system
 * (tmpfs pages are memory; a full /dev/shm refuses them however much memory is free). */
uint64_t emu_os_mem_room(const char *dir);

/* Wait up to `ms` for child `pid` to end and collect it: woken at its exit by a pidfd (by a
 * look every millisecond where the kernel has none). True when it was collected, or is not
 * our child (any more). Async-signal-safe: signal handlers' clean-up uses it. */
bool emu_os_wait_child(int pid, int ms);

/* Number of online CPUs (>= 1), read again at most once a second. */
unsigned emu_os_cpu_count(void);
/* Raise the soft RLIMIT_NOFILE to the hard limit: each device costs a host process a socket
 * and a few mapped files, and 256 devices pass the usual soft limit of 1024. */
void emu_os_raise_nofile(void);
/* Thread id of the calling thread (for reports). */
int emu_os_gettid(void);
/* The folder holding this process's executable (no trailing '/'). EMU_ESYSCALL when the
 * kernel cannot tell, EMU_EINVAL when it does not fit in `len`. */
emu_status emu_os_exe_dir(char *out, size_t len) EMU_MUST_CHECK;
/* Read /proc/<pid>/stat into buf (len bytes at most) and return its third field on, the state,
 * past the name (which may hold spaces and parentheses); NULL when `pid` does not exist or the
 * file cannot be read. */
const char *emu_os_proc_stat(int pid, char *buf, size_t len);
/* Scheduling state of process `pid` as /proc shows it ('R', 'S', 'T' stopped, 'Z', ...);
 * 0 when it does not exist or cannot be read. */
char emu_os_proc_state(int pid);

/* "symbol+0xoff (image)" for a code address, from the dynamic symbol tables; false when no
 * symbol covers it. For reports where no debug information helped. */
int emu_os_symbol_of(uint64_t pc, char *out, size_t len);


#endif
