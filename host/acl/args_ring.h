/* args_ring.h - the device memory a launch's packed arguments live in: a ring per host
 * stream, reclaimed as the stream's launches retire (args_ring.c). */
#ifndef HCEMU_HOST_ARGS_RING_H
#define HCEMU_HOST_ARGS_RING_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/contract/status.h"

/* Sparse like all device memory: only the pages launches used are real. 256 KiB hold about
 * 450 blocks of an 8-rank collective's arguments, 1000 of a 2-rank one: enough run-ahead to
 * keep a device busy, and the ring's pages are all real and warm after the first few hundred
 * launches. 4 MiB took 10,000 launches to wrap, each of them on a fresh page now and then: 1.5
 * page faults a call job-wide in an 8-rank 1 KiB loop, 20-25 % of its time (args_ring.c). */
#define EMU_ARGS_RING_BYTES (256u << 10)
#define EMU_ARGS_RING_PENDING_MAX 65536u /* blocks queued and not yet retired, at most */

struct emu_hdev;

/* Wait until the owner stream's launch counted `seq` retired, or until `deadline` (ns):
 * stream.c's emu_stream_wait_retired, handed in at init so the ring never calls up. */
typedef emu_status (*emu_args_ring_wait_fn)(void *owner, uint32_t seq, uint64_t deadline);

struct emu_args_block {
    uint32_t seq; /* the launch is retired once the stream's `completed` reaches seq */
    uint64_t end; /* the ring's head after its block */
};

struct emu_args_ring {
    pthread_mutex_t lock; /* held from emu_args_ring_take to emu_args_ring_commit */
    uint64_t base;        /* device address of the ring; 0 until the stream's first launch */
    uint64_t head, tail;  /* byte positions since the ring began: [tail, head) is in use */
    struct emu_args_block *pending; /* a circular list of cap (a power of two) entries */
    uint32_t first, count, cap;     /* pending[first .. first + count), modulo cap */
    struct emu_hdev *d;             /* the stream's device and slot: its counters */
    uint32_t slot;
    emu_args_ring_wait_fn wait;
    void *owner;
};

void emu_args_ring_init(struct emu_args_ring *r, struct emu_hdev *d, uint32_t slot,
                        emu_args_ring_wait_fn wait, void *owner);
/* Lock the ring and take `size` bytes of it for the launch about to be submitted on its
 * stream: EMU_OK with the block's device address in *addr, or EMU_ENOMEM (still locked) when
 * the ring is full of queued launches, for the caller to allocate elsewhere. */
emu_status emu_args_ring_take(struct emu_args_ring *r, uint64_t size,
                              uint64_t *addr) EMU_MUST_CHECK;
/* After the submission (or its failure): remember the block until the launch retires, and
 * unlock. `taken`: whether emu_args_ring_take gave a block. */
void emu_args_ring_commit(struct emu_args_ring *r, bool taken, bool submitted);
/* The stream is drained: give the ring back to the device. */
void emu_args_ring_fini(struct emu_args_ring *r);
/* The stream's device is gone, and the ring with it: free what the host holds. */
void emu_args_ring_forget(struct emu_args_ring *r);

#endif
