/* exec.h - state of one device executor process (hcemu-device) shared by its modules.
 *
 * One executor per emulated device. It owns the device window (its memory mapped at the
 * device's global address), runs the TS scheduler and the AICPU kernel runner, and maps peer
 * devices' memory and control blocks at private aliases for channel transfers. */
#ifndef HCEMU_DEVICE_EXEC_H
#define HCEMU_DEVICE_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/devctl.h"
#include "common/contract/status.h"

/* A device this executor can reach: itself or a peer (same job or another job folder). */
struct emu_devmap {
    char job_dir[EMU_PATH_MAX];
    uint32_t dev;
    struct emu_devctl *ctl;
    /* Where the device's memory is mapped in this process: this device's own at its window,
     * in full; a peer's at a private alias of its first `reach` bytes, mapped on first use
     * to the end of the allocation touched and grown (moved) when needed (emu_devmap_at).
     * Read both through emu_devmap_at. */
    uint8_t *mem;
    uint64_t mem_size;
    _Atomic uint64_t reach;
    /* A peer's memory file, opened with its control block: the alias grows from this
     * descriptor, never through the job's folder, which the job's end removes first (a
     * first touch of a peer at that moment failed with a line about a missing folder). */
    int mem_fd;
};

struct emu_exec {
    uint32_t dev;
    char job_dir[EMU_PATH_MAX];
    struct emu_devmap self; /* self.mem == (uint8_t *)emu_window_base(dev) */
};

extern struct emu_exec emu_exec_g;

static inline struct emu_devctl *emu_exec_ctl(void)
{
    return emu_exec_g.self.ctl;
}

/* device/devmem.c */
/* Map the device's own files (created by main.c) at their fixed places. */
emu_status emu_devmem_open_self(const char *job_dir, uint32_t dev, uint64_t mem_size) EMU_MUST_CHECK;
/* Find or map another device. Mappings live until the executor exits. */
/* Whether device dev of that job exists (mapped already, or its control block is there):
 * a silent look, for callers that try devices which may not exist. */
bool emu_devmem_peer_exists(const char *job_dir, uint32_t dev);
emu_status emu_devmem_peer(const char *job_dir, uint32_t dev,
                           struct emu_devmap **out) EMU_MUST_CHECK;
/* This executor's existing mapping of device `dev` of its own job folder, or NULL when it
 * has none; never maps a device anew (the job-wide run queue runs only on devices this
 * process already maps: no error lines from a folder removed at the end of the job). */
struct emu_devmap *emu_devmem_job_find(uint32_t dev);
/* Whether [addr, addr+len) of m's device is inside what this process maps of it now. */
bool emu_devmap_reaches(const struct emu_devmap *m, uint64_t addr, uint64_t len);
/* Pointer to [off, off+len) of the memory of the device mapped by `m`, or NULL when the
 * range is outside it or cannot be mapped. */
void *emu_devmap_at(struct emu_devmap *m, uint64_t off, uint64_t len);
/* Whether m reaches [addr, addr+len) of its device, growing a peer's alias to it when it does
 * not yet (the job-wide run queue: a task this process cannot reach goes back to its
 * device). */
bool emu_devmap_reach(struct emu_devmap *m, uint64_t addr, uint64_t len);
/* Pointer through which this process reaches [addr, addr+len) of device memory of this job
 * (this device: the address itself; another device: its alias), or of the pinned host
 * memory of host process `space`. Checks only that the range is inside the device memory
 * (or pinned file), not that it is allocated. NULL with a log line otherwise. */
void *emu_devmem_ptr(uint64_t addr, uint32_t space, uint64_t len);
/* The allocation record of m's device containing offset `rel` of its memory, copied to
 * *out; false when none does. Lock-free unless a writer is busy. */
bool emu_devmem_alloc_of(const struct emu_devmap *m, uint64_t rel, struct emu_range *out);
/* Whether [rel, rel+len) of m's device memory lies inside one live allocation (in the bytes
 * its owner asked for). Lock-free unless a writer is busy. */
bool emu_devmem_holds(const struct emu_devmap *m, uint64_t rel, uint64_t len);
/* Free an allocation made on behalf of a task (kernel arguments, staging). */
void emu_devmem_free_internal(uint64_t addr);

#endif
