/* hccl_ranktable_entry.h - what a rank learns from a rank table: filled by the readers of
 * each form (hccl_ranktable_servers.c, hccl_ranktable_ranks.c), returned by
 * emu_ranktable_load (hccl_ranktable.h). A header of its own so the readers need nothing of
 * the loader that calls them. */
#ifndef HCEMU_HOST_HCCL_RANKTABLE_ENTRY_H
#define HCEMU_HOST_HCCL_RANKTABLE_ENTRY_H

#include <stdint.h>

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

#endif
