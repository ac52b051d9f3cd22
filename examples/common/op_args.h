/* op_args.h - the contract between an example's host program and its kernel: the parameter
 * block the host appends as the kernel's only argument (FLOW.md §2.1, §2.11) and the resource
 * context it serialises into device memory once per tag (docs/FLOW.md §2.8, §3.1).
 *
 * Plain C, fixed layout, no pointers to host memory: the kernel receives a byte copy of
 * struct ex_op_param and reads struct ex_res_ctx from device memory. Every example includes
 * this file from both sides, as the vendor samples share one header between host and kernel. */
#ifndef HCEMU_EXAMPLES_OP_ARGS_H
#define HCEMU_EXAMPLES_OP_ARGS_H

#include <stdint.h>

#include <hccl/hccl_types.h>
#include <hccl/hcomm_primitives.h>

#define EX_MAX_RANKS 256u       /* one rank per device; hcemu emulates at most 256 devices */
#define EX_TAG_LEN 256u         /* HCCL_RES_TAG_MAX_LEN characters plus the NUL */
#define EX_NOTIFY_TIMEOUT 1836u /* seconds, as the samples use for every wait */

/* One channel to one peer (docs/FLOW.md §2.6). */
struct ex_channel_res {
    ChannelHandle handle;
    void *peer_buf; /* the peer's HCCL buffer as addressed through this channel */
    uint64_t peer_buf_size;
    uint32_t peer_rank;
    uint32_t notify_num;
};

/* Everything the kernel needs besides its arguments; written once per tag, reused by every
 * later call with the same tag (the engine-context "hit" path). */
struct ex_res_ctx {
    void *hccl_buf; /* this rank's HCCL buffer */
    uint64_t hccl_buf_size;
    uint32_t thread_num;  /* AICPU_TS threads; threads[0] is the main thread */
    uint32_t notify_num;  /* notifies per thread */
    uint32_t start_idx;   /* the main thread's notify the host records to start the kernel */
    uint32_t channel_num; /* channels[i] belongs to the i-th peer of the operator's shape */
    ThreadHandle threads[EX_MAX_RANKS];
    struct ex_channel_res channels[EX_MAX_RANKS];
};

/* The operator's parameter block: copied by value into the kernel arguments. */
struct ex_op_param {
    char tag[EX_TAG_LEN];                 /* engine-context key and batch tag */
    char comm_name[COMM_NAME_MAX_LENGTH]; /* HcclGetCommName */
    void *input;                          /* device buffers of this rank */
    void *output;
    uint64_t count;     /* elements; what it counts is per operator */
    uint32_t data_type; /* HcclDataType */
    uint32_t reduce_op; /* HcclReduceOp */
    uint32_t op_type;   /* HcclCMDType */
    uint32_t rank;
    uint32_t rank_size;
    uint32_t root;      /* broadcast: root rank */
    uint32_t variant;   /* p2p: 0 read-based, 1 push */
    uint32_t start_idx; /* copy of ex_res_ctx.start_idx */
    void *ctx;          /* struct ex_res_ctx in device memory */
    uint64_t ctx_size;
    ThreadHandle host_thread; /* the host stream's thread, exported to AICPU_TS */
};

#endif
