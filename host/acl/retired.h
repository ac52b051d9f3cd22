/* retired.h - what aclFinalize released that the program may still release itself.
 *
 * hcemu's aclFinalize stops the executors, so it frees every stream, event, notify and
 * allocation with them. The vendor's aclFinalize leaves them alive, and programs destroy or
 * free them afterwards (its runtime answers success). So the handles and pointers that were
 * live at aclFinalize are remembered here, and their first destroy or free before the next
 * aclInit succeeds; anything else is refused as before (docs/ACL_LIFECYCLE.md). */
#ifndef HCEMU_HOST_RETIRED_H
#define HCEMU_HOST_RETIRED_H

#include <stdbool.h>

enum emu_retired_kind {
    EMU_RETIRED_STREAM,
    EMU_RETIRED_EVENT,
    EMU_RETIRED_NOTIFY,
    EMU_RETIRED_DEVICE_MEMORY, /* aclrtMalloc */
    EMU_RETIRED_HOST_MEMORY,   /* aclrtMallocHost */
};

/* Remember `p` (of kind k) as released by aclFinalize. Out of memory: forgotten (its later
 * release is then refused, as a stale handle is). */
void emu_retired_add(const void *p, enum emu_retired_kind k);
/* The same for a handle whose object block `p` (from malloc) the caller hands over instead of
 * freeing it: the block is kept until the process ends, so no later object gets its address
 * and a stale handle can never name a live object. */
void emu_retired_keep(void *p, enum emu_retired_kind k);
/* True once for a remembered `p` of kind k (and forgets it). */
bool emu_retired_take(const void *p, enum emu_retired_kind k);
/* aclInit: a new runtime; nothing of the old one may be released any more. */
void emu_retired_clear(void);

#endif
