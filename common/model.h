/* model.h - the modelled Atlas 350 clock (HCEMU_TIME=model, docs/MODEL.md): the task graph
 * every executor of a job records into the job-wide `model.shm`, the cost-model parameters,
 * and the discrete-event simulation that turns the graph into modelled start and end times.
 *
 * Executors append one node per task when it is submitted (device/diag/model.c); host
 * processes simulate the whole graph when they need a time (events, host/acl/model.c). */
#ifndef HCEMU_COMMON_MODEL_H
#define HCEMU_COMMON_MODEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/layout.h"
#include "common/status.h"

#define EMU_MODEL_MAGIC 0x314c45444f4d4d45ull /* "EMMODEL1" */
#define EMU_MODEL_MAX_NODES (1u << 20)        /* 64 MiB of sparse file at most */
#define EMU_MODEL_NONE UINT32_MAX

/* sync_op values (as enum emu_sync_op of device/task.h). */
#define EMU_MODEL_RECORD 1u
#define EMU_MODEL_WAIT 2u

/* What decides a node's duration. */
enum emu_model_role {
    EMU_MODEL_FIXED = 0,  /* host task or notify record: a fixed cost */
    EMU_MODEL_LOCAL = 1,  /* local copy or reduce: bytes / local bandwidth */
    EMU_MODEL_FLOW = 2,   /* transfer src_dev -> dst_dev over a link, bandwidth shared */
    EMU_MODEL_KERNEL = 3, /* kernel launch: ends when every task it queued ended */
};

/* One task as the model sees it. Written whole by its executor, then `ready` (release). */
struct emu_model_node {
    uint32_t dev, stream; /* the thread (or host stream) that runs it, in order */
    uint16_t kind;        /* scheduler or data-plane task kind */
    uint8_t role;         /* enum emu_model_role */
    uint8_t aicpu;        /* queued by a kernel on an AICPU_TS thread (dispatch cost) */
    uint8_t sync_op;      /* enum emu_sync_op: records or waits for (sync_dev, sync_slot) */
    uint8_t event;        /* the sync slot is an event (matched by event_seq) */
    uint8_t reduce;       /* a reducing move */
    uint8_t reserved;
    uint32_t sync_dev, sync_slot;
    uint32_t src_dev, dst_dev; /* flows: where the bytes leave and arrive */
    uint32_t kernel;           /* node index of the kernel that queued it, or EMU_MODEL_NONE */
    uint32_t event_seq;        /* event records and waits */
    uint64_t bytes;
    uint64_t reserved2;
    _Atomic uint32_t ready;
    uint32_t reserved3;
};

struct emu_model_shm {
    uint64_t magic; /* set last by the creator (release) */
    _Atomic uint32_t n_nodes;
    _Atomic uint32_t full; /* a node did not fit: modelled times are unavailable */
    uint8_t pad[48];
    struct emu_model_node nodes[EMU_MODEL_MAX_NODES];
};

/* Cost-model parameters, seconds and bytes per second (docs/MODEL.md has their sources). */
struct emu_model_params {
    double task_s;      /* AICPU dispatch of one data-plane task */
    double launch_s;    /* kernel launch on the host stream */
    double host_task_s; /* any other host stream task */
    double notify_s;    /* record -> wait visible */
    double link_lat_s;  /* intra-server link latency (UB_CTP / HCCS) */
    double link_bw;     /* intra-server link, per direction */
    double net_lat_s;   /* inter-server latency (RoCE / UBoE) */
    double net_bw;      /* inter-server port of a device, per direction */
    double copy_bw;     /* local copy */
    double reduce_bw;   /* local reduce */
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

/* Map `model.shm` of job folder `dir` (created by the first caller, zero-filled sparse). */
emu_status emu_model_open(const char *dir, struct emu_model_shm **out) EMU_MUST_CHECK;
void emu_model_close(struct emu_model_shm *m);

/* Simulate nodes[0..n) (every node ready) into out[0..n). EMU_EINVAL when a dependency
 * cannot be resolved (a wait with no matching record left unresolved is treated as ready
 * at its thread's time, and reported through *unmatched). */
emu_status emu_model_simulate(const struct emu_model_node *nodes, uint32_t n,
                              const struct emu_model_params *p, struct emu_model_times *out,
                              uint32_t *unmatched) EMU_MUST_CHECK;

#endif
