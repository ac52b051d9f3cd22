/* args_ring.h - the device memory a launch's packed arguments live in: a ring per host
 * stream, reclaimed as the stream's launches retire (args_ring.c). */
#ifndef HCEMU_HOST_ARGS_RING_H
#define HCEMU_HOST_ARGS_RING_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/status.h"

/* Sparse like all device memory: only the pages launches used are real. 4 MiB hold 16384
 * blocks of a 2-rank collective's arguments: a host rarely runs further ahead. */
#define EMU_ARGS_RING_BYTES (4u << 20)
#define EMU_ARGS_RING_PENDING_MAX 65536u /* blocks queued and not yet retired, at most */

struct emu_hstream;

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
};

void emu_args_ring_init(struct emu_args_ring *r);
/* Lock the ring and take `size` bytes of it for the launch about to be submitted on s:
 * EMU_OK with the block's device address in *addr, or EMU_ENOMEM (still locked) when the
 * ring is full of queued launches, for the caller to allocate elsewhere. */
emu_status emu_args_ring_take(struct emu_hstream *s, uint64_t size, uint64_t *addr) EMU_MUST_CHECK;
/* After the submission (or its failure): remember the block until the launch retires, and
 * unlock. `taken`: whether emu_args_ring_take gave a block. */
void emu_args_ring_commit(struct emu_hstream *s, bool taken, bool submitted);
/* The stream is drained: give the ring back to the device. */
void emu_args_ring_fini(struct emu_hstream *s);
/* The stream's device is gone, and the ring with it: free what the host holds. */
void emu_args_ring_forget(struct emu_args_ring *r);

#endif
