/* net_ucx.c - the transport to devices of other hosts over UCX's UCP layer (net.h).
 *
 * Every operation is an active message to the peer's executor, which applies it to its own
 * memory with its own checks and reduce kernels and, but for a record, answers:
 *
 *   REQ WRITE  {dst, len[, dtype, op][, notify]} + data -> data in place (copied, or reduced
 *              by emu_reduce at the target), then the notify set, then the doorbell; REP.
 *   REQ READ   {src, len}                        -> REP + the bytes of src.
 *   REQ NOTIFY {slot}                            -> notify set, doorbell; no answer, but REP
 *              with the error when refused (the notify is not live there).
 *   REQ FENCE  {}                                -> REP (a drain: everything sent before is
 *              handled, since one endpoint's messages are handled in order).
 *
 * Between job folders (not NF_SHARED_DIAG, the split test aid where the requester's own
 * diagnostics cover the message) a request's header is followed by the requesting task's
 * vector clock with the race detector on (diag/race_net.h: the target checks the access
 * against its device's shadow on arrival and joins the clock into the notify before setting
 * it) and, with the modelled clock on, by the nodes of the requester's task graph the target
 * has not been sent yet (diag/model_net.h: appended to the target's graph first).
 *
 * Large payloads use UCX's rendezvous protocol: the target receives them straight into the
 * destination (a plain write) or into a staging buffer it then reduces. Nothing is registered
 * ahead: only the ranges a message names are touched, never the device's sparse window.
 * A transfer's task completes at the reply, so "one thread is FIFO" holds as on one host: a
 * notify recorded after a write on the same thread is sent only after the write's reply
 * arrived. A record without data completes when it is sent (ucp_am_send_nbx returned NULL, or
 * its callback said UCS_OK): a hand-off between hosts is then one message, as ucp_am_lat's.
 * UCX keeps one endpoint's order, so it still lands after everything the thread sent before.
 * A refusal answered later is kept on the requester's channel (refusal_keep) and fails that
 * channel's next operation, wait or drain with its code and the record's stream and channel;
 * a dead peer fails the waits on its channels (conn_fail) as before. Writes with a notify keep
 * their answer: a range the target refuses must fail the write itself.
 *
 * One progress thread drives the worker; every UCX call happens under `ucx_lock` (the worker
 * runs in serialized mode), from that thread, from data-plane tasks (sends) or from the
 * request server (connects). A notify set or an operation completed by a message is a
 * hand-off to a parked device thread: the progress thread runs that thread's next tasks
 * itself after its progress call (net_handoff.h), sends included, instead of waking a
 * worker. Without work it polls within the job's spin budget, then sleeps on the worker's
 * descriptor. A peer's failure (its executor or host gone: UCX's error handler,
 * TCP reset or keepalive) fails every operation waiting on it and every wait on its channels
 * with EMU_EREMOTE, and rings the doorbell so they see it at once.
 *
 * Built as a plug-in (libhcemu_net_ucx.so) that the executor loads on the first request for
 * its network address (net_lazy.c): a job on one host never loads UCX. The plug-in exports
 * only its table, emu_net_ucx_ops; everything else it calls is the executor's own. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <ucp/api/ucp.h>

#include "common/platform/atomic.h"
#include "common/contract/host_id.h"
#include "common/contract/layout.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/platform/spin.h"
#include "device/dp/dp.h"
#include "net.h"
#include "device/diag/hang_net.h"
#include "net_admit.h"
#include "net_handoff.h"
#include "net_ops.h"
#include "device/diag/model_net.h"
#include "device/diag/race_net.h"
#include "reduce.h"

#define NET_MAGIC 0x3354454e4d454348ull /* "HCEMNET3" */
#define AM_REQ 11u
#define AM_REP 12u
#define AM_HANG_ASK 13u  /* the watchdog asks a peer's folder for its parked waits */
#define AM_HANG_VIEW 14u /* ... and gets them (diag/hang_net.h) */
#define SPIN_NS 50000u     /* polling without work before the thread sleeps (spin budget) */
#define SLEEP_MS 100       /* longest sleep: the stop flag is seen within it */
#define OP_LIMIT_S 1836u   /* bound of one operation without a reply (the default wait) */

enum net_kind { NK_WRITE = 1, NK_READ = 2, NK_NOTIFY = 3, NK_FENCE = 4 };
#define NF_REDUCE 1u
#define NF_NOTIFY 2u
#define NF_SHARED_DIAG 4u /* the requester's job folder is the target's (diagnostics shared) */
#define NF_MODEL 8u         /* the requester records the modelled clock's graph */
#define NF_MODEL_PARTIAL 16u /* ... and some of its new nodes did not fit in this header */

struct net_hdr {
    uint64_t magic;
    uint64_t token;   /* the requester's operation */
    uint64_t addr;    /* on the target: write dst, read src */
    uint64_t len;     /* bytes */
    uint64_t count;   /* elements (reduce) */
    uint64_t seq;     /* the requester's task number, for reports */
    int32_t dtype, op;
    uint32_t kind, flags;
    uint32_t notify_slot;
    uint32_t src_dev;
    int32_t status;   /* replies: emu_status */
    uint32_t tag_len; /* requests: bytes of the race detector's clock after the header; the
                       * model's nodes fill the rest of the header */
    uint32_t channel; /* the requester's channel slot, its generation and the thread that */
    uint32_t chan_gen; /* sent it: a refused record is answered late, and its refusal is */
    uint32_t stream;  /* kept on that channel (refusals below) */
    uint32_t reserved;
    uint8_t admit[EMU_NET_TOKEN_BYTES]; /* the sender's job's token: admission (below) */
};

/* One peer device of another host, as the control block's peers[] entry named it when it
 * was connected. */
struct conn {
    uint64_t host_key;
    uint32_t dev;
    char job_dir[EMU_PATH_MAX];
    ucp_ep_h ep;
    uint64_t folder;     /* the peer's job folder (emu_folder_key) */
    uint32_t model_sent; /* nodes of this folder's model graph sent to it (model_net.h) */
    uint8_t token[EMU_NET_TOKEN_BYTES]; /* its job's token: every message to it carries it */
    _Atomic bool failed;
    char why[320];
};

/* An operation of a task in flight. Three references: the task (dropped at its release),
 * the send (dropped by the send's completion) and the reply (dropped when the reply was
 * applied or the peer failed). */
struct net_op {
    struct net_op *next, *prev; /* pending replies, under ucx_lock */
    _Atomic uint32_t refs;
    _Atomic uint32_t done;
    emu_status status;
    uint32_t peer;
    uint32_t stream; /* the device thread whose task waits for it */
    struct net_hdr h;
    uint8_t *local; /* write: source bytes; read: destination */
    void *tmp;      /* read-reduce staging */
    uint8_t *wire;  /* the header, the task's clock and model nodes (compose), or NULL */
    char why[160];
};

/* A message received by rendezvous, completed later. */
struct inbound {
    struct net_hdr h;
    ucp_ep_h reply_ep;
    void *tmp;
    struct net_op *op; /* replies carrying read data */
    struct emu_race_net_in *race; /* the requester's clock, for the write's notify */
};

/* A reply being sent: its header must live until the send completes. */
struct outbound {
    struct net_hdr h;
};

static pthread_mutex_t ucx_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t start_once = PTHREAD_ONCE_INIT;
static emu_status start_status = EMU_EINTERNAL;
static char start_why[200];
static ucp_context_h ctx;
static ucp_worker_h worker;
static uint8_t my_addr[EMU_NET_ADDR_MAX];
static uint32_t my_addr_len;
static int wake_fd = -1, epoll_fd = -1;
static pthread_t progress_tid;
static _Atomic bool stopping;
static _Atomic uint32_t spin_gate; /* the progress thread's spin (common/platform/spin.h) */
static struct conn conns[EMU_MAX_PEERS];
static struct net_op pending = {.next = &pending, .prev = &pending};
static size_t max_header = sizeof(struct net_hdr); /* UCX's bound on an AM header */
/* The jobs whose messages are admitted (net_admit.h: their tokens came with the address
 * requests); others are dropped unread. Under ucx_lock. */
static struct emu_net_admit admitted;
static uint64_t last_drop_log;

/* ---- helpers ---------------------------------------------------------------------------- */

/* Whether `h` carries the token of a job this executor serves; logs a refusal at most once a
 * second. Under ucx_lock (from the AM handlers). */
static bool admitted_msg(const struct net_hdr *h, const char *what)
{
    if (emu_net_admit_has(&admitted, h->admit))
        return true;
    uint64_t now = emu_os_now_ns();
    if (now - last_drop_log >= 1000000000ull) {
        last_drop_log = now;
        EMU_LOG_WARN("device %u: dropped a %s that does not carry the key of a job this "
                     "executor serves (another job's executor, or a stray peer)", emu_exec_g.dev,
                     what);
    }
    return false;
}

/* The header of an incoming message into *h: whole (exactly a header, or with `tail` at least
 * one), of this protocol, and carrying the key of a job this executor serves. False: drop it
 * (admitted_msg logs a foreign key). */
static bool take_header(const void *header, size_t header_len, bool tail, const char *what,
                        struct net_hdr *h)
{
    if (tail ? header_len < sizeof(*h) : header_len != sizeof(*h))
        return false;
    memcpy(h, header, sizeof(*h));
    return h->magic == NET_MAGIC && admitted_msg(h, what);
}

static void *self_ptr(uint64_t addr)
{
    return emu_exec_g.self.mem + (addr - emu_window_base(emu_exec_g.dev));
}

static void wake_progress(void)
{
    uint64_t one = 1;
    ssize_t ignored = write(wake_fd, &one, sizeof(one));
    (void)ignored;
}

static void op_put(struct net_op *op)
{
    if (atomic_fetch_sub_explicit(&op->refs, 1, memory_order_acq_rel) == 1) {
        free(op->tmp);
        free(op->wire);
        free(op);
    }
}

/* Operations waiting for an answer (pending, under ucx_lock): add op at the end, or take it
 * out (it then points at itself). */
static void op_link(struct net_op *op)
{
    op->next = &pending;
    op->prev = pending.prev;
    pending.prev->next = op;
    pending.prev = op;
}

static void op_unlink(struct net_op *op)
{
    op->next->prev = op->prev;
    op->prev->next = op->next;
    op->next = op->prev = op;
}

/* Complete op (under ucx_lock): unlink it, publish the result, wake its task. */
static void op_finish(struct net_op *op, emu_status st, const char *why)
{
    op_unlink(op);
    op->status = st;
    if (why != NULL)
        snprintf(op->why, sizeof(op->why), "%.*s", (int)sizeof(op->why) - 1, why);
    atomic_store_explicit(&op->done, 1, memory_order_release);
    /* The progress thread runs the task's thread on itself after this progress call
     * (net_handoff.h); anyone else rings the device. A fence has no task: its caller polls. */
    if (op->h.kind != NK_FENCE && !emu_net_handoff_note(op->stream, 0))
        emu_devctl_ring(emu_exec_ctl());
    op_put(op);
}

static struct net_op *op_find(uint64_t token)
{
    for (struct net_op *p = pending.next; p != &pending; p = p->next)
        if ((uint64_t)(uintptr_t)p == token)
            return p;
    return NULL;
}

/* ---- failures --------------------------------------------------------------------------- */

static void conn_fail(uint32_t peer, const char *why)
{
    struct conn *c = &conns[peer];

    if (atomic_load(&c->failed))
        return;
    char tmp[sizeof(c->why)];
    const char *host = peer < EMU_MAX_PEERS ? emu_exec_ctl()->peers[peer].host : "";
    snprintf(tmp, sizeof(tmp), "the connection to device %u of host %.40s (job folder %.100s) "
             "failed: %.60s; its executor or host is gone", c->dev,
             host[0] != '\0' ? host : "?", c->job_dir, why);
    memcpy(c->why, tmp, sizeof(tmp));
    atomic_store(&c->failed, true);
    uint32_t lost = 0;
    for (struct net_op *p = pending.next, *n; p != &pending; p = n) {
        n = p->next;
        if (p->peer == peer) {
            op_finish(p, EMU_EREMOTE, c->why);
            lost++;
        }
    }
    /* A peer that ends its job closes its connections too: only a loss of operations is an
     * error here; waits on the peer's channels fail (and are reported) on their own. */
    if (lost > 0)
        EMU_LOG_ERR("device %u: %s (%u transfers lost)", emu_exec_g.dev, c->why, lost);
    else
        EMU_LOG_INFO("device %u: %s", emu_exec_g.dev, c->why);
    emu_devctl_ring(emu_exec_ctl());
}

/* A record without data completes when it is sent, so a target that refuses it (the notify
 * is not live there) answers after the task is gone: the refusal is kept on the requester's
 * channel (slot and generation, so a channel made later in the slot never sees it) until
 * the next operation or wait on that channel takes it and fails with it. */
struct refusal {
    uint32_t gen;
    int32_t status; /* 0: none kept */
    char why[160];  /* a task's note */
};

static pthread_mutex_t refused_lock = PTHREAD_MUTEX_INITIALIZER;
static struct refusal refused[EMU_MAX_CHANNELS];
static _Atomic uint32_t n_refused; /* kept ones: the common case takes no lock */

/* The peer refused the record `h` this device sent (progress thread). */
static void refusal_keep(const struct net_hdr *h)
{
    if (h->channel >= EMU_MAX_CHANNELS)
        return;
    struct refusal *r = &refused[h->channel];
    uint32_t peer = emu_exec_ctl()->channels[h->channel].peer;
    uint32_t dev = peer < EMU_MAX_PEERS ? emu_exec_ctl()->peers[peer].dev : UINT32_MAX;
    pthread_mutex_lock(&refused_lock);
    if (r->status == 0)
        atomic_fetch_add(&n_refused, 1);
    r->gen = h->chan_gen;
    r->status = h->status;
    snprintf(r->why, sizeof(r->why), "device %u of another host refused notify record %llu "
             "of stream %u on channel %u (its notify %u is not live there: freed?)", dev,
             (unsigned long long)h->seq, h->stream, h->channel, h->notify_slot);
    pthread_mutex_unlock(&refused_lock);
    /* A wait on the channel may be parked already: it looks again and takes the refusal. */
    emu_devctl_ring(emu_exec_ctl());
}

/* Take the refusal kept for `channel` (as it is now): its status, and `why` says which record
 * it was; EMU_OK when none. Any thread. */
static emu_status refusal_take(uint32_t channel, char *why, size_t len)
{
    emu_status st = EMU_OK;

    if (atomic_load(&n_refused) == 0 || channel >= EMU_MAX_CHANNELS)
        return EMU_OK;
    struct refusal *r = &refused[channel];
    pthread_mutex_lock(&refused_lock);
    if (r->status != 0) {
        if (r->gen == emu_exec_ctl()->channels[channel].gen) {
            st = (emu_status)r->status;
            snprintf(why, len, "%s", r->why);
        }
        r->status = 0;
        atomic_fetch_sub(&n_refused, 1);
    }
    pthread_mutex_unlock(&refused_lock);
    return st;
}

static void on_ep_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    (void)ep;
    conn_fail((uint32_t)(uintptr_t)arg, ucs_status_string(status));
}

/* ---- sending ---------------------------------------------------------------------------- */

static void op_sent(void *req, ucs_status_t status, void *user)
{
    struct net_op *op = user;

    /* A reset or lost connection is the peer's failure, whichever notices it first, this send
     * or the endpoint's error handler: fail the connection, which fails this operation and
     * every other one on that peer with the line naming its host. */
    if (status == UCS_ERR_CONNECTION_RESET || status == UCS_ERR_ENDPOINT_TIMEOUT ||
        status == UCS_ERR_UNREACHABLE)
        conn_fail(op->peer, ucs_status_string(status));
    /* A record without data is complete once UCX has sent it (no answer follows). */
    if (status == UCS_OK && op->h.kind == NK_NOTIFY &&
        atomic_load_explicit(&op->done, memory_order_acquire) == 0)
        op_finish(op, EMU_OK, NULL);
    if (status != UCS_OK && atomic_load_explicit(&op->done, memory_order_acquire) == 0) {
        char why[120];
        snprintf(why, sizeof(why), "sending to the peer failed: %s", ucs_status_string(status));
        op_finish(op, EMU_EREMOTE, why);
    }
    op_put(op);
    if (req != NULL)
        ucp_request_free(req);
}

static void reply_sent(void *req, ucs_status_t status, void *user)
{
    (void)status;
    free(user);
    if (req != NULL)
        ucp_request_free(req);
}

/* Send a reply {token, status} (+ data) on reply_ep. Under ucx_lock. */
static void reply(ucp_ep_h ep, const struct net_hdr *req, emu_status st, const void *data,
                  uint64_t len)
{
    struct outbound *o = malloc(sizeof(*o));

    if (o == NULL || ep == NULL) {
        free(o);
        EMU_LOG_ERR("device %u: cannot answer a peer's request (out of memory or no reply "
                    "path); its operation will fail by its own bound", emu_exec_g.dev);
        return;
    }
    o->h = *req;
    o->h.status = st;
    o->h.len = st == EMU_OK ? len : 0;
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = reply_sent,
        .user_data = o,
    };
    ucs_status_ptr_t r = ucp_am_send_nbx(ep, AM_REP, &o->h, sizeof(o->h), data, o->h.len, &p);
    if (r == NULL)
        free(o);
    else if (UCS_PTR_IS_ERR(r)) {
        free(o);
        EMU_LOG_WARN("device %u: a reply to a peer was not sent: %s", emu_exec_g.dev,
                     ucs_status_string(UCS_PTR_STATUS(r)));
    }
}

/* ---- the target side -------------------------------------------------------------------- */

static bool notify_ok(uint32_t slot)
{
    struct emu_devctl *x = emu_exec_ctl();

    if (slot >= EMU_MAX_NOTIFIES)
        return false;
    emu_devctl_lock(&x->res_lock);
    int i = emu_range_find(&x->notify_ranges.set, x->notify_ranges.recs, slot);
    emu_devctl_unlock(&x->res_lock);
    return i >= 0;
}

/* Whether a write request describes itself consistently: the payload has the announced
 * length, and a reduction's type, op and count are ones the calls accept and cover exactly
 * that length (the requester checked them; a peer of another build or a corrupt message must
 * not make this executor read past the payload). */
static bool write_ok(const struct net_hdr *h, size_t len)
{
    if (len != h->len)
        return false;
    if (!(h->flags & NF_REDUCE))
        return true;
    size_t es = emu_reduce_dtype_size(h->dtype);
    return emu_reduce_check(h->dtype, h->op, EMU_REDUCE_REMOTE_950) == EMU_OK && es != 0 &&
           h->count <= UINT64_MAX / es && h->count * es == h->len;
}

/* Set notify `slot` for the requester, its clock joined first (race detector). The device
 * thread parked on it is run by this (the progress) thread after the progress call
 * (net_handoff.h) or, when that is off, woken by the ring. */
static void notify_set(const struct net_hdr *h, struct emu_race_net_in *race)
{
    struct emu_devctl *ctl = emu_exec_ctl();

    emu_race_net_publish(race, h->notify_slot);
    (void)emu_devctl_notify_set(ctl, h->notify_slot, (h->src_dev << 24) | 0xFFFFFFu);
    if (!emu_net_handoff_note(EMU_SCHED_BY_SLOT, h->notify_slot))
        emu_devctl_ring(ctl);
    emu_race_net_end(race);
}

/* The data of a write is in place (or staged in tmp): reduce it, set the notify, answer. */
static void write_landed(const struct net_hdr *h, ucp_ep_h ep, const void *staged,
                         struct emu_race_net_in *race)
{
    if (h->flags & NF_REDUCE)
        emu_reduce(self_ptr(h->addr), staged, h->count, h->dtype, h->op);
    if (h->flags & NF_NOTIFY)
        notify_set(h, race);
    else
        emu_race_net_end(race);
    reply(ep, h, EMU_OK, NULL, 0);
}

/* The requester's clock checked against this device's shadow (a request from another job
 * folder; NULL without a record to make, or with the race detector off). */
static struct emu_race_net_in *race_arrive(const struct net_hdr *h, const void *header)
{
    enum emu_race_net_access a = h->kind == NK_WRITE ? EMU_RACE_NET_WRITE
                                 : h->kind == NK_READ ? EMU_RACE_NET_READ
                                                      : EMU_RACE_NET_NONE;
    bool record = h->kind == NK_NOTIFY || (h->flags & NF_NOTIFY);

    if (h->flags & NF_SHARED_DIAG)
        return NULL;
    return emu_race_net_arrive((const uint8_t *)header + sizeof(*h), h->tag_len, h->src_dev,
                               h->addr, h->len, a, record);
}

static void inbound_done(void *req, ucs_status_t status, size_t length, void *user)
{
    struct inbound *in = user;

    (void)length;
    if (in->op != NULL) { /* read data arrived at the requester */
        struct net_op *op = in->op;
        if (atomic_load_explicit(&op->done, memory_order_acquire) == 0) {
            if (status == UCS_OK && op->tmp != NULL)
                emu_reduce(op->local, op->tmp, op->h.count, op->h.dtype, op->h.op);
            op_finish(op, status == UCS_OK ? EMU_OK : EMU_EREMOTE,
                      status == UCS_OK ? NULL : "receiving the read data failed");
        }
        op_put(op); /* the reception's reference */
    } else if (status == UCS_OK) {
        write_landed(&in->h, in->reply_ep, in->tmp, in->race);
    } else {
        emu_race_net_end(in->race);
        reply(in->reply_ep, &in->h, EMU_EREMOTE, NULL, 0);
    }
    free(in->tmp);
    free(in);
    if (req != NULL)
        ucp_request_free(req);
}

/* Receive a rendezvous payload into dst; inbound_done() finishes. */
static void receive(void *desc, void *dst, uint64_t len, struct inbound *in)
{
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.recv_am = inbound_done,
        .user_data = in,
    };
    ucs_status_ptr_t r = ucp_am_recv_data_nbx(worker, desc, dst, len, &p);
    if (r == NULL)
        inbound_done(NULL, UCS_OK, len, in);
    else if (UCS_PTR_IS_ERR(r))
        inbound_done(NULL, UCS_PTR_STATUS(r), 0, in);
}

static ucs_status_t on_request(void *arg, const void *header, size_t header_len, void *data,
                               size_t len, const ucp_am_recv_param_t *param)
{
    struct net_hdr h;
    ucp_ep_h ep = (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ? param->reply_ep : NULL;
    bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;

    (void)arg;
    if (!take_header(header, header_len, true, "request", &h) ||
        h.tag_len > header_len - sizeof(h))
        return UCS_OK;
    /* The requester's task graph first: the causal past of what this message records. */
    if (!(h.flags & NF_SHARED_DIAG)) {
        size_t at = sizeof(h) + h.tag_len;
        emu_model_net_unpack((const uint8_t *)header + at, header_len - at,
                             !(h.flags & NF_MODEL_PARTIAL), (h.flags & NF_MODEL) != 0, h.src_dev);
    }
    /* Messages of one endpoint are handled in order: everything the requester sent before
     * its fence has been applied (or refused, and that answer sent) by now. */
    if (h.kind == NK_FENCE) {
        reply(ep, &h, EMU_OK, NULL, 0);
        return UCS_OK;
    }
    bool range_ok = emu_dp_check_range_alive(&emu_exec_g.self, h.addr, h.len);
    bool notify = (h.flags & NF_NOTIFY) != 0 || h.kind == NK_NOTIFY;
    if ((h.kind != NK_NOTIFY && !range_ok) || (notify && !notify_ok(h.notify_slot))) {
        EMU_LOG_ERR("device %u: a request of device %u of another host names %s on this "
                    "device (freed after the call?); refused", emu_exec_g.dev, h.src_dev,
                    range_ok ? "a notify that is not live" : "memory that is not allocated");
        reply(ep, &h, EMU_EINVAL, NULL, 0);
        return UCS_OK;
    }
    /* UCX itself writes (or reads) the bytes: its touch of a page the full job folder cannot
     * give would be a SIGBUS in its thread, so the pages are had first, or the request fails. */
    if (h.kind != NK_NOTIFY && emu_os_populate(self_ptr(h.addr), h.len) != EMU_OK) {
        EMU_LOG_ERR("device %u: no room for the pages of [0x%llx, +%llu) that device %u of "
                    "another host %s: the file system of the job folder is full", emu_exec_g.dev,
                    (unsigned long long)h.addr, (unsigned long long)h.len, h.src_dev,
                    h.kind == NK_READ ? "reads" : "writes");
        reply(ep, &h, EMU_ENOMEM, NULL, 0);
        return UCS_OK;
    }
    switch (h.kind) {
    case NK_WRITE: {
        if (!write_ok(&h, len)) {
            EMU_LOG_ERR("device %u: a write of device %u of another host announces %llu bytes "
                        "but carries %zu, or a reduction this device does not accept; refused",
                        emu_exec_g.dev, h.src_dev, (unsigned long long)h.len, len);
            reply(ep, &h, EMU_EINVAL, NULL, 0);
            return UCS_OK;
        }
        struct emu_race_net_in *race = race_arrive(&h, header);
        if (!rndv) {
            if (h.flags & NF_REDUCE)
                write_landed(&h, ep, data, race);
            else {
                memcpy(self_ptr(h.addr), data, h.len);
                write_landed(&h, ep, NULL, race);
            }
            return UCS_OK;
        }
        struct inbound *in = calloc(1, sizeof(*in));
        if (in == NULL || ((h.flags & NF_REDUCE) && (in->tmp = malloc(h.len)) == NULL)) {
            free(in);
            emu_race_net_end(race);
            reply(ep, &h, EMU_ENOMEM, NULL, 0);
            return UCS_OK;
        }
        in->h = h;
        in->reply_ep = ep;
        in->race = race;
        receive(data, in->tmp != NULL ? in->tmp : self_ptr(h.addr), h.len, in);
        return UCS_OK;
    }
    case NK_READ:
        race_arrive(&h, header); /* no record: nothing kept */
        reply(ep, &h, EMU_OK, self_ptr(h.addr), h.len);
        return UCS_OK;
    case NK_NOTIFY: /* no answer: the requester's task completed when it was sent */
        notify_set(&h, race_arrive(&h, header));
        return UCS_OK;
    default:
        reply(ep, &h, EMU_EINVAL, NULL, 0);
        return UCS_OK;
    }
}

/* ---- the requester side: replies -------------------------------------------------------- */

static ucs_status_t on_reply(void *arg, const void *header, size_t header_len, void *data,
                             size_t len, const ucp_am_recv_param_t *param)
{
    struct net_hdr h;

    (void)arg;
    if (!take_header(header, header_len, false, "reply", &h))
        return UCS_OK;
    if (h.kind == NK_NOTIFY) {
        /* Only a refusal: its task is gone (its token may name a newer operation now). */
        if (h.status != EMU_OK)
            refusal_keep(&h);
        return UCS_OK;
    }
    struct net_op *op = h.magic == NET_MAGIC ? op_find(h.token) : NULL;
    if (op == NULL)
        return UCS_OK; /* its task failed meanwhile (the peer was declared dead) */
    if (h.status != EMU_OK) {
        char why[120];
        snprintf(why, sizeof(why), "the peer's executor refused the %s: %s",
                 op->h.kind == NK_READ ? "read" : "write", emu_status_str((emu_status)h.status));
        op_finish(op, (emu_status)h.status, why);
        return UCS_OK;
    }
    if (op->h.kind != NK_READ) {
        op_finish(op, EMU_OK, NULL);
        return UCS_OK;
    }
    if (len != op->h.len) {
        op_finish(op, EMU_EREMOTE, "the peer sent a read of another length");
        return UCS_OK;
    }
    void *dst = op->tmp != NULL ? op->tmp : op->local;
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
        struct inbound *in = calloc(1, sizeof(*in));
        if (in == NULL) {
            op_finish(op, EMU_ENOMEM, "out of memory receiving a read");
            return UCS_OK;
        }
        in->op = op;
        atomic_fetch_add_explicit(&op->refs, 1, memory_order_relaxed); /* the reception's */
        receive(data, dst, len, in);
        return UCS_OK;
    }
    memcpy(dst, data, len);
    if (op->tmp != NULL)
        emu_reduce(op->local, op->tmp, op->h.count, op->h.dtype, op->h.op);
    op_finish(op, EMU_OK, NULL);
    return UCS_OK;
}

/* ---- hang views (diag/hang_net.h) ------------------------------------------------------- */

static void buffer_sent(void *req, ucs_status_t status, void *user)
{
    (void)status;
    free(user);
    if (req != NULL)
        ucp_request_free(req);
}

/* Send `buf` (malloc'd, freed when sent) as the header and payload `data` of one eager active
 * message: the receiving handler gets it whole, with nothing to fetch. Under ucx_lock. */
static void send_owned(ucp_ep_h ep, unsigned id, void *buf, size_t len, const void *data,
                       size_t data_len, bool reply_ep)
{
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_FLAGS,
        .cb.send = buffer_sent,
        .user_data = buf,
        .flags = UCP_AM_SEND_FLAG_EAGER | (reply_ep ? UCP_AM_SEND_FLAG_REPLY : 0),
    };
    ucs_status_ptr_t r = ucp_am_send_nbx(ep, id, buf, len, data, data_len, &p);
    if (r == NULL || UCS_PTR_IS_ERR(r))
        free(buf);
}

/* A peer's watchdog asks for this folder's parked waits: answer with the view. */
static ucs_status_t on_hang_ask(void *arg, const void *header, size_t header_len, void *data,
                                size_t len, const ucp_am_recv_param_t *param)
{
    struct net_hdr h;
    uint8_t *view = NULL;

    (void)arg, (void)data, (void)len;
    if (!(param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP))
        return UCS_OK;
    size_t n = take_header(header, header_len, false, "hang view request", &h)
                   ? emu_hang_net_answer(&view)
                   : 0;
    /* One buffer, the header then the view as payload, freed at the send's completion. */
    uint8_t *msg = n != 0 ? malloc(sizeof(h) + n) : NULL;
    if (msg != NULL) {
        h.len = n;
        memcpy(msg, &h, sizeof(h));
        memcpy(msg + sizeof(h), view, n);
        send_owned(param->reply_ep, AM_HANG_VIEW, msg, sizeof(h), msg + sizeof(h), n, false);
    }
    free(view);
    return UCS_OK;
}

static ucs_status_t on_hang_view(void *arg, const void *header, size_t header_len, void *data,
                                 size_t len, const ucp_am_recv_param_t *param)
{
    struct net_hdr h;

    (void)arg;
    if (take_header(header, header_len, false, "hang view", &h) &&
        !(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV))
        emu_hang_net_store(data, len);
    return UCS_OK;
}

/* ---- start, progress, stop -------------------------------------------------------------- */

/* The progress thread: drive the worker, run the hand-offs its messages made
 * (net_handoff.h), and when there is nothing to do poll on for up to SPIN_NS while the job's
 * spin budget has a core for it (common/platform/spin.h: a poller must not take the core of the
 * thread that will send), then sleep on the worker's descriptor. */
static void *progress_main(void *arg)
{
    bool spinning = false;
    uint64_t until = 0;

    (void)arg;
    emu_net_handoff_thread_start();
    while (!atomic_load_explicit(&stopping, memory_order_acquire)) {
        pthread_mutex_lock(&ucx_lock);
        unsigned n = ucp_worker_progress(worker);
        pthread_mutex_unlock(&ucx_lock);
        n += emu_net_handoff_serve();
        if (n != 0 || (spinning && emu_os_now_ns() < until)) {
            if (n != 0 && spinning) { /* busy now, not spinning */
                emu_spin_end(&spin_gate);
                spinning = false;
            }
            continue;
        }
        if (!spinning && emu_spin_begin(&spin_gate)) {
            spinning = true;
            until = emu_os_now_ns() + SPIN_NS;
            continue;
        }
        if (spinning) {
            emu_spin_end(&spin_gate);
            spinning = false;
        }
        pthread_mutex_lock(&ucx_lock);
        ucs_status_t st = ucp_worker_arm(worker);
        pthread_mutex_unlock(&ucx_lock);
        if (st == UCS_ERR_BUSY)
            continue;
        struct epoll_event ev[2];
        int k = epoll_wait(epoll_fd, ev, 2, SLEEP_MS);
        for (int i = 0; i < k; i++)
            if (ev[i].data.fd == wake_fd) {
                uint64_t v;
                ssize_t ignored = read(wake_fd, &v, sizeof(v));
                (void)ignored;
            }
    }
    if (spinning)
        emu_spin_end(&spin_gate);
    emu_task_free_cache(); /* tasks it retired went to this thread's cache */
    return NULL;
}

static bool fail_start(const char *what, ucs_status_t st)
{
    snprintf(start_why, sizeof(start_why), "UCX: %s failed: %s", what, ucs_status_string(st));
    return false;
}

static bool start_ucx(void)
{
    ucp_config_t *cfg;
    ucs_status_t st;

    /* The UCX_* defaults are in place already: net_lazy.c sets them before loading us, so
     * that UCX's own constructors see them too. */
    if ((st = ucp_config_read(NULL, NULL, &cfg)) != UCS_OK)
        return fail_start("reading the configuration", st);
    ucp_params_t p = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME,
        .features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP,
        .name = "hcemu-device",
    };
    st = ucp_init(&p, cfg, &ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK)
        return fail_start("ucp_init", st);
    ucp_worker_params_t wp = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = UCS_THREAD_MODE_SERIALIZED,
    };
    if ((st = ucp_worker_create(ctx, &wp, &worker)) != UCS_OK)
        return fail_start("ucp_worker_create", st);
    ucp_worker_attr_t wa = {
        .field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS | UCP_WORKER_ATTR_FIELD_ADDRESS_FLAGS |
                      UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER,
        .address_flags = UCP_WORKER_ADDRESS_FLAG_NET_ONLY,
    };
    if ((st = ucp_worker_query(worker, &wa)) != UCS_OK)
        return fail_start("ucp_worker_query", st);
    if (wa.address_length > sizeof(my_addr)) {
        ucp_worker_release_address(worker, wa.address);
        snprintf(start_why, sizeof(start_why), "UCX: the worker address has %zu bytes, more than "
                 "the %u a rendezvous row holds (limit UCX_NET_DEVICES)", wa.address_length,
                 EMU_NET_ADDR_MAX);
        return false;
    }
    memcpy(my_addr, wa.address, wa.address_length);
    /* Clocks and model nodes ride after the header; a bound below the header leaves them no
     * room (those diagnostics then stop with a warning at the receiver). */
    max_header = wa.max_am_header > sizeof(struct net_hdr) ? wa.max_am_header
                                                           : sizeof(struct net_hdr);
    my_addr_len = (uint32_t)wa.address_length;
    ucp_worker_release_address(worker, wa.address);
    static const struct {
        unsigned id;
        ucp_am_recv_callback_t cb;
        const char *what;
    } handlers[] = {
        {AM_REQ, on_request, "setting the request handler"},
        {AM_REP, on_reply, "setting the reply handler"},
        {AM_HANG_ASK, on_hang_ask, "setting the hang view request handler"},
        {AM_HANG_VIEW, on_hang_view, "setting the hang view handler"},
    };
    for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
        ucp_am_handler_param_t hp = {
            .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                          UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
            .id = handlers[i].id,
            .cb = handlers[i].cb,
            .flags = UCP_AM_FLAG_WHOLE_MSG,
        };
        if ((st = ucp_worker_set_am_recv_handler(worker, &hp)) != UCS_OK)
            return fail_start(handlers[i].what, st);
    }
    int efd;
    if ((st = ucp_worker_get_efd(worker, &efd)) != UCS_OK)
        return fail_start("ucp_worker_get_efd", st);
    wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event e1 = {.events = EPOLLIN, .data.fd = efd};
    struct epoll_event e2 = {.events = EPOLLIN, .data.fd = wake_fd};
    if (wake_fd < 0 || epoll_fd < 0 || epoll_ctl(epoll_fd, EPOLL_CTL_ADD, efd, &e1) != 0 ||
        epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &e2) != 0) {
        snprintf(start_why, sizeof(start_why), "UCX: no wake-up descriptors: %s", strerror(errno));
        return false;
    }
    if (pthread_create(&progress_tid, NULL, progress_main, NULL) != 0) {
        snprintf(start_why, sizeof(start_why), "UCX: no progress thread");
        return false;
    }
    return true;
}

static void start_once_fn(void)
{
    start_status = start_ucx() ? EMU_OK : EMU_ENOTSUP;
    if (start_status != EMU_OK)
        EMU_LOG_ERR("device %u: %s; ranks of other hosts are unreachable", emu_exec_g.dev,
                    start_why);
}

static emu_status ucx_address(const struct emu_net_job *job, uint8_t *buf, size_t cap,
                              uint32_t *len, char *msg, size_t msg_len)
{
    pthread_once(&start_once, start_once_fn);
    *len = 0;
    if (start_status != EMU_OK) {
        snprintf(msg, msg_len, "%s", start_why);
        return start_status;
    }
    if (cap < my_addr_len)
        return EMU_EINVAL;
    pthread_mutex_lock(&ucx_lock);
    emu_net_admit_add(&admitted, job->token); /* its ranks' peers send with it */
    pthread_mutex_unlock(&ucx_lock);
    memcpy(buf, my_addr, my_addr_len);
    *len = my_addr_len;
    return EMU_OK;
}

static emu_status ucx_connect(uint32_t peer, const uint8_t *addr, uint32_t len,
                              const uint8_t *token, char *msg, size_t msg_len)
{
    const struct emu_peer_ref *p;

    pthread_once(&start_once, start_once_fn);
    if (start_status != EMU_OK) {
        snprintf(msg, msg_len, "%s", start_why);
        return start_status;
    }
    if (peer >= EMU_MAX_PEERS || len == 0 || len > EMU_NET_ADDR_MAX) {
        snprintf(msg, msg_len, "bad peer %u or address length %u", peer, len);
        return EMU_EINVAL;
    }
    p = &emu_exec_ctl()->peers[peer];
    struct conn *c = &conns[peer];
    pthread_mutex_lock(&ucx_lock);
    if (c->ep != NULL && !atomic_load(&c->failed) && c->host_key == p->host_key &&
        c->dev == p->dev && strcmp(c->job_dir, p->job_dir) == 0) {
        pthread_mutex_unlock(&ucx_lock);
        return EMU_OK; /* already connected to this device */
    }
    /* The entry names another device now (the old one's channels are gone): a new
     * connection; the old endpoint is left to the process's end. */
    c->host_key = p->host_key;
    c->dev = p->dev;
    c->folder = emu_folder_key(p->host_key, p->job_dir);
    c->model_sent = 0;
    memcpy(c->token, token, sizeof(c->token));
    snprintf(c->job_dir, sizeof(c->job_dir), "%s", p->job_dir);
    atomic_store(&c->failed, false);
    c->why[0] = '\0';
    ucp_ep_params_t ep = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER,
        .address = (const ucp_address_t *)addr,
        .err_mode = UCP_ERR_HANDLING_MODE_PEER,
        .err_handler = {.cb = on_ep_error, .arg = (void *)(uintptr_t)peer},
    };
    /* A loaded machine's TCP connect is sometimes refused for a moment while the peer's
     * worker is busy accepting others (seen once in 50 8-rank all-to-all set-ups): retry a
     * few times, 20/40/80/160 ms apart, before the channel fails. */
    c->ep = NULL;
    ucs_status_t st = ucp_ep_create(worker, &ep, &c->ep);
    for (unsigned i = 0; st == UCS_ERR_UNREACHABLE && i < 4; i++) {
        pthread_mutex_unlock(&ucx_lock);
        usleep(20000u << i);
        pthread_mutex_lock(&ucx_lock);
        if (c->ep != NULL) { /* another call connected it meanwhile */
            st = UCS_OK;
            break;
        }
        st = ucp_ep_create(worker, &ep, &c->ep);
    }
    pthread_mutex_unlock(&ucx_lock);
    if (st != UCS_OK) {
        c->ep = NULL;
        snprintf(msg, msg_len, "UCX: connecting to device %u of the peer's host failed: %s",
                 p->dev, ucs_status_string(st));
        return EMU_EREMOTE;
    }
    wake_progress();
    EMU_LOG_INFO("device %u: connected to device %u of another host (job folder %s)",
                 emu_exec_g.dev, p->dev, p->job_dir);
    return EMU_OK;
}

static emu_status ucx_check(uint32_t channel, uint32_t peer, char *why, size_t len)
{
    if (peer < EMU_MAX_PEERS && atomic_load(&conns[peer].failed)) {
        snprintf(why, len, "%s", conns[peer].why);
        return EMU_EREMOTE;
    }
    return refusal_take(channel, why, len);
}

/* A fence request to peers[peer], answered once the target handled everything this executor
 * sent it before; then the refusal kept for `channel`, if any. The caller (a drain, on the
 * kernel's thread) polls for the answer within timeout_s (0: the operation bound). */
static emu_status ucx_flush(uint32_t channel, uint32_t peer, uint32_t timeout_s, char *why,
                            size_t len)
{
    struct net_op *op = calloc(1, sizeof(*op));
    emu_status st;

    if (peer >= EMU_MAX_PEERS || op == NULL) {
        free(op);
        snprintf(why, len, "%s", peer >= EMU_MAX_PEERS ? "bad peer" : "out of memory for a fence");
        return peer >= EMU_MAX_PEERS ? EMU_EINVAL : EMU_ENOMEM;
    }
    op->peer = peer;
    op->h = (struct net_hdr){.magic = NET_MAGIC, .token = (uint64_t)(uintptr_t)op,
                             .kind = NK_FENCE, .flags = NF_SHARED_DIAG, .src_dev = emu_exec_g.dev,
                             .channel = channel};
    atomic_store(&op->refs, 3); /* the caller, the send, the answer */
    pthread_mutex_lock(&ucx_lock);
    struct conn *c = &conns[peer];
    memcpy(op->h.admit, c->token, sizeof(op->h.admit));
    if (c->ep == NULL || atomic_load(&c->failed)) {
        snprintf(why, len, "%s", c->ep == NULL ? "the peer of another host was never connected"
                                               : c->why);
        pthread_mutex_unlock(&ucx_lock);
        free(op);
        return EMU_EREMOTE;
    }
    op_link(op);
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_FLAGS,
        .cb.send = op_sent,
        .user_data = op,
        .flags = UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER,
    };
    ucs_status_ptr_t r = ucp_am_send_nbx(c->ep, AM_REQ, &op->h, sizeof(op->h), NULL, 0, &p);
    if (r == NULL)
        op_put(op);
    else if (UCS_PTR_IS_ERR(r))
        op_sent(NULL, UCS_PTR_STATUS(r), op);
    pthread_mutex_unlock(&ucx_lock);
    wake_progress();
    uint64_t deadline = emu_os_deadline_s(timeout_s != 0 ? timeout_s : OP_LIMIT_S);
    unsigned pause_us = 20;
    while (atomic_load_explicit(&op->done, memory_order_acquire) == 0 &&
           emu_os_now_ns() < deadline) {
        usleep(pause_us);
        pause_us = pause_us < 1000 ? pause_us * 2 : 1000;
    }
    pthread_mutex_lock(&ucx_lock);
    if (atomic_load_explicit(&op->done, memory_order_acquire) == 0)
        op_finish(op, EMU_ETIMEOUT, "no answer to a fence within the drain's timeout");
    pthread_mutex_unlock(&ucx_lock);
    st = op->status;
    if (st != EMU_OK)
        snprintf(why, len, "%s", op->why);
    op_put(op);
    return st != EMU_OK ? st : refusal_take(channel, why, len);
}

static void ucx_hang_ask(uint32_t peer)
{
    if (start_status != EMU_OK || peer >= EMU_MAX_PEERS)
        return;
    struct net_hdr *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return;
    h->magic = NET_MAGIC;
    h->src_dev = emu_exec_g.dev;
    pthread_mutex_lock(&ucx_lock);
    struct conn *c = &conns[peer];
    memcpy(h->admit, c->token, sizeof(h->admit));
    if (c->ep != NULL && !atomic_load(&c->failed))
        send_owned(c->ep, AM_HANG_ASK, h, sizeof(*h), NULL, 0, true);
    else
        free(h);
    pthread_mutex_unlock(&ucx_lock);
    wake_progress();
}

static void ucx_stop(void)
{
    if (start_status != EMU_OK)
        return;
    atomic_store_explicit(&stopping, true, memory_order_release);
    wake_progress();
    pthread_join(progress_tid, NULL);
}

/* ---- tasks ------------------------------------------------------------------------------ */

static void release_op(struct emu_task *t)
{
    if (t->priv != NULL)
        op_put(t->priv);
    t->priv = NULL;
}

static enum emu_run_result finished(struct emu_task *t, struct net_op *op)
{
    if (op->status == EMU_OK)
        return EMU_RUN_DONE;
    t->status = op->status;
    snprintf(t->note, sizeof(t->note), "%s", op->why);
    return EMU_RUN_FAIL;
}

/* The request's header to another job folder (under ucx_lock): the header, t's clock (race
 * detector) and the model nodes c has not been sent, in op->wire; returns its length. Out of
 * memory: the bare header, its clock and nodes marked missing (the target stops those
 * diagnostics with a warning). */
static size_t compose(struct net_op *op, struct conn *c, const uint8_t *tag, size_t tag_len)
{
    bool model = emu_model_net_on(), whole = true;
    uint32_t upto = model ? emu_model_net_count() : 0;
    size_t room = max_header - sizeof(op->h) - tag_len, nodes = 0;
    size_t bound = upto > c->model_sent ? (size_t)(upto - c->model_sent) * EMU_MODEL_NET_NODE : 0;

    if (model)
        op->h.flags |= NF_MODEL;
    if (tag == NULL && !model)
        return sizeof(op->h);
    if (bound > room)
        bound = room;
    op->wire = malloc(sizeof(op->h) + tag_len + bound);
    if (op->wire == NULL) {
        op->h.flags |= model ? NF_MODEL_PARTIAL : 0;
        return sizeof(op->h);
    }
    if (model)
        nodes = emu_model_net_pack(&c->model_sent, upto, c->folder,
                                   op->wire + sizeof(op->h) + tag_len, bound, &whole);
    if (!whole)
        op->h.flags |= NF_MODEL_PARTIAL;
    op->h.tag_len = (uint32_t)tag_len;
    memcpy(op->wire, &op->h, sizeof(op->h));
    if (tag_len > 0)
        memcpy(op->wire + sizeof(op->h), tag, tag_len);
    return sizeof(op->h) + tag_len + nodes;
}

/* Start t's operation: build the request and send it. */
static enum emu_run_result launch(struct emu_task *t, struct emu_dp_op *o, uint32_t peer)
{
    uint32_t f = emu_dp_kinds_flags(t->kind);
    struct net_op *op = calloc(1, sizeof(*op));

    if (op == NULL) {
        snprintf(t->note, sizeof(t->note), "out of memory for a transfer to another host");
        t->status = EMU_ENOMEM;
        return EMU_RUN_FAIL;
    }
    bool read = (f & EMU_DPF_REMOTE_SRC) != 0, move = (f & EMU_DPF_MOVE) != 0;
    op->peer = peer;
    op->stream = t->stream;
    op->h = (struct net_hdr){
        .magic = NET_MAGIC,
        .token = (uint64_t)(uintptr_t)op,
        .kind = !move ? NK_NOTIFY : read ? NK_READ : NK_WRITE,
        .addr = !move ? 0 : read ? o->src : o->dst,
        .len = move ? o->len : 0,
        .count = o->count,
        .dtype = o->dtype,
        .op = o->op,
        .seq = t->seq,
        .src_dev = emu_exec_g.dev,
        .notify_slot = o->notify_slot,
        .channel = o->channel,
        .chan_gen = emu_exec_ctl()->channels[o->channel].gen,
        .stream = t->stream,
    };
    memcpy(op->h.admit, conns[peer].token, sizeof(op->h.admit)); /* set at connect */
    if (move && (f & EMU_DPF_REDUCE) && !read)
        op->h.flags |= NF_REDUCE;
    if (move && (f & EMU_DPF_RECORD))
        op->h.flags |= NF_NOTIFY;
    size_t tag_len = 0, wire_len = sizeof(op->h);
    uint8_t *tag = NULL;
    if (o->net_diag)
        op->h.flags |= NF_SHARED_DIAG;
    else
        tag = emu_race_net_tag(t, max_header - sizeof(op->h), &tag_len);
    op->local = read ? self_ptr(o->dst) : self_ptr(o->src);
    if (read && (f & EMU_DPF_REDUCE) && (op->tmp = malloc(o->len ? o->len : 1)) == NULL) {
        free(tag);
        free(op);
        snprintf(t->note, sizeof(t->note), "out of memory for a read-reduce from another host");
        t->status = EMU_ENOMEM;
        return EMU_RUN_FAIL;
    }
    atomic_store(&op->refs, 3);
    t->priv = op;
    t->release = release_op;
    t->park = EMU_PARK_NET;
    t->deadline_ns = emu_os_deadline_s(OP_LIMIT_S);
    t->timeout_status = EMU_EREMOTE;
    snprintf(t->note, sizeof(t->note), "no answer from device %u of another host within %u s",
             emu_exec_ctl()->peers[peer].dev, OP_LIMIT_S);

    pthread_mutex_lock(&ucx_lock);
    struct conn *c = &conns[peer];
    if (c->ep == NULL || atomic_load(&c->failed)) {
        op->next = op->prev = op;
        snprintf(op->why, sizeof(op->why), "%.*s", (int)sizeof(op->why) - 1,
                 c->ep == NULL ? "the peer of another host was never connected (no UCX address "
                                 "in its rendezvous row)" : c->why);
        op->status = EMU_EREMOTE;
        atomic_store(&op->done, 1);
        atomic_store(&op->refs, 1);
        pthread_mutex_unlock(&ucx_lock);
        free(tag);
        return finished(t, op);
    }
    if (!o->net_diag)
        wire_len = compose(op, c, tag, tag_len);
    free(tag);
    op_link(op);
    ucp_request_param_t p = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = op_sent,
        .user_data = op,
        .flags = UCP_AM_SEND_FLAG_REPLY,
    };
    p.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
    const void *payload = op->h.kind == NK_WRITE ? op->local : NULL;
    size_t plen = op->h.kind == NK_WRITE ? op->h.len : 0;
    const void *hdr = op->wire != NULL ? (const void *)op->wire : &op->h;
    ucs_status_ptr_t r = ucp_am_send_nbx(c->ep, AM_REQ, hdr, wire_len, payload, plen, &p);
    if (r == NULL && op->h.kind == NK_NOTIFY) {
        /* A record sent at once is complete: no answer comes, the thread goes on now. */
        op_unlink(op);
        op->status = EMU_OK;
        atomic_store(&op->done, 1);
        atomic_store(&op->refs, 1); /* the task's */
        pthread_mutex_unlock(&ucx_lock);
        return EMU_RUN_DONE;
    }
    if (r == NULL)
        op_put(op); /* sent at once: the send's reference */
    else if (UCS_PTR_IS_ERR(r))
        op_sent(NULL, UCS_PTR_STATUS(r), op);
    pthread_mutex_unlock(&ucx_lock);
    /* A send UCX still holds needs the progress thread to go on; one sent at once needs
     * nothing more (the answer wakes the thread through the worker's descriptor). The
     * progress thread itself polls again after serving. */
    if (r != NULL && !UCS_PTR_IS_ERR(r) && !emu_net_handoff_on_thread())
        wake_progress();
    return EMU_RUN_PARK;
}

static enum emu_run_result ucx_run(struct emu_task *t)
{
    struct emu_dp_op *o = emu_dp_op_of(t);
    struct net_op *op = t->priv;

    if (op == NULL) {
        /* A record of this channel that the peer refused after it completed fails the
         * channel's next operation. */
        emu_status st = refusal_take(o->channel, t->note, sizeof(t->note));
        if (st != EMU_OK) {
            t->status = st;
            return EMU_RUN_FAIL;
        }
        uint32_t peer = emu_exec_ctl()->channels[o->channel].peer;
        return launch(t, o, peer);
    }
    if (atomic_load_explicit(&op->done, memory_order_acquire) == 0)
        return EMU_RUN_PARK;
    return finished(t, op);
}

/* The one exported symbol (the plug-in is built with hidden visibility). */
__attribute__((visibility("default"))) const struct emu_net_ops emu_net_ucx_ops = {
    .version = EMU_NET_OPS_VERSION,
    .address = ucx_address,
    .connect = ucx_connect,
    .check = ucx_check,
    .flush = ucx_flush,
    .run = ucx_run,
    .hang_ask = ucx_hang_ask,
    .stop = ucx_stop,
};
