/* acl_graph.c - ACL graph capture and replay (acl_graph.h).
 *
 * A capture is a list of graphs being built. A stream takes part in one when it began it
 * (the origin) or waited on an event recorded in it (a joined stream). Streams are matched
 * by device, slot and generation, so the HCCL threads that wrap a user's stream slot are
 * captured with it. The graph keeps the captured tasks as wire tasks, event records and
 * event waits in capture order; an execute queues the tasks again on one stream in that
 * order, which respects every dependency the capture saw (each wait comes after its record,
 * each stream's tasks keep their order). A launch's packed arguments are copied into a device
 * block of their own at capture time, which the graph owns until it is destroyed. */
#include "acl_graph.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "device.h"
#include "mem.h"
#include "registry.h"
#include "runtime.h"

enum graph_state { CAPTURING, INVALIDATED, READY };
enum node_kind { NODE_TASK, NODE_RECORD, NODE_WAIT };

struct node {
    uint8_t kind;
    bool waited; /* NODE_RECORD: a captured stream waited on it afterwards */
    uint32_t on; /* index of the member stream it was issued on */
    struct emu_event *event;
    struct emu_wire_task w; /* NODE_TASK: the task; callsite for all kinds */
};

struct member { /* a stream taking part in the capture */
    void *user;
    uint32_t dev, slot, gen;
    bool added; /* by rtStreamAddToModel: need not be joined back */
};

struct run { /* the last execution queued on a stream, waited for by destroy */
    struct emu_hstream *s;
    uint32_t slot, gen, seq;
};

#define GRAPH_RUNS 16u
#define GRAPH_CALLBACKS 16u

struct emu_graph {
    struct emu_registry_entry reg; /* first: the user's aclmdlRI points here */
    struct emu_graph *next;        /* in `captures` while capturing */
    uint32_t dev;
    uint32_t id;
    int state;
    int mode;
    int begin_tid;
    struct member *members;
    uint32_t nmembers;
    struct node *nodes;
    uint32_t nnodes, cap;
    uint64_t *blocks; /* argument blocks the graph owns */
    uint32_t nblocks, blocks_cap;
    struct run runs[GRAPH_RUNS];
    uint32_t nruns;
    struct {
        emu_aclgraph_cb fn;
        void *user;
    } cbs[GRAPH_CALLBACKS];
    uint32_t ncbs;
    char name[128];
};

/* Protects `captures`, the capture modes and every graph's members, nodes and runs. Taken
 * before the registry's lock and a device's locks, never after. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint32_t active; /* graphs in `captures` */
static struct emu_graph *captures;
static uint32_t next_id;
static uint32_t ctx_refs[EMU_MAX_DEVICES][EMU_CAPTURE_MODES];
static _Thread_local uint32_t thread_refs[EMU_CAPTURE_MODES];
static _Thread_local int exchange_mode = EMU_CAPTURE_GLOBAL;

static const char *const mode_names[EMU_CAPTURE_MODES] = {"GLOBAL", "THREAD_LOCAL", "RELAXED"};

/* ---- finding what takes part in a capture ----------------------------------------------- */

static bool same_stream(const struct member *m, const struct emu_hstream *s)
{
    return m->dev == s->dev && m->slot == s->slot && m->gen == s->gen;
}

/* The capture stream s takes part in (its member index in *idx), or NULL. Under `lock`. */
static struct emu_graph *find_stream(const struct emu_hstream *s, uint32_t *idx)
{
    for (struct emu_graph *g = captures; g != NULL; g = g->next)
        for (uint32_t i = 0; i < g->nmembers; i++)
            if (same_stream(&g->members[i], s)) {
                if (idx != NULL)
                    *idx = i;
                return g;
            }
    return NULL;
}

/* The capture with a record of e, and its last record node, or NULL. Under `lock`. */
static struct emu_graph *find_event(const struct emu_event *e, struct node **rec)
{
    for (struct emu_graph *g = captures; g != NULL; g = g->next)
        for (uint32_t i = g->nnodes; i-- > 0;)
            if (g->nodes[i].kind == NODE_RECORD && g->nodes[i].event == e) {
                if (rec != NULL)
                    *rec = &g->nodes[i];
                return g;
            }
    return NULL;
}

static bool any_active(void)
{
    return emu_load_acquire(&active) != 0;
}

/* The id of the capture stream s (or else event e) takes part in; 0 when none. */
static uint32_t capture_id(const struct emu_hstream *s, const struct emu_event *e)
{
    if (!any_active())
        return 0;
    pthread_mutex_lock(&lock);
    struct emu_graph *g = s != NULL ? find_stream(s, NULL) : find_event(e, NULL);
    uint32_t id = g != NULL ? g->id : 0;
    pthread_mutex_unlock(&lock);
    return id;
}

bool emu_aclgraph_capturing(const struct emu_hstream *s)
{
    return capture_id(s, NULL) != 0;
}

/* ---- recording ---------------------------------------------------------------------------- */

static emu_status grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return EMU_OK;
    uint32_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(*arr, (size_t)n * elem);
    if (p == NULL)
        return EMU_ENOMEM;
    *arr = p;
    *cap = n;
    return EMU_OK;
}

/* Append a node; a failure invalidates the capture, as the runtime's does. Under `lock`. */
static emu_status add_node(struct emu_graph *g, const struct node *n)
{
    if (grow((void **)&g->nodes, &g->cap, g->nnodes + 1, sizeof(*n)) != EMU_OK) {
        EMU_LOG_ERR("graph capture: out of memory at task %u; the capture is invalidated",
                    g->nnodes);
        g->state = INVALIDATED;
        return EMU_ENOMEM;
    }
    g->nodes[g->nnodes++] = *n;
    return EMU_OK;
}

static emu_status refuse_invalidated(const struct emu_graph *g, const char *fn)
{
    EMU_LOG_ERR("%s: the capture of graph %u was invalidated by an earlier error; end it "
                "with aclmdlRICaptureEnd",
                fn, g->id);
    return EMU_ECAPTURE_INVALID;
}

emu_status emu_aclgraph_take_task(struct emu_hstream *s, const struct emu_wire_task *w, bool *taken)
{
    uint32_t m;
    emu_status st;

    *taken = false;
    if (!any_active())
        return EMU_OK;
    pthread_mutex_lock(&lock);
    struct emu_graph *g = find_stream(s, &m);
    if (g == NULL) {
        pthread_mutex_unlock(&lock);
        return EMU_OK;
    }
    *taken = true;
    if (g->state == INVALIDATED) {
        st = refuse_invalidated(g, "task capture");
        pthread_mutex_unlock(&lock);
        return st;
    }
    struct node n = {.kind = NODE_TASK, .on = m, .w = *w};
    bool owns = w->kind == EMU_TASK_KERNEL && (w->flags & EMU_WIRE_FREE_ARGS) != 0;
    n.w.flags &= (uint16_t)~EMU_WIRE_FREE_ARGS;
    if (owns &&
        grow((void **)&g->blocks, &g->blocks_cap, g->nblocks + 1, sizeof(uint64_t)) != EMU_OK) {
        g->state = INVALIDATED;
        st = EMU_ENOMEM;
    } else if ((st = add_node(g, &n)) == EMU_OK && owns) {
        g->blocks[g->nblocks++] = w->u.kernel.args; /* the caller frees it on failure only */
    }
    pthread_mutex_unlock(&lock);
    return st;
}

emu_status emu_aclgraph_event_record(struct emu_event *e, struct emu_hstream *s, uint64_t callsite,
                                     bool *taken)
{
    uint32_t m;
    emu_status st = EMU_OK;

    *taken = false;
    if (!any_active())
        return EMU_OK;
    pthread_mutex_lock(&lock);
    struct emu_graph *g = find_stream(s, &m);
    if (g != NULL) {
        *taken = true;
        if (!emu_event_is_ex(e)) {
            EMU_LOG_ERR("aclrtRecordEvent: a capture records only events made by "
                        "aclrtCreateEventExWithFlag, not by aclrtCreateEvent");
            st = EMU_ERTNOTSUP;
        } else if (g->state == INVALIDATED) {
            st = refuse_invalidated(g, "aclrtRecordEvent");
        } else {
            struct node n = {.kind = NODE_RECORD, .on = m, .event = e};
            n.w.callsite = callsite;
            st = add_node(g, &n);
        }
    }
    pthread_mutex_unlock(&lock);
    return st;
}

/* Stream s becomes a member of capture g (its index in *m). Under `lock`. */
static emu_status add_member(struct emu_graph *g, struct emu_hstream *s, bool added, uint32_t *m)
{
    struct member *p = realloc(g->members, (g->nmembers + 1) * sizeof(*p));

    if (p == NULL) {
        g->state = INVALIDATED;
        return EMU_ENOMEM;
    }
    g->members = p;
    *m = g->nmembers++;
    g->members[*m] = (struct member){s, s->dev, s->slot, s->gen, added};
    return EMU_OK;
}

/* Stream s waits on an event of capture g (record node rec): s joins g if it was not in it. */
static emu_status join_wait(struct emu_graph *g, struct node *rec, struct emu_hstream *s,
                            uint64_t callsite)
{
    uint32_t m;
    struct emu_graph *gs = find_stream(s, &m);

    if (gs != NULL && gs != g) {
        EMU_LOG_ERR("aclrtStreamWaitEvent: the stream is captured into graph %u and the event "
                    "into graph %u; both captures are invalidated",
                    gs->id, g->id);
        gs->state = g->state = INVALIDATED;
        return EMU_ECAPTURE_CONFLICT;
    }
    if (g->state == INVALIDATED)
        return refuse_invalidated(g, "aclrtStreamWaitEvent");
    if (gs == NULL) {
        if (s->is_default) {
            EMU_LOG_ERR("aclrtStreamWaitEvent: the default stream cannot join a capture");
            return EMU_ECAPTURE_IMPLICIT;
        }
        emu_status st = add_member(g, s, false, &m);
        if (st != EMU_OK)
            return st;
    }
    rec->waited = true;
    struct node n = {.kind = NODE_WAIT, .on = m, .event = rec->event};
    n.w.callsite = callsite;
    return add_node(g, &n);
}

emu_status emu_aclgraph_event_wait(struct emu_hstream *s, struct emu_event *e, uint64_t callsite,
                                   bool *taken)
{
    struct node *rec;
    emu_status st = EMU_OK;

    *taken = false;
    if (!any_active())
        return EMU_OK;
    /* A stream that may join a capture here first queues what it owes (stream_owed.h). */
    if ((st = emu_stream_settle(s->d, s->slot)) != EMU_OK)
        return st;
    pthread_mutex_lock(&lock);
    struct emu_graph *g = find_event(e, &rec);
    if (g != NULL) {
        *taken = true;
        st = join_wait(g, rec, s, callsite);
    } else if ((g = find_stream(s, NULL)) != NULL) {
        *taken = true;
        if (!emu_event_is_ex(e)) {
            EMU_LOG_ERR("aclrtStreamWaitEvent: a capture waits only on events made by "
                        "aclrtCreateEventExWithFlag, not by aclrtCreateEvent");
            st = EMU_ERTNOTSUP;
        } else if (emu_event_recorded(e)) {
            EMU_LOG_ERR("aclrtStreamWaitEvent: the stream is being captured and the event was "
                        "recorded outside the capture (graph %u)",
                        g->id);
            st = EMU_ECAPTURE_DEP;
        } /* never recorded: nothing to wait for, as outside a capture */
    }
    pthread_mutex_unlock(&lock);
    return st;
}

/* ---- refusals during capture -------------------------------------------------------------- */

emu_status emu_aclgraph_check_stream(const struct emu_hstream *s, const char *fn)
{
    uint32_t id = capture_id(s, NULL);

    if (id == 0)
        return EMU_OK;
    EMU_LOG_ERR("%s: the stream is being captured into graph %u (aclmdlRICaptureEnd first)", fn,
                id);
    return EMU_ECAPTURED;
}

emu_status emu_aclgraph_check_device(uint32_t dev, const char *fn)
{
    uint32_t id = 0;

    if (!any_active())
        return EMU_OK;
    pthread_mutex_lock(&lock);
    for (struct emu_graph *g = captures; g != NULL && id == 0; g = g->next)
        if (g->dev == dev)
            id = g->id;
    pthread_mutex_unlock(&lock);
    if (id == 0)
        return EMU_OK;
    EMU_LOG_ERR("%s: a stream of device %u is being captured into graph %u", fn, dev, id);
    return EMU_ECAPTURED;
}

emu_status emu_aclgraph_check_event(const struct emu_event *e, const char *fn)
{
    uint32_t id = capture_id(NULL, e);

    if (id == 0)
        return EMU_OK;
    EMU_LOG_ERR("%s: the event is recorded in the capture of graph %u", fn, id);
    return EMU_EEVENT_CAPTURED;
}

static int lowest_mode(const uint32_t *refs)
{
    for (int m = 0; m < EMU_CAPTURE_MODES; m++)
        if (refs[m] != 0)
            return m;
    return EMU_CAPTURE_MODES;
}

/* The runtime's rule: RELAXED threads may do anything; otherwise a GLOBAL capture anywhere in
 * the context, or a THREAD_LOCAL one begun by this thread, forbids unsafe calls. */
emu_status emu_aclgraph_check_mode(const char *fn)
{
    int dev = emu_runtime_current_device();

    if (!any_active() || dev < 0 || exchange_mode == EMU_CAPTURE_RELAXED)
        return EMU_OK;
    pthread_mutex_lock(&lock);
    int ctx = lowest_mode(ctx_refs[dev]);
    pthread_mutex_unlock(&lock);
    int thread = lowest_mode(thread_refs);
    bool refused = exchange_mode == EMU_CAPTURE_GLOBAL
                       ? ctx == EMU_CAPTURE_GLOBAL || thread == EMU_CAPTURE_THREAD_LOCAL
                       : thread == EMU_CAPTURE_GLOBAL || thread == EMU_CAPTURE_THREAD_LOCAL;
    if (!refused)
        return EMU_OK;
    EMU_LOG_ERR("%s: not permitted while a stream is captured in mode %s (this thread's mode "
                "is %s; aclmdlRICaptureThreadExchangeMode RELAXED permits it)",
                fn, mode_names[ctx < EMU_CAPTURE_MODES ? ctx : thread], mode_names[exchange_mode]);
    return EMU_ECAPTURE_MODE;
}

void emu_aclgraph_exchange_mode(int *mode)
{
    int old = exchange_mode;

    exchange_mode = *mode;
    *mode = old;
}

/* ---- begin, end, info ---------------------------------------------------------------------- */

static void free_graph(struct emu_graph *g)
{
    for (uint32_t i = 0; i < g->nblocks; i++)
        emu_mem_free_owned((void *)(uintptr_t)g->blocks[i]);
    free(g->blocks);
    free(g->nodes);
    free(g->members);
    free(g);
}

emu_status emu_aclgraph_begin(struct emu_hstream *s, int mode)
{
    /* What the stream owes belongs before the capture (stream_owed.h). */
    emu_status st = emu_stream_settle(s->d, s->slot);
    if (st != EMU_OK)
        return st;
    struct emu_graph *g = calloc(1, sizeof(*g));

    emu_stream_set_capture(emu_aclgraph_take_task); /* from now on streams ask the graphs */

    if (g == NULL || (g->members = calloc(1, sizeof(*g->members))) == NULL) {
        free(g);
        return EMU_ENOMEM;
    }
    pthread_mutex_lock(&lock);
    struct emu_graph *other = find_stream(s, NULL);
    if (other != NULL) {
        uint32_t id = other->id;
        pthread_mutex_unlock(&lock);
        free(g->members);
        free(g);
        EMU_LOG_ERR("aclmdlRICaptureBegin: the stream is already being captured into graph %u", id);
        return EMU_ECAPTURED;
    }
    g->members[0] = (struct member){s, s->dev, s->slot, s->gen, false};
    g->nmembers = 1;
    g->dev = s->dev;
    g->id = ++next_id;
    g->state = CAPTURING;
    g->mode = mode;
    g->begin_tid = emu_os_gettid();
    g->next = captures;
    captures = g;
    ctx_refs[g->dev][mode]++;
    thread_refs[mode]++;
    emu_fetch_add_acq_rel(&active, 1);
    emu_registry_add(&g->reg, EMU_REG_GRAPH);
    pthread_mutex_unlock(&lock);
    return EMU_OK;
}

/* Take g out of the captures and undo its mode. Under `lock`. */
static void leave_capture(struct emu_graph *g)
{
    for (struct emu_graph **p = &captures; *p != NULL; p = &(*p)->next)
        if (*p == g) {
            *p = g->next;
            break;
        }
    g->next = NULL;
    if (ctx_refs[g->dev][g->mode] > 0)
        ctx_refs[g->dev][g->mode]--;
    if (thread_refs[g->mode] > 0)
        thread_refs[g->mode]--;
    emu_fetch_sub_acq_rel(&active, 1);
}

/* Every joined stream must end with a record the capture waited on (fork, then join). */
static int unjoined_member(const struct emu_graph *g)
{
    for (uint32_t m = 1; m < g->nmembers; m++) {
        const struct node *last = NULL;
        if (g->members[m].added)
            continue;
        for (uint32_t i = g->nnodes; i-- > 0 && last == NULL;)
            if (g->nodes[i].on == m)
                last = &g->nodes[i];
        if (last == NULL || last->kind != NODE_RECORD || !last->waited)
            return (int)m;
    }
    return -1;
}

emu_status emu_aclgraph_end(struct emu_hstream *s, struct emu_graph **out)
{
    uint32_t m;
    emu_status st = EMU_OK;

    *out = NULL;
    pthread_mutex_lock(&lock);
    struct emu_graph *g = find_stream(s, &m);
    if (g == NULL) {
        pthread_mutex_unlock(&lock);
        EMU_LOG_ERR("aclmdlRICaptureEnd: the stream is not being captured "
                    "(aclmdlRICaptureBegin first)");
        return EMU_ENOT_CAPTURED;
    }
    if (m != 0) {
        uint32_t id = g->id;
        pthread_mutex_unlock(&lock);
        EMU_LOG_ERR("aclmdlRICaptureEnd: the capture of graph %u was not begun on this stream "
                    "(it joined through an event)",
                    id);
        return EMU_ECAPTURE_UNMATCHED;
    }
    leave_capture(g);
    int unjoined = g->state == READY ? -1 : unjoined_member(g);
    if (g->begin_tid != emu_os_gettid() && g->mode != EMU_CAPTURE_RELAXED) {
        EMU_LOG_ERR("aclmdlRICaptureEnd: graph %u was begun on thread %d in mode %s and must "
                    "end there; the capture is discarded",
                    g->id, g->begin_tid, mode_names[g->mode]);
        st = EMU_ECAPTURE_THREAD;
    } else if (g->state == INVALIDATED) {
        EMU_LOG_ERR("aclmdlRICaptureEnd: the capture of graph %u was invalidated by an earlier "
                    "error; it is discarded",
                    g->id);
        st = EMU_ECAPTURE_INVALID;
    } else if (unjoined >= 0) {
        EMU_LOG_ERR("aclmdlRICaptureEnd: stream %p joined graph %u but was not joined back (its "
                    "last task must be an event record the capture waited on); the capture "
                    "is discarded",
                    g->members[unjoined].user, g->id);
        st = EMU_EUNJOINED;
    } else {
        g->state = READY;
        *out = g;
    }
    pthread_mutex_unlock(&lock);
    if (st != EMU_OK && emu_registry_remove(&g->reg, EMU_REG_GRAPH))
        free_graph(g);
    return st;
}

emu_status emu_aclgraph_add_stream(struct emu_graph *g, struct emu_hstream *s)
{
    uint32_t m;
    emu_status st = EMU_OK;

    pthread_mutex_lock(&lock);
    struct emu_graph *gs = find_stream(s, &m);
    if (g->state == READY) {
        EMU_LOG_ERR("rtStreamAddToModel: graph %u is not being captured", g->id);
        st = EMU_EINTERNAL;
    } else if (g->state == INVALIDATED) {
        st = refuse_invalidated(g, "rtStreamAddToModel");
    } else if (s->is_default) {
        EMU_LOG_ERR("rtStreamAddToModel: the default stream cannot join a capture");
        st = EMU_ECAPTURE_IMPLICIT;
    } else if (gs != NULL && gs != g) {
        EMU_LOG_ERR("rtStreamAddToModel: the stream is being captured into graph %u already",
                    gs->id);
        st = EMU_ECAPTURED;
    } else if (gs == NULL) {
        st = add_member(g, s, true, &m);
    } /* already a member: nothing to do, as in the runtime */
    pthread_mutex_unlock(&lock);
    return st;
}

void emu_aclgraph_info(const struct emu_hstream *s, int *status, struct emu_graph **out)
{
    *status = EMU_CAPTURE_NONE;
    *out = NULL;
    if (!any_active())
        return;
    pthread_mutex_lock(&lock);
    struct emu_graph *g = find_stream(s, NULL);
    if (g != NULL) {
        *status = g->state == INVALIDATED ? EMU_CAPTURE_INVALIDATED : EMU_CAPTURE_ACTIVE;
        *out = g;
    }
    pthread_mutex_unlock(&lock);
}

/* ---- the graph object ---------------------------------------------------------------------- */

emu_status emu_aclgraph_check(const void *user, struct emu_graph **out)
{
    void *obj;
    emu_status st = emu_registry_check(user, EMU_REG_GRAPH, &obj);

    if (st == EMU_OK)
        *out = obj;
    return st;
}

/* Event records and waits only order the captured streams' tasks, and the capture order
 * already respects them: they queue nothing. The user's event is not recorded by executions
 * either (the runtime records a copy of it held by the graph), so it may be destroyed once
 * the capture ended, as HCCL does with its own. */
static emu_status replay_node(const struct node *n, struct emu_hstream *s)
{
    if (n->kind != NODE_TASK)
        return EMU_OK;
    struct emu_wire_task w = n->w;
    return emu_stream_submit(s, &w);
}

/* Remember the stream's submission count after an execution. Under `lock`. */
static void note_run(struct emu_graph *g, struct emu_hstream *s)
{
    uint32_t seq = emu_load_acquire(&s->d->ctl->streams[s->slot].submitted);
    uint32_t i = 0;

    while (i < g->nruns && g->runs[i].s != s)
        i++;
    if (i == GRAPH_RUNS)
        i = seq % GRAPH_RUNS; /* forget one: destroy then waits for the rest only */
    else if (i == g->nruns)
        g->nruns++;
    g->runs[i] = (struct run){s, s->slot, s->gen, seq};
}

emu_status emu_aclgraph_execute(struct emu_graph *g, struct emu_hstream *s, uint64_t callsite)
{
    emu_status st;

    (void)callsite;
    pthread_mutex_lock(&lock);
    int state = g->state;
    pthread_mutex_unlock(&lock);
    if (state != READY) {
        EMU_LOG_ERR("aclmdlRIExecuteAsync: graph %u is still being captured "
                    "(aclmdlRICaptureEnd first)",
                    g->id);
        return EMU_EMODEL_EXECUTE;
    }
    if (s->dev != g->dev) {
        EMU_LOG_ERR("aclmdlRIExecuteAsync: graph %u was captured on device %u, the stream is "
                    "on device %u",
                    g->id, g->dev, s->dev);
        return EMU_EMODEL_CONTEXT;
    }
    if ((st = emu_aclgraph_check_stream(s, "aclmdlRIExecuteAsync")) != EMU_OK)
        return st;
    for (uint32_t i = 0; i < g->nnodes; i++)
        if ((st = replay_node(&g->nodes[i], s)) != EMU_OK) {
            EMU_LOG_ERR("aclmdlRIExecuteAsync: graph %u: task %u of %u could not be queued (%s)",
                        g->id, i, g->nnodes, emu_status_str(st));
            break;
        }
    pthread_mutex_lock(&lock);
    note_run(g, s);
    pthread_mutex_unlock(&lock);
    return st;
}

emu_status emu_aclgraph_destroy(struct emu_graph *g)
{
    struct run runs[GRAPH_RUNS];
    uint32_t nruns;

    pthread_mutex_lock(&lock);
    if (g->state != READY) {
        uint32_t id = g->id;
        pthread_mutex_unlock(&lock);
        EMU_LOG_ERR("aclmdlRIDestroy: graph %u is being captured (aclmdlRICaptureEnd first)", id);
        return EMU_EMODEL_CAPTURED;
    }
    nruns = g->nruns;
    memcpy(runs, g->runs, sizeof(runs));
    pthread_mutex_unlock(&lock);
    if (!emu_registry_remove(&g->reg, EMU_REG_GRAPH))
        return emu_aclgraph_check(g, &g); /* destroyed meanwhile by another thread */
    /* The device still runs tasks that read the graph's argument blocks: wait for them. */
    for (uint32_t i = 0; i < nruns; i++) {
        struct emu_hstream *s;
        if (emu_stream_lookup(runs[i].s, &s) && s->slot == runs[i].slot && s->gen == runs[i].gen &&
            emu_device_check(s->d) == EMU_OK &&
            emu_stream_wait_retired(s, runs[i].seq, UINT64_MAX) != EMU_OK)
            EMU_LOG_DEBUG("graph %u: an execution ended with its device", g->id);
    }
    for (uint32_t i = 0; i < g->ncbs; i++)
        g->cbs[i].fn(g->cbs[i].user);
    free_graph(g);
    return EMU_OK;
}

emu_status emu_aclgraph_set_name(struct emu_graph *g, const char *name)
{
    if (strlen(name) >= sizeof(g->name)) {
        EMU_LOG_ERR("aclmdlRISetName: the name is longer than %zu characters", sizeof(g->name) - 1);
        return EMU_EINVAL;
    }
    pthread_mutex_lock(&lock);
    snprintf(g->name, sizeof(g->name), "%s", name);
    pthread_mutex_unlock(&lock);
    return EMU_OK;
}

const char *emu_aclgraph_name(const struct emu_graph *g)
{
    return g->name;
}

uint32_t emu_aclgraph_id(const struct emu_graph *g)
{
    return g->id;
}

emu_status emu_aclgraph_on_destroy(struct emu_graph *g, emu_aclgraph_cb fn, void *user, bool add)
{
    emu_status st = EMU_OK;

    pthread_mutex_lock(&lock);
    uint32_t i = 0;
    while (i < g->ncbs && g->cbs[i].fn != fn)
        i++;
    if (add && i == g->ncbs && g->ncbs == GRAPH_CALLBACKS) {
        EMU_LOG_ERR("aclmdlRIDestroyRegisterCallback: graph %u has %u callbacks already", g->id,
                    GRAPH_CALLBACKS);
        st = EMU_EUNAVAIL;
    } else if (add) {
        g->cbs[i].fn = fn; /* registering a function again replaces its user data */
        g->cbs[i].user = user;
        if (i == g->ncbs)
            g->ncbs++;
    } else if (i == g->ncbs) {
        EMU_LOG_ERR("aclmdlRIDestroyUnregisterCallback: the function is not registered on "
                    "graph %u",
                    g->id);
        st = EMU_EINVAL;
    } else {
        g->cbs[i] = g->cbs[--g->ncbs];
    }
    pthread_mutex_unlock(&lock);
    return st;
}

/* ---- printing ------------------------------------------------------------------------------- */

static const char *node_name(const struct node *n)
{
    static const char *const tasks[] = {
        [EMU_TASK_COPY] = "copy",
        [EMU_TASK_MEMSET] = "memset",
        [EMU_TASK_NOTIFY_RECORD] = "notify record",
        [EMU_TASK_NOTIFY_WAIT] = "notify wait",
        [EMU_TASK_EVENT_RECORD] = "event record",
        [EMU_TASK_EVENT_WAIT] = "event wait",
        [EMU_TASK_KERNEL] = "kernel",
    };

    if (n->kind == NODE_RECORD)
        return "event record";
    if (n->kind == NODE_WAIT)
        return "event wait";
    if (n->w.kind < sizeof(tasks) / sizeof(tasks[0]) && tasks[n->w.kind] != NULL)
        return tasks[n->w.kind];
    return "task";
}

void emu_aclgraph_print(const struct emu_graph *g)
{
    pthread_mutex_lock(&lock);
    printf("graph %u \"%s\": device %u, %u streams, %u tasks\n", g->id, g->name, g->dev,
           g->nmembers, g->nnodes);
    for (uint32_t i = 0; i < g->nnodes; i++)
        printf("  task %u: stream %u: %s\n", i, g->nodes[i].on, node_name(&g->nodes[i]));
    pthread_mutex_unlock(&lock);
    fflush(stdout);
}

emu_status emu_aclgraph_print_json(const struct emu_graph *g, const char *path)
{
    FILE *f = fopen(path, "w");

    if (f == NULL) {
        EMU_LOG_ERR("aclmdlRIDebugJsonPrint: cannot write %s", path);
        return EMU_EFILE;
    }
    pthread_mutex_lock(&lock);
    fprintf(f, "{\"modelRI\": %u, \"name\": \"", g->id);
    for (const char *c = g->name; *c != '\0'; c++) {
        if (*c == '"' || *c == '\\')
            fputc('\\', f);
        fputc((unsigned char)*c < 0x20 ? '?' : *c, f);
    }
    fprintf(f, "\", \"device\": %u, \"streams\": %u, \"tasks\": [", g->dev, g->nmembers);
    for (uint32_t i = 0; i < g->nnodes; i++)
        fprintf(f, "%s\n  {\"seq\": %u, \"stream\": %u, \"type\": \"%s\"}", i ? "," : "", i,
                g->nodes[i].on, node_name(&g->nodes[i]));
    fprintf(f, "\n]}\n");
    pthread_mutex_unlock(&lock);
    return fclose(f) == 0 ? EMU_OK : EMU_EFILE;
}
