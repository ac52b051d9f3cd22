/* model.h - the modelled Atlas 350 clock (HCEMU_TIME=model, docs/MODEL.md): the task graph
 * every executor of a job records into the job-wide `model.shm`, the cost-model parameters,
 * and the discrete-event simulation that turns the graph into modelled start and end times.
 *
 * Executors append one node per task when it is submitted (device/diag/model_rec.c); host
 * processes simulate the whole graph when they need a time (events, host/acl/model_time.c). */
#ifndef HCEMU_COMMON_MODEL_H
#define HCEMU_COMMON_MODEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/contract/layout.h"
#include "common/contract/status.h"

#define EMU_MODEL_MAGIC 0x314c45444f4d4d45ull /* "EMMODEL1" */
#define EMU_MODEL_MAX_NODES (1u << 20)        /* 80 MiB of sparse file at most */
#define EMU_MODEL_MAX_ORIGINS 16u             /* other job folders whose nodes a folder mirrors */
#define EMU_MODEL_NONE UINT32_MAX
#define EMU_MODEL_DTYPES 16u /* data types with their own local-reduce figure (HCCL's values) */

/* sync_op values (as enum emu_sync_op of device/sched/task.h). */
#define EMU_MODEL_RECORD 1u
#define EMU_MODEL_WAIT 2u

/* What decides a node's duration. */
enum emu_model_role {
    EMU_MODEL_FIXED = 0,  /* host task or notify record: a fixed cost */
    EMU_MODEL_LOCAL = 1,  /* local copy or reduce: bytes / local bandwidth */
    EMU_MODEL_FLOW = 2,   /* transfer src_dev -> dst_dev over a link, bandwidth shared */
    EMU_MODEL_KERNEL = 3, /* kernel launch: ends when every task it queued ended */
    EMU_MODEL_HOST = 4,   /* a host thread returned from a synchronisation: no cost, ends
                           * when the task it waited for (`after`) ended */
};

/* Host synchronisations are nodes of a thread of their own per host thread and device:
 * stream EMU_MODEL_HOST_STREAM + a number of the host thread (never a device stream slot). */
#define EMU_MODEL_HOST_STREAM 0x40000000u

/* One task as the model sees it. Written whole by its executor, then `ready` (release). */
struct emu_model_node {
    uint32_t dev, stream; /* the thread (or host stream) that runs it, in order */
    uint16_t kind;        /* scheduler or data-plane task kind */
    uint8_t role;         /* enum emu_model_role */
    uint8_t aicpu;        /* queued by a kernel on an AICPU_TS thread (dispatch cost) */
    uint8_t sync_op;      /* enum emu_sync_op: records or waits for (sync_dev, sync_slot) */
    uint8_t event;        /* the sync slot is an event (matched by event_seq) */
    uint8_t reduce;       /* a reducing move */
    uint8_t dtype;        /* a reducing move: its data type (HCCL's numbering) */
    uint32_t sync_dev, sync_slot;
    uint32_t src_dev, dst_dev; /* flows: where the bytes leave and arrive */
    uint32_t kernel;           /* node index of the kernel that queued it, or EMU_MODEL_NONE */
    uint32_t event_seq;        /* event records and waits */
    uint64_t bytes;
    /* Jobs over several job folders (hosts). A node of this folder has origin 0; a mirror of
     * a node of another folder (shipped with the network messages, device/diag/model_net.c)
     * has that folder's key (common/contract/host_id.h emu_folder_key) and its index there, and its
     * device numbers are that folder's. `peer`: the folder of the channel's peer when it is
     * another folder; the fields flagged in peer_fields then number a device there. */
    uint64_t origin;
    uint64_t peer;
    uint32_t origin_idx;
    uint8_t peer_fields; /* EMU_MODEL_PEER_* */
    uint8_t reserved[3];
    _Atomic uint32_t ready;
    /* Plus one, the node (of the same file) whose end this node's start waits for: the last
     * synchronisation of the host thread that queued it (an EMU_MODEL_HOST node), or for
     * that node the task it synchronised on; 0 = none. Written before `ready`. */
    uint32_t after;
};
_Static_assert(sizeof(struct emu_model_node) == 80, "model node layout");

#define EMU_MODEL_PEER_SRC 1u  /* src_dev is the peer's */
#define EMU_MODEL_PEER_DST 2u  /* dst_dev is the peer's */
#define EMU_MODEL_PEER_SYNC 4u /* sync_dev is the peer's */

/* The mirrors' origins: which nodes of other folders this folder holds (one bit per index
 * there), so a node shipped by several executors is appended once. Slots are claimed by a
 * compare-and-swap of `key`, bits by fetch-or: no lock. */
struct emu_model_origin {
    _Atomic uint64_t key;
    _Atomic uint8_t got[EMU_MODEL_MAX_NODES / 8];
};

struct emu_model_shm {
    uint64_t magic; /* set last by the creator (release) */
    _Atomic uint32_t n_nodes;
    _Atomic uint32_t full;    /* a node did not fit: modelled times are unavailable */
    _Atomic uint32_t partial; /* another folder's graph could not be mirrored whole: same */
    uint8_t pad[44];
    struct emu_model_origin origins[EMU_MODEL_MAX_ORIGINS];
    struct emu_model_node nodes[EMU_MODEL_MAX_NODES];
};

/* Cost-model parameters, seconds and bytes per second (docs/MODEL.md has their sources). */
struct emu_model_params {
    double task_s;                            /* AICPU dispatch of one data-plane task */
    double launch_s;                          /* kernel launch on the host stream */
    double host_task_s;                       /* any other host stream task */
    double notify_s;                          /* record -> wait visible */
    double link_lat_s;                        /* intra-server link latency (UB_CTP / HCCS) */
    double link_bw;                           /* intra-server link, per direction */
    double net_lat_s;                         /* inter-server latency (RoCE / UBoE) */
    double net_bw;                            /* inter-server port of a device, per direction */
    double copy_bw;                           /* local copy */
    double reduce_bw;                         /* local reduce */
    double reduce_dtype_bw[EMU_MODEL_DTYPES]; /* per data type, 0 = reduce_bw */
    double pair_bw[EMU_MAX_DEVICES][EMU_MAX_DEVICES]; /* per link override, 0 = link_bw */
    uint32_t server[EMU_MAX_DEVICES];                 /* server of each device */
};

/* Simulation output per node (seconds since the job's first task). */
struct emu_model_times {
    double start, end;
    uint32_t why; /* the node whose end decided this node's start, EMU_MODEL_NONE = none */
};

/* The vendor-derived defaults, every device on server 0. */
void emu_model_params_default(struct emu_model_params *p);
/* The data type named `name` ("fp32", "bfp16", ...: the hccl_test names), or -1. */
int emu_model_dtype(const char *name);

/* A link's or port's load from `t` on (until its next sample): `bps` bytes per second of its
 * capacity `cap`. A link within a server: src -> dst. A device's inter-server port: the
 * device is `src` (egress, dst = EMU_MODEL_NONE) or `dst` (ingress, src = EMU_MODEL_NONE). */
struct emu_model_usage {
    double t, bps, cap;
    uint32_t src, dst;
};
typedef void (*emu_model_usage_fn)(void *ctx, const struct emu_model_usage *u);

/* Map `model.shm` of job folder `dir` (created by the first caller, zero-filled sparse). */
emu_status emu_model_open(const char *dir, struct emu_model_shm **out) EMU_MUST_CHECK;
void emu_model_close(struct emu_model_shm *m);
/* One new node of g (one atomic add; the caller fills it, then sets `ready`); NULL once the
 * file is full, which also makes modelled times unavailable (one warning per job). */
struct emu_model_node *emu_model_reserve(struct emu_model_shm *g);

/* A graph that holds mirrors of other job folders' nodes (origin or peer set), turned into
 * one graph of this folder's numbering: nodes of this folder first, in their order, then the
 * mirrors by (origin, index there); each (folder, device) gets a device number (this
 * folder's devices keep theirs), kernels are re-pointed, and every other folder is put on
 * servers of its own in p->server (another host is another server, as in the rank graph).
 * `own` is this folder's key. A node whose kernel launch is not there keeps none. EMU_EINVAL (with
 * `why`) when the devices do not fit EMU_MAX_DEVICES numbers. A graph without mirrors is left
 * exactly as it is. */
emu_status emu_model_merge(struct emu_model_node *nodes, uint32_t n, uint64_t own,
                           struct emu_model_params *p, char *why, size_t why_len) EMU_MUST_CHECK;

/* Simulate nodes[0..n) (every node ready) into out[0..n). EMU_EINVAL when a dependency
 * cannot be resolved (a wait with no matching record left unresolved is treated as ready
 * at its thread's time, and reported through *unmatched). */
emu_status emu_model_simulate(const struct emu_model_node *nodes, uint32_t n,
                              const struct emu_model_params *p, struct emu_model_times *out,
                              uint32_t *unmatched) EMU_MUST_CHECK;
/* The same, also calling usage(ctx, ...) at every change of a link's or port's load (in time
 * order; a last sample of 0 when it falls idle). */
emu_status emu_model_simulate_usage(const struct emu_model_node *nodes, uint32_t n,
                                    const struct emu_model_params *p, struct emu_model_times *out,
                                    uint32_t *unmatched, emu_model_usage_fn usage,
                                    void *ctx) EMU_MUST_CHECK;
/* The same for a question about targets[0..n_targets): only their past is simulated, the
 * nodes whose ends or starts decide theirs (the thread's previous node, the record a wait
 * matched, the host's synchronisation, a kernel and, for a kernel that must end, its tasks).
 * Nodes outside it get start = end = -1, a kernel whose start only is in it end = -1. A
 * node queued after a target's tasks ran, or one that never touches their past, changes
 * nothing: the answer depends on what led to the targets, not on what else is already in
 * the graph when the question is asked. n_targets = 0 simulates every node. */
emu_status emu_model_simulate_past(const struct emu_model_node *nodes, uint32_t n,
                                   const struct emu_model_params *p, struct emu_model_times *out,
                                   uint32_t *unmatched, const uint32_t *targets, uint32_t n_targets,
                                   emu_model_usage_fn usage, void *ctx) EMU_MUST_CHECK;

#endif
