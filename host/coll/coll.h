/* coll.h - the host side of the built-in collectives (HcclAllReduce ...): an operator
 * described once (struct emu_coll_op), an algorithm chosen for it (coll_algo.c), the launch
 * plan built (coll_plan.c) and run on the user's stream with hcemu's own AICPU kernel image
 * (coll_launch.c, collectives/), by the steps of the documented ACL/HCCL flow taken through
 * the internal functions of host/hccl and host/acl. */
#ifndef HCEMU_HOST_COLL_COLL_H
#define HCEMU_HOST_COLL_COLL_H

#include <stdbool.h>
#include <stdint.h>

#include "collectives/coll_abi.h"
#include "common/contract/hcomm_check.h"
#include "common/contract/status.h"
#include "common/platform/machine.h"
#include "hccl/hccl.h"

struct emu_function;

struct emu_comm;

enum emu_coll_kind {
    EMU_COLL_ALLREDUCE,
    EMU_COLL_ALLGATHER,
    EMU_COLL_REDUCE_SCATTER,
    EMU_COLL_BROADCAST,
    EMU_COLL_REDUCE,
    EMU_COLL_ALLTOALL,
    EMU_COLL_SCATTER,
    EMU_COLL_P2P,     /* Send, Recv, BatchSendRecv, AllGatherV, ReduceScatterV, AlltoAllV(C) */
    EMU_COLL_BARRIER,
    EMU_COLL_KIND_COUNT
};

enum emu_coll_algo {
    EMU_ALGO_DEFAULT = 0, /* chosen by size and rank count */
    EMU_ALGO_MESH,        /* one shot: every rank exchanges with every peer directly */
    EMU_ALGO_TWOSHOT,     /* reduce-scatter (or scatter) then allgather, both mesh */
    EMU_ALGO_RING,
    EMU_ALGO_RHD,         /* recursive halving-doubling (power-of-two rank counts) */
    EMU_ALGO_HIER,        /* inside each server, then across servers (coll_hier.c) */
    EMU_ALGO_RD,          /* allreduce by recursive doubling of the whole vector (power-of-two
                           * rank counts; an allgather's recursive doubling is rhd's) */
    EMU_ALGO_COUNT
};

/* One operator call. `pairs` is the mesh plan (bytes relative to in/out); the planner
 * replaces it for the other algorithms of the kinds that have them. */
struct emu_coll_op {
    enum emu_coll_kind kind;
    const char *fn;
    uint8_t *in, *out;
    uint64_t count; /* allreduce/reduce/broadcast: elements; allgather: per rank;
                       reduce-scatter: per rank (recvCount) */
    uint32_t dtype, op, esz, root;
    bool reduce;                /* pairs REDUCE (reduce-scatter-v, reduce) */
    uint32_t peers[HCOLL_MAX_RANKS]; /* ranks this call exchanges with (channels needed) */
    uint32_t npeers;
    struct hcoll_pair pairs[HCOLL_MAX_RANKS];
};

/* Per-communicator state of the collectives, kept in the comm's CPU_TS engine context. */
struct emu_coll_state;

/* What the planner (coll_plan.c) keeps in that state between a communicator's calls: a loop
 * of calls asks the same questions each time, and answering them from the environment and
 * the cost model was a tenth of a small call's host instructions. */
struct emu_coll_plan_memo {
    bool machine_read; /* `wall` and `m` hold this communicator's answer */
    bool wall;         /* the wall clock chooses, by the figures `m` */
    struct emu_machine m;
    bool pick_valid; /* the last choice of the cost model or the card's rule */
    bool pick_in_place;
    uint32_t pick_kind, pick_algo;
    uint64_t pick_bytes;
};
struct emu_coll_plan_memo *emu_coll_plan_memo(struct emu_coll_state *st);

/* The servers of a communicator: the instances of layer 0 of its rank graph. */
struct emu_coll_servers {
    uint32_t n;                         /* servers; 1: every rank on one */
    uint32_t per;                       /* ranks per server when all hold as many, else 0 */
    uint32_t server[HCOLL_MAX_RANKS];   /* by rank: its server's position in layer 0 */
    uint32_t local[HCOLL_MAX_RANKS];    /* by rank: its index among its server's ranks */
    uint32_t rank_at[HCOLL_MAX_RANKS];  /* per != 0: the rank at [server * per + local] */
};

/* The algorithm HCEMU_ALGO asks for `kind` (EMU_ALGO_DEFAULT when unset or not naming it). */
enum emu_coll_algo emu_coll_algo_setting(enum emu_coll_kind kind);
/* The HCEMU_ALGO names by algorithm ("default", "mesh", ...), and one of them ("invalid" past
 * the table). In coll_cost.c, which hcemu-run builds alone for --machine's table. */
extern const char *const emu_coll_algo_names[EMU_ALGO_COUNT];
const char *emu_coll_algo_name(enum emu_coll_algo a);

/* Whether the data plane reduces (dtype, op) itself (SUM/MAX/MIN on int8/16/32, fp16, fp32,
 * bf16); everything else reduces in the image's compute kernel. */
bool emu_coll_prim_reducible(uint32_t dtype, uint32_t op);

/* Runs `op` on `stream` for the rank `c` (held by the caller): state and channels on first
 * use, then the launches. Returns EMU_OK once everything is queued. */
emu_status emu_coll_execute(struct emu_comm *c, aclrtStream stream, struct emu_coll_op *op)
    EMU_MUST_CHECK;

/* coll_servers.c: the servers from layer 0 of the communicator's rank graph. */
emu_status emu_coll_servers_init(struct emu_comm *c, const char *fn,
                                 struct emu_coll_servers *sv) EMU_MUST_CHECK;
/* coll_hier.c: whether the hierarchical forms apply (several servers of equal size, at least
 * 2 ranks each); the forms. */
bool emu_coll_hier_applies(const struct emu_coll_servers *sv);
emu_status emu_coll_hier_allreduce(struct emu_coll_state *st, aclrtStream stream,
                                   const struct emu_coll_op *op,
                                   const struct emu_coll_servers *sv) EMU_MUST_CHECK;
emu_status emu_coll_hier_allgather(struct emu_coll_state *st, aclrtStream stream,
                                   const struct emu_coll_op *op,
                                   const struct emu_coll_servers *sv) EMU_MUST_CHECK;

/* Pair tables hold HCOLL_MAX_RANKS entries (8 KiB), a call uses the communicator's first n:
 * zeroing and copying whole tables (an operator, its launch arguments, their pairs) wrote
 * about 40 KiB per call, more than a core's L1 data cache, whatever the rank count. */
void emu_coll_pairs_zero(struct hcoll_pair *p, uint32_t n);
void emu_coll_pairs_copy(struct hcoll_pair *dst, const struct hcoll_pair *src, uint32_t n);
/* A launch's argument block for `op` (engine, receive mode, slot, in/out). */
void emu_coll_args_init(struct hcoll_args *a, const struct emu_coll_op *op,
                        const struct emu_coll_state *st, uint32_t engine, uint32_t mode);

/* coll_launch.c: the state (created on first use, channels to `peers` acquired if missing),
 * one run launch and one compute launch, the slot size of this comm. */
emu_status emu_coll_state_get(struct emu_comm *c, const uint32_t *peers, uint32_t npeers,
                              const char *fn, struct emu_coll_state **out) EMU_MUST_CHECK;
emu_status emu_coll_launch_run(struct emu_coll_state *st, aclrtStream stream,
                               struct hcoll_args *a, const char *fn) EMU_MUST_CHECK;
emu_status emu_coll_launch_compute(struct emu_coll_state *st, aclrtStream stream,
                                   const struct hcoll_compute_args *a,
                                   const char *fn) EMU_MUST_CHECK;
uint64_t emu_coll_slot(const struct emu_coll_state *st);
/* Launch f (one block) on stream with `size` argument bytes, in order with the stream; its
 * transfers treat the caches as `copy_mode` says (enum emu_copy_mode). */
emu_status emu_coll_launch_kernel(struct emu_function *f, aclrtStream stream, const void *args,
                                  size_t size, uint64_t timeout_us, uint32_t copy_mode,
                                  const char *fn) EMU_MUST_CHECK;
/* How the transfers of the call being planned treat the caches (enum emu_copy_mode), for
 * every launch of the call: coll_plan.c decides, once per call. */
void emu_coll_set_copy_mode(struct emu_coll_state *st, uint32_t copy_mode);
uint32_t emu_coll_copy_mode(const struct emu_coll_state *st);
/* The Hcomm call a host-stream record or wait of the launches is made as (hcomm.h). */
struct emu_hcomm_call emu_coll_host_call(const char *fn, uint64_t callsite);
/* Launch hcemu_thread_wait (wait) or hcemu_thread_record of hcemu's image (loaded on first
 * use) on stream. */
emu_status emu_coll_launch_notify(aclrtStream stream, const struct hcoll_thread_notify *a,
                                  bool wait, const char *fn) EMU_MUST_CHECK;
/* coll_direct.c: whether something follows the collectives' tasks one by one (the modelled
 * clock, the race detector, provenance, injected faults): then they keep the card's forms,
 * not hcemu's own (direct reads, fused waits, overlapping calls). */
bool emu_coll_tasks_followed(void);
/* Whether the settings let the built-in collectives read peers' buffers
 * directly (the wall clock, no diagnostic following transfers' sources, HCEMU_DIRECT_KB not
 * 0), and from how many bytes a pair does. */
bool emu_coll_direct_allowed(void);
uint64_t emu_coll_direct_min(void);
/* Whether a call of this communicator may go direct with every peer whose pair is at least
 * emu_coll_direct_min() (on this stream: not while it is captured into a graph). */
bool emu_coll_direct_usable(const struct emu_coll_state *st, aclrtStream stream);
/* Whether a call on this stream whose every pair is at least `smallest` bytes goes direct with
 * every peer (each of this machine, on a channel of our own): what a spread reduction needs
 * (coll_abi.h, spread). */
bool emu_coll_direct_everyone(const struct emu_coll_state *st, aclrtStream stream,
                              uint64_t smallest);
/* Bytes of an eager slot (0: this communicator has none). */
uint64_t emu_coll_eager_len(const struct emu_coll_state *st);
/* Bytes at the start of my HCCL buffer one round of staged reads may fill. */
uint64_t emu_coll_stage_len(const struct emu_coll_state *st);
/* My HCCL buffer and its size, as the kernel sees them. */
uint8_t *emu_coll_buf(const struct emu_coll_state *st);
uint32_t emu_coll_rank(const struct emu_coll_state *st);
const struct emu_coll_servers *emu_coll_servers_of(const struct emu_coll_state *st);
uint32_t emu_coll_size(const struct emu_coll_state *st);

/* api_coll.c: checks and runs send/receive items of one (comm, stream) as one launch (the
 * body of HcclSend, HcclRecv, HcclBatchSendRecv and of a group's end). */
emu_status emu_coll_batch(HcclComm comm, aclrtStream stream, const HcclSendRecvItem *items,
                          uint32_t n, const char *fn) EMU_MUST_CHECK;

/* coll_group.c: whether the calling thread is inside HcclGroupStart/End. */
bool emu_coll_group_open(void);
/* coll_group.c: HcclSend (type HCCL_SEND) and HcclRecv: inside a group (HcclGroupStart/End
 * nesting on the calling thread) collected and issued together at the outermost End, else
 * run at once as a batch of one. */
emu_status emu_coll_group_p2p(HcclSendRecvType type, void *buf, uint64_t count,
                              HcclDataType dataType, uint32_t peer, HcclComm comm,
                              aclrtStream stream, const char *fn) EMU_MUST_CHECK;

#endif
