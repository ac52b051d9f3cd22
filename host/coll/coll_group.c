/* coll_group.c - HcclGroupStart/HcclGroupEnd/HcclGroupStatusGet: nesting per calling thread.
 * Inside a group HcclSend and HcclRecv are only collected; the outermost HcclGroupEnd issues
 * them as one batch per (communicator, stream), in first-use order, so a ring of sends and
 * receives that would deadlock as separate calls runs as one exchange. Other operators inside
 * a group run at once, in call order. */
#include <hccl/hccl.h>

#include <stdlib.h>

#include "coll.h"
#include "common/platform/log.h"
#include "host/hccl/hccl.h"

#define GROUP_MAX_DEPTH 1024u

struct pending {
    HcclComm comm;
    aclrtStream stream;
    HcclSendRecvItem item;
};

static _Thread_local uint32_t depth;
static _Thread_local struct pending *items;
static _Thread_local uint32_t n_items, cap_items;

static emu_status group_add(HcclComm comm, aclrtStream stream, const HcclSendRecvItem *item)
{
    if (n_items == cap_items) {
        uint32_t cap = cap_items ? 2 * cap_items : 16;
        struct pending *p = realloc(items, cap * sizeof(*p));
        if (p == NULL) {
            EMU_LOG_ERR("HcclGroupStart: out of memory for %u pending sends/receives", cap);
            return EMU_ENOMEM;
        }
        items = p;
        cap_items = cap;
    }
    items[n_items++] = (struct pending){comm, stream, *item};
    return EMU_OK;
}

/* Issues every pending item of the (comm, stream) of item `first`, and marks them done. */
static emu_status flush_one(uint32_t first, bool *done)
{
    HcclSendRecvItem *batch = malloc(n_items * sizeof(*batch));
    uint32_t n = 0;

    if (batch == NULL) {
        EMU_LOG_ERR("HcclGroupEnd: out of memory for %u items", n_items);
        return EMU_ENOMEM;
    }
    for (uint32_t i = first; i < n_items; i++) {
        if (done[i] || items[i].comm != items[first].comm ||
            items[i].stream != items[first].stream)
            continue;
        batch[n++] = items[i].item;
        done[i] = true;
    }
    emu_status s = emu_coll_batch(items[first].comm, items[first].stream, batch, n,
                                  "HcclGroupEnd");
    free(batch);
    return s;
}

static emu_status flush(void)
{
    bool *done = calloc(n_items ? n_items : 1, sizeof(*done));
    emu_status s = EMU_OK;

    if (done == NULL) {
        EMU_LOG_ERR("HcclGroupEnd: out of memory");
        s = EMU_ENOMEM;
    }
    for (uint32_t i = 0; s == EMU_OK && i < n_items; i++)
        if (!done[i])
            s = flush_one(i, done);
    free(done);
    free(items);
    items = NULL;
    n_items = cap_items = 0;
    return s;
}

emu_status emu_coll_group_p2p(HcclSendRecvType type, void *buf, uint64_t count,
                              HcclDataType dataType, uint32_t peer, HcclComm comm,
                              aclrtStream stream, const char *fn)
{
    HcclSendRecvItem it = {type, buf, count, dataType, peer};

    if (depth > 0)
        return group_add(comm, stream, &it);
    return emu_coll_batch(comm, stream, &it, 1, fn);
}

bool emu_coll_group_open(void)
{
    return depth > 0;
}

#pragma GCC visibility push(default)

HcclResult HcclGroupStart(void)
{
    if (depth >= GROUP_MAX_DEPTH) {
        EMU_LOG_ERR("HcclGroupStart: groups nested deeper than %u", GROUP_MAX_DEPTH);
        return emu_hccl_leave(NULL, EMU_EINVAL);
    }
    depth++;
    return HCCL_SUCCESS;
}

HcclResult HcclGroupEnd(void)
{
    if (depth == 0) {
        EMU_LOG_ERR("HcclGroupEnd: no HcclGroupStart to end");
        return emu_hccl_leave(NULL, EMU_EINVAL);
    }
    if (--depth > 0)
        return HCCL_SUCCESS;
    return emu_hccl_leave(NULL, flush());
}

HcclResult HcclGroupStatusGet(bool *isGroupEnabled)
{
    if (isGroupEnabled == NULL)
        return emu_hccl_leave(NULL, emu_hccl_null(NULL, "HcclGroupStatusGet", "isGroupEnabled"));
    *isGroupEnabled = depth > 0;
    return HCCL_SUCCESS;
}
