/* hccl_comm_life.h - creating and destroying communicator members (hccl_comm_life.c): the
 * one place that reaches every resource module (rendezvous, rank graph, channels, threads,
 * memory), so those modules depend on the object (hccl_comm.h) and never on its life. */
#ifndef HCEMU_HOST_HCCL_COMM_LIFE_H
#define HCEMU_HOST_HCCL_COMM_LIFE_H

#include "hccl_comm.h"

/* Join the communicator described by `a`: rendezvous with every rank (bounded by
 * HCCL_CONNECT_TIMEOUT), build the rank graph, register the member on the device.
 * The caller owns *out; release with emu_comm_destroy(). */
emu_status emu_comm_create(const struct emu_comm_args *a, struct emu_comm **out) EMU_MUST_CHECK;
/* Release every resource of the member (waits boundedly for its device threads). pre: the
 * caller holds one use (emu_comm_get). EMU_EAGAIN (logged) while another call is using it;
 * then the caller still holds its use. On success the comm is gone. */
emu_status emu_comm_destroy(struct emu_comm *c, const char *fn) EMU_MUST_CHECK;
/* Destroy a member no other call can be using yet (HcclCommInitAll undoing its members). */
void emu_comm_abandon(struct emu_comm *c);
/* One member per device of `devices` (checked: distinct, opened here), each joining from its
 * own OS thread, as HcclCommInitAll does. All or nothing: on success out[i] is the member of
 * devices[i], on failure none remains. */
emu_status emu_comm_create_all(uint32_t ndev, const int32_t *devices, struct emu_comm **out,
                               const char *fn) EMU_MUST_CHECK;

#endif
