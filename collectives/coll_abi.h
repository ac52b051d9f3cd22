/* coll_abi.h - the contract between the host side of the built-in collectives
 * (host/coll/) and hcemu's own AICPU kernel image (collectives/coll_kernel.c):
 * the resource block the host keeps in the communicator's AICPU_TS engine context and the
 * argument block it appends to every launch. Fixed layout, plain C, no host pointers. */
#ifndef HCEMU_COLL_ABI_H
#define HCEMU_COLL_ABI_H

#include <stdbool.h>
#include <stdint.h>

#include <hccl/hccl_types.h>
#include <hccl/hcomm_primitives.h>

#include "hcemu_calls.h"

#define HCOLL_MAX_RANKS 256u
#define HCOLL_TIMEOUT_S 1836u /* every notify wait, as the vendor samples use */
#define HCOLL_ALIGN 128u      /* slot sizes in the HCCL buffer are multiples of this */
/* Calls of a communicator in flight on one stream at most: a window of overlapping calls
 * (coll_launch.c, "Windows"); done_idx is below it. */
#define HCOLL_WINDOW 17u
/* Bytes of a direct pair's outbox and inbox entry: two addresses, the bytes I send the peer
 * and, in a spread reduction, where its result goes in my output. */
#define HCOLL_MAIL_ENTRY 16u
/* Bytes of the HCCL buffer's mailbox area (at direct_off) for `size` ranks: an inbox per rank,
 * HCOLL_ALIGN apart, then an outbox entry per rank and call of a window. */
#define HCOLL_MAIL_BYTES(size)                                                                     \
    ((size) * (uint64_t)HCOLL_ALIGN +                                                              \
     (HCOLL_WINDOW * (uint64_t)HCOLL_MAIL_ENTRY * (size) + HCOLL_ALIGN - 1) / HCOLL_ALIGN *        \
         HCOLL_ALIGN)

enum { HCOLL_SPREAD_OUT = 1, HCOLL_SPREAD_STREAMED = 2 }; /* hcoll_args, spread */

/* Channel notifies (every channel has HCOLL_CHANNEL_NOTIFIES): ACK and DATA of the slot
 * protocol, the two DATA notifies of the eager protocol, one per parity, the two of the
 * direct protocol, and PUSHED, a pushed step's "landed in your output" (DIRECT_DATA then
 * carries the output's address). Each protocol has its own: the slot protocol's first record
 * of a call is an ACK, the direct one's a DATA, and either may come while the peer has yet to
 * consume the other's last notify of the previous call. */
enum {
    HCOLL_ACK = 0,
    HCOLL_DATA = 1,
    HCOLL_EAGER = 2,
    HCOLL_DIRECT_DATA = 4,
    HCOLL_DIRECT_ACK = 5,
    HCOLL_PUSHED = 6,
    HCOLL_CHANNEL_NOTIFIES = 7
};

/* Kernel entries (the descriptor's keys). */
#define HCOLL_KERNEL_RUN "hcemu_coll_run"
#define HCOLL_KERNEL_COMPUTE "hcemu_coll_compute"
#define HCOLL_KERNEL_THREAD_WAIT "hcemu_thread_wait"
#define HCOLL_KERNEL_THREAD_RECORD "hcemu_thread_record"

/* The argument of both: hcemu_thread_wait queues on `thread` a wait for its notify `idx`
 * (timeout_s); hcemu_thread_record queues on `thread` a record of notify `idx` of `dst`.
 * HcclAicpuKernelLaunch puts them around the user's entry: "the stream got here" before its
 * tasks, "its tasks are done" after them. */
struct hcoll_thread_notify {
    ThreadHandle thread;
    ThreadHandle dst;
    uint32_t idx;
    uint32_t timeout_s;
};

/* What the launch runs. PAIRS: every peer gets its own thread and the pair moves
 * pairs[p].send_len bytes to p while receiving pairs[p].recv_len from it (mesh one-shot and
 * every data-movement collective); a reduction round with a single peer taking part runs on
 * the main thread instead. RING/RHD: the main thread runs the ring or recursive
 * halving-doubling schedule of an allreduce (RING_AG, RHD_AG: ring and recursive-doubling
 * allgather; RING_RS: ring reduce-scatter; RD_AR: recursive doubling of the whole vector, an
 * allreduce in log2(n) exchanges for a vector small enough that moving it whole costs less
 * than the hand-offs halving-doubling's 2 log2(n) steps take). STAGED: pairs as in PAIRS, COPY mode, where every
 * peer taking part gets the same bytes of mine (pairs[me].send_off/len): I copy them once into
 * my HCCL buffer, stage_len bytes a round, and every peer reads them from there. */
enum hcoll_engine {
    HCOLL_ENGINE_PAIRS = 0,
    HCOLL_ENGINE_RING_AR = 1,
    HCOLL_ENGINE_RHD_AR = 2,
    HCOLL_ENGINE_RING_AG = 3,
    HCOLL_ENGINE_RHD_AG = 4,
    HCOLL_ENGINE_RING_RS = 5,
    HCOLL_ENGINE_STAGED = 6,
    HCOLL_ENGINE_RD_AR = 7,
};

/* PAIRS only: what happens to received bytes. COPY: copied to out + recv_off as they land.
 * REDUCE: every peer taking part (a non-empty pair) sends the same length; per round the
 * main thread reduces my own contribution and every such peer's, in rank order, into
 * out + pairs[me].recv_off with HcommLocalReduceOnThread (peers with empty pairs sit out:
 * the hierarchical steps reduce over one server, or over one rank per server). KEEP: one round (round_first) only; bytes stay in the HCCL
 * buffer for a following hcemu_coll_compute launch (types/ops the data plane cannot reduce). */
enum hcoll_recv_mode { HCOLL_RECV_COPY = 0, HCOLL_RECV_REDUCE = 1, HCOLL_RECV_KEEP = 2 };

/* What the product's data plane offers (hcoll_res.features), set by the host from HCEMU_SOC:
 * the kernel uses only calls the product has. WRITE_NOTIFY: HcommWriteWithNotifyOnThread
 * (Atlas 350 only); without it a write is followed by HcommChannelNotifyRecordOnThread on the
 * same thread, which records only after the write landed. */
enum { HCOLL_FEATURE_WRITE_NOTIFY = 1u };

/* The communicator's resources, written by the host into the AICPU_TS engine context. */
struct hcoll_res {
    void *buf; /* my HCCL buffer */
    uint64_t buf_size;
    uint32_t rank, size;
    uint32_t thread_num; /* threads[0] main; threads[1 + k] serves the k-th peer */
    uint32_t features;   /* HCOLL_FEATURE_* */
    ThreadHandle threads[HCOLL_MAX_RANKS];
    ChannelHandle chans[HCOLL_MAX_RANKS]; /* by peer rank; 0 = not acquired */
    void *peer_buf[HCOLL_MAX_RANKS];      /* by peer rank: its HCCL buffer through the channel */
};

/* One peer's part of a PAIRS launch, in bytes relative to args.in (send) and args.out (recv).
 * pairs[me] is my own part: send_off/len my contribution, recv_off/len where it goes. */
struct hcoll_pair {
    uint64_t send_off, send_len;
    uint64_t recv_off, recv_len;
};

struct hcoll_args {
    uint32_t engine;    /* enum hcoll_engine */
    uint32_t recv_mode; /* enum hcoll_recv_mode */
    uint32_t dtype;     /* HcclDataType (== HcommDataType) */
    uint32_t op;        /* HcclReduceOp (== HcommReduceOp) */
    uint32_t esz;       /* element size in bytes */
    uint32_t round_first; /* KEEP: the one round this launch moves */
    uint64_t slot;        /* PAIRS: bytes per peer slot of the HCCL buffer */
    uint64_t count;       /* RING/RHD: elements of the allreduce; RING_AG, RING_RS: per rank */
    uint8_t *in, *out;
    void *res; /* struct hcoll_res in device memory */
    uint64_t res_size;
    ThreadHandle host; /* the host stream's thread, exported to AICPU_TS */
    /* The notify of `host` recorded when this launch's tasks are done: successive calls of a
     * communicator on a stream take successive notifies, since while calls overlap later
     * calls' "done" may come before the stream consumed this one (coll_launch.c). */
    uint32_t done_idx;
    /* 1: the receiving side of an eager exchange waits and moves in one task (hcemu_wait_copy,
     * hcemu_wait_reduce); 0: the two vendor calls, where the modelled clock or a diagnostic
     * follows the card's tasks one by one (coll_launch.c). */
    uint32_t fused_waits;
    char tag[64];      /* batch-mode tag */
    /* PAIRS, COPY or REDUCE: the pairs that go eager (bit p of eager_mask; one round, each
     * direction at most eager_len bytes). Peer p's bytes then land in my HCCL buffer at
     *   eager_off + (parity(p) * size + p) * eager_len
     * with notify HCOLL_EAGER + parity(p), and no ACK: parity(p), bit p of eager_parity,
     * alternates from one eager exchange with p to the next (coll_launch.c says why that is
     * safe). */
    uint64_t eager_off, eager_len;
    uint32_t eager_threads; /* 1: each eager pair on its peer's thread; 0: on the main thread */
    uint32_t disjoint; /* REDUCE: what I reduce into never overlaps what I send (a
                        * reduce-scatter), so my peers may read my input directly meanwhile */
    /* REDUCE with every peer direct: a one-launch allreduce (0: not). Each rank writes its
     * reduced part, round by round, also into every peer's output, where that peer published
     * it (the second address of its inbox entry for me: its output at the offset of the part
     * it sends me), before its DIRECT_ACK. The reduce-scatter's result then needs no
     * allgather, which read each block back from its owner's output. Each round is one task
     * that stores every KiB of the result straight into every output, mine too
     * (hcemu_reduce_spread_published), but at 2 ranks in a cached call, which reduces into
     * my output and writes it to the peer's from there. HCOLL_SPREAD_OUT: a call whose
     * buffers stay cached; HCOLL_SPREAD_STREAMED: past the cache, where the task's stores
     * stream, so each result is written to memory once per output and never read back. */
    uint32_t spread;
    uint64_t stage_len; /* STAGED, and RHD_AR's allgather half (0: recursive doubling):
                         * bytes at the start of my HCCL buffer a round stages */
    uint8_t eager_mask[HCOLL_MAX_RANKS / 8];
    uint8_t eager_parity[HCOLL_MAX_RANKS / 8];
    /* PAIRS, COPY or REDUCE with `disjoint`: the pairs that go direct (bit p of direct_mask;
     * never eager as well). Each side publishes the address of the bytes it sends the other,
     * and each reads the other's straight into its output with hcemu_read_published (or
     * reduces them into it with hcemu_read_reduce_published): one copy of a block where the
     * HCCL buffer takes two. The mailboxes lie at direct_off of every HCCL buffer: inbox p
     * (p's address for me) at direct_off + p * HCOLL_ALIGN; outbox p of this call (my address
     * for p, the source of my publishing write) at direct_off + size * HCOLL_ALIGN +
     * (done_idx * size + p) * HCOLL_MAIL_ENTRY. The kernel stores an outbox when it runs, and calls
     * overlap, so later calls' kernels store theirs while this call's writes may still read its
     * own: each call of a window has its own. Notifies: DIRECT_DATA "published", DIRECT_ACK "read,
     * done with your buffer". */
    uint64_t direct_off;
    uint8_t direct_mask[HCOLL_MAX_RANKS / 8];
    /* RHD_AG: the partners whose step is pushed (bit p of pushed_mask): each publishes its
     * output's address to the other (the inboxes as above, from this call's outbox `me`,
     * which no pair uses; notify DIRECT_DATA) and writes the step's blocks straight into the
     * other's output with hcemu_write_published, then notify PUSHED. One copy of a block per
     * step where the eager slots take two. */
    uint8_t pushed_mask[HCOLL_MAX_RANKS / 8];
    /* The launch carries pairs[0..size) only (size: the communicator's ranks); the kernel
     * reads no entry past it. */
    struct hcoll_pair pairs[HCOLL_MAX_RANKS];
};

/* hcemu_coll_compute: dst[i] = src[0][i] op src[1][i] op ... op src[n-1][i], in C on the
 * AICPU, for the reductions the data plane refuses (PROD, 64-bit and unsigned types). */
struct hcoll_compute_args {
    uint32_t dtype, op, nsrc, pad;
    uint64_t count;
    void *dst;
    const void *src[HCOLL_MAX_RANKS];
};

/* Bit p of a per-rank bit set (eager_mask, eager_parity; the host's state keeps more). */
static inline bool hcoll_bit(const uint8_t *bits, uint32_t p)
{
    return (bits[p / 8] >> (p % 8)) & 1u;
}

/* Bytes per element of the twelve data types the collectives move; 0 for any other value. */
static inline uint32_t hcoll_dtype_size(uint32_t dtype)
{
    switch (dtype) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8: return 1;
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16: return 2;
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_FP32: return 4;
    case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP64: return 8;
    default: return 0;
    }
}

#endif
