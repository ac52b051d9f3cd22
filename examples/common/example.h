/* example.h - the host boilerplate shared by every example, so each host.c shows only its
 * operator: how ranks start (threads of one process, or one process per rank under
 * hcemu-run), the root info, options, buffers, result checks and the verdict; and the
 * per-call steps of docs/FLOW.md §2 (host thread, engine context hit or build, launch hand-shake).
 *
 * An example defines a struct ex_example and calls ex_main() from main(). */
#ifndef HCEMU_EXAMPLES_EXAMPLE_H
#define HCEMU_EXAMPLES_EXAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include <acl/acl.h>
#include <hccl/hccl.h>

#include "op_args.h"

/* Command-line options (ex_main parses them; see ex_usage in example.c). */
struct ex_opts {
    uint32_t ranks; /* thread mode: rank count; process mode: HCEMU_RANK_SIZE */
    uint64_t bytes; /* each rank's input size */
    uint32_t iters; /* operator calls; >= 2 so the engine-context hit path runs */
    uint32_t root;  /* broadcast root */
    bool push;      /* p2p: push variant instead of read-based */
};

/* One rank: a device, a communicator and a stream, driven by one OS thread. */
struct ex_rank {
    uint32_t rank;
    uint32_t size;
    int32_t dev;
    HcclComm comm;
    aclrtStream stream;
    aclrtBinHandle bin; /* the kernel binary, loaded on the first launch of this OS thread */
    const struct ex_opts *opts;
    const struct ex_example *ex;
};

/* What ex_op_resources builds on an engine-context miss (docs/FLOW.md §2.4-2.8). */
struct ex_shape {
    uint32_t thread_num;          /* AICPU_TS threads, >= 1; threads[0] is the main thread */
    uint32_t notifies_per_thread; /* the main thread's last notify is the host start signal */
    uint32_t peer_num;            /* one UB_CTP channel per peer, in this order */
    uint32_t peers[EX_MAX_RANKS];
    uint32_t channel_notifies; /* notifyNum of every channel */
    /* The P2P sample's style: the device context is a COMM_ENGINE_AICPU engine context
     * filled with aclrtMemcpy instead of HcclEngineCtxCopy. */
    bool aicpu_memcpy_ctx;
};

/* An example: its buffers, its data and its operator. Elements are 4 bytes. */
struct ex_example {
    const char *name;   /* "allgather" */
    const char *json;   /* descriptor file name, next to the executable */
    const char *kernel; /* kernel name: a top-level key of the descriptor */
    /* Element counts of this rank's input and output, and the operator's `count`. */
    void (*sizes)(const struct ex_rank *r, uint64_t *in_elems, uint64_t *out_elems,
                  uint64_t *count);
    /* Bit patterns: element i of rank r's input, and of its expected output. */
    uint32_t (*input)(const struct ex_rank *r, uint64_t i);
    uint32_t (*expect)(const struct ex_rank *r, uint64_t i);
    /* One operator call: queue it on r->stream and return 0 (the caller synchronises). */
    int (*call)(struct ex_rank *r, void *in, void *out, uint64_t count);
};

/* Parses options, runs every rank (threads, or this process's rank under hcemu-run), prints
 * one line per rank and a verdict. Returns the process exit status: 0 when every checked
 * byte is right, 1 otherwise, 2 for usage errors. */
int ex_main(int argc, char **argv, const struct ex_example *ex);

/* docs/FLOW.md §2.1: the parameter block's common fields (tag, comm name, buffers, count, type,
 * rank, size), after checking that the SoC is an Ascend950. Returns 0 or -1 (logged). */
int ex_param_init(struct ex_op_param *p, const struct ex_rank *r, const char *tag, void *in,
                  void *out, uint64_t count, HcclDataType type, HcclCMDType op);

/* docs/FLOW.md §2.2-2.8: acquires the host thread and exports it (every call), then reuses the
 * tag's engine context or builds threads, channels and the context from `shape`. Fills
 * p->ctx, ctx_size, start_idx and host_thread, and *main_on_cpu (the main thread as the host
 * names it). Returns 0 or -1 (logged). */
int ex_op_resources(struct ex_rank *r, const struct ex_shape *shape, struct ex_op_param *p,
                    ThreadHandle *host_thread, ThreadHandle *main_on_cpu);

/* docs/FLOW.md §2.9-2.12: loads the binary (once per OS thread), then queues on the host stream
 * the start record, the kernel launch with `p` as its only argument and the completion wait.
 * Returns 0 or -1 (logged). */
int ex_op_launch(struct ex_rank *r, struct ex_op_param *p, ThreadHandle host_thread,
                 ThreadHandle main_on_cpu);

/* Shapes used by several examples. */
void ex_shape_mesh(struct ex_shape *s, const struct ex_rank *r, uint32_t thread_num,
                   uint32_t notifies_per_thread, uint32_t channel_notifies);

/* Float <-> bit pattern, for the reducing examples. */
uint32_t ex_f32_bits(float f);

#endif
