/* pin.h - pinned host memory (aclrtMallocHost): shared with executors for asynchronous
 * copies. */
#ifndef HCEMU_HOST_PIN_H
#define HCEMU_HOST_PIN_H

#include <stdint.h>

#include "common/contract/status.h"

emu_status emu_pin_alloc(uint64_t size, void **out) EMU_MUST_CHECK;
/* EMU_EFREE (one log line) for an address that is not the start of a live allocation. */
emu_status emu_pin_free(void *ptr) EMU_MUST_CHECK;
/* Whether [ptr, ptr+len) is pinned memory; fills the offset for the wire. */
int emu_pin_lookup(const void *ptr, uint64_t len, uint64_t *off);
/* Drop the pinned pool (aclFinalize). */
void emu_pin_fini(void);

#endif
