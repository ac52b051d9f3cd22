/* hcemu_provenance.h - where the bytes of a collective's output came from (hcemu only, not a
 * vendor header; docs/PROVENANCE.md).
 *
 * A test of a collective kernel fills each rank's inputs with hcemuProvenanceFill (values that
 * encode rank, buffer and element; for reductions, weights whose sum names the ranks that
 * contributed), poisons the outputs with hcemuProvenancePoison, runs the kernel, and hands
 * each output with its expected layout to hcemuProvenanceCheck. Every wrong range (consecutive
 * elements with the same kind of error) gets one line: what it holds ("rank 2's input element
 * 4096..8191", "a sum of ranks 0,1,1,3", "never written"), what it should hold, and - when the
 * devices run with HCEMU_PROVENANCE=1 - the task, thread and source line that last wrote it.
 *
 *     hcemuProvSpec spec = {HCCL_DATA_TYPE_FP32, HCCL_REDUCE_RESERVED, nRanks, rank};
 *     hcemuProvenanceFill(sendBuf, count, &spec, 0, 0);
 *     hcemuProvenancePoison(recvBuf, count * nRanks, HCCL_DATA_TYPE_FP32);
 *     ... launch the allgather kernel, synchronise the stream ...
 *     hcemuProvRange want[8];
 *     for (uint32_t r = 0; r < nRanks; r++)   // block r holds rank r's input
 *         want[r] = (hcemuProvRange){.outElem = r * count, .count = count,
 *                                    .kind = hcemuProvCopy, .rank = r};
 *     uint64_t wrong;
 *     hcemuProvenanceCheck(recvBuf, count * nRanks, &spec, want, nRanks, &wrong, NULL, 0);
 */
#ifndef HCEMU_PROVENANCE_H
#define HCEMU_PROVENANCE_H

#include <stddef.h>
#include <stdint.h>

#include "hccl/hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What one output range should hold. */
typedef enum {
    hcemuProvCopy = 0,   /* a copy of elements of one rank's input */
    hcemuProvReduce = 1, /* the reduction (spec->op) of the same elements of several inputs */
    hcemuProvSkip = 2,   /* anything: not checked */
} hcemuProvKind;

typedef struct {
    uint64_t outElem;   /* first output element of the range */
    uint64_t count;     /* elements in the range */
    hcemuProvKind kind;
    uint32_t rank;      /* COPY: the rank whose input the range copies */
    uint32_t buffer;    /* the input buffer (the `buffer` given to hcemuProvenanceFill) */
    uint64_t inElem;    /* the input element the range's first element copies or reduces */
    uint64_t rankMask;  /* REDUCE: bit r = rank r's input takes part; 0 = every rank */
} hcemuProvRange;

/* The data of one collective: its element type, its reduction (HCCL_REDUCE_RESERVED for data
 * movement: gather, scatter, all-to-all, broadcast, send/receive), its rank count, and the
 * calling rank (whose input hcemuProvenanceFill fills, whose output the report names). */
typedef struct {
    HcclDataType dataType;
    HcclReduceOp op;
    uint32_t nRanks;
    uint32_t rank;
} hcemuProvSpec;

/* Write elements first..first+count-1 of input buffer `buffer` (0..3) of rank spec->rank
 * into buf[0..count) (device memory, or host memory the program copies to the device itself).
 * HCCL_E_PTR for a NULL or unknown pointer, HCCL_E_PARA for bad numbers, HCCL_E_NOT_SUPPORT
 * for a type without a pattern (int128, the fp8 types). */
HcclResult hcemuProvenanceFill(void *buf, uint64_t count, const hcemuProvSpec *spec,
                               uint32_t buffer, uint64_t first);

/* Fill an output with the value no pattern holds (every byte 0xff), so an element nothing
 * wrote reads "never written"; writes made before this call are not named as last writers. */
HcclResult hcemuProvenancePoison(void *buf, uint64_t count, HcclDataType dataType);

/* Compare out[0..count) with `layout` (elements no range covers are not checked). Each wrong
 * range is logged (one line, at most 32 ranges, then a count) and appended to `report` when
 * given (NUL-terminated, cut at reportLen). *wrongElems (may be NULL) gets the number of wrong
 * elements. HCCL_SUCCESS when the check ran - whatever it found -, HCCL_E_PTR / HCCL_E_PARA /
 * HCCL_E_NOT_SUPPORT as for hcemuProvenanceFill, and for ranges outside the output. */
HcclResult hcemuProvenanceCheck(const void *out, uint64_t count, const hcemuProvSpec *spec,
                                const hcemuProvRange *layout, uint32_t nRanges,
                                uint64_t *wrongElems, char *report, size_t reportLen);

#ifdef __cplusplus
}
#endif

#endif
