/* api_hccl_channel.c - the channel boundary (hccl_channel.h, hccl_res.h): converts handles
 * and forwards to hccl_link_desc.c (the descriptor checks, then hccl_link.c under the comm's
 * lock) and to hccl_channel_config.c. */
#include <hccl/hccl.h>

#include <stdlib.h>
#include <string.h>

#include "host/hccl/hccl.h"
#include "host/hccl/hccl_channel_config.h"
#include "host/hccl/hccl_link.h"
#include "host/hccl/hccl_mem.h"
#include "host/hccl/hccl_res.h"
#include "host/hccl/hccl_rules.h"
#include "host/hccl/hccl_topo.h"

/* The vendor names defined below are the library's exports (host/exports.map). */
#pragma GCC visibility push(default)

_Static_assert(EMU_CHANNEL_CONFIG_TAG_MAX == HCCL_CHANNEL_CONFIG_SHARED_QUEUE_TAG_MAX_LEN,
               "the shared-queue tag has the vendor's size");

HcclResult HcclChannelAcquire(HcclComm comm, CommEngine engine, const HcclChannelDesc *channelDescs,
                              uint32_t channelNum, ChannelHandle *channels)
{
    static const char fn[] = "HcclChannelAcquire";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    s = emu_link_desc_acquire(c, engine, channelDescs, channelNum, NULL, channels, fn);
    return emu_hccl_leave(c, s);
}

/* ---- channel-config objects ------------------------------------------------------------ */

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
    return emu_hccl_leave(NULL, emu_channel_config_set_int(config, type, value,
                                                           "HcclChannelConfigSetInt"));
}

HcclResult HcclChannelConfigSetStr(HcclChannelConfig config, HcclChannelConfigType type,
                                   const char *value)
{
    return emu_hccl_leave(NULL, emu_channel_config_set_str(config, type, value,
                                                           "HcclChannelConfigSetStr"));
}

HcclResult HcclChannelAcquireWithConfig(HcclComm comm, CommEngine engine,
                                        const HcclChannelDesc *channelDescs, uint32_t channelNum,
                                        HcclChannelConfig config, ChannelHandle *channels)
{
    static const char fn[] = "HcclChannelAcquireWithConfig";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = emu_rules_call(fn, c->rank, EMU_ON_950 | EMU_ON_A3)) == EMU_OK)
        s = emu_link_desc_acquire(c, engine, channelDescs, channelNum, config, channels, fn);
    return emu_hccl_leave(c, s);
}

/* ---- queries and destruction ----------------------------------------------------------- */

HcclResult HcclChannelQuery(HcclComm comm, CommEngine engine, const HcclChannelDesc *channelDescs,
                            uint32_t channelNum, ChannelHandle *channels)
{
    static const char fn[] = "HcclChannelQuery";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = emu_rules_call(fn, c->rank, EMU_ON_950)) == EMU_OK)
        s = emu_link_desc_query(c, engine, channelDescs, channelNum, channels, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclChannelDestroy(HcclComm comm, const ChannelHandle *channels, uint32_t channelNum)
{
    static const char fn[] = "HcclChannelDestroy";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = emu_rules_call(fn, c->rank, EMU_ON_950)) == EMU_OK)
        s = emu_link_desc_destroy(c, channels, channelNum, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclChannelGetHcclBuffer(HcclComm comm, ChannelHandle channel, void **buffer,
                                    uint64_t *size)
{
    static const char fn[] = "HcclChannelGetHcclBuffer";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, buffer, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, size, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    return emu_hccl_leave(c, emu_res_channel_buffer(c, channel, buffer, size, fn));
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
