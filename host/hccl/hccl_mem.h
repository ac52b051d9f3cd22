/* hccl_mem.h - memory owned by a communicator: the HCCL buffer, engine contexts and
 * registered memories (docs/CONTROL_PLANE.md §7-§9). Call with c->lock held. */
#ifndef HCEMU_HOST_HCCL_MEM_H
#define HCEMU_HOST_HCCL_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/status.h"
#include "hccl_comm.h"

/* Where this process reaches device address `addr` of the comm's device (its alias). */
uint8_t *emu_hccl_mem_alias(const struct emu_comm *c, const void *addr);
/* Whether [addr, addr+len) lies inside one live allocation of the comm's device. */
bool emu_hccl_mem_in_allocation(const struct emu_comm *c, uint64_t addr, uint64_t len);

/* The HCCL buffer, allocated (and populated) on first use; zero-filled when `clear`. */
emu_status emu_hccl_mem_buffer_get(struct emu_comm *c, bool clear, void **addr, uint64_t *size,
                                   const char *fn) EMU_MUST_CHECK;

/* Engine contexts keyed by (tag, engine); tag NULL means "". */
emu_status emu_hccl_mem_ctx_create(struct emu_comm *c, const char *tag, int32_t engine,
                                   uint64_t size, void **out, const char *fn) EMU_MUST_CHECK;
/* EMU_ENOTFOUND without logging: the operators' cache-miss test. */
emu_status emu_hccl_mem_ctx_get(struct emu_comm *c, const char *tag, int32_t engine, void **out,
                                uint64_t *size) EMU_MUST_CHECK;
emu_status emu_hccl_mem_ctx_copy(struct emu_comm *c, const char *tag, int32_t engine,
                                 const void *src, uint64_t size, uint64_t offset,
                                 const char *fn) EMU_MUST_CHECK;
emu_status emu_hccl_mem_ctx_destroy(struct emu_comm *c, const char *tag, int32_t engine,
                                    const char *fn) EMU_MUST_CHECK;

emu_status emu_hccl_mem_reg_add(struct emu_comm *c, const char *tag, const CommMem *mem,
                                HcclMemHandle *out, const char *fn) EMU_MUST_CHECK;
/* The registration behind a handle of this comm, or NULL. */
struct emu_memreg *emu_hccl_mem_reg_find(struct emu_comm *c, HcclMemHandle h);

/* Destroy: free contexts, registrations and the HCCL buffer. */
void emu_hccl_mem_release_all(struct emu_comm *c);

#endif
