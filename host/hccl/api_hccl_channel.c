/* api_hccl_channel.c - the channel boundary (hccl_channel.h, hccl_res.h): descriptor
 * checks (header, peer, protocol against product and topology, notify count, memory
 * handles, endpoints), channel-config objects, then hccl_link.c under the comm's lock. */
#include <hccl/hccl.h>

#include <stdlib.h>
#include <string.h>

#include "hccl.h"
#include "hccl_channel_config.h"
#include "hccl_link.h"
#include "hccl_mem.h"
#include "hccl_rules.h"
#include "hccl_topo.h"

/* The vendor names defined below are the library's exports (host/exports.map). */
#pragma GCC visibility push(default)

#define CHANNELS_MAX 1048576u
#define CHANNEL_NOTIFIES_MAX 64u
#define CCU_NOTIFIES 8u
_Static_assert(EMU_CHANNEL_CONFIG_TAG_MAX == HCCL_CHANNEL_CONFIG_SHARED_QUEUE_TAG_MAX_LEN,
               "the shared-queue tag has the vendor's size");

/* ---- descriptors ----------------------------------------------------------------------- */

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

HcclResult HcclChannelAcquire(HcclComm comm, CommEngine engine, const HcclChannelDesc *channelDescs,
                              uint32_t channelNum, ChannelHandle *channels)
{
    static const char fn[] = "HcclChannelAcquire";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = check_call(c, engine, channelDescs, channels, channelNum, fn)) == EMU_OK)
        s = acquire(c, engine, channelDescs, channelNum, channels, fn);
    return emu_hccl_leave(c, s);
}

/* ---- channel-config objects ------------------------------------------------------------ */

static struct emu_channel_config *config_find(const void *p)
{
    struct emu_channel_config *x;

    return emu_channel_config_lookup(p, &x) ? x : NULL;
}

HcclResult HcclChannelConfigCreate(HcclChannelConfig *config)
{
    static const char fn[] = "HcclChannelConfigCreate";

    if (config == NULL)
        return emu_hccl_leave(NULL, emu_hccl_bad(NULL, fn, "config is NULL"));
    struct emu_channel_config *x;
    emu_status s = emu_channel_config_create(&x);
    if (s != EMU_OK)
        return emu_hccl_leave(NULL, s);
    *config = x;
    return HCCL_SUCCESS;
}

HcclResult HcclChannelConfigDestroy(HcclChannelConfig config)
{
    static const char fn[] = "HcclChannelConfigDestroy";

    if (config == NULL)
        return HCCL_SUCCESS;
    if (!emu_channel_config_destroy(config))
        return emu_hccl_leave(NULL, emu_hccl_bad(NULL, fn,
                                                 "config %p is not a live channel "
                                                 "config",
                                                 config));
    return HCCL_SUCCESS;
}

HcclResult HcclChannelConfigSetInt(HcclChannelConfig config, HcclChannelConfigType type,
                                   uint32_t value)
{
    static const char fn[] = "HcclChannelConfigSetInt";
    struct emu_channel_config *x = config_find(config);

    if (x == NULL)
        return emu_hccl_leave(NULL, emu_hccl_bad(NULL, fn,
                                                 "config %p is not a live channel "
                                                 "config",
                                                 config));
    if (type != HCCL_CHANNEL_CONFIG_TYPE_IS_SHARED_QUEUE)
        return emu_hccl_leave(NULL, emu_hccl_bad(NULL, fn,
                                                 "type %d is not an integer setting "
                                                 "(IS_SHARED_QUEUE)",
                                                 (int)type));
    x->shared = value != 0;
    return HCCL_SUCCESS;
}

HcclResult HcclChannelConfigSetStr(HcclChannelConfig config, HcclChannelConfigType type,
                                   const char *value)
{
    static const char fn[] = "HcclChannelConfigSetStr";
    struct emu_channel_config *x = config_find(config);

    if (x == NULL)
        return emu_hccl_leave(NULL, emu_hccl_bad(NULL, fn,
                                                 "config %p is not a live channel "
                                                 "config",
                                                 config));
    if (type != HCCL_CHANNEL_CONFIG_TYPE_SHARED_QUEUE_TAG)
        return emu_hccl_leave(NULL, emu_hccl_bad(NULL, fn,
                                                 "type %d is not a string setting "
                                                 "(SHARED_QUEUE_TAG)",
                                                 (int)type));
    if (value == NULL)
        return emu_hccl_leave(NULL, emu_hccl_bad(NULL, fn, "value is NULL"));
    if (strnlen(value, sizeof(x->tag)) >= sizeof(x->tag))
        return emu_hccl_leave(
            NULL, emu_hccl_bad(NULL, fn, "the tag is longer than %zu bytes", sizeof(x->tag) - 1));
    memcpy(x->tag, value, strlen(value) + 1);
    return HCCL_SUCCESS;
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

HcclResult HcclChannelAcquireWithConfig(HcclComm comm, CommEngine engine,
                                        const HcclChannelDesc *channelDescs, uint32_t channelNum,
                                        HcclChannelConfig config, ChannelHandle *channels)
{
    static const char fn[] = "HcclChannelAcquireWithConfig";
    struct emu_channel_config *x = NULL;
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = emu_rules_call(fn, c->rank, EMU_ON_950 | EMU_ON_A3)) != EMU_OK ||
        (s = check_call(c, engine, channelDescs, channels, channelNum, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    if (config != NULL && (x = config_find(config)) == NULL)
        s = emu_hccl_bad(c, fn, "config %p is not a live channel config", config);
    else if (x != NULL && x->shared)
        s = check_shared(c, engine, channelDescs, channelNum, x, fn);
    if (s == EMU_OK)
        s = acquire(c, engine, channelDescs, channelNum, channels, fn);
    return emu_hccl_leave(c, s);
}

/* ---- queries and destruction ----------------------------------------------------------- */

HcclResult HcclChannelQuery(HcclComm comm, CommEngine engine, const HcclChannelDesc *channelDescs,
                            uint32_t channelNum, ChannelHandle *channels)
{
    static const char fn[] = "HcclChannelQuery";
    HcclChannelDesc *d;
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = emu_rules_call(fn, c->rank, EMU_ON_950)) != EMU_OK ||
        (s = check_call(c, engine, channelDescs, channels, channelNum, fn)) != EMU_OK ||
        (s = take_descs(c, engine, channelDescs, channelNum, false, &d, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    pthread_mutex_lock(&c->lock);
    emu_link_query(c, engine, d, channelNum, channels);
    pthread_mutex_unlock(&c->lock);
    free(d);
    return emu_hccl_leave(c, EMU_OK);
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

HcclResult HcclChannelDestroy(HcclComm comm, const ChannelHandle *channels, uint32_t channelNum)
{
    static const char fn[] = "HcclChannelDestroy";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = emu_rules_call(fn, c->rank, EMU_ON_950)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, channels, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    if (channelNum == 0 || channelNum > CHANNELS_MAX)
        return emu_hccl_leave(
            c, emu_hccl_bad(c, fn, "channelNum %u is not in [1, %u]", channelNum, CHANNELS_MAX));
    /* The first error wins, but every handle is tried (docs/CONTROL_PLANE.md §6). */
    pthread_mutex_lock(&c->lock);
    for (uint32_t i = 0; i < channelNum; i++) {
        emu_status one = destroy_one(c, channels[i], i, fn);
        if (s == EMU_OK)
            s = one;
    }
    pthread_mutex_unlock(&c->lock);
    return emu_hccl_leave(c, s);
}

HcclResult HcclChannelGetHcclBuffer(HcclComm comm, ChannelHandle channel, void **buffer,
                                    uint64_t *size)
{
    static const char fn[] = "HcclChannelGetHcclBuffer";
    struct emu_chan_rec *ch;
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, buffer, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, size, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    pthread_mutex_lock(&c->lock);
    if ((s = emu_link_find(c, channel, &ch, fn)) == EMU_OK) {
        *buffer = ch->mems[0].addr; /* mems[0] is always the peer's HCCL buffer */
        *size = ch->mems[0].size;
    }
    pthread_mutex_unlock(&c->lock);
    return emu_hccl_leave(c, s);
}

HcclResult HcclChannelGetRemoteMems(HcclComm comm, ChannelHandle channel, uint32_t *memNum,
                                    CommMem **remoteMems, char ***memTags)
{
    static const char fn[] = "HcclChannelGetRemoteMems";
    struct emu_chan_rec *ch;
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = emu_rules_call(fn, c->rank, EMU_ON_950)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, memNum, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, remoteMems, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, memTags, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    pthread_mutex_lock(&c->lock);
    if ((s = emu_link_find(c, channel, &ch, fn)) == EMU_OK) {
        *memNum = ch->mem_num;
        *remoteMems = ch->mems;
        *memTags = ch->tags;
    }
    pthread_mutex_unlock(&c->lock);
    return emu_hccl_leave(c, s);
}

#pragma GCC visibility pop
