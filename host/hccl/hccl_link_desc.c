/* hccl_link_desc.c - the checks of a channel request before hccl_link.c builds it: call
 * arguments, each descriptor (header, peer, protocol against product and topology, notify
 * count, memory handles, endpoints), shared-queue configs, and which channels may be
 * destroyed. Takes c->lock around hccl_link.c. */
#include "hccl_link.h"

#include <stdlib.h>
#include <string.h>

#include "hccl.h"
#include "hccl_channel_config.h"
#include "hccl_mem.h"
#include "hccl_rules.h"
#include "hccl_topo.h"

#define CHANNELS_MAX 1048576u
#define CHANNEL_NOTIFIES_MAX 64u
#define CCU_NOTIFIES 8u

/* Copy what the caller's descriptor version shares with ours; the rest keeps the defaults. */
static emu_status copy_desc(struct emu_comm *c, const HcclChannelDesc *in, uint32_t i,
                            HcclChannelDesc *out, const char *fn)
{
    if (in->header.magicWord != HCCL_CHANNEL_MAGIC_WORD)
        return emu_hccl_bad(c, fn,
                            "channelDescs[%u] was not set up by HcclChannelDescInit "
                            "(magic 0x%x)",
                            i, in->header.magicWord);
    (void)HcclChannelDescInit(out, 1);
    size_t n = in->header.size < sizeof(*out) ? in->header.size : sizeof(*out);
    memcpy(out, in, n);
    if (out->remoteRank >= c->size)
        return emu_hccl_bad(c, fn, "channelDescs[%u].remoteRank %u is not a rank (0..%u)", i,
                            out->remoteRank, c->size - 1);
    if (out->remoteRank == c->rank)
        return emu_hccl_bad(c, fn,
                            "channelDescs[%u].remoteRank %u is this rank: no channel to "
                            "self",
                            i, out->remoteRank);
    return EMU_OK;
}

static emu_status check_mems(struct emu_comm *c, const HcclChannelDesc *d, uint32_t i,
                             const char *fn)
{
    if (d->memHandleNum == 0)
        return EMU_OK;
    if (d->memHandles == NULL) {
        EMU_COMM_ERR(c, fn, "channelDescs[%u].memHandles is NULL but memHandleNum is %u", i,
                     d->memHandleNum);
        return EMU_ENULL;
    }
    if (d->memHandleNum > EMU_MAX_CHANNEL_MEMS - 1)
        return emu_hccl_bad(c, fn, "channelDescs[%u].memHandleNum %u is above %u", i,
                            d->memHandleNum, EMU_MAX_CHANNEL_MEMS - 1);
    for (uint32_t k = 0; k < d->memHandleNum; k++)
        if (emu_hccl_mem_reg_find(c, d->memHandles[k]) == NULL)
            return emu_hccl_bad(c, fn,
                                "channelDescs[%u].memHandles[%u] is not a memory "
                                "registered with this communicator (HcclCommMemReg)",
                                i, k);
    return EMU_OK;
}

static emu_status check_desc(struct emu_comm *c, int32_t engine, HcclChannelDesc *d, uint32_t i,
                             const char *fn)
{
    int32_t proto = d->channelProtocol;
    emu_status s = emu_rules_protocol(fn, c->rank, engine, proto);

    if (s != EMU_OK)
        return s;
    if (!emu_graph_has_link(c->graph, c->rank, d->remoteRank, proto))
        return emu_hccl_bad(c, fn,
                            "channelDescs[%u]: no %s link between rank %u and rank %u "
                            "(HcclRankGraphGetLinks lists the links)",
                            i, emu_topo_protocol_name(proto), c->rank, d->remoteRank);
    if (engine == COMM_ENGINE_CCU)
        d->notifyNum = CCU_NOTIFIES; /* fixed for CCU channels (docs/CONTROL_PLANE.md §6) */
    if (d->notifyNum > CHANNEL_NOTIFIES_MAX)
        return emu_hccl_bad(c, fn, "channelDescs[%u].notifyNum %u is above %u", i, d->notifyNum,
                            CHANNEL_NOTIFIES_MAX);
    if (!emu_graph_endpoint_ok(c->graph, c->rank, proto, &d->localEndpoint))
        return emu_hccl_bad(c, fn,
                            "channelDescs[%u].localEndpoint is not rank %u's %s endpoint "
                            "(copy it from HcclRankGraphGetLinks)",
                            i, c->rank, emu_topo_protocol_name(proto));
    if (!emu_graph_endpoint_ok(c->graph, d->remoteRank, proto, &d->remoteEndpoint))
        return emu_hccl_bad(c, fn,
                            "channelDescs[%u].remoteEndpoint is not rank %u's %s "
                            "endpoint (copy it from HcclRankGraphGetLinks)",
                            i, d->remoteRank, emu_topo_protocol_name(proto));
    return check_mems(c, d, i, fn);
}

static emu_status check_call(struct emu_comm *c, int32_t engine, const void *descs,
                             const void *channels, uint32_t n, const char *fn)
{
    emu_status s;

    if ((s = EMU_HCCL_NONNULL(c, descs, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, channels, fn)) != EMU_OK)
        return s;
    if (n == 0 || n > CHANNELS_MAX)
        return emu_hccl_bad(c, fn, "channelNum %u is not in [1, %u]", n, CHANNELS_MAX);
    return emu_rules_engine(fn, c->rank, engine);
}

/* Checked copies of the caller's descriptors; the caller frees *out. */
static emu_status take_descs(struct emu_comm *c, int32_t engine, const HcclChannelDesc *in,
                             uint32_t n, bool full, HcclChannelDesc **out, const char *fn)
{
    HcclChannelDesc *d = malloc((size_t)n * sizeof(*d));
    emu_status s = EMU_OK;

    if (d == NULL)
        return EMU_ENOMEM;
    for (uint32_t i = 0; i < n && s == EMU_OK; i++) {
        s = copy_desc(c, &in[i], i, &d[i], fn);
        if (s == EMU_OK && full)
            s = check_desc(c, engine, &d[i], i, fn);
    }
    if (s != EMU_OK) {
        free(d);
        return s;
    }
    *out = d;
    return EMU_OK;
}

static emu_status acquire(struct emu_comm *c, int32_t engine, const HcclChannelDesc *in, uint32_t n,
                          ChannelHandle *out, const char *fn)
{
    HcclChannelDesc *d;
    emu_status s = take_descs(c, engine, in, n, true, &d, fn);

    if (s != EMU_OK)
        return s;
    pthread_mutex_lock(&c->lock);
    s = emu_link_acquire(c, engine, d, n, out, fn);
    pthread_mutex_unlock(&c->lock);
    free(d);
    return s;
}

/* Shared queues: AIV over UB_CTP, a tag, one local endpoint for all descriptors. hcemu has
 * no hardware queues to share, so once accepted such channels behave like any other. */
static emu_status check_shared(struct emu_comm *c, int32_t engine, const HcclChannelDesc *d,
                               uint32_t n, const struct emu_channel_config *x, const char *fn)
{
    if (engine != COMM_ENGINE_AIV)
        return emu_hccl_bad(c, fn, "shared-queue channels are for the AIV engine, not %s",
                            emu_rules_engine_name(engine));
    if (x->tag[0] == '\0')
        return emu_hccl_bad(c, fn, "shared-queue channels need a SHARED_QUEUE_TAG");
    for (uint32_t i = 0; i < n; i++) {
        if (d[i].channelProtocol != COMM_PROTOCOL_UB_CTP)
            return emu_hccl_bad(c, fn, "channelDescs[%u]: shared-queue channels use UB_CTP", i);
        if (memcmp(&d[i].localEndpoint, &d[0].localEndpoint, sizeof(d[0].localEndpoint)) != 0)
            return emu_hccl_bad(c, fn,
                                "channelDescs[%u].localEndpoint differs from "
                                "channelDescs[0]'s (one endpoint per shared queue)",
                                i);
    }
    return EMU_OK;
}

static emu_status destroy_one(struct emu_comm *c, ChannelHandle h, uint32_t i, const char *fn)
{
    struct emu_chan_rec *ch;
    emu_status s = emu_link_find(c, h, &ch, fn);

    if (s != EMU_OK)
        return s;
    if (ch->engine != COMM_ENGINE_CCU) {
        EMU_COMM_ERR(c, fn,
                     "channels[%u] is a %s channel: only CCU channels are destroyed "
                     "before HcclCommDestroy",
                     i, emu_rules_engine_name(ch->engine));
        return EMU_ENOTSUP;
    }
    emu_link_release(c, ch);
    return EMU_OK;
}

emu_status emu_link_desc_acquire(struct emu_comm *c, int32_t engine, const HcclChannelDesc *descs,
                                 uint32_t n, const void *config, ChannelHandle *out, const char *fn)
{
    struct emu_channel_config *x = NULL;
    emu_status s = check_call(c, engine, descs, out, n, fn);

    if (s == EMU_OK && config != NULL && !emu_channel_config_lookup(config, &x))
        s = emu_hccl_bad(c, fn, "config %p is not a live channel config", config);
    else if (s == EMU_OK && x != NULL && x->shared)
        s = check_shared(c, engine, descs, n, x, fn);
    if (s == EMU_OK)
        s = acquire(c, engine, descs, n, out, fn);
    return s;
}

emu_status emu_link_desc_query(struct emu_comm *c, int32_t engine, const HcclChannelDesc *descs,
                               uint32_t n, ChannelHandle *out, const char *fn)
{
    HcclChannelDesc *d;
    emu_status s;

    if ((s = check_call(c, engine, descs, out, n, fn)) != EMU_OK ||
        (s = take_descs(c, engine, descs, n, false, &d, fn)) != EMU_OK)
        return s;
    pthread_mutex_lock(&c->lock);
    emu_link_query(c, engine, d, n, out);
    pthread_mutex_unlock(&c->lock);
    free(d);
    return EMU_OK;
}

emu_status emu_link_desc_destroy(struct emu_comm *c, const ChannelHandle *channels, uint32_t n,
                                 const char *fn)
{
    emu_status s;

    if ((s = EMU_HCCL_NONNULL(c, channels, fn)) != EMU_OK)
        return s;
    if (n == 0 || n > CHANNELS_MAX)
        return emu_hccl_bad(c, fn, "channelNum %u is not in [1, %u]", n, CHANNELS_MAX);
    /* The first error wins, but every handle is tried (docs/CONTROL_PLANE.md §6). */
    pthread_mutex_lock(&c->lock);
    for (uint32_t i = 0; i < n; i++) {
        emu_status one = destroy_one(c, channels[i], i, fn);
        if (s == EMU_OK)
            s = one;
    }
    pthread_mutex_unlock(&c->lock);
    return s;
}
