/* hccl_ranktable.h - the rank-table JSON of HcclCommInitClusterInfo (CANN rank table v1.0
 * shape; accepted subset in hccl_ranktable.c). */
#ifndef HCEMU_HOST_HCCL_RANKTABLE_H
#define HCEMU_HOST_HCCL_RANKTABLE_H

#include <stdint.h>

#include "common/status.h"

#define EMU_RANKTABLE_MAX_BYTES (1u << 20)

/* What one rank learns from the table. */
struct emu_ranktable_entry {
    uint32_t nranks;
    uint32_t server; /* index in server_list */
    uint32_t phy_id; /* device_id */
    uint32_t ip;     /* device_ip, network order; 0 when absent */
    uint64_t hash;   /* of the file's bytes: every rank reading the same table agrees */
};

/* Parse `path` and find `rank`. EMU_EFILE (cannot read), EMU_EPARSE (not JSON), EMU_EINVAL
 * (shape or rank), each with one line naming fn and rank. */
emu_status emu_ranktable_load(const char *path, uint32_t rank, const char *fn,
                              struct emu_ranktable_entry *out) EMU_MUST_CHECK;

#endif
