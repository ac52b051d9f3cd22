/* hccl_link.h - channels (docs/CONTROL_PLANE.md §6): one channels[] slot on each side's
 * device, paired through the communicator's rendezvous file. Call with c->lock held. */
#ifndef HCEMU_HOST_HCCL_LINK_H
#define HCEMU_HOST_HCCL_LINK_H

#include <stdint.h>

#include "common/contract/status.h"
#include "hccl_comm.h"

/* descs are already validated by the boundary (remote rank, protocol, notifyNum, memory
 * handles). Existing channels with the same (engine, remoteRank, protocol) are returned;
 * the others are created pairwise with their peers, bounded by HCCL_CONNECT_TIMEOUT. On
 * failure the channels created by this call are released again. */
emu_status emu_link_acquire(struct emu_comm *c, int32_t engine, const HcclChannelDesc *descs,
                            uint32_t n, ChannelHandle *out, const char *fn) EMU_MUST_CHECK;
/* The existing handle for each desc, or 0. */
void emu_link_query(struct emu_comm *c, int32_t engine, const HcclChannelDesc *descs, uint32_t n,
                    ChannelHandle *out);
/* The channel of this comm behind `h`; EMU_ENOTFOUND (logged) otherwise. */
emu_status emu_link_find(struct emu_comm *c, ChannelHandle h, struct emu_chan_rec **out,
                         const char *fn) EMU_MUST_CHECK;
/* Release one channel (HcclChannelDestroy). */
void emu_link_release(struct emu_comm *c, struct emu_chan_rec *ch);
/* Destroy: report notifies left set, release every channel. */
void emu_link_release_all(struct emu_comm *c);

/* hccl_link_desc.c: the checked entry points; they take c->lock themselves. */
/* Check the call (descs, out, n, engine), the channel config `config` (a HcclChannelConfig;
 * NULL for none) and each descriptor, then acquire the channels (emu_link_acquire). */
emu_status emu_link_desc_acquire(struct emu_comm *c, int32_t engine, const HcclChannelDesc *descs,
                                 uint32_t n, const void *config, ChannelHandle *out,
                                 const char *fn) EMU_MUST_CHECK;
/* Check the call and the descriptor headers, then emu_link_query. */
emu_status emu_link_desc_query(struct emu_comm *c, int32_t engine, const HcclChannelDesc *descs,
                               uint32_t n, ChannelHandle *out, const char *fn) EMU_MUST_CHECK;
/* Destroy CCU channels; every handle is tried, the first error is returned. */
emu_status emu_link_desc_destroy(struct emu_comm *c, const ChannelHandle *channels, uint32_t n,
                                 const char *fn) EMU_MUST_CHECK;

#endif
