/* hccl_ranktable.h - the rank-table JSON of HcclCommInitClusterInfo. Every CANN form is read:
 * versions "1.0", "1.2" and "2.0" with "server_list" (and "super_pod_list"), and version
 * "2.0" with "rank_count" / "rank_list" / "level_list" (Ascend 950). Field by field checks
 * in hccl_ranktable_servers.c and hccl_ranktable_ranks.c; docs/CONTROL_PLANE.md lists them. */
#ifndef HCEMU_HOST_HCCL_RANKTABLE_H
#define HCEMU_HOST_HCCL_RANKTABLE_H

#include <stdint.h>

#include "common/contract/status.h"
#include "hccl_ranktable_entry.h"

/* Parse `path` and find `rank`. EMU_EFILE (cannot read), EMU_EPARSE (not JSON), EMU_EINVAL
 * (a bad field, or no such rank), each with one line naming fn, rank and the field. */
emu_status emu_ranktable_load(const char *path, uint32_t rank, const char *fn,
                              struct emu_ranktable_entry *out) EMU_MUST_CHECK;

#endif
