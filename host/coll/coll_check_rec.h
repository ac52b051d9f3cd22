/* coll_check_rec.h - one rank's posted call as the cross-rank checks compare and print it
 * (coll_check.c posts and compares, coll_check_fmt.c words the verdict). */
#ifndef HCEMU_HOST_COLL_COLL_CHECK_REC_H
#define HCEMU_HOST_COLL_COLL_CHECK_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EMU_CHECK_VEC 1u     /* the call carries vectors (V forms) */
#define EMU_CHECK_GAVE_UP 4u /* this rank stopped waiting for the others (timeout) */

/* The checked operators, in the order of the names coll_check_fmt.c prints. */
enum emu_check_kind {
    EMU_CHECK_HcclAllReduce = 1,
    EMU_CHECK_HcclReduce,
    EMU_CHECK_HcclReduceScatter,
    EMU_CHECK_HcclReduceScatterV,
    EMU_CHECK_HcclBroadcast,
    EMU_CHECK_HcclScatter,
    EMU_CHECK_HcclAllGather,
    EMU_CHECK_HcclAllGatherV,
    EMU_CHECK_HcclAlltoAll,
    EMU_CHECK_HcclAlltoAllV,
    EMU_CHECK_HcclAlltoAllVC,
    EMU_CHECK_HcclBarrier,
    EMU_CHECK_KINDS
};

/* Shared memory: written by its rank before it publishes the call, read by every rank. */
struct emu_check_rec {
    uint32_t kind; /* enum emu_check_kind */
    uint32_t flags;
    int32_t dtype, op, root;
    uint64_t count;
    uint64_t hash; /* of the V vectors every rank must pass alike */
};

/* One rank's call as the verdict sees it: the record and its vectors (NULL when none). */
struct emu_check_view {
    const struct emu_check_rec *rec;
    const uint64_t *vec, *vec2;
};

/* Whether two ranks made the same call as far as their records tell (V vectors by hash). */
bool emu_check_same(const struct emu_check_rec *a, const struct emu_check_rec *b);

/* "HcclAllReduce(fp32, 1024, sum)"; with vectors and at != UINT32_MAX, element `at` of
 * them ("HcclAllGatherV(fp32, recvCounts[2] 64, recvDispls[2] 128)"). */
void emu_check_describe(char *buf, size_t len, const struct emu_check_view *v, uint32_t at);
/* The operator's name ("HcclAllReduce"). */
const char *emu_check_name(uint32_t kind);
/* Data type name ("fp32"), or NULL for a value that is no HcclDataType. */
const char *emu_check_dtype_name(int32_t dtype);

/* The mismatch line of call `no` seen by rank `me` of an n-rank communicator: the ranks
 * grouped by their call, each group's call described once. */
void emu_check_report_mismatch(const char *fn, uint32_t me, uint64_t no, uint32_t n,
                               const struct emu_check_view *views);
/* AlltoAllV(C): rank `from` sends `sends` elements to `to`, which expects `recvs`. */
void emu_check_report_pair(const char *fn, uint32_t me, uint64_t no, const struct emu_check_view *v,
                           uint32_t from, uint32_t to, uint64_t sends, uint64_t recvs);

#endif
