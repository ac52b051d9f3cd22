/* model_rec.c - HCEMU_TIME=model: record every task of this device as a node of the job's
 * task graph (common/model/model.h, docs/MODEL.md). The `submit` hook appends the node (in each
 * thread's queue order); the `start` hook of a kernel launch remembers its node so that the
 * tasks its kernel queues name it. Host processes simulate the graph when they need times. The
 * mapping is kept until the process exits: hooks may run until the scheduler stops. */
#include <stdatomic.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/contract/host_id.h"
#include "common/contract/layout.h"
#include "common/platform/log.h"
#include "common/model/model.h"
#include "device/dp/dp.h"
#include "device/dp/dp_kinds.h"
#include "device/exec.h"
#include "diag_priv.h"

static struct emu_model_shm *graph;

struct emu_model_shm *emu_model_rec_graph(void)
{
    return graph;
}

struct emu_model_node *emu_model_rec_reserve(void)
{
    return emu_model_reserve(graph);
}
/* Node (plus one) of the kernel running on each host stream of this device. */
static _Atomic uint32_t cur_kernel[EMU_MAX_STREAMS];

static void fill_host(const struct emu_task *t, struct emu_model_node *x)
{
    const struct emu_wire_task *w = &t->u.wire;

    x->after = w->model_after; /* the host thread's last synchronisation */
    switch (t->kind) {
    case EMU_TASK_COPY:
        x->role = EMU_MODEL_LOCAL, x->bytes = w->u.copy.len;
        break;
    case EMU_TASK_MEMSET:
        x->role = EMU_MODEL_LOCAL, x->bytes = w->u.memset.len;
        break;
    case EMU_TASK_KERNEL:
        x->role = EMU_MODEL_KERNEL;
        break;
    case EMU_TASK_EVENT_RECORD:
    case EMU_TASK_EVENT_WAIT:
        x->event_seq = w->u.event.seq;
        break;
    default:
        break;
    }
}

/* Data-plane task: its thread runs on the AICPU; a move's ends come from its description. */
static void fill_dp(const struct emu_task *t, const struct emu_diag_desc *d,
                    struct emu_model_node *x)
{
    uint32_t f = emu_dp_kinds_flags(t->kind);
    uint32_t k = t->origin < EMU_MAX_STREAMS ? emu_load_relaxed(&cur_kernel[t->origin]) : 0;

    x->aicpu = 1;
    x->kernel = k != 0 ? k - 1 : EMU_MODEL_NONE;
    if (!(f & EMU_DPF_MOVE))
        return;
    x->reduce = (f & EMU_DPF_REDUCE) != 0;
    if (x->reduce) /* the local-reduce figure may depend on it */
        x->dtype = (uint8_t)((const struct emu_dp_op *)(const void *)t->u.raw)->dtype;
    x->role = (f & (EMU_DPF_REMOTE_DST | EMU_DPF_REMOTE_SRC)) ? EMU_MODEL_FLOW : EMU_MODEL_LOCAL;
    for (uint32_t i = 0; i < d->n_acc; i++) {
        if (d->acc[i].write)
            x->dst_dev = d->acc[i].dev, x->bytes = d->acc[i].len;
        else
            x->src_dev = d->acc[i].dev;
    }
}

/* A task of a channel to another job folder: the diagnostics description leaves out the
 * peer's side (its device numbers another folder's); the node names it, flagged as the
 * peer's (common/model/model.h), so a merged graph can place it. */
static void fill_peer(const struct emu_task *t, struct emu_model_node *x)
{
    const struct emu_dp_op *o = (const struct emu_dp_op *)(const void *)t->u.raw;
    uint32_t f = emu_dp_kinds_flags(t->kind);

    if (!(f & EMU_DPF_CHANNEL) || !o->net || o->net_diag || o->channel >= EMU_MAX_CHANNELS)
        return;
    const struct emu_peer_ref *pr = &emu_exec_ctl()->peers[emu_exec_ctl()->channels[o->channel].peer];
    x->peer = emu_folder_key(pr->host_key, pr->job_dir);
    if ((f & EMU_DPF_MOVE) && (f & EMU_DPF_REMOTE_DST)) {
        x->src_dev = emu_exec_g.dev, x->dst_dev = o->net_dev, x->bytes = o->len;
        x->peer_fields |= EMU_MODEL_PEER_DST;
    } else if ((f & EMU_DPF_MOVE) && (f & EMU_DPF_REMOTE_SRC)) {
        x->src_dev = o->net_dev, x->dst_dev = emu_exec_g.dev, x->bytes = o->len;
        x->peer_fields |= EMU_MODEL_PEER_SRC;
    }
    if ((f & EMU_DPF_RECORD) && o->notify_slot != EMU_DP_NONE) {
        x->sync_op = EMU_MODEL_RECORD, x->sync_dev = o->notify_dev, x->sync_slot = o->notify_slot;
        x->peer_fields |= EMU_MODEL_PEER_SYNC;
    }
}

/* A channel of t that reaches a device of another job folder of this host through shared
 * memory (two processes under mpirun, or two hcemu-runs with one HCEMU_HOST). That folder's
 * nodes never reach this graph (only network messages carry them, model_net.c), so its
 * waits would meet no records and its devices' numbers would name this folder's: a figure
 * would be made up. Modelled times stop instead, with one line saying why. */
static bool crosses_folders(const struct emu_task *t)
{
    const struct emu_dp_op *o = (const struct emu_dp_op *)(const void *)t->u.raw;

    if (t->kind < EMU_TASK_KIND_COUNT || o->channel >= EMU_MAX_CHANNELS || o->net)
        return false;
    const struct emu_devctl *ctl = emu_exec_ctl();
    const struct emu_peer_ref *pr = &ctl->peers[ctl->channels[o->channel].peer];
    if (strncmp(pr->job_dir, emu_exec_g.job_dir, sizeof(pr->job_dir)) == 0)
        return false;
    if (atomic_exchange(&graph->partial, 1) == 0)
        EMU_LOG_WARN("modelled time: channel %u reaches device %u of another job folder of this "
                     "host (%s) through shared memory; that folder's tasks are not in this "
                     "folder's graph, so modelled times are unavailable from now on (give each "
                     "process its own HCEMU_HOST to join the folders over the network path)",
                     o->channel, pr->dev, pr->job_dir);
    return true;
}

/* Scheduler lock held: no locks, no allocation; one atomic to reserve the node. */
static void on_submit(struct emu_task *t)
{
    if (crosses_folders(t))
        return;
    struct emu_model_node *x = emu_model_rec_reserve();
    struct emu_diag_desc d;

    if (x == NULL)
        return;
    memset(x, 0, offsetof(struct emu_model_node, ready));
    x->dev = emu_exec_g.dev;
    x->stream = t->stream;
    x->kind = t->kind;
    x->kernel = x->src_dev = x->dst_dev = EMU_MODEL_NONE;
    emu_diag_describe(t, &d);
    x->sync_op = (uint8_t)d.sync_op;
    x->sync_dev = d.sync_dev;
    x->sync_slot = d.sync_slot;
    x->event = d.event;
    if (t->kind >= EMU_TASK_KIND_COUNT) {
        fill_dp(t, &d, x);
        fill_peer(t, x);
    }
    else
        fill_host(t, x);
    t->model_node = (uint32_t)(x - graph->nodes) + 1;
    /* Pairs with the acquire load of the simulating host. */
    emu_store_release(&x->ready, 1);
}

static void on_start(struct emu_task *t)
{
    if (t->kind == EMU_TASK_KERNEL && t->stream < EMU_MAX_STREAMS)
        emu_store_relaxed(&cur_kernel[t->stream], t->model_node);
}

bool emu_model_rec_start(void)
{
    static const struct emu_sched_hooks hooks = {.submit = on_submit, .start = on_start};

    if (emu_model_open(emu_exec_g.job_dir, &graph) != EMU_OK)
        return false;
    if (emu_sched_register(&hooks) != EMU_OK) {
        EMU_LOG_WARN("modelled time off: the scheduler refused its hooks");
        emu_model_close(graph);
        graph = NULL;
        return false;
    }
    return true;
}
