/* mem.h - device memory as the host sees it: allocation in the device's shared table,
 * address translation to the private alias. */
#ifndef HCEMU_HOST_MEM_H
#define HCEMU_HOST_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/contract/devctl.h"
#include "common/contract/status.h"
#include "runtime.h"

/* Allocate `size` bytes on device d (64-byte aligned, span rounded to 32). The address is a
 * global device address; the pages are populated in the executor and in this process. */
emu_status emu_mem_alloc(struct emu_hdev *d, uint64_t size, uint32_t kind,
                         void **out) EMU_MUST_CHECK;
/* Free an allocation by its start address (any device). EMU_EFREE for an address that is
 * not the start of a live allocation. */
emu_status emu_mem_free(void *ptr) EMU_MUST_CHECK;
/* Whether a task still queued on some stream uses device address `addr`: aclrtFree of it
 * then returns EMU_EAGAIN. stream.c installs it (emu_mem_on_busy_check) with its first
 * stream. */
typedef bool (*emu_mem_busy_fn)(uint64_t addr);
void emu_mem_on_busy_check(emu_mem_busy_fn fn);
/* Free an allocation the library made itself (launch blocks, HCCL buffers): nothing for the
 * caller to act on. */
void emu_mem_free_owned(void *ptr);
/* aclFinalize, before it closes device d: remember this process's aclrtMalloc blocks on it,
 * which the program may still free (retired.h). */
void emu_mem_retire_all(struct emu_hdev *d);

/* What an address passed by the user is. */
struct emu_mem_ref {
    int dev;            /* device owning the address, -1 for host memory */
    struct emu_hdev *d; /* open device, NULL for host memory */
    uint8_t *host;      /* where this process reaches the bytes */
    uint32_t space;     /* for the wire: 0 device, else pid of the pinned host file */
    uint64_t wire_addr; /* for the wire: device address or offset in the pinned file */
    struct emu_range rec; /* allocation record (device or pinned memory) */
    int pinned;         /* host memory from aclrtMallocHost */
};

/* Resolve [ptr, ptr+len). A device address must lie inside one live allocation of an
 * opened device (else EMU_EINVAL with a line naming the problem). Host addresses are taken
 * as they are; pinned ones are recognised. `what` names the argument in messages. */
emu_status emu_mem_resolve(const void *ptr, uint64_t len, const char *what,
                           struct emu_mem_ref *out) EMU_MUST_CHECK;

/* The checks of aclrtMemcpy(Async) (kind is an aclrtMemcpyKind, 0..EMU_COPY_KINDS-1): both
 * pointers set, count in [1, destMax], both ranges resolved into *d and *s, no overlap.
 * EMU_EINVAL with one line naming `fn` otherwise. */
#define EMU_COPY_KINDS 8
emu_status emu_mem_check_copy(void *dst, size_t destMax, const void *src, size_t count, int kind,
                              const char *fn, struct emu_mem_ref *d,
                              struct emu_mem_ref *s) EMU_MUST_CHECK;
/* The checks of aclrtMemset(Async): ptr set, count in [1, maxCount], device or pinned memory
 * (resolved into *r). */
emu_status emu_mem_check_memset(void *ptr, size_t maxCount, size_t count, const char *fn,
                                struct emu_mem_ref *r) EMU_MUST_CHECK;

/* memcpy / memset on resolved ranges, guarded (common/platform/bus_guard.h): EMU_ENOMEM with
 * one line naming `fn` when a page of device or pinned memory cannot be had. */
emu_status emu_mem_copy(void *dst, const void *src, size_t count, const char *fn) EMU_MUST_CHECK;
emu_status emu_mem_set(void *dst, int value, size_t count, const char *fn) EMU_MUST_CHECK;
/* emu_os_zero (pages given back, edges written), guarded the same way. */
emu_status emu_mem_zero(void *dst, size_t count, const char *fn) EMU_MUST_CHECK;
/* The line of both, for callers that guard their own writes. */
void emu_mem_log_no_pages(const char *fn, size_t count);

#endif
