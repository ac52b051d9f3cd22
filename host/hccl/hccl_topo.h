/* hccl_topo.h - each communicator's rank graph, built from the emulated cluster
 * (host/acl/cluster.h: which server each device sits in, which protocols link devices inside
 * and across servers). */
#ifndef HCEMU_HOST_HCCL_TOPO_H
#define HCEMU_HOST_HCCL_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/status.h"
#include "hccl/hccl.h"
#include "hccl_comm.h"
#include "host/acl/cluster.h"

/* The rank graph of one communicator: immutable after emu_graph_create(), except the
 * scratch buffer that HcclRankGraphGetLinks returns. */
struct emu_graph;

emu_status emu_graph_create(const struct emu_rank_info *ranks, uint32_t n, uint32_t me,
                            struct emu_graph **out) EMU_MUST_CHECK;
void emu_graph_destroy(struct emu_graph *g);

/* Layer queries; EMU_EINVAL (logged with fn/rank) for a layer or instance that does not
 * exist. Returned arrays are owned by the graph. */
void emu_graph_layers(const struct emu_graph *g, uint32_t **layers, uint32_t *n);
emu_status emu_graph_my_ranks(struct emu_graph *g, uint32_t layer, uint32_t **ranks, uint32_t *n,
                              const char *fn) EMU_MUST_CHECK;
emu_status emu_graph_inst_sizes(struct emu_graph *g, uint32_t layer, uint32_t **sizes, uint32_t *n,
                                const char *fn) EMU_MUST_CHECK;
emu_status emu_graph_insts(struct emu_graph *g, uint32_t layer, uint32_t **ids, uint32_t *n,
                           const char *fn) EMU_MUST_CHECK;
emu_status emu_graph_inst_ranks(struct emu_graph *g, uint32_t layer, uint32_t inst,
                                uint32_t **ranks, uint32_t *n, const char *fn) EMU_MUST_CHECK;
/* inst = UINT32_MAX: the instance holding this rank. */
emu_status emu_graph_topo_type(struct emu_graph *g, uint32_t layer, uint32_t inst, CommTopo *type,
                               const char *fn) EMU_MUST_CHECK;
emu_status emu_graph_links(struct emu_graph *g, uint32_t layer, uint32_t src, uint32_t dst,
                           CommLink **links, uint32_t *n, const char *fn) EMU_MUST_CHECK;
/* *num in: capacity of `out` (ignored when out == NULL); out: endpoints of the instance. */
emu_status emu_graph_endpoints(struct emu_graph *g, uint32_t layer, uint32_t inst, uint32_t *num,
                               EndpointDesc *out, const char *fn) EMU_MUST_CHECK;
emu_status emu_graph_endpoint_info(struct emu_graph *g, uint32_t rank, const EndpointDesc *ep,
                                   EndpointAttr attr, uint32_t len, void *info,
                                   const char *fn) EMU_MUST_CHECK;

/* Whether `protocol` links ranks a and b (same server: the intra protocol; different
 * servers: an inter protocol). */
bool emu_graph_has_link(const struct emu_graph *g, uint32_t a, uint32_t b, int32_t protocol);
/* Whether `ep` is unset (EndpointDescInit'ed) or names `rank`'s endpoint for `protocol`. */
bool emu_graph_endpoint_ok(const struct emu_graph *g, uint32_t rank, int32_t protocol,
                           const EndpointDesc *ep);

#endif
