/* coll_direct.c - when the built-in collectives read a peer's buffer directly (coll_abi.h,
 * "direct_mask"; the kernel's side is collectives/coll_kernel.c, "DIRECT pairs").
 *
 * A direct pair moves each block once, from the sender's buffer into the receiver's output,
 * where the HCCL buffer takes two copies (written into the peer's slot, copied out) and the
 * staged form n + 1 for n ranks. It costs one more hand-off than an eager pair (the address
 * goes first, the ACK comes back), so it pays from a size on. It is hcemu's own shortcut, not
 * the card's, so it is taken only where nothing tells the difference:
 *   - the wall clock: the modelled clock keeps the card's forms and figures;
 *   - no diagnostic that follows every transfer's source (the race detector, provenance,
 *     injected faults): the source of a direct read is known only when it runs;
 *   - peers of this machine (the reader maps the peer's memory), on channels of hcemu's own,
 *     outside a captured graph (coll_launch.c decides those per pair and per call). */
#include "coll.h"

#include <pthread.h>

#include "common/contract/settings.h"
#include "host/acl/model_time.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool followed, allowed;
static uint64_t min_bytes;

static void decide(void)
{
    uint64_t kb = emu_settings_u64(EMU_SET_DIRECT_KB);

    min_bytes = kb << 10;
    followed = emu_model_time_on() || emu_settings_bool(EMU_SET_RACECHECK) ||
               emu_settings_bool(EMU_SET_PROVENANCE) || *emu_settings_str(EMU_SET_FAULT) != '\0';
    allowed = kb != 0 && !followed;
}

bool emu_coll_tasks_followed(void)
{
    pthread_once(&once, decide);
    return followed;
}

bool emu_coll_direct_allowed(void)
{
    pthread_once(&once, decide);
    return allowed;
}

/* HCEMU_DIRECT_KB, 16 by default. The pair is one rank's block of an allgather (a 2-rank
 * allgather of 64 KiB has 32 KiB pairs). Two ranks: pairs of 1 KiB took 12 us direct against
 * 5 through the eager slots, 4 KiB came out even, 8-64 KiB 0.35-0.55x the time; 4 and 8
 * ranks: 4-64 KiB even within the noise, from 256 KiB 0.65-0.8x (bench/direct.sh). Those
 * figures are of calls one at a time; with more ranks than cores a launch with direct pairs
 * also pays for its peers' sleeping processes, which the wall-clock cost model prices when
 * it picks the algorithm (coll_cost.c, SOLO_US). */
uint64_t emu_coll_direct_min(void)
{
    pthread_once(&once, decide);
    return min_bytes;
}
