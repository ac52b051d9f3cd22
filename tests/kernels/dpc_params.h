/* dpc_params.h - the contract between test_dataplane_comm.c and its flow kernel (dpc_flow.c):
 * the parameter block appended as the kernel's only argument and the resource context the host
 * serialises into an AICPU_TS engine context on the first call of a tag (docs/FLOW.md §2.8, §7).
 * Plain C, fixed layout, no host pointers. */
#ifndef HCEMU_TESTS_DPC_PARAMS_H
#define HCEMU_TESTS_DPC_PARAMS_H

#include <stdint.h>

#define DPC_MAX_RANKS 8u
#define DPC_ACK 0u  /* channel notify: "ready" (push, batch) or "my slice is staged" (read) */
#define DPC_DATA 1u /* channel notify: "data landed" (push, batch) or "done reading" (read) */
#define DPC_WAIT_S 20u

enum dpc_variant {
    DPC_PUSH = 0,  /* HcommWriteWithNotifyOnThread into the peer's HCCL buffer */
    DPC_BATCH = 1, /* HcommBatchTransferOnThread: WRITE + NOTIFY_RECORD */
    DPC_READ = 2,  /* HcommReadOnThread of the peer's staged slice */
};

struct dpc_chan {
    uint64_t handle;   /* ChannelHandle */
    uint64_t peer_buf; /* the peer's HCCL buffer through this channel */
    uint64_t peer_size;
    uint32_t peer_rank;
    uint32_t reserved;
};

/* In device memory (the AICPU_TS engine context); written once per tag. */
struct dpc_res {
    uint64_t hccl_buf;
    uint64_t hccl_size;
    uint32_t thread_num; /* threads[0] = main; threads[i] drives channels[i] */
    uint32_t start_idx;  /* main thread's notify the host records to start the kernel */
    uint64_t threads[DPC_MAX_RANKS];
    struct dpc_chan chans[DPC_MAX_RANKS];
};

/* The kernel argument, by value. */
struct dpc_param {
    char tag[64];
    uint64_t ctx; /* struct dpc_res in device memory */
    uint64_t ctx_size;
    uint64_t host_thread; /* the host stream's CPU_TS thread exported to AICPU_TS */
    uint64_t input;       /* `bytes` bytes */
    uint64_t output;      /* rank_size * bytes */
    uint64_t bytes;
    uint32_t rank;
    uint32_t rank_size;
    uint32_t variant;
    uint32_t start_idx;
};

#endif
