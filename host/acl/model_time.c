/* model_time.c - HCEMU_TIME=model on the host: the cost-model figures (defaults, the
 * HCEMU_MODEL file, servers from HCEMU_TOPOLOGY) and modelled times of event records, from a
 * simulation of the job's task graph (common/model/model.h, docs/MODEL.md). */
#include "model_time.h"

#include <json-c/json.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/contract/host_id.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/contract/settings.h"
#include "cluster.h"
#include "runtime.h"

#define READY_WAIT_NS 1000000000ull /* a node being written by an executor: bounded wait */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_model_shm *graph;
/* Jobs this process ended (emu_model_time_job_end): a thread's host state of an earlier job
 * names nodes of that job's graph, not of the current one. */
static _Atomic uint32_t job_gen;
/* This host thread's last synchronisation: its node plus one, and the node it waited for;
 * valid in job `host_gen` only. */
static _Thread_local uint32_t host_floor, host_floor_on, host_gen;
static _Thread_local uint32_t host_dev; /* plus one: the device its nodes are filed under */

/* The calling thread's host state, forgotten when it belongs to an earlier job. */
static void host_state_check(void)
{
    uint32_t g = atomic_load(&job_gen);

    if (host_gen != g)
        host_floor = host_floor_on = host_dev = 0, host_gen = g;
}

bool emu_model_time_on(void)
{
    return emu_settings_enum(EMU_SET_TIME) == 1;
}

/* key (a figure in the file's units) -> *dst * scale; false when present but not a positive
 * number. */
static bool figure(json_object *root, const char *key, double scale, double *dst)
{
    json_object *v;

    if (!json_object_object_get_ex(root, key, &v))
        return true;
    if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
        return false;
    double x = json_object_get_double(v);
    if (!(x > 0))
        return false;
    *dst = x * scale;
    return true;
}

static bool links(json_object *root, struct emu_model_params *p)
{
    json_object *arr, *o, *v;

    if (!json_object_object_get_ex(root, "links", &arr))
        return true;
    if (!json_object_is_type(arr, json_type_array))
        return false;
    for (size_t i = 0; i < json_object_array_length(arr); i++) {
        o = json_object_array_get_idx(arr, i);
        int64_t a = -1, b = -1;
        double bw = 0;
        if (json_object_object_get_ex(o, "src", &v))
            a = json_object_get_int64(v);
        if (json_object_object_get_ex(o, "dst", &v))
            b = json_object_get_int64(v);
        if (a < 0 || b < 0 || a >= EMU_MAX_DEVICES || b >= EMU_MAX_DEVICES ||
            !figure(o, "GBps", 1e9, &bw) || bw == 0)
            return false;
        p->pair_bw[a][b] = bw;
    }
    return true;
}

/* "reduce_GBps_by_dtype": {"fp16": 300, ...}: a local-reduce figure per data type. */
static bool dtype_figures(json_object *root, struct emu_model_params *p)
{
    json_object *obj;

    if (!json_object_object_get_ex(root, "reduce_GBps_by_dtype", &obj))
        return true;
    if (!json_object_is_type(obj, json_type_object))
        return false;
    json_object_object_foreach(obj, key, val)
    {
        int t = emu_model_dtype(key);
        (void)val;
        if (t < 0 || !figure(obj, key, 1e9, &p->reduce_dtype_bw[t]))
            return false;
    }
    return true;
}

static void load_file(const char *path, struct emu_model_params *p)
{
    json_object *root = json_object_from_file(path);
    struct emu_model_params q = *p;

    bool ok =
        root != NULL && json_object_is_type(root, json_type_object) &&
        figure(root, "task_us", 1e-6, &q.task_s) && figure(root, "launch_us", 1e-6, &q.launch_s) &&
        figure(root, "host_task_us", 1e-6, &q.host_task_s) &&
        figure(root, "notify_us", 1e-6, &q.notify_s) &&
        figure(root, "link_latency_us", 1e-6, &q.link_lat_s) &&
        figure(root, "link_GBps", 1e9, &q.link_bw) &&
        figure(root, "net_latency_us", 1e-6, &q.net_lat_s) &&
        figure(root, "net_GBps", 1e9, &q.net_bw) && figure(root, "copy_GBps", 1e9, &q.copy_bw) &&
        figure(root, "reduce_GBps", 1e9, &q.reduce_bw) && links(root, &q) &&
        dtype_figures(root, &q);
    if (ok)
        *p = q;
    else
        EMU_LOG_WARN("HCEMU_MODEL=%s: not a model file (docs/MODEL.md: a JSON object of positive "
                     "figures, a \"links\" array, a \"reduce_GBps_by_dtype\" object); using the "
                     "default figures",
                     path);
    if (root != NULL)
        json_object_put(root);
}

void emu_model_time_params(struct emu_model_params *p)
{
    const char *path = emu_settings_str(EMU_SET_MODEL);

    emu_model_params_default(p);
    if (*path != '\0')
        load_file(path, p);
    if (*emu_settings_str(EMU_SET_TOPOLOGY) == '\0')
        return;
    /* Devices the file does not list are on server 0 (they are not in the job: a device a
     * rank uses must be listed, which communicator init checks). */
    for (uint32_t d = 0; d < EMU_MAX_DEVICES; d++)
        p->server[d] = emu_topo_server_listed(d);
}

/* A copy of the graph's nodes (every node ready). */
static emu_status snapshot(struct emu_model_node **out, uint32_t *n)
{
    uint32_t m = emu_load_acquire(&graph->n_nodes);

    if (emu_load_relaxed(&graph->full) != 0)
        return EMU_ENOMEM;
    if (emu_load_relaxed(&graph->partial) != 0)
        return EMU_ENOTSUP; /* another folder's graph is not here whole (the executor said why) */
    struct emu_model_node *c = malloc(((size_t)m + 1) * sizeof(*c));
    if (c == NULL)
        return EMU_ENOMEM;
    uint64_t until = emu_os_now_ns() + READY_WAIT_NS;
    for (uint32_t i = 0; i < m; i++) {
        while (emu_load_acquire(&graph->nodes[i].ready) == 0 && emu_os_now_ns() < until)
            usleep(50);
        c[i] = graph->nodes[i];
        if (c[i].origin == 0)
            c[i].origin_idx = i; /* found again after a merge (merged_index) */
    }
    *out = c, *n = m;
    return EMU_OK;
}

static emu_status map_graph(void)
{
    if (graph != NULL)
        return EMU_OK;
    return emu_model_open(emu_rt.job_dir, &graph);
}

/* One step's name in words. */
static const char *node_name(const struct emu_model_node *x)
{
    if (x->role == EMU_MODEL_KERNEL)
        return "launch";
    if (x->role == EMU_MODEL_FLOW)
        return x->reduce ? "write-reduce" : "transfer";
    if (x->role == EMU_MODEL_LOCAL)
        return x->reduce ? "reduce" : "copy";
    if (x->role == EMU_MODEL_HOST)
        return "host synchronised";
    if (x->sync_op == EMU_MODEL_WAIT)
        return "wait";
    return x->sync_op == EMU_MODEL_RECORD ? "record" : "task";
}

/* One step of a critical path, in words. */
static int step_text(const struct emu_model_node *x, const struct emu_model_times *t, char *out,
                     size_t n)
{
    const char *what = node_name(x);

    if (x->role == EMU_MODEL_HOST)
        return snprintf(out, n, "%s [%.2f us]", what, t->end * 1e6);
    if (x->role == EMU_MODEL_FLOW)
        return snprintf(out, n, "%s %llu B dev%u->dev%u [%.2f-%.2f us]", what,
                        (unsigned long long)x->bytes, x->src_dev, x->dst_dev, t->start * 1e6,
                        t->end * 1e6);
    return snprintf(out, n, "%s dev%u/%u [%.2f-%.2f us]", what, x->dev, x->stream, t->start * 1e6,
                    t->end * 1e6);
}

/* The chain that decided node i's end, latest first, as text (at most 8 steps). */
static void critical_path(const struct emu_model_node *nd, const struct emu_model_times *t,
                          uint32_t i, char *out, size_t n)
{
    size_t at = 0;

    out[0] = '\0';
    for (int k = 0; k < 8 && i != EMU_MODEL_NONE && at + 4 < n; k++, i = t[i].why) {
        int w = step_text(&nd[i], &t[i], out + at, n - at);
        if (w < 0 || (size_t)w >= n - at)
            return;
        at += (size_t)w;
        if (t[i].why != EMU_MODEL_NONE && at + 4 < n)
            at += (size_t)snprintf(out + at, n - at, " <- ");
    }
}

/* The job's graph so far, simulated: nodes and times (run_model; run_free frees them). */
#define RUN_MAX_EVENTS 2u /* aclrtEventElapsedTime's two */

struct run {
    struct emu_model_params p;
    struct emu_model_node *nodes;
    struct emu_model_times *times;
    uint32_t n;
    uint32_t targets[RUN_MAX_EVENTS]; /* the events' record nodes */
};

/* Kernels already summarised by this process (one bit per node; under `lock`). */
static uint8_t reported[EMU_MODEL_MAX_NODES / 8];

/* Whether kernel node k is to be summarised now (and mark it). */
static bool first_report(uint32_t k)
{
    pthread_mutex_lock(&lock);
    bool first = (reported[k / 8] & (1u << (k % 8))) == 0;
    reported[k / 8] |= (uint8_t)(1u << (k % 8));
    pthread_mutex_unlock(&lock);
    return first;
}

/* HCEMU_LOG_LEVEL=info: one line per kernel of host stream (dev, stream) queued before node
 * `upto` (whose tasks are therefore all in the graph), once per process: its modelled
 * duration and the chain of tasks and waits that decided its end. */
static void summarise(const struct run *r, uint32_t dev, uint32_t stream, uint32_t upto)
{
    const struct emu_model_node *nd = r->nodes;
    const struct emu_model_times *t = r->times;
    char path[512];

    if (!emu_log_enabled(EMU_LOG_LEVEL_INFO))
        return;
    for (uint32_t k = 0; k < upto && k < r->n; k++) {
        if (nd[k].role != EMU_MODEL_KERNEL || nd[k].dev != dev || nd[k].stream != stream ||
            t[k].end < 0 || !first_report(k)) /* end < 0: not in the question's past */
            continue;
        uint32_t last = EMU_MODEL_NONE;
        for (uint32_t i = k + 1; i < r->n; i++)
            if (nd[i].kernel == k && (last == EMU_MODEL_NONE || t[i].end > t[last].end))
                last = i;
        critical_path(nd, t, last != EMU_MODEL_NONE ? last : k, path, sizeof(path));
        EMU_LOG_INFO("modelled kernel on dev %u stream %u: %.2f us (from %.2f us); critical "
                     "path: %s",
                     dev, stream, (t[k].end - t[k].start) * 1e6, t[k].start * 1e6, path);
    }
}

struct link_ev {
    uint32_t link; /* src * 64 + dst */
    int32_t delta; /* +1 a transfer starts moving bytes, -1 it ends */
    double t;
};

static int cmp_link_ev(const void *a, const void *b)
{
    const struct link_ev *x = a, *y = b;

    if (x->link != y->link)
        return x->link < y->link ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->delta - y->delta; /* ends before starts at one instant */
}

/* Per link, a counter track of the transfers sharing it. */
static void trace_links(FILE *f, const struct emu_model_node *nd, const struct emu_model_times *t,
                        uint32_t n, const struct emu_model_params *p)
{
    struct link_ev *ev = malloc(((size_t)n * 2 + 1) * sizeof(*ev));
    uint32_t m = 0;

    if (ev == NULL)
        return;
    for (uint32_t i = 0; i < n; i++) {
        if (nd[i].role != EMU_MODEL_FLOW || nd[i].src_dev >= EMU_MAX_DEVICES ||
            nd[i].dst_dev >= EMU_MAX_DEVICES || t[i].end < 0)
            continue;
        bool net = p->server[nd[i].src_dev] != p->server[nd[i].dst_dev];
        uint32_t link = nd[i].src_dev * EMU_MAX_DEVICES + nd[i].dst_dev;
        double from = t[i].start + p->task_s + (net ? p->net_lat_s : p->link_lat_s);
        ev[m++] = (struct link_ev){link, 1, from};
        ev[m++] = (struct link_ev){link, -1, t[i].end};
    }
    qsort(ev, m, sizeof(*ev), cmp_link_ev);
    int32_t active = 0;
    for (uint32_t i = 0; i < m; i++) {
        active = (i > 0 && ev[i].link == ev[i - 1].link ? active : 0) + ev[i].delta;
        fprintf(f,
                ",\n{\"ph\":\"C\",\"name\":\"link %u->%u transfers\",\"pid\":%u,\"ts\":%.3f,"
                "\"args\":{\"transfers\":%d}}",
                ev[i].link / EMU_MAX_DEVICES, ev[i].link % EMU_MAX_DEVICES,
                ev[i].link / EMU_MAX_DEVICES, ev[i].t * 1e6, active);
    }
    free(ev);
}

/* Usage samples of one simulation (for the trace). */
struct usage_log {
    struct emu_model_usage *u;
    size_t n, cap;
};

static void log_usage(void *ctx, const struct emu_model_usage *u)
{
    struct usage_log *l = ctx;

    if (l->n == l->cap) {
        size_t cap = l->cap * 2 + 256;
        struct emu_model_usage *v = realloc(l->u, cap * sizeof(*v));
        if (v == NULL)
            return; /* the trace just misses later samples */
        l->u = v, l->cap = cap;
    }
    l->u[l->n++] = *u;
}

/* Per link (and inter-server port), a counter track of its utilisation in percent. */
static void trace_usage(FILE *f, const struct usage_log *l)
{
    char name[64];

    for (size_t i = 0; i < l->n; i++) {
        const struct emu_model_usage *u = &l->u[i];
        uint32_t pid = u->src != EMU_MODEL_NONE ? u->src : u->dst;
        if (u->src != EMU_MODEL_NONE && u->dst != EMU_MODEL_NONE)
            snprintf(name, sizeof(name), "link %u->%u utilisation", u->src, u->dst);
        else
            snprintf(name, sizeof(name), "port of dev %u %s utilisation", pid,
                     u->src != EMU_MODEL_NONE ? "out" : "in");
        fprintf(f,
                ",\n{\"ph\":\"C\",\"name\":\"%s\",\"pid\":%u,\"ts\":%.3f,\"args\":{\"percent\":"
                "%.2f}}",
                name, pid, u->t * 1e6, u->cap > 0 ? 100.0 * u->bps / u->cap : 0.0);
    }
}

/* HCEMU_TRACE with the model on: <trace>.model.json, the last question's past at modelled
 * times (rewritten by each simulation: what the host had synchronised with by then). */
static void trace(const struct emu_model_node *nd, const struct emu_model_times *t, uint32_t n,
                  const struct emu_model_params *p, const struct usage_log *usage)
{
    const char *base = emu_settings_str(EMU_SET_TRACE);
    char path[EMU_PATH_MAX + 16], tmp[EMU_PATH_MAX + 32];

    if (*base == '\0' || snprintf(path, sizeof(path), "%s.model.json", base) >= (int)sizeof(path))
        return;
    /* Rank threads of one process may simulate at once: each writes its own temporary. */
    static _Atomic unsigned writes;
    snprintf(tmp, sizeof(tmp), "%s.%d.%u", path, (int)getpid(), atomic_fetch_add(&writes, 1));
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        EMU_LOG_WARN("modelled trace: cannot write %s: %m", tmp);
        return;
    }
    fprintf(f, "[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":"
               "\"modelled Atlas 350 time\"}}");
    for (uint32_t i = 0; i < n; i++)
        if (t[i].end >= 0) /* in the question's past */
            fprintf(f,
                    ",\n{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"model\",\"pid\":%u,\"tid\":%u,"
                    "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"bytes\":%llu,\"node\":%u}}",
                    node_name(&nd[i]), nd[i].dev, nd[i].stream, t[i].start * 1e6,
                    (t[i].end - t[i].start) * 1e6, (unsigned long long)nd[i].bytes, i);
    trace_links(f, nd, t, n, p);
    trace_usage(f, usage);
    fprintf(f, "\n]\n");
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        EMU_LOG_WARN("modelled trace: cannot write %s: %m", path);
        unlink(tmp);
    }
}

/* Node `own` of this folder's file in the merged graph (own nodes keep their order and carry
 * their index in origin_idx, snapshot), or NONE. */
static uint32_t merged_index(const struct run *r, uint32_t own)
{
    for (uint32_t i = 0; i < r->n && r->nodes[i].origin == 0; i++)
        if (r->nodes[i].origin_idx == own)
            return i;
    return EMU_MODEL_NONE;
}

/* The record node of event reference e in the merged graph, or NONE. */
static uint32_t event_node(const struct run *r, const struct emu_model_event_ref *e)
{
    uint32_t found = EMU_MODEL_NONE;

    for (uint32_t i = 0; i < r->n; i++) {
        const struct emu_model_node *x = &r->nodes[i];
        if (x->event && x->sync_op == EMU_MODEL_RECORD && x->sync_dev == e->dev &&
            x->sync_slot == e->slot && x->event_seq == e->seq)
            found = i;
    }
    return found;
}

/* Simulate the past of the question into r: what the event records ev[0..n_ev) waited for
 * and what this host thread synchronised with (its last host node), never work other host
 * threads may or may not have queued yet. r->targets[k] is ev[k]'s node. The modelled trace
 * is written from every simulation. */
static emu_status run_model(struct run *r, const struct emu_model_event_ref *ev, uint32_t n_ev)
{
    uint32_t unmatched = 0, targets[RUN_MAX_EVENTS + 1], n_targets = 0;
    struct usage_log usage = {0};
    bool tracing = *emu_settings_str(EMU_SET_TRACE) != '\0';
    emu_status s;

    emu_model_time_params(&r->p);
    pthread_mutex_lock(&lock);
    s = map_graph();
    if (s == EMU_OK)
        s = snapshot(&r->nodes, &r->n);
    pthread_mutex_unlock(&lock);
    /* A job over several job folders (hosts): this folder's file holds mirrors of the other
     * folders' nodes; one graph of them, each other host on servers of its own. */
    char why[160] = "";
    if (s == EMU_OK &&
        (s = emu_model_merge(r->nodes, r->n, emu_folder_key(emu_host_self()->key, emu_rt.job_dir),
                             &r->p, why, sizeof(why))) != EMU_OK &&
        why[0] != '\0')
        EMU_LOG_ERR("modelled time: %s", why);
    for (uint32_t k = 0; s == EMU_OK && k < n_ev && k < RUN_MAX_EVENTS; k++) {
        r->targets[k] = event_node(r, &ev[k]);
        if (r->targets[k] == EMU_MODEL_NONE)
            s = EMU_EINVAL;
        else
            targets[n_targets++] = r->targets[k];
    }
    host_state_check();
    uint32_t h = host_floor != 0 ? merged_index(r, host_floor - 1) : EMU_MODEL_NONE;
    if (h != EMU_MODEL_NONE)
        targets[n_targets++] = h;
    if (s == EMU_OK && (r->times = malloc(((size_t)r->n + 1) * sizeof(*r->times))) == NULL)
        s = EMU_ENOMEM;
    if (s == EMU_OK)
        s = emu_model_simulate_past(r->nodes, r->n, &r->p, r->times, &unmatched, targets, n_targets,
                                    tracing ? log_usage : NULL, &usage);
    if (s == EMU_OK && tracing)
        trace(r->nodes, r->times, r->n, &r->p, &usage);
    free(usage.u);
    return s;
}

static void run_free(struct run *r)
{
    free(r->times), free(r->nodes), free(r);
}

emu_status emu_model_time_events(const struct emu_model_event_ref *ev, uint32_t n, double *t)
{
    struct run *r = calloc(1, sizeof(*r));
    emu_status s = n > RUN_MAX_EVENTS ? EMU_EINVAL : r != NULL ? run_model(r, ev, n) : EMU_ENOMEM;

    for (uint32_t k = 0; s == EMU_OK && k < n; k++) {
        const struct emu_model_node *x = &r->nodes[r->targets[k]];
        t[k] = r->times[r->targets[k]].end;
        summarise(r, x->dev, x->stream, r->targets[k]);
    }
    for (uint32_t k = 0; s != EMU_OK && k < n; k++)
        EMU_LOG_ERR("modelled time of event (dev %u slot %u record %u) unavailable: %s", ev[k].dev,
                    ev[k].slot, ev[k].seq, emu_status_str(s));
    if (r != NULL)
        run_free(r);
    return s;
}

/* ---- host synchronisations ------------------------------------------------------------- */

/* The last node of this folder for host stream `slot` of `dev`, or the record `seq` of the
 * event in notify slot `slot`; NONE when there is none. Newest first: what the host just
 * waited for was queued recently. Nodes not ready yet are being written for tasks queued
 * after the synchronisation's target, so never the one looked for. */
static uint32_t synced_node(uint32_t dev, uint32_t slot, bool event, uint32_t seq)
{
    uint32_t n = emu_load_acquire(&graph->n_nodes);

    for (uint32_t i = n < EMU_MODEL_MAX_NODES ? n : EMU_MODEL_MAX_NODES; i-- > 0;) {
        const struct emu_model_node *x = &graph->nodes[i];
        if (emu_load_acquire(&x->ready) == 0 || x->origin != 0 || x->dev != dev)
            continue;
        if (event ? x->event && x->sync_op == EMU_MODEL_RECORD && x->sync_slot == slot &&
                        x->event_seq == seq
                  : !x->aicpu && x->stream == slot && x->role != EMU_MODEL_HOST)
            return i;
    }
    return EMU_MODEL_NONE;
}

void emu_model_time_synced(uint32_t dev, uint32_t slot, bool event, uint32_t seq)
{
    if (!emu_model_time_on())
        return;
    pthread_mutex_lock(&lock);
    uint32_t on = map_graph() == EMU_OK ? synced_node(dev, slot, event, seq) : EMU_MODEL_NONE;
    pthread_mutex_unlock(&lock);
    host_state_check();
    if (on == EMU_MODEL_NONE || (host_floor != 0 && host_floor_on == on))
        return;
    struct emu_model_node *x = emu_model_reserve(graph);
    if (x == NULL)
        return;
    /* A thread of its own per host thread, filed under the first device it synchronised
     * with: the host's synchronisations in their order, so the last one bounds them all. */
    if (host_dev == 0)
        host_dev = dev + 1;
    memset(x, 0, offsetof(struct emu_model_node, ready));
    x->dev = host_dev - 1;
    x->stream = EMU_MODEL_HOST_STREAM | ((uint32_t)emu_os_gettid() & (EMU_MODEL_HOST_STREAM - 1));
    x->role = EMU_MODEL_HOST;
    x->kernel = x->src_dev = x->dst_dev = EMU_MODEL_NONE;
    x->after = on + 1;
    emu_store_release(&x->ready, 1); /* pairs with the acquire loads of the readers */
    host_floor = (uint32_t)(x - graph->nodes) + 1, host_floor_on = on;
}

uint32_t emu_model_time_after(void)
{
    host_state_check();
    return host_floor;
}

void emu_model_time_job_end(void)
{
    pthread_mutex_lock(&lock);
    if (graph != NULL)
        emu_model_close(graph);
    graph = NULL;
    memset(reported, 0, sizeof(reported));
    atomic_fetch_add(&job_gen, 1);
    pthread_mutex_unlock(&lock);
}

void emu_model_time_note(uint32_t dev, uint32_t stream)
{
    if (!emu_model_time_on() ||
        (!emu_log_enabled(EMU_LOG_LEVEL_INFO) && *emu_settings_str(EMU_SET_TRACE) == '\0'))
        return;
    struct run *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return;
    emu_status s = run_model(r, NULL, 0);
    if (s == EMU_OK)
        summarise(r, dev, stream, r->n);
    else
        EMU_LOG_DEBUG("modelled time: no summary: %s", emu_status_str(s));
    run_free(r);
}
