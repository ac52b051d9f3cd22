/* coll_algo.c - which algorithm a built-in collective runs: the HCEMU_ALGO setting
 * ("allreduce:ring,allgather:mesh", in the spirit of HCCL_ALGO) and which reductions the
 * data plane performs itself. The defaults by size and rank count live in coll_plan.c. */
#include "coll.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/log.h"
#include "common/contract/settings.h"

static const char *const kind_names[EMU_COLL_KIND_COUNT] = {
    [EMU_COLL_ALLREDUCE] = "allreduce",         [EMU_COLL_ALLGATHER] = "allgather",
    [EMU_COLL_REDUCE_SCATTER] = "reducescatter", [EMU_COLL_BROADCAST] = "broadcast",
    [EMU_COLL_REDUCE] = "reduce",               [EMU_COLL_ALLTOALL] = "alltoall",
    [EMU_COLL_SCATTER] = "scatter",             [EMU_COLL_P2P] = "p2p",
    [EMU_COLL_BARRIER] = "barrier",
};

static pthread_once_t parsed_once = PTHREAD_ONCE_INIT;
static enum emu_coll_algo chosen[EMU_COLL_KIND_COUNT];

/* HCEMU_ALGO, or NULL when unset. */
static const char *algo_setting_text(void)
{
    const char *s = emu_settings_str(EMU_SET_ALGO);
    return *s != '\0' ? s : NULL;
}

static int lookup(const char *const *names, int count, const char *s, size_t len)
{
    for (int i = 0; i < count; i++)
        if (names[i] != NULL && strlen(names[i]) == len && strncmp(names[i], s, len) == 0)
            return i;
    return -1;
}

/* One "kind:algo" item; a bad one is reported once and ignored. */
static void parse_item(const char *s, size_t len)
{
    const char *colon = memchr(s, ':', len);
    int k = -1, a = -1;

    if (colon != NULL) {
        k = lookup(kind_names, EMU_COLL_KIND_COUNT, s, (size_t)(colon - s));
        a = lookup(emu_coll_algo_names, EMU_ALGO_COUNT, colon + 1, len - (size_t)(colon - s) - 1);
    }
    if (k < 0 || a < 0) {
        EMU_LOG_WARN("HCEMU_ALGO: ignoring \"%.*s\" (want kind:algo, kind one of allreduce "
                     "allgather reducescatter broadcast, algo one of mesh twoshot ring rhd rd hier)",
                     (int)len, s);
        return;
    }
    chosen[k] = (enum emu_coll_algo)a;
}

static void parse(void)
{
    const char *s = algo_setting_text();

    while (s != NULL && *s != '\0') {
        size_t len = strcspn(s, ",");
        if (len > 0)
            parse_item(s, len);
        s += len + (s[len] == ',');
    }
}

enum emu_coll_algo emu_coll_algo_setting(enum emu_coll_kind kind)
{
    pthread_once(&parsed_once, parse);
    return kind < EMU_COLL_KIND_COUNT ? chosen[kind] : EMU_ALGO_DEFAULT;
}

bool emu_coll_prim_reducible(uint32_t dtype, uint32_t op)
{
    if (op != HCCL_REDUCE_SUM && op != HCCL_REDUCE_MAX && op != HCCL_REDUCE_MIN)
        return false;
    switch (dtype) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_FP32:
    case HCCL_DATA_TYPE_BFP16:
        return true;
    default:
        return false;
    }
}
