/* prov_pattern.h - the input patterns of provenance checks and how an element found in an
 * output is read back (docs/PROVENANCE.md).
 *
 * Data movement: every element holds a code of (rank, buffer, element) in its low bits, its
 * top bit clear: low bits the rank, then the buffer, then the element index. A type too
 * narrow for the whole index keeps its low bits; decoding picks the candidate nearest to
 * where the element was expected to come from.
 * Sums: rank r adds 4^k at the element (k its digit there), so a sum read back in base 4
 * names each contributing rank and how often (digits up to 3). A type with B exact integer
 * bits has B/2 digits; with fewer digits than ranks, element e gives digits to the ranks
 * e*D mod n ... onwards, so consecutive elements see every rank.
 * Max and min: rank r holds (r + e) mod n + 1: the value names the rank it came from.
 * Products: the rank e mod n holds 2, the others 1: the product counts that rank's factor.
 * The poison of outputs is every byte 0xff: a NaN, -1, or beyond every pattern's range. */
#ifndef HCEMU_HOST_COLL_PROV_PATTERN_H
#define HCEMU_HOST_COLL_PROV_PATTERN_H

#include <stdbool.h>
#include <stdint.h>

#include "hccl/hccl_types.h"

#define EMU_PROV_MAX_RANKS 256u
#define EMU_PROV_BUFFERS 4u

enum emu_prov_fill { EMU_PROV_MOVE, EMU_PROV_SUM, EMU_PROV_PROD, EMU_PROV_MAXMIN };

struct emu_prov_pat {
    HcclDataType type;
    HcclReduceOp op;
    enum emu_prov_fill fill;
    uint32_t size;     /* bytes per element */
    uint32_t nranks;
    bool fp;           /* a floating-point type */
    uint32_t rb, bb, eb; /* movement code: rank, buffer and element bits */
    uint32_t digits;   /* sums: base-4 digits per element */
};

/* Set up *p; false when the type has no pattern (or the op is unknown, or the ranks too
 * many for max/min in the type). */
bool emu_prov_pat_init(struct emu_prov_pat *p, HcclDataType type, HcclReduceOp op,
                       uint32_t nranks);
/* The input element e of buffer b of rank r, into out[0..size). */
void emu_prov_pat_value(const struct emu_prov_pat *p, uint32_t r, uint32_t b, uint64_t e,
                        uint8_t *out);
/* Whether the element is the poison. */
bool emu_prov_pat_poison(const struct emu_prov_pat *p, const uint8_t *v);

/* Movement: the (rank, buffer, element) an element holds, resolved near the hint; false when
 * it is no code of any input. */
bool emu_prov_pat_decode_move(const struct emu_prov_pat *p, const uint8_t *v, uint32_t hint_rank,
                              uint64_t hint_elem, uint32_t *rank, uint32_t *buf, uint64_t *elem);
/* A whole number of the patterns' range as an element. */
void emu_prov_pat_encode(const struct emu_prov_pat *p, double v, uint8_t *out);
/* The element read as a number (reductions); false when not a whole number. */
bool emu_prov_pat_number(const struct emu_prov_pat *p, const uint8_t *v, double *out);
/* The value the reduction of the ranks in `mask` (bit r; all when `all`) gives at element e. */
double emu_prov_pat_reduced(const struct emu_prov_pat *p, uint64_t e, const uint64_t *mask);
/* Sums: the rank whose digit k is at element e, or UINT32_MAX beyond the digits. */
uint32_t emu_prov_pat_digit_rank(const struct emu_prov_pat *p, uint64_t e, uint32_t k);

#endif
