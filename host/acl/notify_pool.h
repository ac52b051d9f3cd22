/* notify_pool.h - ranges of a device's notify slots (thread notifies, channel notifies,
 * events, ACL notifies), allocated in the device's shared notify table. */
#ifndef HCEMU_HOST_NOTIFY_POOL_H
#define HCEMU_HOST_NOTIFY_POOL_H

#include <stdint.h>

#include "common/contract/status.h"
#include "runtime.h"

/* Reserve `n` (>= 1) consecutive slots, cleared. */
emu_status emu_notify_pool_alloc(struct emu_hdev *d, uint32_t n, uint32_t *base) EMU_MUST_CHECK;
/* Return the range starting at `base`. */
void emu_notify_pool_free(struct emu_hdev *d, uint32_t base);

#endif
