/* model.c - the modelled clock's graph file (model.shm) and its discrete-event simulation
 * (docs/MODEL.md). Pure computation over a node array: the same nodes and parameters give
 * the same times on any machine; every loop runs in node-index order, so ties are broken by
 * the order in which tasks were queued on their thread. */
#include "model.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/contract/job.h"
#include "common/contract/job_shm.h"
#include "common/platform/log.h"
#include "common/platform/os.h"

#define NONE EMU_MODEL_NONE
/* Resource ids: pair links a * EMU_MAX_DEVICES + b first, then ports (egress, ingress). */
#define RES_NET (EMU_MAX_DEVICES * EMU_MAX_DEVICES)
#define N_RES (RES_NET + 2u * EMU_MAX_DEVICES)

void emu_model_params_default(struct emu_model_params *p)
{
    memset(p, 0, sizeof(*p));
    p->task_s = 2e-6;      /* HCCL cost model: 2 us per AICPU task */
    p->launch_s = 5e-6;    /* estimate */
    p->host_task_s = 1e-6; /* estimate */
    p->notify_s = 1e-6;    /* estimate */
    p->link_lat_s = 1e-6;  /* estimate */
    p->link_bw = 56e9;     /* HCCL cost model: cross-chip 56 GB/s per port */
    p->net_lat_s = 5e-6;   /* estimate */
    p->net_bw = 25e9;      /* estimate: one 200 Gb/s port */
    p->copy_bw = 750e9;    /* HCCL cost model: local copy */
    p->reduce_bw = 483e9;  /* HCCL cost model: local reduce */
}

/* Names of the data types (hccl_test's), at their HCCL values. */
static const char *const dtype_names[EMU_MODEL_DTYPES] = {
    [0] = "int8",   [1] = "int16", [2] = "int32",  [3] = "fp16",   [4] = "fp32",  [5] = "int64",
    [6] = "uint64", [7] = "uint8", [8] = "uint16", [9] = "uint32", [10] = "fp64", [11] = "bfp16",
};

int emu_model_dtype(const char *name)
{
    for (int i = 0; i < (int)EMU_MODEL_DTYPES; i++)
        if (dtype_names[i] != NULL && strcmp(dtype_names[i], name) == 0)
            return i;
    return -1;
}

emu_status emu_model_open(const char *dir, struct emu_model_shm **out)
{
    void *p;
    emu_status s = emu_job_shm_open(dir, "model.shm", sizeof(struct emu_model_shm),
                                    EMU_MODEL_MAGIC, NULL, "modelled time off", &p);

    if (s == EMU_OK)
        *out = p;
    return s;
}

void emu_model_close(struct emu_model_shm *m)
{
    if (m != NULL)
        emu_os_unmap(m, sizeof(*m));
}

struct emu_model_node *emu_model_reserve(struct emu_model_shm *g)
{
    uint32_t i = atomic_fetch_add(&g->n_nodes, 1);

    if (i >= EMU_MODEL_MAX_NODES) {
        if (atomic_exchange(&g->full, 1) == 0)
            EMU_LOG_WARN("modelled time: more than %u tasks in this job; modelled times are "
                         "unavailable from now on",
                         EMU_MODEL_MAX_NODES);
        return NULL;
    }
    return &g->nodes[i];
}

/* ---- simulation ------------------------------------------------------------------------- */

struct sim {
    const struct emu_model_node *nd;
    const struct emu_model_params *p;
    struct emu_model_times *out;
    uint32_t n;
    uint32_t *prev, *next, *match, *fed_left;
    uint8_t *state; /* 0 waiting, 1 started (flow or kernel), 2 ended */
    uint8_t *need;  /* the question's past (mark_past): NEED_*; NULL = every node */
    double *fed_end;
    uint32_t *dep_off, *dep; /* CSR: nodes whose start needs this node's end */
    uint32_t *kid_off, *kid; /* CSR: nodes a kernel queued */
    uint32_t *work, n_work, cap_work;
    uint32_t *flows, n_flows; /* pending or active flow nodes */
    double *flow_at, *rem, *rate;
    double now;
    emu_model_usage_fn usage; /* per-link load samples, or NULL */
    void *usage_ctx;
    double *load, *said;    /* per resource: load now, load last reported */
    uint32_t *busy, n_busy; /* resources with a non-zero load reported */
};

static bool push(struct sim *s, uint32_t i)
{
    if (i == NONE)
        return true;
    if (s->n_work == s->cap_work) {
        uint32_t cap = s->cap_work * 2 + 64;
        uint32_t *w = realloc(s->work, cap * sizeof(*w));
        if (w == NULL)
            return false;
        s->work = w, s->cap_work = cap;
    }
    s->work[s->n_work++] = i;
    return true;
}

static bool inter_server(const struct sim *s, const struct emu_model_node *x)
{
    return x->src_dev < EMU_MAX_DEVICES && x->dst_dev < EMU_MAX_DEVICES &&
           s->p->server[x->src_dev] != s->p->server[x->dst_dev];
}

static double task_cost(const struct sim *s, const struct emu_model_node *x)
{
    if (x->role == EMU_MODEL_HOST)
        return 0;
    if (x->aicpu)
        return s->p->task_s;
    return x->role == EMU_MODEL_KERNEL ? s->p->launch_s : s->p->host_task_s;
}

/* A local move's bandwidth: copy, or reduce of its data type. */
static double local_bw(const struct emu_model_params *p, const struct emu_model_node *x)
{
    if (!x->reduce)
        return p->copy_bw;
    if (x->dtype < EMU_MODEL_DTYPES && p->reduce_dtype_bw[x->dtype] > 0)
        return p->reduce_dtype_bw[x->dtype];
    return p->reduce_bw;
}

static void finish(struct sim *s, uint32_t i, double end);

/* The node i's host synchronisation waited for (`after`), or NONE. */
static uint32_t after_of(const struct sim *s, uint32_t i)
{
    uint32_t h = s->nd[i].after;

    return h != 0 && h - 1 < s->n && h - 1 != i ? h - 1 : NONE;
}

static void kernel_check(struct sim *s, uint32_t k)
{
    if (s->state[k] != 1 || s->fed_left[k] != 0)
        return;
    double e = s->out[k].start + s->p->launch_s;
    finish(s, k, s->fed_end[k] > e ? s->fed_end[k] : e);
}

static void finish(struct sim *s, uint32_t i, double end)
{
    s->state[i] = 2;
    s->out[i].end = end;
    push(s, s->next[i]);
    for (uint32_t d = s->dep_off[i]; d < s->dep_off[i + 1]; d++)
        push(s, s->dep[d]);
    uint32_t k = s->nd[i].kernel;
    if (k < s->n && s->nd[k].role == EMU_MODEL_KERNEL) {
        s->fed_left[k]--;
        if (end > s->fed_end[k])
            s->fed_end[k] = end;
        kernel_check(s, k);
    }
}

/* What the question needs of a node: nothing (outside its past), its start (a kernel whose
 * tasks start in the past, while the kernel may still be queuing more), or its end. */
enum { NEED_NONE, NEED_START, NEED_END };

/* Start node i when everything it depends on is known. */
static void try_start(struct sim *s, uint32_t i)
{
    const struct emu_model_node *x = &s->nd[i];
    uint32_t p = s->prev[i], k = x->kernel, m = s->match[i], h = after_of(s, i);

    if ((s->need != NULL && s->need[i] == NEED_NONE) || s->state[i] != 0 ||
        (p != NONE && s->state[p] != 2) || (k < s->n && s->state[k] == 0) ||
        (m != NONE && s->state[m] != 2) || (h != NONE && s->state[h] != 2))
        return;
    double st = p != NONE ? s->out[p].end : 0.0;
    s->out[i].why = p;
    if (k < s->n && s->out[k].start + s->p->launch_s > st) {
        st = s->out[k].start + s->p->launch_s;
        s->out[i].why = k;
    }
    if (h != NONE && s->out[h].end > st) { /* the host had waited for h before queuing i */
        st = s->out[h].end;
        s->out[i].why = h;
    }
    s->out[i].start = st;
    double end = st + task_cost(s, x);
    switch (x->role) {
    case EMU_MODEL_LOCAL:
        end += (double)x->bytes / local_bw(s->p, x);
        break;
    case EMU_MODEL_FLOW:
        s->state[i] = 1;
        s->flow_at[s->n_flows] = end + (inter_server(s, x) ? s->p->net_lat_s : s->p->link_lat_s);
        s->rem[s->n_flows] = (double)x->bytes;
        s->rate[s->n_flows] = 0;
        s->flows[s->n_flows++] = i;
        return;
    case EMU_MODEL_KERNEL:
        s->state[i] = 1;
        for (uint32_t j = s->kid_off[i]; j < s->kid_off[i + 1]; j++)
            push(s, s->kid[j]);
        kernel_check(s, i);
        return;
    default:
        break;
    }
    if (x->sync_op == EMU_MODEL_WAIT && m != NONE && s->out[m].end + s->p->notify_s > end) {
        end = s->out[m].end + s->p->notify_s;
        s->out[i].why = m;
    }
    finish(s, i, end);
}

static void drain(struct sim *s)
{
    while (s->n_work > 0)
        try_start(s, s->work[--s->n_work]);
}

/* The links or ports flow node i uses (1 or 2 resource ids). */
static uint32_t resources(const struct sim *s, uint32_t i, uint32_t res[2])
{
    const struct emu_model_node *x = &s->nd[i];
    uint32_t a = x->src_dev % EMU_MAX_DEVICES, b = x->dst_dev % EMU_MAX_DEVICES;

    if (!inter_server(s, x)) {
        res[0] = a * EMU_MAX_DEVICES + b;
        return 1;
    }
    res[0] = RES_NET + a;
    res[1] = RES_NET + EMU_MAX_DEVICES + b;
    return 2;
}

static double capacity(const struct sim *s, uint32_t r)
{
    if (r >= RES_NET)
        return s->p->net_bw;
    double bw = s->p->pair_bw[r / EMU_MAX_DEVICES][r % EMU_MAX_DEVICES];
    return bw > 0 ? bw : s->p->link_bw;
}

/* Fair share: every active flow gets, on each link or port it uses, an equal part of it; its
 * rate is the smallest of those parts. */
static void share(struct sim *s, uint32_t *users)
{
    uint32_t res[2];

    memset(users, 0, N_RES * sizeof(*users));
    for (uint32_t f = 0; f < s->n_flows; f++)
        if (s->flow_at[f] <= s->now)
            for (uint32_t r = 0, nr = resources(s, s->flows[f], res); r < nr; r++)
                users[res[r]]++;
    for (uint32_t f = 0; f < s->n_flows; f++) {
        s->rate[f] = 0;
        if (s->flow_at[f] > s->now)
            continue;
        for (uint32_t r = 0, nr = resources(s, s->flows[f], res); r < nr; r++) {
            double part = capacity(s, res[r]) / users[res[r]];
            if (s->rate[f] == 0 || part < s->rate[f])
                s->rate[f] = part;
        }
    }
}

/* The link or port of resource r as a usage sample at the current instant. */
static void say(struct sim *s, uint32_t r)
{
    struct emu_model_usage u = {.t = s->now, .bps = s->load[r], .cap = capacity(s, r)};

    u.src = u.dst = NONE;
    if (r < RES_NET)
        u.src = r / EMU_MAX_DEVICES, u.dst = r % EMU_MAX_DEVICES;
    else if (r < RES_NET + EMU_MAX_DEVICES)
        u.src = r - RES_NET;
    else
        u.dst = r - RES_NET - EMU_MAX_DEVICES;
    s->usage(s->usage_ctx, &u);
    s->said[r] = s->load[r];
}

/* After share(): report every link or port whose load changed (resources in id order). */
static void report(struct sim *s)
{
    uint32_t res[2], kept = 0;

    for (uint32_t f = 0; f < s->n_flows; f++)
        if (s->flow_at[f] <= s->now)
            for (uint32_t r = 0, nr = resources(s, s->flows[f], res); r < nr; r++) {
                if (s->load[res[r]] == 0 && s->said[res[r]] == 0)
                    s->busy[s->n_busy++] = res[r];
                s->load[res[r]] += s->rate[f];
            }
    for (uint32_t b = 0; b < s->n_busy; b++) {
        uint32_t r = s->busy[b];
        if (s->load[r] != s->said[r])
            say(s, r);
        if (s->load[r] > 0)
            s->busy[kept++] = r;
        s->load[r] = 0;
    }
    s->n_busy = kept;
}

/* When active flow f would finish at the current rates. */
static double finish_at(const struct sim *s, uint32_t f)
{
    return s->now + (s->rate[f] > 0 ? s->rem[f] / s->rate[f] : 0);
}

/* Advance to the next flow event: a flow starts moving bytes or one ends. A flow whose
 * projected end is that instant ends then, whatever rounding left of its bytes. */
static void step(struct sim *s, uint32_t *users)
{
    double t = -1;

    share(s, users);
    if (s->usage != NULL)
        report(s);
    for (uint32_t f = 0; f < s->n_flows; f++) {
        double at = s->flow_at[f] > s->now ? s->flow_at[f] : finish_at(s, f);
        if (t < 0 || at < t)
            t = at;
    }
    uint32_t kept = 0;
    for (uint32_t f = 0; f < s->n_flows; f++) {
        bool active = s->flow_at[f] <= s->now;
        if (active && finish_at(s, f) <= t) {
            finish(s, s->flows[f], t);
            continue;
        }
        if (active)
            s->rem[f] -= s->rate[f] * (t - s->now);
        s->flows[kept] = s->flows[f], s->flow_at[kept] = s->flow_at[f];
        s->rem[kept] = s->rem[f], s->rate[kept++] = s->rate[f];
    }
    s->now = t;
    s->n_flows = kept;
}

/* qsort has no context argument; the nodes being sorted are passed beside it, under a lock. */
static pthread_mutex_t sort_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct emu_model_node *sort_nodes;

static uint64_t sync_key(const struct emu_model_node *x)
{
    return ((uint64_t)x->event << 63) | ((uint64_t)x->sync_dev << 32) | x->sync_slot;
}

static int cmp_sync(const void *a, const void *b)
{
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    uint64_t kx = sync_key(&sort_nodes[i]), ky = sync_key(&sort_nodes[j]);

    if (kx != ky)
        return kx < ky ? -1 : 1;
    return i < j ? -1 : (i > j);
}

/* Waits meet records: the k-th wait of a notify slot is satisfied by its k-th record (in the
 * order they were queued); an event wait by the record of the sequence number it waits for. */
static void match_waits(struct sim *s, uint32_t *idx, uint32_t *unmatched)
{
    uint32_t m = 0;

    for (uint32_t i = 0; i < s->n; i++)
        if (s->nd[i].sync_op != 0)
            idx[m++] = i;
    pthread_mutex_lock(&sort_lock);
    sort_nodes = s->nd;
    qsort(idx, m, sizeof(*idx), cmp_sync);
    pthread_mutex_unlock(&sort_lock);
    for (uint32_t g = 0; g < m;) {
        uint32_t e = g;
        while (e < m && sync_key(&s->nd[idx[e]]) == sync_key(&s->nd[idx[g]]))
            e++;
        uint32_t r = g;
        for (uint32_t w = g; w < e; w++) {
            const struct emu_model_node *x = &s->nd[idx[w]];
            if (x->sync_op != EMU_MODEL_WAIT)
                continue;
            if (x->event) {
                for (uint32_t q = g; q < e; q++)
                    if (s->nd[idx[q]].sync_op == EMU_MODEL_RECORD &&
                        s->nd[idx[q]].event_seq == x->event_seq)
                        s->match[idx[w]] = idx[q];
            } else {
                while (r < e && s->nd[idx[r]].sync_op != EMU_MODEL_RECORD)
                    r++;
                if (r < e)
                    s->match[idx[w]] = idx[r++];
            }
            if (s->match[idx[w]] == NONE)
                (*unmatched)++;
        }
        g = e;
    }
}

/* CSR of edges src -> dst from pairs (count pass, then fill). */
static void csr(uint32_t n, const uint32_t *src, const uint32_t *dst, uint32_t m, uint32_t *off,
                uint32_t *out)
{
    memset(off, 0, (n + 1) * sizeof(*off));
    for (uint32_t e = 0; e < m; e++)
        off[src[e] + 1]++;
    for (uint32_t i = 0; i < n; i++)
        off[i + 1] += off[i];
    uint32_t *fill = calloc(n + 1, sizeof(*fill));
    for (uint32_t e = 0; fill != NULL && e < m; e++)
        out[off[src[e]] + fill[src[e]]++] = dst[e];
    free(fill);
}

static uint64_t thread_key(const struct emu_model_node *x)
{
    return ((uint64_t)x->dev << 32) | x->stream;
}

/* prev/next along each thread: a hash of thread -> last node seen. */
static emu_status link_threads(struct sim *s)
{
    uint32_t cap = 1;
    while (cap < 2 * s->n + 2)
        cap <<= 1;
    uint64_t *keys = malloc(cap * sizeof(*keys));
    uint32_t *last = malloc(cap * sizeof(*last));
    if (keys == NULL || last == NULL) {
        free(keys), free(last);
        return EMU_ENOMEM;
    }
    memset(keys, 0xff, cap * sizeof(*keys));
    for (uint32_t i = 0; i < s->n; i++) {
        uint64_t k = thread_key(&s->nd[i]);
        uint32_t h = (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 40) & (cap - 1);
        while (keys[h] != UINT64_MAX && keys[h] != k)
            h = (h + 1) & (cap - 1);
        s->prev[i] = keys[h] == k ? last[h] : NONE;
        if (s->prev[i] != NONE)
            s->next[s->prev[i]] = i;
        keys[h] = k, last[h] = i;
    }
    free(keys), free(last);
    return EMU_OK;
}

static emu_status build(struct sim *s, uint32_t *unmatched)
{
    /* Edges: at most one match and one host synchronisation per node. */
    uint32_t n = s->n, *a = malloc((2 * (size_t)n + 1) * sizeof(*a));
    uint32_t *b = malloc((2 * (size_t)n + 1) * sizeof(*b)), m = 0;

    if (a == NULL || b == NULL || link_threads(s) != EMU_OK) {
        free(a), free(b);
        return EMU_ENOMEM;
    }
    match_waits(s, a, unmatched);
    for (uint32_t i = 0, h; i < n; i++) {
        if (s->match[i] != NONE)
            a[m] = s->match[i], b[m++] = i;
        if ((h = after_of(s, i)) != NONE)
            a[m] = h, b[m++] = i;
    }
    csr(n, a, b, m, s->dep_off, s->dep);
    m = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = s->nd[i].kernel;
        if (k < n && s->nd[k].role == EMU_MODEL_KERNEL)
            a[m] = k, b[m++] = i, s->fed_left[k]++;
    }
    csr(n, a, b, m, s->kid_off, s->kid);
    free(a), free(b);
    return EMU_OK;
}

/* Raise node m's need to `level` and push it when that is news. */
static void mark(struct sim *s, uint32_t *stack, uint32_t *top, uint32_t m, uint8_t level)
{
    if (m < s->n && s->need[m] < level)
        s->need[m] = level, stack[(*top)++] = m;
}

/* The past of the targets: every node whose end (or start) decides theirs, through the
 * edges try_start follows (the thread's previous node, the matched record, the host's
 * synchronisation, the kernel's start) and a kernel's end through its tasks' ends. Each node
 * is pushed at most twice (NEED_START, then NEED_END). */
static emu_status mark_past(struct sim *s, const uint32_t *targets, uint32_t n_targets)
{
    uint32_t *stack = malloc((2 * (size_t)s->n + 1) * sizeof(*stack)), top = 0;

    if ((s->need = calloc((size_t)s->n + 1, 1)) == NULL || stack == NULL) {
        free(stack);
        return EMU_ENOMEM;
    }
    for (uint32_t t = 0; t < n_targets; t++)
        mark(s, stack, &top, targets[t], NEED_END);
    while (top > 0) {
        uint32_t i = stack[--top], k = s->nd[i].kernel;
        mark(s, stack, &top, s->prev[i], NEED_END);
        mark(s, stack, &top, s->match[i], NEED_END);
        mark(s, stack, &top, after_of(s, i), NEED_END);
        if (k < s->n && s->nd[k].role == EMU_MODEL_KERNEL)
            mark(s, stack, &top, k, NEED_START);
        if (s->need[i] == NEED_END && s->nd[i].role == EMU_MODEL_KERNEL)
            for (uint32_t j = s->kid_off[i]; j < s->kid_off[i + 1]; j++)
                mark(s, stack, &top, s->kid[j], NEED_END);
    }
    free(stack);
    return EMU_OK;
}

static void sim_free(struct sim *s)
{
    free(s->need);
    free(s->prev), free(s->next), free(s->match), free(s->fed_left), free(s->state);
    free(s->fed_end), free(s->dep_off), free(s->dep), free(s->kid_off), free(s->kid);
    free(s->work), free(s->flows), free(s->flow_at), free(s->rem), free(s->rate);
    free(s->load), free(s->said), free(s->busy);
}

emu_status emu_model_simulate(const struct emu_model_node *nodes, uint32_t n,
                              const struct emu_model_params *p, struct emu_model_times *out,
                              uint32_t *unmatched)
{
    return emu_model_simulate_usage(nodes, n, p, out, unmatched, NULL, NULL);
}

emu_status emu_model_simulate_usage(const struct emu_model_node *nodes, uint32_t n,
                                    const struct emu_model_params *p, struct emu_model_times *out,
                                    uint32_t *unmatched, emu_model_usage_fn usage, void *ctx)
{
    return emu_model_simulate_past(nodes, n, p, out, unmatched, NULL, 0, usage, ctx);
}

emu_status emu_model_simulate_past(const struct emu_model_node *nodes, uint32_t n,
                                   const struct emu_model_params *p, struct emu_model_times *out,
                                   uint32_t *unmatched, const uint32_t *targets, uint32_t n_targets,
                                   emu_model_usage_fn usage, void *ctx)
{
    struct sim s = {.nd = nodes, .p = p, .out = out, .n = n, .usage = usage, .usage_ctx = ctx};
    size_t u = (size_t)n + 1;
    emu_status st = EMU_OK;

    *unmatched = 0;
    s.prev = malloc(u * 4), s.next = malloc(u * 4), s.match = malloc(u * 4);
    s.fed_left = calloc(u, 4), s.state = calloc(u, 1), s.fed_end = calloc(u, sizeof(double));
    s.dep_off = malloc((u + 1) * 4), s.dep = malloc(2 * u * 4), s.kid_off = malloc((u + 1) * 4);
    s.kid = malloc(u * 4), s.flows = malloc(u * 4), s.flow_at = malloc(u * sizeof(double));
    s.rem = malloc(u * sizeof(double)), s.rate = malloc(u * sizeof(double));
    uint32_t *users = malloc(N_RES * sizeof(*users));
    if (usage != NULL) {
        s.load = calloc(N_RES, sizeof(double)), s.said = calloc(N_RES, sizeof(double));
        s.busy = malloc(N_RES * sizeof(uint32_t));
        if (!s.load || !s.said || !s.busy) {
            st = EMU_ENOMEM;
            goto out;
        }
    }
    if (!s.prev || !s.next || !s.match || !s.fed_left || !s.state || !s.fed_end || !s.dep_off ||
        !s.dep || !s.kid_off || !s.kid || !s.flows || !s.flow_at || !s.rem || !s.rate || !users) {
        st = EMU_ENOMEM;
        goto out;
    }
    memset(s.next, 0xff, u * 4);
    memset(s.match, 0xff, u * 4);
    for (uint32_t i = 0; i < n; i++)
        out[i] = (struct emu_model_times){0, 0, NONE};
    if ((st = build(&s, unmatched)) != EMU_OK ||
        (n_targets > 0 && (st = mark_past(&s, targets, n_targets)) != EMU_OK))
        goto out;
    for (uint32_t i = n; i-- > 0;)
        if (s.prev[i] == NONE && (s.need == NULL || s.need[i] != NEED_NONE) && !push(&s, i)) {
            st = EMU_ENOMEM;
            goto out;
        }
    drain(&s);
    while (s.n_flows > 0) {
        step(&s, users);
        drain(&s);
    }
    if (usage != NULL)
        report(&s); /* every link idle again */
    for (uint32_t i = 0; i < n; i++) {
        uint8_t need = s.need != NULL ? s.need[i] : NEED_END;
        if ((need == NEED_END && s.state[i] != 2) || (need == NEED_START && s.state[i] == 0))
            st = EMU_EINVAL;
        if (s.state[i] == 0)
            out[i].start = -1; /* outside the question's past */
        if (s.state[i] != 2)
            out[i].end = -1;
    }
out:
    free(users);
    sim_free(&s);
    return st;
}
