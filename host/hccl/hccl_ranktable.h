/* hccl_ranktable.h - the rank-table JSON of HcclCommInitClusterInfo. Every CANN form is read:
 * versions "1.0", "1.2" and "2.0" with "server_list" (and "super_pod_list"), and version
 * "2.0" with "rank_count" / "rank_list" / "level_list" (Ascend 950). Field by field checks
 * in hccl_ranktable_servers.c and hccl_ranktable_ranks.c; docs/CONTROL_PLANE.md lists them. */
#ifndef HCEMU_HOST_HCCL_RANKTABLE_H
#define HCEMU_HOST_HCCL_RANKTABLE_H

#include <stdint.h>

#include "common/status.h"

#define EMU_RANKTABLE_MAX_BYTES (1u << 20)
#define EMU_RANKTABLE_NO_SUPER_DEV UINT32_MAX

/* What one rank learns from the table. */
struct emu_ranktable_entry {
    uint32_t nranks;
    uint32_t server;    /* server index: server_list position, or the rank's net_layer-0
                           net_instance_id in order of first appearance (rank_list form) */
    uint32_t super_pod; /* super_pod_list position, or the net_layer-1 instance (rank_list
                           form); 0 when the table has none */
    uint32_t phy_id;    /* device_id */
    uint32_t super_dev; /* super_device_id; EMU_RANKTABLE_NO_SUPER_DEV when absent */
    uint32_t ip;        /* device_ip (or the first IPV4 rank address), network order; 0 when
                           absent */
    uint64_t hash;      /* of the file's bytes: every rank reading the same table agrees */
};

/* Parse `path` and find `rank`. EMU_EFILE (cannot read), EMU_EPARSE (not JSON), EMU_EINVAL
 * (a bad field, or no such rank), each with one line naming fn, rank and the field. */
emu_status emu_ranktable_load(const char *path, uint32_t rank, const char *fn,
                              struct emu_ranktable_entry *out) EMU_MUST_CHECK;

#endif
