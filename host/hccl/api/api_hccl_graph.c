/* api_hccl_graph.c - the rank-graph boundary (hccl_rank_graph.h): argument checks, then the
 * communicator's graph (hccl_graph.c) answers. Returned arrays belong to the graph. */
#include <hccl/hccl.h>

#include "host/hccl/hccl.h"
#include "host/hccl/hccl_res.h"
#include "host/hccl/hccl_topo.h"

/* The vendor names defined below are the library's exports (host/exports.map). */
#pragma GCC visibility push(default)

/* Most queries share one shape: enter, check two outputs, ask the graph, leave. */
#define ENTER_OR_RETURN(fn)                                                                        \
    struct emu_comm *c;                                                                            \
    emu_status s;                                                                                  \
    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)                                              \
    return emu_hccl_leave(NULL, s)

HcclResult HcclRankGraphGetLayers(HcclComm comm, uint32_t **netLayers, uint32_t *netLayerNum)
{
    static const char fn[] = "HcclRankGraphGetLayers";
    ENTER_OR_RETURN(fn);
    if ((s = EMU_HCCL_NONNULL(c, netLayers, fn)) == EMU_OK &&
        (s = EMU_HCCL_NONNULL(c, netLayerNum, fn)) == EMU_OK)
        emu_graph_layers(c->graph, netLayers, netLayerNum);
    return emu_hccl_leave(c, s);
}

HcclResult HcclRankGraphGetRanksByLayer(HcclComm comm, uint32_t netLayer, uint32_t **ranks,
                                        uint32_t *rankNum)
{
    static const char fn[] = "HcclRankGraphGetRanksByLayer";
    ENTER_OR_RETURN(fn);
    if ((s = EMU_HCCL_NONNULL(c, ranks, fn)) == EMU_OK &&
        (s = EMU_HCCL_NONNULL(c, rankNum, fn)) == EMU_OK)
        s = emu_graph_my_ranks(c->graph, netLayer, ranks, rankNum, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclRankGraphGetRankSizeByLayer(HcclComm comm, uint32_t netLayer, uint32_t *rankNum)
{
    static const char fn[] = "HcclRankGraphGetRankSizeByLayer";
    ENTER_OR_RETURN(fn);
    if ((s = EMU_HCCL_NONNULL(c, rankNum, fn)) == EMU_OK)
        s = emu_graph_my_ranks(c->graph, netLayer, NULL, rankNum, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclRankGraphGetTopoTypeByLayer(HcclComm comm, uint32_t netLayer, CommTopo *topoType)
{
    static const char fn[] = "HcclRankGraphGetTopoTypeByLayer";
    ENTER_OR_RETURN(fn);
    if ((s = EMU_HCCL_NONNULL(c, topoType, fn)) == EMU_OK)
        s = emu_graph_topo_type(c->graph, netLayer, UINT32_MAX, topoType, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclRankGraphGetInstSizeListByLayer(HcclComm comm, uint32_t netLayer,
                                               uint32_t **instSizeList, uint32_t *listSize)
{
    static const char fn[] = "HcclRankGraphGetInstSizeListByLayer";
    ENTER_OR_RETURN(fn);
    if ((s = EMU_HCCL_NONNULL(c, instSizeList, fn)) == EMU_OK &&
        (s = EMU_HCCL_NONNULL(c, listSize, fn)) == EMU_OK)
        s = emu_graph_inst_sizes(c->graph, netLayer, instSizeList, listSize, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclRankGraphGetLinks(HcclComm comm, uint32_t netLayer, uint32_t srcRank,
                                 uint32_t dstRank, CommLink **links, uint32_t *linkNum)
{
    static const char fn[] = "HcclRankGraphGetLinks";
    ENTER_OR_RETURN(fn);
    if ((s = EMU_HCCL_NONNULL(c, links, fn)) == EMU_OK &&
        (s = EMU_HCCL_NONNULL(c, linkNum, fn)) == EMU_OK)
        s = emu_res_links(c, netLayer, srcRank, dstRank, links, linkNum, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclRankGraphGetTopoInstsByLayer(HcclComm comm, uint32_t netLayer, uint32_t **topoInsts,
                                            uint32_t *topoInstNum)
{
    static const char fn[] = "HcclRankGraphGetTopoInstsByLayer";
    ENTER_OR_RETURN(fn);
    if ((s = EMU_HCCL_NONNULL(c, topoInsts, fn)) == EMU_OK &&
        (s = EMU_HCCL_NONNULL(c, topoInstNum, fn)) == EMU_OK)
        s = emu_graph_insts(c->graph, netLayer, topoInsts, topoInstNum, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclRankGraphGetTopoType(HcclComm comm, uint32_t netLayer, uint32_t topoInstId,
                                    CommTopo *topoType)
{
    static const char fn[] = "HcclRankGraphGetTopoType";
    ENTER_OR_RETURN(fn);
    if ((s = EMU_HCCL_NONNULL(c, topoType, fn)) == EMU_OK)
        s = emu_graph_topo_type(c->graph, netLayer, topoInstId, topoType, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclRankGraphGetRanksByTopoInst(HcclComm comm, uint32_t netLayer, uint32_t topoInstId,
                                           uint32_t **ranks, uint32_t *rankNum)
{
    static const char fn[] = "HcclRankGraphGetRanksByTopoInst";
    ENTER_OR_RETURN(fn);
    if ((s = EMU_HCCL_NONNULL(c, ranks, fn)) == EMU_OK &&
        (s = EMU_HCCL_NONNULL(c, rankNum, fn)) == EMU_OK)
        s = emu_graph_inst_ranks(c->graph, netLayer, topoInstId, ranks, rankNum, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclGetHeterogMode(HcclComm comm, HcclHeterogMode *mode)
{
    static const char fn[] = "HcclGetHeterogMode";
    ENTER_OR_RETURN(fn);
    /* Every emulated device is the same product (HCEMU_SOC). */
    if ((s = EMU_HCCL_NONNULL(c, mode, fn)) == EMU_OK)
        *mode = HCCL_HETEROG_MODE_HOMOGENEOUS;
    return emu_hccl_leave(c, s);
}

HcclResult HcclRankGraphGetEndpointNum(HcclComm comm, uint32_t layer, uint32_t topoInstId,
                                       uint32_t *num)
{
    static const char fn[] = "HcclRankGraphGetEndpointNum";
    ENTER_OR_RETURN(fn);
    if ((s = EMU_HCCL_NONNULL(c, num, fn)) == EMU_OK)
        s = emu_graph_endpoints(c->graph, layer, topoInstId, num, NULL, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclRankGraphGetEndpointDesc(HcclComm comm, uint32_t layer, uint32_t topoInstId,
                                        uint32_t *descNum, EndpointDesc *endpointDesc)
{
    static const char fn[] = "HcclRankGraphGetEndpointDesc";
    ENTER_OR_RETURN(fn);
    if ((s = EMU_HCCL_NONNULL(c, descNum, fn)) == EMU_OK &&
        (s = EMU_HCCL_NONNULL(c, endpointDesc, fn)) == EMU_OK)
        s = emu_graph_endpoints(c->graph, layer, topoInstId, descNum, endpointDesc, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclRankGraphGetEndpointInfo(HcclComm comm, uint32_t rankId,
                                        const EndpointDesc *endpointDesc, EndpointAttr endpointAttr,
                                        uint32_t infoLen, void *info)
{
    static const char fn[] = "HcclRankGraphGetEndpointInfo";
    ENTER_OR_RETURN(fn);
    if ((s = EMU_HCCL_NONNULL(c, endpointDesc, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(c, info, fn)) != EMU_OK)
        return emu_hccl_leave(c, s);
    if (rankId >= c->size)
        s = emu_hccl_bad(c, fn, "rankId %u is not a rank (0..%u)", rankId, c->size - 1);
    else
        s = emu_graph_endpoint_info(c->graph, rankId, endpointDesc, endpointAttr, infoLen, info,
                                    fn);
    return emu_hccl_leave(c, s);
}

#pragma GCC visibility pop
