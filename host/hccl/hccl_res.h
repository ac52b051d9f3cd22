/* hccl_res.h - a communicator's resources for callers that do not hold its lock: the HCCL
 * boundary (api_hccl_*.c, after its argument checks) and the built-in collectives
 * (host/coll/) share these, so neither re-enters the library through a vendor name. Each
 * takes c->lock around the module that does the work (hccl_mem.c, hccl_graph.c, hccl_link.c).
 * Statuses come back unchanged. */
#ifndef HCEMU_HOST_HCCL_RES_H
#define HCEMU_HOST_HCCL_RES_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/status.h"
#include "hccl_comm.h"

/* The HCCL buffer (zero-filled when `clear`), allocated on first use. */
emu_status emu_res_buffer(struct emu_comm *c, bool clear, void **addr, uint64_t *size,
                          const char *fn) EMU_MUST_CHECK;
/* Engine contexts keyed by (tag, engine). A miss of emu_res_ctx_get is EMU_ENOTFOUND, not
 * logged (the operators' first-call test). */
emu_status emu_res_ctx_create(struct emu_comm *c, const char *tag, int32_t engine, uint64_t size,
                              void **out, const char *fn) EMU_MUST_CHECK;
emu_status emu_res_ctx_get(struct emu_comm *c, const char *tag, int32_t engine, void **out,
                           uint64_t *size) EMU_MUST_CHECK;
emu_status emu_res_ctx_copy(struct emu_comm *c, const char *tag, int32_t engine, const void *src,
                            uint64_t size, uint64_t offset, const char *fn) EMU_MUST_CHECK;
/* The rank graph's links from src to dst in `layer` (the graph's scratch array, valid until
 * the next links query of this communicator). */
emu_status emu_res_links(struct emu_comm *c, uint32_t layer, uint32_t src, uint32_t dst,
                         CommLink **links, uint32_t *n, const char *fn) EMU_MUST_CHECK;
/* The peer's HCCL buffer behind channel `h` of this communicator. */
emu_status emu_res_channel_buffer(struct emu_comm *c, ChannelHandle h, void **addr,
                                  uint64_t *size, const char *fn) EMU_MUST_CHECK;

#endif
