/* hccl_channel.h - channels: a link from this rank to one peer for one engine and protocol,
 * with notifies on both ends. Declares HcclChannelDesc, its inline initialiser, the channel
 * calls and the channel-config objects (docs/CONTROL_PLANE.md §6). */
#ifndef HCEMU_HCCL_CHANNEL_H
#define HCEMU_HCCL_CHANNEL_H

#include <stdint.h>
#include <string.h>

#include "hccl_types.h"
#include "hcomm_res_defs.h"
#include "hcomm_channel.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *HcclMemHandle;     /* from HcclCommMemReg */
typedef void *HcclChannelConfig; /* from HcclChannelConfigCreate */

#define HCCL_CHANNEL_MAGIC_WORD 0x0f0f0f0fU
#define HCCL_CHANNEL_VERSION 1U
#define HCCL_CHANNEL_DESC_RAW_MAX_LEN 128U

/* 496 bytes. Every descriptor must come from HcclChannelDescInit: the library checks
 * header.magicWord and copies only the prefix it knows when header.size differs. */
typedef struct {
    CommAbiHeader header;
    uint32_t remoteRank;          /* peer rank, required */
    CommProtocol channelProtocol; /* required; UB_CTP on 950 */
    EndpointDesc localEndpoint;   /* 950: CommLink.srcEndpointDesc */
    EndpointDesc remoteEndpoint;  /* 950: CommLink.dstEndpointDesc */
    uint32_t notifyNum;           /* channel notifies per side, 0..64 */
    HcclMemHandle *memHandles;    /* extra registered memories to exchange */
    uint32_t memHandleNum;
    /* Protocol-specific attributes; 0xFF bytes mean "library default". Anonymous as in the
     * vendor header; __extension__ keeps C++ -Wpedantic quiet. */
    __extension__ union {
        uint8_t raws[HCCL_CHANNEL_DESC_RAW_MAX_LEN];
        struct {
            uint32_t queueNum;      /* QP count; only 1 supported */
            uint32_t retryCnt;      /* 1..7, default 7 */
            uint32_t retryInterval; /* 5..24 (4.096 us * 2^n), default 20 */
            uint8_t tc;             /* A2/A3 only, default 132 */
            uint8_t sl;             /* A2/A3 only, default 4 */
        } roceAttr;
        struct {
            uint8_t pathMode; /* 0 auto, 1 single path, 2 multi path; 0xFF = auto */
        } ubMemAttr;
    };
} HcclChannelDesc;

/* Fills each of descNum descriptors with 0xFF, then sets the header and the required
 * defaults and runs EndpointDescInit on both endpoints. NULL is checked per element, so
 * (NULL, 0) succeeds. Returns HCCL_SUCCESS, HCCL_E_PTR for NULL, HCCL_E_INTERNAL if an
 * endpoint cannot be initialised. */
static inline HcclResult HcclChannelDescInit(HcclChannelDesc *channelDesc, uint32_t descNum)
{
    for (uint32_t i = 0; i < descNum; i++) {
        if (channelDesc == NULL)
            return HCCL_E_PTR;
        HcclChannelDesc *d = &channelDesc[i];

        memset(d, 0xFF, sizeof(*d));
        d->header.version = HCCL_CHANNEL_VERSION;
        d->header.magicWord = HCCL_CHANNEL_MAGIC_WORD;
        d->header.size = (uint32_t)sizeof(HcclChannelDesc);
        d->header.reserved = 0;
        d->remoteRank = ~0U;
        d->channelProtocol = COMM_PROTOCOL_RESERVED;
        d->notifyNum = 0;
        d->memHandles = NULL;
        d->memHandleNum = 0;
        if (EndpointDescInit(&d->localEndpoint, 1) != 0 ||
            EndpointDescInit(&d->remoteEndpoint, 1) != 0)
            return HCCL_E_INTERNAL;
    }
    return HCCL_SUCCESS;
}

/* Returns, per descriptor, the existing channel with the same (comm, engine, remoteRank,
 * channelProtocol) or creates one. Creation is a handshake: the peer must acquire the
 * matching channel, and the call blocks until connected. channelNum in (0, 1048576].
 * Not thread-safe per communicator. Channels live until HcclCommDestroy. */
HcclResult HcclChannelAcquire(HcclComm comm, CommEngine engine,
                              const HcclChannelDesc *channelDescs, uint32_t channelNum,
                              ChannelHandle *channels);

typedef enum {
    HCCL_CHANNEL_CONFIG_TYPE_INVALID = -1,
    HCCL_CHANNEL_CONFIG_TYPE_IS_SHARED_QUEUE = 0,  /* int: 0 false (default), non-0 true */
    HCCL_CHANNEL_CONFIG_TYPE_SHARED_QUEUE_TAG = 1 /* string, <= 255 bytes incl. NUL */
} HcclChannelConfigType;

/* `static const uint32_t` in the vendor header; a macro so no object is defined. */
#define HCCL_CHANNEL_CONFIG_SHARED_QUEUE_TAG_MAX_LEN 255U

/* Channel-config objects (shared queue, AIV + UB_CTP only). The object may be destroyed
 * right after the acquire call; Destroy(NULL) succeeds. */
HcclResult HcclChannelConfigCreate(HcclChannelConfig *config);
HcclResult HcclChannelConfigDestroy(HcclChannelConfig config);
HcclResult HcclChannelConfigSetInt(HcclChannelConfig config, HcclChannelConfigType type,
                                   uint32_t value);
HcclResult HcclChannelConfigSetStr(HcclChannelConfig config, HcclChannelConfigType type,
                                   const char *value);
/* config == NULL or shared queue disabled: identical to HcclChannelAcquire. */
HcclResult HcclChannelAcquireWithConfig(HcclComm comm, CommEngine engine,
                                        const HcclChannelDesc *channelDescs, uint32_t channelNum,
                                        HcclChannelConfig config, ChannelHandle *channels);

/* Reports the existing handle or 0 per descriptor without creating anything. */
HcclResult HcclChannelQuery(HcclComm comm, CommEngine engine, const HcclChannelDesc *channelDescs,
                            uint32_t channelNum, ChannelHandle *channels);
/* CCU-engine channels only; HCCL_E_NOT_FOUND for unknown handles (the rest are still tried). */
HcclResult HcclChannelDestroy(HcclComm comm, const ChannelHandle *channels, uint32_t channelNum);
/* Every remote memory exchanged on the channel, including the peer's HCCL buffer (tag
 * "HcclBuffer"). The arrays are library-owned: do not free. */
HcclResult HcclChannelGetRemoteMems(HcclComm comm, ChannelHandle channel, uint32_t *memNum,
                                    CommMem **remoteMems, char ***memTags);

#ifdef __cplusplus
}
#endif

#endif
