/* hccl_rank_graph.h - topology queries: layers, instances, ranks and the links between two
 * ranks (docs/CONTROL_PLANE.md §3). Arrays returned through pointer-to-pointer outputs
 * are library-owned and may be invalidated by the next call on the same communicator. */
#ifndef HCEMU_HCCL_RANK_GRAPH_H
#define HCEMU_HCCL_RANK_GRAPH_H

#include <stdint.h>
#include <string.h>

#include "hccl_types.h"
#include "hcomm_res_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    COMM_TOPO_RESERVED = -1,
    COMM_TOPO_CLOS = 0,
    COMM_TOPO_1DMESH = 1,
    COMM_TOPO_910_93 = 2,
    COMM_TOPO_310P = 3,
    COMM_TOPO_A2AXSERVER = 4,
    COMM_TOPO_CUSTOM = 5
} CommTopo;

typedef enum {
    HCCL_HETEROG_MODE_INVALID = -1,
    HCCL_HETEROG_MODE_HOMOGENEOUS = 0,
    HCCL_HETEROG_MODE_MIX_A2_A3 = 1
} HcclHeterogMode;

/* The vendor types these values as uint32_t (INVALID = 0xFFFFFFFF); a C enum has the same
 * size and argument-passing ABI. */
typedef enum {
    ENDPOINT_ATTR_INVALID = -1,
    ENDPOINT_ATTR_BW_COEFF = 0,
    ENDPOINT_ATTR_DIE_ID = 1,
    ENDPOINT_ATTR_LOCATION = 2
} EndpointAttr;

/* The value types HcclRankGraphGetEndpointInfo writes for each attribute (infoLen must equal
 * their size). */
typedef uint32_t EndpointAttrBwCoeff;
typedef uint32_t EndpointAttrDieId;
typedef uint32_t EndpointAttrLocation;

/* ABI header values of CommLink (no vendor macro names are documented for them). */
#define HCEMU_COMM_LINK_MAGIC_WORD 0x0f0e0f0fU
#define HCEMU_COMM_LINK_VERSION 1U

typedef struct { /* 464 bytes */
    CommAbiHeader header;
    EndpointDesc srcEndpointDesc;
    EndpointDesc dstEndpointDesc;
    union {
        uint8_t raws[128];
        /* Anonymous, as in the vendor header; __extension__ silences ISO C++ -Wpedantic. */
        __extension__ struct {
            CommProtocol linkProtocol;
            uint8_t hop;
        };
    } linkAttr;
} CommLink;

/* Fills each link with 0xFF, stamps the header (version 1, size 464), initialises both
 * endpoints, linkProtocol = COMM_PROTOCOL_RESERVED and hop = 1. NULL handling is not
 * documented; it follows HcclChannelDescInit (checked per element, so (NULL, 0) succeeds).
 * Returns HCCL_SUCCESS, HCCL_E_PTR, or HCCL_E_INTERNAL if an endpoint cannot be set up. */
static inline HcclResult CommLinkInit(CommLink *commLink, uint32_t linkNum)
{
    for (uint32_t i = 0; i < linkNum; i++) {
        if (commLink == NULL)
            return HCCL_E_PTR;
        CommLink *l = &commLink[i];

        memset(l, 0xFF, sizeof(*l));
        l->header.version = HCEMU_COMM_LINK_VERSION;
        l->header.magicWord = HCEMU_COMM_LINK_MAGIC_WORD;
        l->header.size = (uint32_t)sizeof(CommLink);
        l->header.reserved = 0;
        if (EndpointDescInit(&l->srcEndpointDesc, 1) != 0 ||
            EndpointDescInit(&l->dstEndpointDesc, 1) != 0)
            return HCCL_E_INTERNAL;
        l->linkAttr.linkProtocol = COMM_PROTOCOL_RESERVED;
        l->linkAttr.hop = 1;
    }
    return HCCL_SUCCESS;
}

/* Layers are numbered from 0 (inside a server) upward; lower layers are better links. */
HcclResult HcclRankGraphGetLayers(HcclComm comm, uint32_t **netLayers, uint32_t *netLayerNum);
HcclResult HcclRankGraphGetRanksByLayer(HcclComm comm, uint32_t netLayer, uint32_t **ranks,
                                        uint32_t *rankNum);
HcclResult HcclRankGraphGetRankSizeByLayer(HcclComm comm, uint32_t netLayer, uint32_t *rankNum);
HcclResult HcclRankGraphGetTopoTypeByLayer(HcclComm comm, uint32_t netLayer, CommTopo *topoType);
HcclResult HcclRankGraphGetInstSizeListByLayer(HcclComm comm, uint32_t netLayer,
                                               uint32_t **instSizeList, uint32_t *listSize);
/* On 950 layer 0 yields a UB_CTP link per peer; callers copy its endpoints and protocol into
 * an HcclChannelDesc. */
HcclResult HcclRankGraphGetLinks(HcclComm comm, uint32_t netLayer, uint32_t srcRank,
                                 uint32_t dstRank, CommLink **links, uint32_t *linkNum);
HcclResult HcclRankGraphGetTopoInstsByLayer(HcclComm comm, uint32_t netLayer,
                                            uint32_t **topoInsts, uint32_t *topoInstNum);
HcclResult HcclRankGraphGetTopoType(HcclComm comm, uint32_t netLayer, uint32_t topoInstId,
                                    CommTopo *topoType);
HcclResult HcclRankGraphGetRanksByTopoInst(HcclComm comm, uint32_t netLayer, uint32_t topoInstId,
                                           uint32_t **ranks, uint32_t *rankNum);
HcclResult HcclGetHeterogMode(HcclComm comm, HcclHeterogMode *mode);
HcclResult HcclRankGraphGetEndpointNum(HcclComm comm, uint32_t layer, uint32_t topoInstId,
                                       uint32_t *num);
HcclResult HcclRankGraphGetEndpointDesc(HcclComm comm, uint32_t layer, uint32_t topoInstId,
                                        uint32_t *descNum, EndpointDesc *endpointDesc);
HcclResult HcclRankGraphGetEndpointInfo(HcclComm comm, uint32_t rankId,
                                        const EndpointDesc *endpointDesc,
                                        EndpointAttr endpointAttr, uint32_t infoLen, void *info);

#ifdef __cplusplus
}
#endif

#endif
