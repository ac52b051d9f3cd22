/* coll_key.h - what a launch of hcemu_coll_run depends on, as bytes: two launches with the
 * same key queue the same tasks, so the second may queue the first one's again
 * (hcemu_cache_replay, coll_abi.h). */
#ifndef HCEMU_COLLECTIVES_COLL_KEY_H
#define HCEMU_COLLECTIVES_COLL_KEY_H

#include <stdint.h>

#include "coll_abi.h"

/* Write into key[HCOLL_KEY_MAX] (coll_abi.h) everything the expansion of launch `a` on communicator
 * resources `r` (n ranks) depends on, but its "done" notify; returns its length, or 0 when
 * the launch is not to be replayed: the modelled clock or a diagnostic follows the card's
 * tasks one by one (no fused waits), the kernel stores an address besides queueing tasks
 * (direct pairs, pushed steps), or the communicator is large (few launches repeat its long
 * expansions). */
uint32_t hcoll_launch_key(const struct hcoll_args *a, const struct hcoll_res *r, uint32_t n,
                          uint8_t *key);

#endif
