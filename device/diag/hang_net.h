/* hang_net.h - hang reports across hosts (job folders): each folder's executors describe
 * their parked waits to the executors of other folders that wait on them, so a watchdog can
 * follow a wait-for cycle through ranks of several hosts (docs/DEBUGGING.md, "A deadlock
 * across hosts"). The transport (net_ucx.c) carries an ask and its answer, a view; this
 * module makes and keeps views. Nothing here blocks: a view that does not come is simply
 * not used, and the report falls back to naming the other host. */
#ifndef HCEMU_DEVICE_DIAG_HANG_NET_H
#define HCEMU_DEVICE_DIAG_HANG_NET_H

#include <stddef.h>
#include <stdint.h>

/* The view of this folder's parked waits for an asking folder: a malloc'd buffer (*out, the
 * caller frees it) and its length; 0 when out of memory. Any thread (the transport's progress
 * thread); reads the control blocks and diag.shm without taking a scheduler lock. */
size_t emu_hang_net_answer(uint8_t **out);
/* Keep a view that arrived from another folder (checked: a malformed one is dropped). Takes
 * the diag.shm lock. */
void emu_hang_net_store(const void *data, size_t len);

#endif
