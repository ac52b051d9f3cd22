/* model_ring_ag.h - the arguments of the held-out ring AllGather kernel (model_ring_ag.c),
 * written by tests/test_model_time.c into device memory. */
#ifndef HCEMU_TESTS_MODEL_RING_AG_H
#define HCEMU_TESTS_MODEL_RING_AG_H

#include <stdint.h>

#include <hcomm/hcomm_primitives.h>

enum { MRA_ACK = 0, MRA_DATA = 1, MRA_NOTIFIES = 2 }; /* channel notifies */

struct mra_args {
    ThreadHandle main;         /* my AICPU_TS thread */
    ThreadHandle host;         /* the host stream's thread, exported to AICPU_TS */
    ChannelHandle left, right; /* channels to rank - 1 and rank + 1 (one channel when n = 2) */
    uint64_t in;               /* my block, `len` bytes */
    uint64_t buf;              /* my HCCL buffer: block r at r * len */
    uint64_t right_buf;        /* the right neighbour's HCCL buffer */
    uint64_t len;
    uint32_t rank, n;
    uint32_t start_idx; /* main thread notify the host records to start */
    uint32_t pad;
};

#endif
