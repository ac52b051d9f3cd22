/* coll_cost.h - which algorithm a built-in collective runs by default: the card's rule when the
 * time is modelled, this machine's wall-clock cost model otherwise (coll_cost.c). Pure
 * functions of their arguments, so every rank holding the same figures chooses alike, and
 * tests can pin the choice on fixed figures. */
#ifndef HCEMU_HOST_COLL_COLL_COST_H
#define HCEMU_HOST_COLL_COLL_COST_H

#include <stdbool.h>
#include <stdint.h>

#include "common/platform/machine.h"
#include "host/coll/coll.h"

/* One call as the choice sees it. */
struct emu_coll_shape {
    enum emu_coll_kind kind;
    uint32_t n;     /* ranks */
    uint64_t bytes; /* allreduce, broadcast: the buffer; allgather: the gathered output;
                       reduce-scatter: the input (n blocks) */
    uint64_t eager; /* bytes of an eager slot (0: none) */
    uint64_t chunk; /* bytes one round moves per peer through the slots */
    uint64_t direct; /* copying pairs of at least this many bytes read the peer's buffer
                      * directly, one copy of a block (0: never; coll_direct.c) */
    bool in_place;  /* reduce-scatter in place (no ring then) */
    bool spread;    /* every peer may go direct: two-shot's blocks of `direct` bytes and more
                     * are written into every output as they are reduced, in one launch */
};

/* The card's rule (the modelled clock's choice): mesh one-shot up to 256 KiB, then
 * halving-doubling or two-shot; hier (when `hier`, several equal servers) past 256 KiB
 * (allreduce) or 2 MiB (allgather); two-shot from 16 MiB at 2 ranks. */
enum emu_coll_algo emu_coll_card_pick(enum emu_coll_kind kind, uint32_t n, uint64_t bytes,
                                      bool hier);

/* The modelled wall-clock time of `algo` for `s` on machine `m`, in microseconds; a negative
 * figure when `algo` does not apply (rhd at a rank count that is not a power of two, a ring
 * reduce-scatter in place, an algorithm the operator does not have). */
double emu_coll_wall_cost(const struct emu_coll_shape *s, enum emu_coll_algo algo,
                          const struct emu_machine *m);

/* The cheapest algorithm by emu_coll_wall_cost (mesh, rd, rhd, ring, twoshot; ties to the
 * earlier in that order). */
enum emu_coll_algo emu_coll_wall_pick(const struct emu_coll_shape *s,
                                      const struct emu_machine *m);

/* The default: the card's rule when `m` is NULL (modelled time, or no figures every rank
 * shares) or `hier` applies (several equal servers), else emu_coll_wall_pick on `m`. */
enum emu_coll_algo emu_coll_default_pick(const struct emu_coll_shape *s, bool hier,
                                         const struct emu_machine *m);

/* The round size of a reducing exchange on the wall clock: below the size from which the data
 * plane streams (`stream_min`, emu_copy_stream_min), so the reduction that follows each write
 * reads cached lines instead of memory; `slot` when streaming is off or the slot is smaller. */
uint64_t emu_coll_reduce_chunk(uint64_t slot, uint64_t stream_min);

#endif
