/* coll_launch.c - how the built-in collectives reach the device: the same steps a user's
 * custom operator takes through the ACL/HCCL API (docs/FLOW.md), so hang reports, the race
 * checker, traces and seeded schedules see them like any user kernel.
 *
 * Once per process: load hcemu's kernel image (hcemu_collectives.json beside libhcemu).
 * Once per communicator, on its first collective: AICPU_TS threads, the HCCL buffer and the
 * resource block in an AICPU_TS engine context; the
 * host's own state lives in a CPU_TS engine context, so the communicator owns and frees it.
 * Channels are acquired per peer when a call first needs that peer (Send/Recv pair only the
 * two ranks involved). Per launch: wrap the user's stream as a CPU_TS thread, launch, and
 * queue the wait for the kernel's "done" notify on the stream.
 * Each step calls the internal function behind the vendor call of that step (host/hccl,
 * host/acl), never the exported name: a product rule meant for a user's call (HcclChannelQuery
 * exists on the 950 only) does not refuse hcemu's own collectives on A2/A3, and a failure's
 * emu_status reaches the user unchanged instead of through a vendor code and back. */
#include "coll.h"
#include "collectives/coll_steps.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/contract/devctl.h"
#include "common/platform/copy.h"
#include "common/platform/log.h"
#include "common/platform/machine.h"
#include "common/contract/product.h"
#include "common/contract/settings.h"
#include "host/acl/acl_graph.h"
#include "host/acl/binary.h"
#include "host/acl/kernel.h"
#include "host/acl/mem.h"
#include "host/acl/model_time.h"
#include "host/acl/stream_owed.h"
#include "host/hccl/hccl_comm.h"
#include "host/hccl/hccl_link.h"
#include "host/hccl/hccl_res.h"
#include "host/hccl/hccl_thread.h"
#include "host/hccl/hccl_topo.h"
#include "host/hccl/hcomm.h"

#define STATE_TAG "hcemu.collectives"
#define STATE_MAGIC 0x4c4c4f43u /* "COLL" */
#define IMAGE_JSON "hcemu_collectives.json"
#define MAX_SLOT (4ull << 20)
/* Eager slots: at most this many bytes per pair, and at most an eighth of the HCCL buffer for
 * all 2 * n of them, so the slots of the ACK protocol keep seven eighths or more. */
#define MAX_EAGER (64ull << 10)
/* Two ranks: up to this many. There an eager pair copies a block as often as the staged reads
 * (three times: written into the peer's slot and copied out, or staged and read, and my own
 * block to my output) and saves the ACK's hand-off, which costs more than the copy up to
 * about 1 MiB here (docs/PERFORMANCE.md, "Eager slots at two ranks"). With more ranks an
 * eager block is copied 2n - 1 times against n + 1, and larger slots made 4 and 8 ranks slower
 * from 256 KiB. */
#define MAX_EAGER_TWO (1ull << 20)
/* Communicators of more ranks use the ACK protocol only. An eager pair lands in two pages of
 * the peer's buffer besides the slot the first exchange uses, far from it (the eager slots
 * lie at the buffer's end), so each executor keeps three pages and three page-table pages
 * per peer instead of one. At 256 rank threads on one machine that was 4.45 GiB at the peak
 * (page tables 2.0 GiB) against 2.8 GiB; a call of that many ranks costs milliseconds
 * anyway, and saving one hand-off per peer does not show. */
#define MAX_EAGER_RANKS 64u

struct emu_coll_state {
    uint32_t magic;
    struct emu_comm *comm; /* held by the call that uses the state (coll_args.c) */
    void *res_dev; /* struct hcoll_res in the AICPU_TS engine context */
    uint64_t slot;
    uint64_t eager_off, eager_len; /* the eager slots at the end of the HCCL buffer; len 0: none */
    uint64_t direct_off; /* the direct pairs' mailboxes, past the eager slots; 0: none */
    uint8_t parity[HCOLL_MAX_RANKS / 8]; /* bit p: the parity of my next eager exchange with p */
    uint8_t shared[HCOLL_MAX_RANKS / 8]; /* bit p: the channel to p is the user's (no eager) */
    uint8_t met[HCOLL_MAX_RANKS / 8];    /* bit p: p and I exchanged through slots already */
    uint32_t copy_mode; /* of the call being planned (emu_coll_set_copy_mode) */
    struct hcoll_res res;
    struct emu_coll_servers servers;
    struct emu_coll_plan_memo plan; /* coll_plan.c's */
};

/* Per-peer bit sets of the state and the launch arguments (read with hcoll_bit). */
static void set_bit(uint8_t *bits, uint32_t p)
{
    bits[p / 8] |= (uint8_t)(1u << (p % 8));
}

static void flip_bit(uint8_t *bits, uint32_t p)
{
    bits[p / 8] ^= (uint8_t)(1u << (p % 8));
}

/* ---- the kernel image, once per process ------------------------------------------------- */

static pthread_mutex_t image_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_binary *image;
static struct emu_function *run_fn, *compute_fn, *wait_fn, *record_fn;

/* The callee logged its reason already (one error line); the step is told at info level and
 * its status goes up unchanged. */
#define STEP(fn, call)                                                                             \
    do {                                                                                           \
        emu_status s_ = (call);                                                                    \
        if (s_ != EMU_OK) {                                                                        \
            EMU_LOG_INFO("%s: %s failed (%s)", (fn), #call, emu_status_str(s_));                    \
            return s_;                                                                             \
        }                                                                                          \
    } while (0)

static emu_status image_path(char *out, size_t len)
{
    Dl_info info;
    char lib[PATH_MAX];

    if (dladdr((void *)emu_coll_state_get, &info) == 0 || info.dli_fname == NULL ||
        snprintf(lib, sizeof(lib), "%s", info.dli_fname) >= (int)sizeof(lib)) {
        EMU_LOG_ERR("cannot locate libhcemu to find %s", IMAGE_JSON);
        return EMU_EFILE;
    }
    if (snprintf(out, len, "%s/%s", dirname(lib), IMAGE_JSON) >= (int)len)
        return EMU_EFILE;
    return EMU_OK;
}

static emu_status load_image(const char *fn)
{
    char path[PATH_MAX];
    /* CPU kernel mode 0: the image's json names the kernels (aclrtBinaryLoadFromFile). */
    struct emu_binary_options opts = {.has_mode = true, .cpu_kernel_mode = 0};
    emu_status s;

    if ((s = image_path(path, sizeof(path))) != EMU_OK)
        return s;
    STEP(fn, emu_binary_load_file(path, &opts, &image));
    STEP(fn, emu_binary_get_function(image, HCOLL_KERNEL_RUN, &run_fn));
    STEP(fn, emu_binary_get_function(image, HCOLL_KERNEL_THREAD_WAIT, &wait_fn));
    STEP(fn, emu_binary_get_function(image, HCOLL_KERNEL_THREAD_RECORD, &record_fn));
    STEP(fn, emu_binary_get_function(image, HCOLL_KERNEL_COMPUTE, &compute_fn));
    return EMU_OK;
}

static emu_status need_image(const char *fn)
{
    emu_status s = EMU_OK;

    pthread_mutex_lock(&image_lock);
    if (compute_fn == NULL)
        s = load_image(fn);
    pthread_mutex_unlock(&image_lock);
    return s;
}

/* ---- per-communicator state ------------------------------------------------------------- */

static emu_status create_state(struct emu_comm *comm, const char *fn,
                               struct emu_coll_state **out)
{
    struct hcoll_res res;
    void *res_dev = NULL, *host = NULL, *buf = NULL;

    memset(&res, 0, sizeof(res));
    res.rank = comm->rank;
    res.size = comm->size;
    if (res.size > HCOLL_MAX_RANKS) {
        EMU_LOG_ERR("%s: rank %u: the built-in collectives serve at most %u ranks, not %u", fn,
                    res.rank, HCOLL_MAX_RANKS, res.size);
        return EMU_ENOTSUP;
    }
    STEP(fn, emu_res_buffer(comm, false, &buf, &res.buf_size, fn));
    res.buf = buf;
    /* threads[0] joins one thread per peer (notifies 0..n-2; n of them, so a 1-rank
     * communicator asks for one too); a peer thread is only ever started by it, on its notify
     * 0. One notify each for those, not n: at 256 ranks n notifies per thread were 65536
     * notify slots (2 MiB) per device. */
    res.thread_num = res.size;
    res.features = emu_product_current() == EMU_PRODUCT_950 ? HCOLL_FEATURE_WRITE_NOTIFY : 0;
    STEP(fn, emu_thread_check_acquire(comm, COMM_ENGINE_AICPU_TS, 1, res.size, res.threads, fn));
    if (res.size > 1)
        STEP(fn, emu_thread_check_acquire(comm, COMM_ENGINE_AICPU_TS, res.size - 1, 1,
                                          &res.threads[1], fn));
    STEP(fn, emu_res_ctx_create(comm, STATE_TAG, COMM_ENGINE_AICPU_TS, sizeof(res), &res_dev, fn));
    STEP(fn, emu_res_ctx_copy(comm, STATE_TAG, COMM_ENGINE_AICPU_TS, &res, sizeof(res), 0, fn));
    STEP(fn, emu_res_ctx_create(comm, STATE_TAG, COMM_ENGINE_CPU_TS, sizeof(struct emu_coll_state),
                                &host, fn));
    struct emu_coll_state *st = host;
    memset(st, 0, sizeof(*st));
    st->magic = STATE_MAGIC;
    st->comm = comm;
    st->res_dev = res_dev;
    st->res = res;
    emu_status s = emu_coll_servers_init(comm, fn, &st->servers);
    if (s != EMU_OK)
        return s;
    /* The mailboxes of direct pairs and pushed steps go at the end of the buffer (an inbox per
     * rank, an outbox per rank and call of a window: HCOLL_MAIL_BYTES), when they can happen at
     * all (the modelled clock keeps the card's buffer layout); the
     * eager slots before them, two per rank (coll_abi.h). */
    uint64_t mail = emu_coll_direct_allowed() && res.size > 1 ? HCOLL_MAIL_BYTES(res.size) : 0;
    if (mail != 0 && mail * 16 <= res.buf_size) {
        st->direct_off = (res.buf_size - mail) / HCOLL_ALIGN * HCOLL_ALIGN;
        /* The kernel stores into its outboxes itself (coll_kernel.c, direct_publish): their
         * pages are had now, so a job folder that fills up later fails a transfer with an
         * error, not the kernel with SIGBUS. */
        struct emu_mem_ref r;
        uint8_t *box = (uint8_t *)buf + st->direct_off;
        STEP(fn, emu_mem_check_memset(box, mail, mail, fn, &r));
        STEP(fn, emu_mem_set(r.host, 0, mail, fn));
    }
    uint64_t end = st->direct_off != 0 ? st->direct_off : res.buf_size;
    st->eager_len = res.buf_size / (16ull * res.size) / HCOLL_ALIGN * HCOLL_ALIGN;
    uint64_t cap = res.size == 2 ? MAX_EAGER_TWO : MAX_EAGER;
    st->eager_len = st->eager_len < cap ? st->eager_len : cap;
    if (res.size > MAX_EAGER_RANKS)
        st->eager_len = 0;
    st->eager_off = end - 2ull * res.size * st->eager_len;
    /* Slots of at most MAX_SLOT: a round's tasks stay short, so the job shows progress (and
     * the hang watchdog stays quiet) even when two cores serve many emulated devices. */
    st->slot = st->eager_off / res.size / HCOLL_ALIGN * HCOLL_ALIGN;
    st->slot = st->slot < MAX_SLOT ? st->slot : MAX_SLOT;
    if (st->slot == 0) {
        EMU_LOG_ERR("%s: HCCL buffer of %llu bytes is too small for %u ranks", fn,
                    (unsigned long long)res.buf_size, res.size);
        return EMU_ENOMEM;
    }
    *out = st;
    return EMU_OK;
}

/* The rank graph's link to `peer` (UB_CTP preferred), as a channel description. */
static emu_status describe(struct emu_comm *comm, uint32_t me, uint32_t peer, const char *fn,
                           HcclChannelDesc *d)
{
    uint32_t *layers = NULL, nl = 0;

    emu_graph_layers(comm->graph, &layers, &nl);
    for (uint32_t layer = 0; layer < 2 && layer < nl; layer++) {
        CommLink *links = NULL;
        uint32_t n = 0, pick = 0;
        emu_status s = emu_res_links(comm, layer, me, peer, &links, &n, fn);

        if (s != EMU_OK)
            return s;
        if (n == 0)
            continue;
        for (uint32_t i = 0; i < n; i++)
            if (links[i].linkAttr.linkProtocol == COMM_PROTOCOL_UB_CTP) {
                pick = i;
                break;
            }
        (void)HcclChannelDescInit(d, 1); /* the header's inline initialiser, not a call in */
        d->remoteRank = peer;
        d->notifyNum = HCOLL_CHANNEL_NOTIFIES;
        d->channelProtocol = links[pick].linkAttr.linkProtocol;
        d->localEndpoint.protocol = links[pick].srcEndpointDesc.protocol;
        d->localEndpoint.commAddr = links[pick].srcEndpointDesc.commAddr;
        d->localEndpoint.loc = links[pick].srcEndpointDesc.loc;
        d->remoteEndpoint.protocol = links[pick].dstEndpointDesc.protocol;
        d->remoteEndpoint.commAddr = links[pick].dstEndpointDesc.commAddr;
        d->remoteEndpoint.loc = links[pick].dstEndpointDesc.loc;
        return EMU_OK;
    }
    EMU_LOG_ERR("%s: rank %u has no link to rank %u in the rank graph", fn, me, peer);
    return EMU_ENOTFOUND;
}

/* Whether this rank needs no new channel to p: p is itself, or the channel exists. */
static bool has_channel(const struct emu_coll_state *st, uint32_t p)
{
    return p == st->res.rank || st->res.chans[p] != 0;
}

/* Channels to the listed peers that this rank does not have yet; they pair with the peers'
 * matching calls (every peer needs ours at the same point of its call sequence). */
static emu_status acquire_channels(struct emu_coll_state *st, const uint32_t *peers,
                                   uint32_t npeers, HcclChannelDesc *descs, const char *fn)
{
    uint32_t want[HCOLL_MAX_RANKS], m = 0;
    ChannelHandle handles[HCOLL_MAX_RANKS];
    emu_status s;

    for (uint32_t i = 0; i < npeers; i++) {
        uint32_t p = peers[i];
        bool dup = false;
        for (uint32_t j = 0; j < m; j++)
            dup |= want[j] == p;
        if (has_channel(st, p) || dup)
            continue;
        if ((s = describe(st->comm, st->res.rank, p, fn, &descs[m])) != EMU_OK)
            return s;
        want[m++] = p;
    }
    if (m == 0)
        return EMU_OK;
    /* Channels the user made first are shared, with the notifies the user asked for. */
    STEP(fn, emu_link_desc_query(st->comm, COMM_ENGINE_AICPU_TS, descs, m, handles, fn));
    for (uint32_t i = 0; i < m; i++)
        if (handles[i] != 0)
            set_bit(st->shared, want[i]);
    STEP(fn, emu_link_desc_acquire(st->comm, COMM_ENGINE_AICPU_TS, descs, m, NULL, handles, fn));
    for (uint32_t i = 0; i < m; i++) {
        void *peer_buf = NULL;
        uint64_t size = 0;
        STEP(fn, emu_res_channel_buffer(st->comm, handles[i], &peer_buf, &size, fn));
        st->res.peer_buf[want[i]] = peer_buf;
        st->res.chans[want[i]] = handles[i];
    }
    /* A kernel still queued reads only the entries it already had: they do not change. */
    STEP(fn, emu_res_ctx_copy(st->comm, STATE_TAG, COMM_ENGINE_AICPU_TS, &st->res, sizeof(st->res),
                              0, fn));
    return EMU_OK;
}

/* The descriptors live on the heap: 256 of them are 124 KiB, too much for every thread's
 * TLS or a rank thread's stack. One per listed peer, not HCOLL_MAX_RANKS: zeroing 124 KiB
 * at every collective call was 31 page faults per rank at its first one. */
static emu_status add_channels(struct emu_coll_state *st, const uint32_t *peers, uint32_t npeers,
                               const char *fn)
{
    uint32_t i = 0;

    /* Every call lists its peers; after the first they all have their channel. */
    while (i < npeers && has_channel(st, peers[i]))
        i++;
    if (i == npeers)
        return EMU_OK;
    size_t n = npeers < HCOLL_MAX_RANKS ? npeers : HCOLL_MAX_RANKS;
    HcclChannelDesc *descs = calloc(n, sizeof(*descs));

    if (descs == NULL)
        return EMU_ENOMEM;
    emu_status s = acquire_channels(st, peers, npeers, descs, fn);
    free(descs);
    return s;
}

emu_status emu_coll_state_get(struct emu_comm *comm, const uint32_t *peers, uint32_t npeers,
                              const char *fn, struct emu_coll_state **out)
{
    void *ctx = NULL;
    uint64_t size = 0;
    emu_status s;

    if ((s = need_image(fn)) != EMU_OK)
        return s;
    /* The operators' cache-miss test: a miss (EMU_ENOTFOUND) is not logged. */
    s = emu_res_ctx_get(comm, STATE_TAG, COMM_ENGINE_CPU_TS, &ctx, &size);
    if (s == EMU_ENOTFOUND)
        s = create_state(comm, fn, out);
    else if (s == EMU_OK && size == sizeof(struct emu_coll_state) &&
             ((struct emu_coll_state *)ctx)->magic == STATE_MAGIC)
        *out = ctx;
    else if (s == EMU_OK) {
        EMU_LOG_ERR("%s: rank %u: the CPU_TS engine context \"%s\" is not hcemu's (%llu bytes): "
                    "the tag is reserved for the built-in collectives",
                    fn, comm->rank, STATE_TAG, (unsigned long long)size);
        s = EMU_EINVAL;
    }
    if (s != EMU_OK)
        return s;
    return add_channels(*out, peers, npeers, fn);
}

uint64_t emu_coll_slot(const struct emu_coll_state *st)
{
    return st->slot;
}

uint64_t emu_coll_eager_len(const struct emu_coll_state *st)
{
    return st->eager_len;
}

uint64_t emu_coll_stage_len(const struct emu_coll_state *st)
{
    /* Nobody writes into my slots while I stage (coll_kernel.c): a staged round may fill
     * the buffer up to the eager slots, which stay free for peers' next calls. */
    return st->eager_off / HCOLL_ALIGN * HCOLL_ALIGN;
}

uint8_t *emu_coll_buf(const struct emu_coll_state *st)
{
    return st->res.buf;
}

uint32_t emu_coll_rank(const struct emu_coll_state *st)
{
    return st->res.rank;
}

uint32_t emu_coll_size(const struct emu_coll_state *st)
{
    return st->res.size;
}

const struct emu_coll_servers *emu_coll_servers_of(const struct emu_coll_state *st)
{
    return &st->servers;
}

struct emu_coll_plan_memo *emu_coll_plan_memo(struct emu_coll_state *st)
{
    return &st->plan;
}

/* ---- launches ----------------------------------------------------------------------------- */

void emu_coll_pairs_zero(struct hcoll_pair *p, uint32_t n)
{
    memset(p, 0, (n < HCOLL_MAX_RANKS ? n : HCOLL_MAX_RANKS) * sizeof(*p));
}

void emu_coll_pairs_copy(struct hcoll_pair *dst, const struct hcoll_pair *src, uint32_t n)
{
    memcpy(dst, src, (n < HCOLL_MAX_RANKS ? n : HCOLL_MAX_RANKS) * sizeof(*dst));
}

void emu_coll_args_init(struct hcoll_args *a, const struct emu_coll_op *op,
                        const struct emu_coll_state *st, uint32_t engine, uint32_t mode)
{
    /* The pairs past the communicator's size are never sent (emu_coll_launch_run). */
    memset(a, 0, offsetof(struct hcoll_args, pairs));
    emu_coll_pairs_zero(a->pairs, emu_coll_size(st));
    a->engine = engine;
    a->recv_mode = mode;
    a->dtype = op->dtype;
    a->op = op->op;
    a->esz = op->esz;
    a->slot = emu_coll_slot(st);
    a->in = op->in;
    a->out = op->out;
}


/* aclrtKernelArgsInit/Append/Finalize and aclrtLaunchKernelWithConfig with one block.
 * noinline: the call site the diagnostics name is the caller's line. */
__attribute__((noinline)) emu_status emu_coll_launch_kernel(struct emu_function *f,
                                                            aclrtStream stream, const void *args,
                                                            size_t size, uint64_t timeout_us,
                                                            uint32_t copy_mode, const char *fn)
{
    struct emu_args *h;
    struct emu_hstream *hs;
    void *param;
    struct emu_launch_opts o = {.blocks = 1, .timeout_us = timeout_us, .callsite = EMU_CALLSITE(),
                                .copy_mode = copy_mode};

    STEP(fn, emu_stream_resolve(stream, &hs));
    STEP(fn, emu_args_init(f, &h));
    STEP(fn, emu_args_append(h, args, size, &param));
    emu_args_finalize(h);
    STEP(fn, emu_kernel_launch(f, h, hs, &o));
    return EMU_OK;
}

/* No start notify before the launch, unlike a user's operator (docs/FLOW.md): the launch is
 * a task of the stream, so the kernel queues its tasks only once everything before it on the
 * stream retired, and the race checker and the modelled clock order them after it (launch
 * edge). A start record would cost each call two tasks and a wake-up of a second worker
 * for a main thread that has no task yet. */
struct emu_hcomm_call emu_coll_host_call(const char *fn, uint64_t callsite)
{
    struct emu_hcomm_call call = {.side = &emu_hcomm_side,
                                  .fn = fn,
                                  .callsite = callsite,
                                  .dev = EMU_HCOMM_NONE,
                                  .thread = EMU_HCOMM_NONE,
                                  .channel = EMU_HCOMM_NONE};
    return call;
}

/* With the collectives' timeout. */
static emu_status launch(struct emu_function *f, aclrtStream stream, const void *args,
                         size_t size, uint32_t copy_mode, const char *fn)
{
    return emu_coll_launch_kernel(f, stream, args, size, HCOLL_TIMEOUT_S * 1000000ull, copy_mode,
                                  fn);
}

uint32_t emu_coll_copy_mode(const struct emu_coll_state *st)
{
    return st->copy_mode;
}

void emu_coll_set_copy_mode(struct emu_coll_state *st, uint32_t copy_mode)
{
    st->copy_mode = copy_mode;
}

/* ---- Overlapping calls ----------------------------------------------------------------------
 * A call queues its launch and then a wait on the stream for its kernel's "done". On the wall
 * clock the stream owes that wait instead (host/acl/stream_owed.h), and the communicator's
 * next call on the stream queues its launch before it: the next kernel starts as soon as this
 * one returned and queues its tasks behind this call's on the same device threads, which run
 * them in order. The device then needs no wake-up between queued calls to start the next
 * kernel; the job-wide run queue's runners carry the calls on. Anything else reaching the
 * stream first queues the owed wait, so what the user sees keeps the stream's order.
 *
 * Only the kernel's start moves earlier, and it only queues tasks, except for direct pairs,
 * whose outbox it stores at once: a launch with direct pairs lets the wait go first. The
 * modelled clock, the race detector, provenance, injected faults, seeded schedules and graph
 * capture keep one call at a time, as does HCEMU_OVERLAP=0.
 *
 * Windows. A stream owes at most EMU_STREAM_OWED_MAX (16) waits. The call that finds it
 * owing that many queues them all, oldest first, and then its own wait: the window of calls
 * in flight closes, and the next call starts a new one with nothing owed. The host stream's
 * worker then parks once per window, on the last calls' waits, instead of once per call on
 * the wait of the call 15 back (which each "done" record had to wake): alternating
 * 10,000-call loops of 8 rank processes, 1 KiB allgather 26.9-37.1 us against 30.2-39.6,
 * allreduce 26.6-34.8 against 30.6-39.8. The closing call waits for every call before it,
 * so the next window's launches come after all those waits; within a window, call j records
 * notify j of the host stream's thread (done_idx), so a record never meets one that is not
 * yet consumed. */
#define DONE_NOTIFIES (EMU_STREAM_OWED_MAX + 1) /* the calls of a window */
_Static_assert(DONE_NOTIFIES == HCOLL_WINDOW, "the kernel's outboxes, one per call of a window");
/* Above this many ranks a call's tasks take room (a 256-rank allgather queues hundreds per
 * device) and the call itself takes milliseconds: one at a time. */
#define OVERLAP_RANKS 64u

static pthread_once_t overlap_once = PTHREAD_ONCE_INIT;
static bool overlap_on, fused_on;

/* Whether the calls may take hcemu's own forms: not while something follows the card's
 * tasks one by one (emu_coll_tasks_followed), nor under a seeded schedule. Then calls overlap
 * (unless HCEMU_OVERLAP=0), and an eager exchange's receiving side is one task
 * (hcemu_wait_copy: 16 tasks a device for an 8-rank mesh allgather instead of 23). */
static void overlap_decide(void)
{
    fused_on = !emu_coll_tasks_followed() && emu_settings_u64(EMU_SET_SEED) == 0;
    overlap_on = fused_on && emu_settings_bool(EMU_SET_OVERLAP);
}

/* Whether a launch with direct pairs should wait for the call before it: with a core for each
 * rank. Its outboxes are per call (coll_abi.h), so it may overlap; with more ranks than cores
 * that saves every device a wake-up per call (4-rank 128 KiB two-shot allreduce: 29 -> 2.5
 * context switches a call), while with a core each, where the executors' workers spin, the
 * 2-rank 64 and 256 KiB allgathers took 6.0-7.5 and 15.5-16.9 us overlapping against 4.3-4.6
 * and 8.4-8.8 waiting. */
static bool direct_settles(const struct emu_coll_state *st, const struct hcoll_args *a)
{
    struct emu_machine m;

    for (size_t i = 0; i < sizeof(a->direct_mask); i++)
        if (a->direct_mask[i] != 0) {
            emu_machine_get(&m, NULL);
            return st->res.size <= m.cores;
        }
    return false;
}

/* Queue the launch, then owe this call's own wait; when the stream owes all it may, queue
 * what it owes and this wait (see "Windows" above). */
static emu_status run_wait(struct emu_coll_state *st, aclrtStream stream, struct hcoll_args *a,
                           ThreadHandle host, uint32_t window, bool overlap, const char *fn)
{
    struct emu_hstream *hs = NULL;
    struct emu_stream_owed last, mine = {.owner = st->comm};
    emu_status s;

    overlap = overlap && emu_stream_resolve(stream, &hs) == EMU_OK;
    uint32_t owed = overlap ? emu_stream_owed(hs->dev, hs->slot, &last) : 0;
    /* A window of fewer calls than DONE_NOTIFIES (a stream wrapped before with fewer
     * notifies) closes before the call whose notify it lacks. */
    if (owed > 0 &&
        (last.owner != st->comm || direct_settles(st, a) || last.tag + 1 >= window)) {
        owed = 0;
        STEP(fn, emu_stream_settle(hs->d, hs->slot));
    }
    a->done_idx = owed > 0 ? last.tag + 1 : 0;
    /* Only the communicator's pairs: the kernel reads no further (coll_abi.h). A full block
     * is 8 KiB, two to three fresh pages to fault in on both sides per launch of a loop. */
    size_t size = offsetof(struct hcoll_args, pairs) + st->res.size * sizeof(a->pairs[0]);
    emu_stream_owed_defer(overlap);
    s = launch(run_fn, stream, a, size, st->copy_mode, fn);
    emu_stream_owed_defer(false);
    if (s != EMU_OK)
        return s; /* what is still owed goes in at the stream's next task, in order */
    /* HcommThreadNotifyWaitOnThread(host, done_idx, HCOLL_TIMEOUT_S), queued or owed */
    struct emu_hcomm_call call = emu_coll_host_call(fn, EMU_CALLSITE());
    if (!overlap) {
        STEP(fn, emu_hcomm_wait(&call, host, a->done_idx, HCOLL_TIMEOUT_S));
        return EMU_OK;
    }
    STEP(fn, emu_hcomm_wait_task(&call, host, a->done_idx, HCOLL_TIMEOUT_S, &mine.w));
    mine.tag = a->done_idx;
    mine.gen = hs->gen;
    /* Refused when the stream owes all it may: the submission queues what is owed first. */
    if (call.thread != hs->slot || !emu_stream_owe(hs->dev, hs->slot, &mine))
        STEP(fn, emu_stream_submit(hs, &mine.w));
    return EMU_OK;
}

/* Whether I exchange with peer p in PAIRS launch `a` (both ways, one side maybe empty). */
static bool pairs_with(const struct emu_coll_state *st, const struct hcoll_args *a, uint32_t p)
{
    return a->engine == HCOLL_ENGINE_PAIRS && p != st->res.rank &&
           (a->pairs[p].send_len != 0 || a->pairs[p].recv_len != 0);
}

/* Whether that exchange can go eager: one round that copies or reduces in the kernel, within
 * an eager slot both ways, on a channel of our own. A channel the user created first (HCCL
 * gives one channel per peer and protocol) may have fewer notifies than the eager protocol
 * needs; both ends of a pair know it alike, since channels are created by both ends at the
 * same point of their call sequences. */
static bool eager_pair(const struct emu_coll_state *st, const struct hcoll_args *a, uint32_t p)
{
    const struct hcoll_pair *pr = &a->pairs[p];
    /* A launch whose rounds are smaller than the slots (a reduction on the wall clock,
     * coll_plan.c) goes eager only within a round too; the eager slots stay where they are. */
    uint64_t cap = st->eager_len < a->slot ? st->eager_len : a->slot;

    return a->recv_mode != HCOLL_RECV_KEEP && pr->send_len <= cap && pr->recv_len <= cap &&
           !hcoll_bit(st->shared, p);
}

/* Several eager peers: whether each gets its own thread (HCEMU_PEER_THREADS). The card gives
 * each its own and dispatches them in parallel (on the main thread alone the modelled 8-rank
 * 1 KiB allgather takes 59 us instead of 38), so that is the form when the time is modelled.
 * Otherwise the main thread runs them all: the same bytes and notifies, without the start
 * and join of a thread per peer (25 tasks a device instead of 53 at 8 ranks), which cost the
 * emulator a sixth of an 8-rank 1 KiB call (docs/ARCHITECTURE.md, "Eager pairs"). */
static bool peer_threads(void)
{
    enum { AUTO, ON, OFF };

    switch (emu_settings_enum(EMU_SET_PEER_THREADS)) {
    case ON: return true;
    case OFF: return false;
    default: return emu_model_time_on();
    }
}

/* A pair's first exchange in a communicator goes through the slots, with its ACK: the race
 * detector then sees each rank's first write into the other's buffer ordered after what the
 * other's device did before, including accesses of an earlier communicator whose buffer lay
 * at the same addresses (HCEMU_RACECHECK=1 reported those as races when the very first
 * exchange went eager).
 *
 * Why no ACK is needed. My k-th eager exchange with p writes into p's eager slot of parity
 * k % 2 and records notify HCOLL_EAGER + k % 2. Exchange k + 2 reuses both. It is queued by
 * a later launch of mine, which starts after exchange k + 1 ended here, which needed p's
 * notify of exchange k + 1, which p's launch of exchange k + 1 records only after its launch
 * of exchange k retired (one stream per communicator, as HCCL requires): by then p has read
 * my bytes of exchange k and consumed my notify. Every pair exchanges in both directions in
 * one launch (a bare notify when one side sends nothing), and both ends decide alike whether
 * it goes eager, so both count alike. */
static void eager_plan(struct emu_coll_state *st, struct hcoll_args *a)
{
    if (st->eager_len == 0)
        return;
    a->eager_off = st->eager_off;
    a->eager_len = st->eager_len;
    uint32_t eager_peers = 0;
    for (uint32_t p = 0; p < st->res.size; p++) {
        if (!pairs_with(st, a, p))
            continue;
        bool first = !hcoll_bit(st->met, p);
        set_bit(st->met, p);
        if (first || !eager_pair(st, a, p) || hcoll_bit(a->direct_mask, p))
            continue;
        set_bit(a->eager_mask, p);
        if (hcoll_bit(st->parity, p))
            set_bit(a->eager_parity, p);
        flip_bit(st->parity, p);
        eager_peers++;
    }
    /* One eager peer: the main thread, always (a thread of its own would overlap nothing). */
    a->eager_threads = eager_peers > 1 && peer_threads();
}

/* Halving-doubling launches (RHD_AG, RHD_AR): each step with one partner that fits an eager
 * slot (coll_steps.h) goes eager, on the same terms as a PAIRS exchange (not a pair's first
 * exchange, not on the user's channel): one write with notify and one wait, no ACK. The
 * parity argument above holds for them too: every exchange of a launch runs on the kernel's
 * main thread in order, so a partner records its next exchange only after it consumed the
 * previous one. A partner can come twice in a launch (halving, then doubling), so the parity
 * moves by the number of its eager steps, which both ends count alike from the same sizes.
 * Not when the time is modelled: the modelled figures are those of the card's steps. */
static void rhd_eager_plan(struct emu_coll_state *st, struct hcoll_args *a)
{
    uint32_t n = st->res.size, me = st->res.rank;
    uint8_t steps[HCOLL_MAX_RANKS] = {0}; /* eager steps per partner in this launch */
    uint64_t len = a->count * a->esz;
    struct hcoll_blocks b = hcoll_blocks_of(a->count, n, a->esz);
    uint32_t x, y;

    if (st->eager_len == 0 ||
        (a->engine != HCOLL_ENGINE_RHD_AG && a->engine != HCOLL_ENGINE_RHD_AR &&
         a->engine != HCOLL_ENGINE_RD_AR) ||
        emu_model_time_on())
        return;
    a->eager_off = st->eager_off;
    a->eager_len = st->eager_len;
    for (uint32_t mask = n / 2; mask >= 1 && a->engine == HCOLL_ENGINE_RHD_AR; mask /= 2) {
        hcoll_halving(me, mask, &x, &y);
        steps[me ^ mask] += hcoll_step_eager(hcoll_blk_len(&b, y, y + mask),
                                             hcoll_blk_len(&b, x, x + mask), a->eager_len, a->slot);
    }
    for (uint32_t mask = 1; mask < n && a->engine == HCOLL_ENGINE_RD_AR; mask *= 2)
        steps[me ^ mask] += hcoll_step_eager(len, len, a->eager_len, a->slot);
    for (uint32_t mask = 1; mask < n && (a->engine == HCOLL_ENGINE_RHD_AG ||
                                         (a->engine == HCOLL_ENGINE_RHD_AR && a->stage_len == 0));
         mask *= 2) {
        hcoll_doubling(me, mask, &x, &y);
        uint64_t sl = a->engine == HCOLL_ENGINE_RHD_AG ? mask * len
                                                       : hcoll_blk_len(&b, x, x + mask);
        uint64_t rl = a->engine == HCOLL_ENGINE_RHD_AG ? mask * len
                                                       : hcoll_blk_len(&b, y, y + mask);
        if (!hcoll_bit(a->pushed_mask, me ^ mask)) /* a pushed step is not eager */
            steps[me ^ mask] += hcoll_step_eager(sl, rl, a->eager_len, a->slot);
    }
    for (uint32_t mask = 1; mask < n; mask *= 2) {
        uint32_t p = me ^ mask;
        bool first = !hcoll_bit(st->met, p);
        set_bit(st->met, p);
        if (steps[p] == 0 || first || hcoll_bit(st->shared, p))
            continue;
        set_bit(a->eager_mask, p);
        if (hcoll_bit(st->parity, p))
            set_bit(a->eager_parity, p);
        if (steps[p] % 2 != 0)
            flip_bit(st->parity, p);
    }
}

/* Whether peer p may be read and written directly: a peer of this machine on a channel of our
 * own. */
static bool direct_peer(const struct emu_coll_state *st, uint32_t p)
{
    return !hcoll_bit(st->shared, p) && emu_comm_same_host(st->comm, p);
}

/* The pairs of a PAIRS launch that go direct: at least emu_coll_direct_min() bytes one way or
 * the other, with a peer of this machine, on a channel of our own; in a reduction only when
 * it is a reduce-scatter (`disjoint`: in a one-shot allreduce in place, peers would read what
 * I am reducing into). Both ends of a pair decide alike: they run the same operator and see
 * the same two lengths, the same settings and the same channel. */
static void direct_plan(struct emu_coll_state *st, struct hcoll_args *a)
{
    uint64_t min = emu_coll_direct_min();

    if (a->recv_mode != HCOLL_RECV_COPY && (a->recv_mode != HCOLL_RECV_REDUCE || !a->disjoint))
        return;
    a->direct_off = st->direct_off;
    for (uint32_t p = 0; p < st->res.size; p++) {
        const struct hcoll_pair *pr = &a->pairs[p];
        if (pairs_with(st, a, p) && (pr->send_len >= min || pr->recv_len >= min) &&
            direct_peer(st, p))
            set_bit(a->direct_mask, p);
    }
}

/* The steps of a recursive doubling allgather that are pushed (coll_kernel.c, "Pushed
 * steps"): with the block sizes of hcoll_pushed, those whose partner is a peer of this
 * machine on a channel of our own. Decided per pair, as direct pairs are: both ends of a step
 * see the same block length, settings and channel (a rule over all partners would not be:
 * with ranks on two hosts, a rank whose partners were all on its own host pushed to one that
 * had a partner elsewhere and did not). Those steps do not go eager (rhd_eager_plan). */
static void pushed_plan(struct emu_coll_state *st, struct hcoll_args *a)
{
    uint32_t n = st->res.size, me = st->res.rank;

    if (a->engine != HCOLL_ENGINE_RHD_AG ||
        !hcoll_pushed(n, a->count * a->esz, emu_coll_direct_min()))
        return;
    a->direct_off = st->direct_off;
    for (uint32_t mask = 1; mask < n; mask *= 2)
        if (direct_peer(st, me ^ mask))
            set_bit(a->pushed_mask, me ^ mask);
}

/* A call captured into an ACL graph is queued again with the same arguments at each
 * execution, so it cannot take part in the eager protocol, whose parity alternates from call
 * to call: it exchanges through the slots with their ACK, which carries nothing from one call
 * to the next. Every rank captures the same calls of a communicator (docs/GRAPH_CAPTURE.md),
 * so both ends of a pair decide alike. */
static bool captured(aclrtStream stream)
{
    struct emu_hstream *hs;

    return stream != NULL && emu_stream_resolve(stream, &hs) == EMU_OK &&
           emu_aclgraph_capturing(hs);
}

/* A call whose pairs may go direct (coll_direct.c): this communicator has the mailboxes and
 * the call is not being captured (a captured call is replayed with the arguments of its
 * capture; the direct protocol would do, but graphs keep the card's forms). */
bool emu_coll_direct_usable(const struct emu_coll_state *st, aclrtStream stream)
{
    return st->direct_off != 0 && !captured(stream);
}

bool emu_coll_direct_everyone(const struct emu_coll_state *st, aclrtStream stream,
                              uint64_t smallest)
{
    if (!emu_coll_direct_usable(st, stream) || smallest < emu_coll_direct_min() || smallest == 0)
        return false;
    for (uint32_t p = 0; p < st->res.size; p++)
        if (p != st->res.rank && !direct_peer(st, p))
            return false;
    return true;
}

emu_status emu_coll_launch_run(struct emu_coll_state *st, aclrtStream stream,
                               struct hcoll_args *a, const char *fn)
{
    ThreadHandle host;
    emu_status s;

    /* The user's stream as a CPU_TS thread with a "done" notify per call in flight, named in
     * the kernel. A stream the communicator wraps already with fewer notifies (HCCL's own
     * library acquires one for its operators on the user's stream) keeps them, and the
     * windows of calls on it are that many calls: growing the thread would move its notifies
     * to a new range, and HCCL's kernels, which hold the handles of the old one, would record
     * notifies nobody waits for (the hccl_test tools linked with HCCL's library, whose
     * HcclBarrier is hcemu's, hung at 2 and 8 ranks). */
    uint32_t window;
    STEP(fn, emu_thread_check_with_stream_upto(st->comm, COMM_ENGINE_CPU_TS, stream,
                                               DONE_NOTIFIES, &host, &window, fn));
    STEP(fn, emu_thread_check_export(st->comm, 1, &host, COMM_ENGINE_AICPU_TS, &a->host, fn));
    a->res = st->res_dev;
    a->res_size = sizeof(st->res);
    bool cap = captured(stream); /* one look at the stream for all four plans */
    if (!cap) {
        if (st->direct_off != 0) {
            direct_plan(st, a);
            pushed_plan(st, a);
        }
        eager_plan(st, a);
        rhd_eager_plan(st, a);
    }
    pthread_once(&overlap_once, overlap_decide);
    a->fused_waits = fused_on;
    size_t tag_len = strnlen(fn, sizeof(a->tag) - 1); /* snprintf took 700 instructions */
    memcpy(a->tag, fn, tag_len);
    a->tag[tag_len] = '\0';
    /* The kernel and the wait for its "done" reach the executor with one ring: one wake-up
     * of a sleeping worker instead of up to two. */
    emu_devctl_hold(NULL);
    s = run_wait(st, stream, a, host, window,
                 overlap_on && !cap && st->res.size <= OVERLAP_RANKS, fn);
    emu_devctl_release();
    return s;
}

emu_status emu_coll_launch_compute(struct emu_coll_state *st, aclrtStream stream,
                                   const struct hcoll_compute_args *a, const char *fn)
{
    return launch(compute_fn, stream, a, sizeof(*a), st->copy_mode, fn);
}

emu_status emu_coll_launch_notify(aclrtStream stream, const struct hcoll_thread_notify *a,
                                  bool wait, const char *fn)
{
    STEP(fn, need_image(fn));
    return launch(wait ? wait_fn : record_fn, stream, a, sizeof(*a), EMU_COPY_AUTO, fn);
}
