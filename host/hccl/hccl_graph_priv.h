/* hccl_graph_priv.h - the layout of a communicator's rank graph (hccl_graph.c). Nothing else
 * includes it. */
#ifndef HCEMU_HOST_HCCL_GRAPH_PRIV_H
#define HCEMU_HOST_HCCL_GRAPH_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/layout.h"
#include "hccl_topo.h"

#define EMU_GRAPH_LAYERS 2u

struct emu_graph_layer {
    uint32_t n_inst;
    uint32_t my_inst;                 /* index into ids[] of the instance holding `me` */
    uint32_t ids[EMU_COMM_MAX_RANKS]; /* instance ids (layer 0: server index; layer 1: 0) */
    uint32_t sizes[EMU_COMM_MAX_RANKS];
    uint32_t start[EMU_COMM_MAX_RANKS]; /* first entry of the instance in ranks[] */
    uint32_t ranks[EMU_COMM_MAX_RANKS]; /* ranks grouped by instance, ascending */
    uint32_t n_proto;
    int32_t proto[EMU_TOPO_MAX_INTER];
};

struct emu_graph {
    uint32_t n;
    uint32_t me;
    uint32_t server[EMU_COMM_MAX_RANKS];
    uint32_t phy[EMU_COMM_MAX_RANKS];
    uint32_t dev[EMU_COMM_MAX_RANKS];
    uint32_t ip[EMU_COMM_MAX_RANKS];
    uint32_t pod[EMU_COMM_MAX_RANKS];       /* super-pod index (rank table), else 0 */
    uint32_t super_dev[EMU_COMM_MAX_RANKS]; /* super_device_id (rank table), else dev */
    uint32_t n_layers;
    uint32_t layer_ids[EMU_GRAPH_LAYERS];
    struct emu_graph_layer layer[EMU_GRAPH_LAYERS];
    CommLink links[EMU_TOPO_MAX_INTER]; /* scratch for HcclRankGraphGetLinks */
};

#endif
