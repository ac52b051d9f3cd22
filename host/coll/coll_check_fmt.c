/* coll_check_fmt.c - how the cross-rank checks word a mismatch: each rank's call in the
 * operator's own terms ("HcclAllReduce(fp32, 1024, sum)"), the ranks that made the same call
 * grouped ("ranks 0-2,4 called ..., rank 3 ..."), one line per rank that fails; and what
 * makes two calls the same. */
#include "coll_check_rec.h"
#include "text_put.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/contract/layout.h"
#include "common/platform/log.h"

bool emu_check_same(const struct emu_check_rec *a, const struct emu_check_rec *b)
{
    return a->kind == b->kind && a->dtype == b->dtype &&
           a->op == b->op && a->root == b->root && a->count == b->count &&
           a->hash == b->hash;
}

/* What an operator's description shows besides the data type. */
enum {
    SHOW_COUNT = 1,
    SHOW_OP = 2,
    SHOW_ROOT = 4,
    SHOW_VEC = 8,   /* V forms: the vectors' element `at` */
    SHOW_TYPE = 16, /* a data type at all (not Barrier) */
};

static const struct {
    const char *name;
    unsigned show;
    const char *vec, *vec2; /* names of the vectors */
} kinds[EMU_CHECK_KINDS] = {
    [EMU_CHECK_HcclAllReduce] = {"HcclAllReduce", SHOW_TYPE | SHOW_COUNT | SHOW_OP, NULL, NULL},
    [EMU_CHECK_HcclReduce] = {"HcclReduce", SHOW_TYPE | SHOW_COUNT | SHOW_OP | SHOW_ROOT, NULL,
                              NULL},
    [EMU_CHECK_HcclReduceScatter] = {"HcclReduceScatter", SHOW_TYPE | SHOW_COUNT | SHOW_OP, NULL,
                                     NULL},
    [EMU_CHECK_HcclReduceScatterV] = {"HcclReduceScatterV", SHOW_TYPE | SHOW_OP | SHOW_VEC,
                                      "sendCounts", "sendDispls"},
    [EMU_CHECK_HcclBroadcast] = {"HcclBroadcast", SHOW_TYPE | SHOW_COUNT | SHOW_ROOT, NULL, NULL},
    [EMU_CHECK_HcclScatter] = {"HcclScatter", SHOW_TYPE | SHOW_COUNT | SHOW_ROOT, NULL, NULL},
    [EMU_CHECK_HcclAllGather] = {"HcclAllGather", SHOW_TYPE | SHOW_COUNT, NULL, NULL},
    [EMU_CHECK_HcclAllGatherV] = {"HcclAllGatherV", SHOW_TYPE | SHOW_VEC, "recvCounts",
                                  "recvDispls"},
    [EMU_CHECK_HcclAlltoAll] = {"HcclAlltoAll", SHOW_TYPE | SHOW_COUNT, NULL, NULL},
    [EMU_CHECK_HcclAlltoAllV] = {"HcclAlltoAllV", SHOW_TYPE, NULL, NULL},
    [EMU_CHECK_HcclAlltoAllVC] = {"HcclAlltoAllVC", SHOW_TYPE, NULL, NULL},
    [EMU_CHECK_HcclBarrier] = {"HcclBarrier", 0, NULL, NULL},
};

const char *emu_check_name(uint32_t kind)
{
    return kind > 0 && kind < EMU_CHECK_KINDS ? kinds[kind].name : "?";
}

/* hccl_test's spellings, at their HCCL values. */
static const char *const dtypes[] = {
    "int8",   "int16", "int32", "fp16",   "fp32", "int64",   "uint64",  "uint8",   "uint16",
    "uint32", "fp64",  "bfp16", "int128", NULL,   "hif8",    "fp8e4m3", "fp8e5m2", "fp8e8m0",
};

const char *emu_check_dtype_name(int32_t dtype)
{
    if (dtype < 0 || (size_t)dtype >= sizeof(dtypes) / sizeof(dtypes[0]))
        return NULL;
    return dtypes[dtype];
}

static const char *op_name(int32_t op, char *buf, size_t len)
{
    static const char *const ops[] = {"sum", "prod", "max", "min"};

    if (op >= 0 && op < 4)
        return ops[op];
    snprintf(buf, len, "op %d", (int)op);
    return buf;
}

static const char *type_text(int32_t dtype, char *buf, size_t len)
{
    const char *name = emu_check_dtype_name(dtype);

    if (name != NULL)
        return name;
    snprintf(buf, len, "dataType %d", (int)dtype);
    return buf;
}


void emu_check_describe(char *buf, size_t len, const struct emu_check_view *v, uint32_t at)
{
    const struct emu_check_rec *r = v->rec;
    unsigned show = r->kind < EMU_CHECK_KINDS ? kinds[r->kind].show : 0;
    char t1[24], o[24];
    size_t n = 0;

    emu_text_put(buf, len, &n, "%s(", emu_check_name(r->kind));
    if (show & SHOW_TYPE)
        emu_text_put(buf, len, &n, "%s", type_text(r->dtype, t1, sizeof(t1)));
    if (show & SHOW_COUNT)
        emu_text_put(buf, len, &n, ", %" PRIu64, r->count);
    if (show & SHOW_OP)
        emu_text_put(buf, len, &n, ", %s", op_name(r->op, o, sizeof(o)));
    if (show & SHOW_ROOT)
        emu_text_put(buf, len, &n, ", root %d", (int)r->root);
    if ((show & SHOW_VEC) && at != UINT32_MAX && v->vec != NULL)
        emu_text_put(buf, len, &n, ", %s[%u] %" PRIu64 ", %s[%u] %" PRIu64, kinds[r->kind].vec,
                     at,
            v->vec[at], kinds[r->kind].vec2, at, v->vec2[at]);
    emu_text_put(buf, len, &n, ")");
}

/* The first element where the vectors of two calls differ (UINT32_MAX: none, or no vectors). */
static uint32_t first_diff(const struct emu_check_view *a, const struct emu_check_view *b,
                           uint32_t n)
{
    if (a->vec == NULL || b->vec == NULL)
        return UINT32_MAX;
    for (uint32_t i = 0; i < n; i++)
        if (a->vec[i] != b->vec[i] || a->vec2[i] != b->vec2[i])
            return i;
    return UINT32_MAX;
}

/* "0-2,4,7" into buf: the ranks whose group is g. */
static void rank_list(char *buf, size_t len, const uint32_t *group, uint32_t n, uint32_t g,
                      uint32_t *count)
{
    size_t at = 0;
    uint32_t i = 0;

    *count = 0;
    buf[0] = '\0';
    while (i < n) {
        if (group[i] != g) {
            i++;
            continue;
        }
        uint32_t j = i;
        while (j + 1 < n && group[j + 1] == g)
            j++;
        emu_text_put(buf, len, &at, "%s%u", *count > 0 ? "," : "", i);
        if (j > i)
            emu_text_put(buf, len, &at, "%s%u", j == i + 1 ? "," : "-", j);
        *count += j - i + 1;
        i = j + 1;
    }
}

#define MAX_GROUPS 8u

void emu_check_report_mismatch(const char *fn, uint32_t me, uint64_t no, uint32_t n,
                               const struct emu_check_view *views)
{
    static _Thread_local uint32_t group[EMU_MAX_DEVICES]; /* one rank per device at most */
    uint32_t first[MAX_GROUPS + 1], groups = 0;
    char line[900], ranks[160], call[200];
    size_t at = 0;

    /* Group by record; ranks past MAX_GROUPS distinct calls share the last group. */
    for (uint32_t r = 0; r < n && r < sizeof(group) / sizeof(group[0]); r++) {
        uint32_t g = 0;
        while (g < groups && !emu_check_same(views[first[g]].rec, views[r].rec))
            g++;
        if (g == groups && groups < MAX_GROUPS + 1)
            first[groups++] = r;
        group[r] = g < MAX_GROUPS ? g : MAX_GROUPS;
    }
    /* V forms: show the first element where the groups' vectors differ. */
    uint32_t diff = UINT32_MAX;
    for (uint32_t g = 1; g < groups && diff == UINT32_MAX; g++)
        diff = first_diff(&views[first[0]], &views[first[g]], n);
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t count;
        rank_list(ranks, sizeof(ranks), group, n, g, &count);
        if (g == MAX_GROUPS) {
            emu_text_put(line, sizeof(line), &at, ", rank%s %s other calls",
                         count > 1 ? "s" : "", ranks);
            break;
        }
        emu_check_describe(call, sizeof(call), &views[first[g]], diff);
        emu_text_put(line, sizeof(line), &at, "%srank%s %s %s%s", g > 0 ? ", " : "",
                     count > 1 ? "s" : "", ranks, g == 0 ? "called " : "", call);
    }
    EMU_LOG_ERR("%s: rank %u: collective call %" PRIu64 " of the communicator differs across its "
                "ranks: %s; failing it on every rank (HCEMU_COLL_CHECK)",
                fn, me, no, line);
}

void emu_check_report_pair(const char *fn, uint32_t me, uint64_t no, const struct emu_check_view *v,
                           uint32_t from, uint32_t to, uint64_t sends, uint64_t recvs)
{
    char t[24];
    const char *type = type_text(v->rec->dtype, t, sizeof(t));

    EMU_LOG_ERR("%s: rank %u: collective call %" PRIu64 " of the communicator: rank %u's %s "
                "sends %" PRIu64 " %s to rank %u, whose call receives %" PRIu64 " from rank %u; "
                "failing it on every rank (HCEMU_COLL_CHECK)",
                fn, me, no, from, emu_check_name(v->rec->kind), sends, type, to, recvs, from);
}
