/* hccl_topo.h - the emulated cluster (which server each device sits in, which protocols
 * link devices inside and across servers) and each communicator's rank graph built from it.
 *
 * Default: one server holding every device, linked by UB_CTP on Ascend950 SoCs and HCCS on
 * A2/A3; servers are linked by UBoE and RoCE (950) or RoCE (A2/A3). HCEMU_TOPOLOGY names a
 * JSON file that partitions the devices into servers (format: README.md, "Topology file"). */
#ifndef HCEMU_HOST_HCCL_TOPO_H
#define HCEMU_HOST_HCCL_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include "common/status.h"
#include "hccl/hccl.h"
#include "hccl_comm.h"

#define EMU_TOPO_MAX_INTER 4u

/* The server of device `dev` per HCEMU_TOPOLOGY (0 without a file). Logs and fails when the
 * file is unusable or does not list the device. */
emu_status emu_topo_server_of(uint32_t dev, const char *fn, uint32_t rank,
                              uint32_t *server) EMU_MUST_CHECK;
/* The server of device `dev`, quietly: 0 when the file is unusable or does not list it. */
uint32_t emu_topo_server_listed(uint32_t dev);
/* A protocol name ("UB_CTP", "roce"...) to its CommProtocol; -2 when unknown. */
int32_t emu_topo_protocol_of(const char *name);
const char *emu_topo_protocol_name(int32_t protocol);

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
