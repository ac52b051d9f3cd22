/* cluster.h - the emulated cluster: which server each device sits in and which protocols
 * link devices inside and across servers. Read by the modelled clock (model_time.c) and by
 * each communicator's rank graph (host/hccl/hccl_graph.c), which builds on it.
 *
 * Default: one server holding every device, linked by UB_CTP on Ascend950 SoCs and HCCS on
 * A2/A3; servers are linked by UBoE and RoCE (950) or RoCE (A2/A3). HCEMU_TOPOLOGY names a
 * JSON file that partitions the devices into servers (format: docs/CONTROL_PLANE.md, section 3). */
#ifndef HCEMU_HOST_ACL_CLUSTER_H
#define HCEMU_HOST_ACL_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/layout.h"
#include "common/contract/status.h"

#define EMU_TOPO_MAX_INTER 4u

struct emu_topo_cfg {
    bool ok;
    char path[256];
    char error[256];
    uint32_t n_servers;
    char names[EMU_MAX_DEVICES][64];
    int32_t server_of_dev[EMU_MAX_DEVICES]; /* -1: not in any server */
    int32_t intra;                          /* CommProtocol inside a server */
    uint32_t n_inter;
    int32_t inter[EMU_TOPO_MAX_INTER]; /* CommProtocols across servers */
};

/* The process's cluster description (read on first use). */
const struct emu_topo_cfg *emu_topo_cfg(void);
/* The server of device `dev` per HCEMU_TOPOLOGY (0 without a file). Logs and fails when the
 * file is unusable or does not list the device. */
emu_status emu_topo_server_of(uint32_t dev, const char *fn, uint32_t rank,
                              uint32_t *server) EMU_MUST_CHECK;
/* The server of device `dev`, quietly: 0 when the file is unusable or does not list it. */
uint32_t emu_topo_server_listed(uint32_t dev);
/* A protocol name ("UB_CTP", "roce"...) to its CommProtocol; -2 when unknown. */
int32_t emu_topo_protocol_of(const char *name);
const char *emu_topo_protocol_name(int32_t protocol);

#endif
