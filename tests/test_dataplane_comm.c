/* test_dataplane_comm.c - the HCOMM data plane end to end through the real control plane:
 * HcclGetRootInfo / HcclCommInitRootInfo, HcclThreadAcquire(AICPU_TS),
 * HcclThreadAcquireWithStream(CPU_TS), HcclThreadExportToCommEngine both ways,
 * HcclRankGraphGetLinks + HcclChannelAcquire(UB_CTP) with memHandles from HcclCommMemReg,
 * HcclChannelGetHcclBuffer, HcclChannelGetRemoteMems and engine contexts.
 *
 * Two ranks (threads of this process) run every Hcomm*OnThread data-movement call from the
 * dp_exec program kernel at lengths 1, 3, 4097 and 3 MiB + 17, checking the bytes on both
 * sides; every program starts on the host's record of the main thread's start notify and ends
 * with the kernel recording the exported host thread. Remote ranges past the peer's memory and
 * handles of a destroyed communicator are refused. A thread's tasks run by another executor
 * through the job-wide run queue fail on their own device when their range died. A
 * write-with-notify ping-pong keeps its order (through the network: run by the progress
 * threads that receive the records). The
 * docs/FLOW.md AllGather (dpc_flow.c) runs on
 * 2, 3 (twice, re-initialised on the same streams) and 8 ranks as threads, on 3 ranks as
 * processes of one job, and on 2 processes with their own job folders (devices 0/1 and 0/0),
 * several calls per tag (engine context hit path). Afterwards no file and no executor of the
 * test may remain. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hccl_res.h>
#include <hccl/hccl_res_expt.h>
#include <hcomm/hcomm_primitives.h>
#include <hcomm/hcomm_primitives_expt.h>

#include "common/contract/handle.h"
#include "kernels/dp_params.h"
#include "kernels/dpc_params.h"
#include "test_comm_util.h"

/* Paths here are short temporary folders; GCC cannot know that. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define MAXR 8
#define NT 2              /* AICPU_TS threads per rank of the 2-rank world */
#define TN 4              /* notifies per thread */
#define START (TN - 1)    /* the main thread's notify the host records */
#define CN 4              /* channel notifies */
#define RG (4u << 20)     /* one region of a buffer */
#define UBSZ (4 * RG)     /* user buffer: S, D, X, Y */
#define HBMB 16           /* HCCL_BUFFSIZE of the 2-rank world: H0..H3 */
#define REGSZ (3 * RG)    /* registered memory: G0..G2 */
#define BIG ((3u << 20) + 17u)
#define REG_TAG "dpc_registered_region"
#define FLOW_TAG "dpc_allgather"

static const uint64_t lens[] = {1, 3, 4097, BIG};
#define NLENS (sizeof(lens) / sizeof(lens[0]))

/* ---- one rank's resources --------------------------------------------------------------- */

struct rk {
    int rank; /* rank and failures by these names: CU_CHECK works on this struct */
    int n;
    int failures;
    HcclComm comm;
    aclrtStream stream;
    ThreadHandle t[NT];   /* AICPU_TS, TN notifies each */
    ThreadHandle cpu;     /* the stream as a CPU_TS thread, 2 notifies */
    ThreadHandle cpu_on_ai, t0_on_cpu;
    ChannelHandle ch[MAXR]; /* ch[p]: to peer p */
    uint8_t *hb, *ub, *reg;
    uint64_t hb_size;
    HcclMemHandle regh;
    uint8_t *peer_hb[MAXR], *peer_reg[MAXR];
    uint64_t peer_hb_size[MAXR], peer_reg_size[MAXR];
    uint32_t remote_mems[MAXR];
    void *flow_ctx; /* the AICPU_TS engine context of the first flow call */
};

struct world {
    int n;
    bool full; /* threads, channels, buffers and registration for the dp_exec programs */
    HcclRootInfo root;
    struct rk r[MAXR];
};

#define CHECK(k, cond) CU_CHECK(k, cond)

static char tmp[256];
static char self[CU_PATH];
static char log_path[CU_PATH];
static int log_fd = -1, saved_stderr = -1;
static aclrtBinHandle bin;
static aclrtFuncHandle exec_fn, flow_fn;
static struct world W; /* the 2-rank world */
static int flow_protocol = COMM_PROTOCOL_UB_CTP; /* -1: the first link of any protocol */

static uint8_t *U8(uint64_t a)
{
    return (uint8_t *)(uintptr_t)a;
}

static uint64_t A(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* ---- the captured log ------------------------------------------------------------------- */

static long log_mark(void)
{
    fflush(stderr);
    return lseek(log_fd, 0, SEEK_END);
}

static char *log_since(long mark)
{
    long end = log_mark();
    char *buf = calloc(1, (size_t)(end - mark) + 1);

    if (end > mark && pread(log_fd, buf, (size_t)(end - mark), mark) < 0)
        buf[0] = '\0';
    return buf;
}

static int log_count(long mark, const char *needle)
{
    char *buf = log_since(mark);
    int n = 0;

    for (char *line = strtok(buf, "\n"); line != NULL; line = strtok(NULL, "\n"))
        n += strstr(line, needle) != NULL;
    free(buf);
    return n;
}

/* ---- device memory ---------------------------------------------------------------------- */

static uint8_t pat(uint32_t seed, uint64_t i)
{
    return (uint8_t)(seed * 37u + i * 131u + (i >> 9) + 1u);
}

/* Initial content of a prepared region: zeros (seed 0) or the seed's pattern. */
static uint8_t init_byte(uint32_t seed, uint64_t i)
{
    return seed != 0 ? pat(seed, i) : 0;
}

static void use(int dev)
{
    assert_int_equal(aclrtSetDevice(dev), ACL_SUCCESS);
}

static void put(void *dev, const void *host, size_t n)
{
    assert_int_equal(aclrtMemcpy(dev, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
}

static void get(void *host, const void *dev, size_t n)
{
    assert_int_equal(aclrtMemcpy(host, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
}

/* Fill len + 1 bytes (the one past the end is the sentinel) with the seed's content. */
static void prep(uint8_t *dev, uint64_t len, uint32_t seed)
{
    uint8_t *h = malloc(len + 1);

    for (uint64_t i = 0; i <= len; i++)
        h[i] = init_byte(seed, i);
    put(dev, h, len + 1);
    free(h);
}

/* The region started as `init` and received `src`'s pattern (copied, or INT8-summed when
 * `reduce`) in [0, len); the byte at len still holds `sentinel`'s content. */
static void expect_ex(const uint8_t *dev, uint64_t len, uint32_t init, uint32_t src, bool reduce,
                      uint32_t sentinel, const char *what)
{
    uint8_t *h = malloc(len + 1);

    get(h, dev, len + 1);
    for (uint64_t i = 0; i <= len; i++) {
        uint8_t want = i == len  ? init_byte(sentinel, i)
                       : reduce ? (uint8_t)(init_byte(init, i) + pat(src, i))
                                : pat(src, i);
        if (h[i] != want) {
            uint8_t got = h[i];
            free(h);
            fail_msg("%s, len %llu: byte %llu is 0x%02x, want 0x%02x", what,
                     (unsigned long long)len, (unsigned long long)i, got, want);
        }
    }
    free(h);
}

static void expect(const uint8_t *dev, uint64_t len, uint32_t init, uint32_t src, bool reduce,
                   const char *what)
{
    expect_ex(dev, len, init, src, reduce, init, what);
}

/* ---- programs of the dp_exec kernel ----------------------------------------------------- */

struct prog {
    struct dp_op ops[64];
    int32_t want[64];
    uint32_t n;
};

static struct dp_op *op(struct prog *p, uint32_t fn, uint64_t thread, int32_t want)
{
    assert_true(p->n < 64);
    struct dp_op *o = &p->ops[p->n];
    memset(o, 0, sizeof(*o));
    o->fn = fn;
    o->thread = thread;
    p->want[p->n++] = want;
    return o;
}

/* A remote or local transfer: other = channel (0 for local ops). */
static struct dp_op *xfer(struct prog *p, uint32_t fn, uint64_t t, uint64_t ch, const void *dst,
                          const void *src, uint64_t n, uint32_t idx, int32_t want)
{
    struct dp_op *o = op(p, fn, t, want);
    o->other = ch, o->dst = A(dst), o->src = A(src), o->n = n, o->idx = idx;
    o->dtype = HCOMM_DATA_TYPE_INT8, o->rop = HCOMM_REDUCE_SUM, o->timeout = 10;
    return o;
}

static void trec(struct prog *p, uint64_t t, uint64_t dst, uint32_t idx)
{
    op(p, DPF_TREC, t, 0)->other = dst, p->ops[p->n - 1].idx = idx;
}

static void twait(struct prog *p, uint64_t t, uint32_t idx)
{
    struct dp_op *o = op(p, DPF_TWAIT, t, 0);
    o->idx = idx, o->timeout = 10;
}

static void cwait(struct prog *p, uint64_t t, uint64_t ch, uint32_t idx)
{
    struct dp_op *o = op(p, DPF_CWAIT, t, 0);
    o->other = ch, o->idx = idx, o->timeout = 10;
}

/* Every program starts with the main thread waiting for the host's start record. */
static void prog_init(struct prog *p, const struct rk *k)
{
    p->n = 0;
    twait(p, k->t[0], START);
}

#define NOT_RUN ((int32_t)0x7eadbeef) /* the return value of an op the kernel did not run */

/* Launch rank k's program p the docs/FLOW.md way: the host stream records the main thread's
 * start notify through the exported handle, launches dp_exec, then waits for notify 0 of its
 * CPU_TS thread, which the program's last op records through the exported host thread. The
 * joins of every thread expect join_want[j]. Returns the program's device block. */
static void *prog_launch(struct rk *k, struct prog *p, const int32_t join_want[NT])
{
    void *blk = NULL;

    for (int j = 0; j < NT; j++)
        op(p, DPF_JOIN, k->t[j], join_want[j])->timeout = 20;
    trec(p, k->t[0], k->cpu_on_ai, 0);
    size_t bytes = sizeof(struct dp_args) + p->n * (sizeof(struct dp_op) + sizeof(int32_t));
    uint8_t *host = calloc(1, bytes);
    use(k->rank);
    assert_int_equal(aclrtMalloc(&blk, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    struct dp_args *a = (struct dp_args *)host;
    a->ops = A(blk) + sizeof(*a);
    a->rets = a->ops + p->n * sizeof(struct dp_op);
    a->nops = p->n;
    memcpy(host + sizeof(*a), p->ops, p->n * sizeof(struct dp_op));
    for (uint32_t i = 0; i < p->n; i++) /* not run yet: see prog_check */
        memcpy(host + sizeof(*a) + p->n * sizeof(struct dp_op) + i * sizeof(int32_t),
               &(int32_t){NOT_RUN}, sizeof(int32_t));
    put(blk, host, bytes);
    free(host);
    assert_int_equal(HcommThreadNotifyRecordOnThread(k->cpu, k->t0_on_cpu, START), 0);
    assert_int_equal(aclrtLaunchKernel(exec_fn, 1, blk, sizeof(struct dp_args), k->stream),
                     ACL_SUCCESS);
    assert_int_equal(HcommThreadNotifyWaitOnThread(k->cpu, 0, 30), 0);
    return blk;
}

/* Synchronise rank k's stream (expecting sync_want), free the block and check every op's
 * return value; leaves p as it was before prog_launch. */
static void prog_check(struct rk *k, struct prog *p, void *blk, int sync_want)
{
    int32_t rets[64];

    use(k->rank);
    assert_int_equal(aclrtSynchronizeStream(k->stream), sync_want);
    /* A failed thread fails the host stream at once, while the kernel may still be running
     * (in a join): wait for its last op's return value. */
    for (int i = 0; i < 20000; i++) {
        get(rets, U8(A(blk) + sizeof(struct dp_args) + p->n * sizeof(struct dp_op)),
            p->n * sizeof(int32_t));
        if (rets[p->n - 1] != NOT_RUN)
            break;
        usleep(1000);
    }
    assert_int_equal(aclrtFree(blk), ACL_SUCCESS);
    for (uint32_t i = 0; i < p->n; i++)
        if (rets[i] != p->want[i])
            fail_msg("rank %d op %u (fn %u) returned %d, want %d", k->rank, i, p->ops[i].fn,
                     rets[i], p->want[i]);
    p->n -= NT + 1; /* the joins and the done record */
}

/* Launch each rank's program (NULL: none), then synchronise and check every op's return. */
static void run(struct world *w, struct prog **ps)
{
    static const int32_t joins_ok[NT];
    void *blk[MAXR] = {0};

    for (int r = 0; r < w->n; r++)
        if (ps[r] != NULL)
            blk[r] = prog_launch(&w->r[r], ps[r], joins_ok);
    for (int r = 0; r < w->n; r++)
        if (ps[r] != NULL)
            prog_check(&w->r[r], ps[r], blk[r], ACL_SUCCESS);
}

/* ---- ranks as threads ------------------------------------------------------------------- */

typedef void (*rank_fn)(struct rk *k, void *arg);

struct job {
    struct rk *k;
    rank_fn fn;
    void *arg;
};

static void *job_main(void *p)
{
    struct job *j = p;

    if (aclrtSetDevice(j->k->rank) != ACL_SUCCESS)
        j->k->failures++;
    else
        j->fn(j->k, j->arg);
    return NULL;
}

/* Run fn on every rank of w, each on its own OS thread, and fail on any failed check. */
static void on_ranks(struct world *w, rank_fn fn, void *arg)
{
    pthread_t tid[MAXR];
    struct job j[MAXR];

    for (int r = 0; r < w->n; r++) {
        w->r[r].failures = 0;
        j[r] = (struct job){&w->r[r], fn, arg};
        assert_int_equal(pthread_create(&tid[r], NULL, job_main, &j[r]), 0);
    }
    for (int r = 0; r < w->n; r++)
        pthread_join(tid[r], NULL);
    for (int r = 0; r < w->n; r++)
        if (w->r[r].failures != 0)
            fail_msg("rank %d of %d: %d checks failed (see the log)", r, w->n,
                     w->r[r].failures);
}

/* docs/FLOW.md §2.6.1-2 plus the registered region in memHandles; then the acquire and the
 * peers' memories. */
static void rank_channels(struct rk *k)
{
    HcclChannelDesc d[MAXR];
    ChannelHandle h[MAXR];
    uint32_t peers[MAXR], np = 0;

    memset(d, 0, sizeof(d));
    for (int p = 0; p < k->n; p++) {
        if (p == k->rank)
            continue;
        /* Any protocol: UB_CTP inside a server; between hosts (HCEMU_HOST_SPLIT) the ranks
         * are on different servers, linked by layer 1's UBoE. */
        CHECK(k, cu_desc_to(k->comm, (uint32_t)k->rank, (uint32_t)p, -1, CN, &d[np]) ==
                     HCCL_SUCCESS);
        d[np].memHandles = &k->regh;
        d[np].memHandleNum = 1;
        peers[np++] = (uint32_t)p;
    }
    CHECK(k, HcclChannelAcquire(k->comm, COMM_ENGINE_AICPU_TS, d, np, h) == HCCL_SUCCESS);
    for (uint32_t i = 0; i < np; i++) {
        uint32_t p = peers[i], num = 0;
        CommMem *mems = NULL;
        char **tags = NULL;
        void *buf = NULL;
        k->ch[p] = h[i];
        CHECK(k, HcclChannelGetHcclBuffer(k->comm, h[i], &buf, &k->peer_hb_size[p]) == 0);
        k->peer_hb[p] = buf;
        CHECK(k, k->peer_hb_size[p] == (uint64_t)HBMB << 20);
        CHECK(k, HcclChannelGetRemoteMems(k->comm, h[i], &num, &mems, &tags) == 0);
        k->remote_mems[p] = num;
        for (uint32_t m = 0; m < num; m++) {
            if (strcmp(tags[m], "HcclBuffer") == 0)
                CHECK(k, mems[m].addr == buf && mems[m].size == k->peer_hb_size[p]);
            if (strcmp(tags[m], REG_TAG) == 0) {
                k->peer_reg[p] = mems[m].addr;
                k->peer_reg_size[p] = mems[m].size;
            }
        }
        CHECK(k, num == 2 && k->peer_reg[p] != NULL && k->peer_reg_size[p] == REGSZ);
    }
}

static void rank_up(struct rk *k, void *arg)
{
    struct world *w = arg;

    CHECK(k, HcclCommInitRootInfo((uint32_t)w->n, &w->root, (uint32_t)k->rank, &k->comm) ==
                 HCCL_SUCCESS);
    if (k->stream == NULL)
        CHECK(k, aclrtCreateStream(&k->stream) == ACL_SUCCESS);
    if (k->failures != 0 || !w->full)
        return;
    void *hb = NULL;
    CHECK(k, HcclGetHcclBuffer(k->comm, &hb, &k->hb_size) == 0 &&
                 k->hb_size == (uint64_t)HBMB << 20);
    k->hb = hb;
    CHECK(k, HcclThreadAcquire(k->comm, COMM_ENGINE_AICPU_TS, NT, TN, k->t) == 0);
    CHECK(k, HcclThreadAcquireWithStream(k->comm, COMM_ENGINE_CPU_TS, k->stream, 2, &k->cpu) == 0);
    CHECK(k, HcclThreadExportToCommEngine(k->comm, 1, &k->cpu, COMM_ENGINE_AICPU_TS,
                                          &k->cpu_on_ai) == 0);
    CHECK(k, HcclThreadExportToCommEngine(k->comm, 1, &k->t[0], COMM_ENGINE_CPU_TS,
                                          &k->t0_on_cpu) == 0);
    CHECK(k, aclrtMalloc((void **)&k->ub, UBSZ, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
    CHECK(k, aclrtMalloc((void **)&k->reg, REGSZ, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
    CommMem m = {COMM_MEM_TYPE_DEVICE, k->reg, REGSZ};
    CHECK(k, HcclCommMemReg(k->comm, REG_TAG, &m, &k->regh) == 0);
    if (k->failures == 0)
        rank_channels(k);
}

/* arg non-NULL: keep the stream (it outlives the communicator, as users' streams do). */
static void rank_down(struct rk *k, void *arg)
{
    if (k->comm != NULL) /* a test may have destroyed it already */
        CHECK(k, HcclCommDestroy(k->comm) == HCCL_SUCCESS);
    k->comm = NULL;
    if (arg != NULL)
        return;
    CHECK(k, aclrtDestroyStream(k->stream) == ACL_SUCCESS);
    if (k->ub != NULL)
        CHECK(k, aclrtFree(k->ub) == ACL_SUCCESS);
    if (k->reg != NULL)
        CHECK(k, aclrtFree(k->reg) == ACL_SUCCESS);
}

/* n ranks as threads on devices 0..n-1, every rank calling HcclCommInitRootInfo. */
static void world_up(struct world *w, int n, bool full, int buff_mb)
{
    char mb[16];

    memset(w, 0, sizeof(*w));
    w->n = n;
    w->full = full;
    for (int r = 0; r < n; r++)
        w->r[r].rank = r, w->r[r].n = n;
    snprintf(mb, sizeof(mb), "%d", buff_mb);
    setenv("HCCL_BUFFSIZE", mb, 1); /* read by HcclCommInitRootInfo */
    use(0);
    assert_int_equal(HcclGetRootInfo(&w->root), HCCL_SUCCESS);
    on_ranks(w, rank_up, w);
}

/* Destroy every communicator of a thread-only world and make new ones on the same streams. */
static void world_reinit(struct world *w)
{
    assert_false(w->full);
    on_ranks(w, rank_down, w);
    use(0);
    assert_int_equal(HcclGetRootInfo(&w->root), HCCL_SUCCESS);
    on_ranks(w, rank_up, w);
}

static void world_down(struct world *w)
{
    if (w->n > 0)
        on_ranks(w, rank_down, NULL);
    w->n = 0;
}

/* ---- the docs/FLOW.md operator (dpc_flow.c) -------------------------------------------------- */

struct host_cache {
    ThreadHandle main_thread;
    uint32_t start_idx;
};

/* docs/FLOW.md §2.4-2.8, the engine-context miss. */
static void flow_build(struct rk *k, struct dpc_param *p, ThreadHandle *main_on_cpu)
{
    static _Thread_local struct dpc_res res;
    HcclChannelDesc d[MAXR];
    ChannelHandle h[MAXR];
    void *buf = NULL, *dev_ctx = NULL, *host_ctx = NULL;
    uint32_t np = 0;

    memset(&res, 0, sizeof(res));
    memset(d, 0, sizeof(d));
    CHECK(k, HcclGetHcclBuffer(k->comm, &buf, &res.hccl_size) == 0);
    res.hccl_buf = A(buf);
    res.thread_num = (uint32_t)k->n - 1;
    res.start_idx = res.thread_num - 1;
    CHECK(k, HcclThreadAcquire(k->comm, COMM_ENGINE_AICPU_TS, res.thread_num, res.thread_num,
                               (ThreadHandle *)res.threads) == 0);
    for (int q = 0; q < k->n; q++) {
        if (q == k->rank)
            continue;
        CHECK(k, cu_desc_to(k->comm, (uint32_t)k->rank, (uint32_t)q, flow_protocol, CN, &d[np]) ==
                     0);
        res.chans[np++].peer_rank = (uint32_t)q;
    }
    CHECK(k, HcclChannelAcquire(k->comm, COMM_ENGINE_AICPU_TS, d, np, h) == 0);
    for (uint32_t i = 0; i < np; i++) {
        struct dpc_chan *c = &res.chans[i];
        void *pb = NULL;
        c->handle = h[i];
        /* An existing channel of the same (engine, peer, protocol) is returned as is. */
        if (k->ch[c->peer_rank] != 0)
            CHECK(k, c->handle == k->ch[c->peer_rank]);
        CHECK(k, HcclChannelGetHcclBuffer(k->comm, h[i], &pb, &c->peer_size) == 0);
        c->peer_buf = A(pb);
    }
    CHECK(k, HcclThreadExportToCommEngine(k->comm, 1, (ThreadHandle *)&res.threads[0],
                                          COMM_ENGINE_CPU_TS, main_on_cpu) == 0);
    CHECK(k, HcclEngineCtxCreate(k->comm, FLOW_TAG, COMM_ENGINE_AICPU_TS, sizeof(res), &dev_ctx) ==
                 0);
    CHECK(k, HcclEngineCtxCopy(k->comm, COMM_ENGINE_AICPU_TS, FLOW_TAG, &res, sizeof(res), 0) == 0);
    CHECK(k, HcclEngineCtxCreate(k->comm, FLOW_TAG, COMM_ENGINE_CPU_TS, sizeof(struct host_cache),
                                 &host_ctx) == 0);
    if (host_ctx != NULL) {
        struct host_cache *hc = host_ctx;
        hc->main_thread = res.threads[0];
        hc->start_idx = res.start_idx;
    }
    k->flow_ctx = dev_ctx;
    p->ctx = A(dev_ctx);
    p->ctx_size = sizeof(res);
    p->start_idx = res.start_idx;
}

static void flow_launch(struct rk *k, const struct dpc_param *p, ThreadHandle host_thread,
                        ThreadHandle main_on_cpu)
{
    aclrtArgsHandle args;
    aclrtParamHandle ph;
    aclrtLaunchKernelAttr attr = {.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT};
    attr.value.timeout = 60;
    aclrtLaunchKernelCfg cfg = {.attrs = &attr, .numAttrs = 1};

    /* docs/FLOW.md §2.10-2.12: start record, launch, done wait, all on the host stream. */
    CHECK(k, HcommThreadNotifyRecordOnThread(host_thread, main_on_cpu, p->start_idx) == 0);
    CHECK(k, aclrtKernelArgsInit(flow_fn, &args) == ACL_SUCCESS);
    CHECK(k, aclrtKernelArgsAppend(args, (void *)p, sizeof(*p), &ph) == ACL_SUCCESS);
    CHECK(k, aclrtKernelArgsFinalize(args) == ACL_SUCCESS);
    CHECK(k, aclrtLaunchKernelWithConfig(flow_fn, 1, k->stream, &cfg, args, NULL) == ACL_SUCCESS);
    CHECK(k, HcommThreadNotifyWaitOnThread(host_thread, 0, 30) == 0);
}

/* One operator call (docs/FLOW.md §2) of `bytes` per rank; call 0 misses the engine context, later
 * calls hit it. Checks the gathered output. */
static void flow_call(struct rk *k, uint32_t variant, uint64_t bytes, uint32_t call)
{
    struct dpc_param p;
    ThreadHandle host_thread = 0, main_on_cpu = 0;
    void *ctx = NULL, *in = NULL, *out = NULL;
    uint64_t size = 0, total = bytes * (uint64_t)k->n;

    memset(&p, 0, sizeof(p));
    snprintf(p.tag, sizeof(p.tag), "%s", FLOW_TAG);
    p.rank = (uint32_t)k->rank;
    p.rank_size = (uint32_t)k->n;
    p.variant = variant;
    p.bytes = bytes;
    /* FLOW.md §2.2: the host thread, every call; the same stream gives the same thread. */
    CHECK(k, HcclThreadAcquireWithStream(k->comm, COMM_ENGINE_CPU_TS, k->stream, 1,
                                         &host_thread) == 0);
    if (k->cpu != 0)
        CHECK(k, host_thread == k->cpu);
    CHECK(k, HcclThreadExportToCommEngine(k->comm, 1, &host_thread, COMM_ENGINE_AICPU_TS,
                                          &p.host_thread) == 0);
    /* FLOW.md §2.3: miss on the first call only. */
    HcclResult rc = HcclEngineCtxGet(k->comm, FLOW_TAG, COMM_ENGINE_AICPU_TS, &ctx, &size);
    CHECK(k, rc == (call == 0 ? HCCL_E_NOT_FOUND : HCCL_SUCCESS));
    if (rc == HCCL_E_NOT_FOUND) {
        flow_build(k, &p, &main_on_cpu);
    } else {
        void *hc = NULL;
        uint64_t hs = 0;
        CHECK(k, ctx == k->flow_ctx && size == sizeof(struct dpc_res));
        CHECK(k, HcclEngineCtxGet(k->comm, FLOW_TAG, COMM_ENGINE_CPU_TS, &hc, &hs) == 0 &&
                     hs == sizeof(struct host_cache));
        if (hc == NULL)
            return;
        const struct host_cache *cache = hc;
        CHECK(k, HcclThreadExportToCommEngine(k->comm, 1, &cache->main_thread, COMM_ENGINE_CPU_TS,
                                              &main_on_cpu) == 0);
        p.ctx = A(ctx);
        p.ctx_size = size;
        p.start_idx = cache->start_idx;
    }
    if (k->failures != 0)
        return;
    uint8_t *h = malloc(total + 1);
    for (uint64_t i = 0; i < bytes; i++)
        h[i] = pat(50 + call * 8 + (uint32_t)k->rank, i);
    CHECK(k, aclrtMalloc(&in, bytes, ACL_MEM_MALLOC_HUGE_ONLY) == 0);
    CHECK(k, aclrtMalloc(&out, total + 1, ACL_MEM_MALLOC_HUGE_ONLY) == 0);
    CHECK(k, aclrtMemcpy(in, bytes, h, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    CHECK(k, aclrtMemset(out, total + 1, 0xA5, total + 1) == 0);
    p.input = A(in);
    p.output = A(out);
    flow_launch(k, &p, host_thread, main_on_cpu);
    CHECK(k, aclrtSynchronizeStream(k->stream) == ACL_SUCCESS);
    CHECK(k, aclrtMemcpy(h, total + 1, out, total + 1, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    uint64_t wrong = 0, first = 0;
    for (uint64_t i = 0; i <= total; i++) {
        uint8_t want = i == total ? 0xA5 : pat(50 + call * 8 + (uint32_t)(i / bytes), i % bytes);
        if (h[i] != want && wrong++ == 0)
            first = i;
    }
    if (wrong != 0)
        fprintf(stderr, "rank %d call %u (variant %u, %llu bytes): %llu bytes wrong, first %llu\n",
                k->rank, call, variant, (unsigned long long)bytes, (unsigned long long)wrong,
                (unsigned long long)first);
    CHECK(k, wrong == 0);
    free(h);
    CHECK(k, aclrtFree(in) == 0 && aclrtFree(out) == 0);
}

struct flow_plan {
    uint32_t calls;
    uint32_t variant[4];
    uint64_t bytes[4];
};

static void flow_calls(struct rk *k, void *arg)
{
    const struct flow_plan *plan = arg;

    k->flow_ctx = NULL;
    for (uint32_t c = 0; c < plan->calls && k->failures == 0; c++)
        flow_call(k, plan->variant[c], plan->bytes[c], c);
}

/* ---- tests: 2 ranks, dp_exec programs ---------------------------------------------------- */

/* Region helpers of rank k: user buffer S/D/X/Y, HCCL buffer H0..H3, registered G0..G2. */
#define S(k) ((k)->ub)
#define D(k) ((k)->ub + RG)
#define X(k) ((k)->ub + 2 * RG)
#define Y(k) ((k)->ub + 3 * RG)
#define H(k, i) ((k)->hb + (i) * RG)
#define G(k, i) ((k)->reg + (i) * RG)
#define PH(k, q, i) ((k)->peer_hb[q] + (i) * RG)  /* peer q's H_i through k's channel */
#define PG(k, q, i) ((k)->peer_reg[q] + (i) * RG) /* peer q's G_i through k's channel */
#define SEED(role, r) ((uint32_t)(role) * 4u + (uint32_t)(r) + 1u)

static void control_plane_resources_are_consistent(void **state)
{
    (void)state;
    for (int r = 0; r < 2; r++) {
        struct rk *k = &W.r[r];
        int q = 1 - r;
        assert_int_equal(k->remote_mems[q], 2);
        /* What a channel reaches on my side is what the peer sees of me. */
        assert_ptr_equal(W.r[q].peer_hb[r], k->hb);
        assert_ptr_equal(W.r[q].peer_reg[r], k->reg);
        assert_int_not_equal(k->t[0], k->t[1]);
        assert_int_not_equal(k->t0_on_cpu, k->t[0]);
        assert_int_not_equal(k->cpu_on_ai, k->cpu);
    }
}

static void local_copy_and_reduce_move_exact_bytes(void **state)
{
    static struct prog p[2];
    (void)state;

    for (size_t li = 0; li < NLENS; li++) {
        uint64_t len = lens[li];
        for (int r = 0; r < 2; r++) {
            struct rk *k = &W.r[r];
            use(r);
            prep(S(k), len, SEED(1, r));
            prep(D(k), len, 0);
            prep(X(k), len, SEED(2, r));
            prog_init(&p[r], k);
            xfer(&p[r], DPF_COPY, k->t[0], 0, D(k), S(k), len, 0, 0);
            xfer(&p[r], DPF_REDUCE, k->t[1], 0, X(k), S(k), len, 0, 0);
        }
        run(&W, (struct prog *[]){&p[0], &p[1]});
        for (int r = 0; r < 2; r++) {
            use(r);
            expect(D(&W.r[r]), len, 0, SEED(1, r), false, "local copy");
            expect(X(&W.r[r]), len, SEED(2, r), SEED(1, r), true, "local reduce");
        }
    }
}

static void write_read_and_reduce_forms_reach_hccl_buffer_and_registered_memory(void **state)
{
    static struct prog p[2];
    (void)state;

    for (size_t li = 0; li < NLENS; li++) {
        uint64_t len = lens[li];
        for (int r = 0; r < 2; r++) {
            struct rk *k = &W.r[r];
            int q = 1 - r;
            use(r);
            prep(S(k), len, SEED(1, r));
            prep(D(k), len, 0);
            prep(X(k), len, SEED(2, r));
            prep(H(k, 0), len, 0);
            prep(H(k, 1), len, SEED(3, r));
            prep(G(k, 0), len, SEED(4, r));
            prep(G(k, 1), len, SEED(5, r));
            prog_init(&p[r], k);
            xfer(&p[r], DPF_WRITE, k->t[0], k->ch[q], PH(k, q, 0), S(k), len, 0, 0);
            xfer(&p[r], DPF_WRITE_REDUCE, k->t[0], k->ch[q], PG(k, q, 0), S(k), len, 0, 0);
            xfer(&p[r], DPF_READ, k->t[1], k->ch[q], D(k), PH(k, q, 1), len, 0, 0);
            xfer(&p[r], DPF_READ_REDUCE, k->t[1], k->ch[q], X(k), PG(k, q, 1), len, 0, 0);
        }
        run(&W, (struct prog *[]){&p[0], &p[1]});
        for (int r = 0; r < 2; r++) {
            struct rk *k = &W.r[r];
            int q = 1 - r;
            use(r);
            expect(H(k, 0), len, 0, SEED(1, q), false, "write into the HCCL buffer");
            expect(G(k, 0), len, SEED(4, r), SEED(1, q), true, "write-reduce into registered");
            expect(D(k), len, 0, SEED(3, q), false, "read of the peer's HCCL buffer");
            expect(X(k), len, SEED(2, r), SEED(5, q), true, "read-reduce of peer registered");
        }
    }
}

static void with_notify_writes_land_before_their_notify(void **state)
{
    static struct prog p[2];
    (void)state;

    for (size_t li = 0; li < NLENS; li++) {
        uint64_t len = lens[li];
        for (int r = 0; r < 2; r++) {
            struct rk *k = &W.r[r];
            int q = 1 - r;
            use(r);
            prep(S(k), len, SEED(1, r));
            prep(D(k), len, 0);
            prep(X(k), len, 0);
            prep(H(k, 2), len, 0);
            prep(G(k, 2), len, SEED(6, r));
            prog_init(&p[r], k);
            /* Each side pushes, then waits for the peer's push and copies what landed: the
             * copy runs right after the notify, so the data must already be there. */
            xfer(&p[r], DPF_WRITE_NOTIFY, k->t[0], k->ch[q], PH(k, q, 2), S(k), len, 1, 0);
            cwait(&p[r], k->t[0], k->ch[q], 1);
            xfer(&p[r], DPF_COPY, k->t[0], 0, D(k), H(k, 2), len, 0, 0);
            xfer(&p[r], DPF_WRITE_REDUCE_NOTIFY, k->t[1], k->ch[q], PG(k, q, 2), S(k), len, 2, 0);
            cwait(&p[r], k->t[1], k->ch[q], 2);
            xfer(&p[r], DPF_COPY, k->t[1], 0, X(k), G(k, 2), len, 0, 0);
        }
        run(&W, (struct prog *[]){&p[0], &p[1]});
        for (int r = 0; r < 2; r++) {
            struct rk *k = &W.r[r];
            int q = 1 - r;
            use(r);
            expect(D(k), len, 0, SEED(1, q), false, "copy after write-with-notify");
            expect(G(k, 2), len, SEED(6, r), SEED(1, q), true, "write-reduce-with-notify");
            expect_ex(X(k), len, SEED(6, r), SEED(1, q), true, 0, "copy after the reduce notify");
        }
    }
}

static void batch_transfer_runs_every_transfer_type(void **state)
{
    static struct prog p[2];
    (void)state;

    for (size_t li = 0; li < NLENS; li++) {
        uint64_t len = lens[li];
        for (int r = 0; r < 2; r++) {
            struct rk *k = &W.r[r];
            int q = 1 - r;
            HcommBatchTransferDesc d[7];
            use(r);
            prep(S(k), len, SEED(1, r));
            prep(D(k), len, 0);
            prep(X(k), len, SEED(2, r));
            prep(H(k, 0), len, 0);
            prep(H(k, 1), len, SEED(3, r));
            prep(H(k, 2), len, 0);
            prep(G(k, 0), len, SEED(4, r));
            prep(G(k, 1), len, SEED(5, r));
            prep(G(k, 2), len, SEED(6, r));
            memset(d, 0, sizeof(d));
            d[0].transType = HCOMM_TRANSFER_TYPE_WRITE;
            d[0].transferInfo.write.len = len;
            d[0].transferInfo.write.dst = PH(k, q, 0);
            d[0].transferInfo.write.src = S(k);
            d[1].transType = HCOMM_TRANSFER_TYPE_WRITE_REDUCE;
            d[1].transferInfo.reduce.count = len;
            d[1].transferInfo.reduce.dst = PG(k, q, 0);
            d[1].transferInfo.reduce.src = S(k);
            d[1].transferInfo.reduce.reduceOp = HCOMM_REDUCE_SUM;
            d[1].transferInfo.reduce.dataType = HCOMM_DATA_TYPE_INT8;
            d[2].transType = HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY;
            d[2].transferInfo.writeWithNotify.len = len;
            d[2].transferInfo.writeWithNotify.dst = PH(k, q, 2);
            d[2].transferInfo.writeWithNotify.src = S(k);
            d[2].transferInfo.writeWithNotify.notifyIdx = 1;
            d[3].transType = HCOMM_TRANSFER_TYPE_WRITE_REDUCE_WITH_NOTIFY;
            d[3].transferInfo.writeReduceWithNotify.count = len;
            d[3].transferInfo.writeReduceWithNotify.dst = PG(k, q, 2);
            d[3].transferInfo.writeReduceWithNotify.src = S(k);
            d[3].transferInfo.writeReduceWithNotify.reduceOp = HCOMM_REDUCE_SUM;
            d[3].transferInfo.writeReduceWithNotify.dataType = HCOMM_DATA_TYPE_INT8;
            d[3].transferInfo.writeReduceWithNotify.notifyIdx = 2;
            d[4].transType = HCOMM_TRANSFER_TYPE_READ;
            d[4].transferInfo.read.len = len;
            d[4].transferInfo.read.dst = D(k);
            d[4].transferInfo.read.src = PH(k, q, 1);
            d[5].transType = HCOMM_TRANSFER_TYPE_READ_REDUCE;
            d[5].transferInfo.reduce.count = len;
            d[5].transferInfo.reduce.dst = X(k);
            d[5].transferInfo.reduce.src = PG(k, q, 1);
            d[5].transferInfo.reduce.reduceOp = HCOMM_REDUCE_SUM;
            d[5].transferInfo.reduce.dataType = HCOMM_DATA_TYPE_INT8;
            d[6].transType = HCOMM_TRANSFER_TYPE_NOTIFY_RECORD;
            d[6].transferInfo.notifyRecord.notifyIdx = 3;
            put(Y(k), d, sizeof(d));
            prog_init(&p[r], k);
            struct dp_op *o = op(&p[r], DPF_BATCH, k->t[0], 0);
            o->other = k->ch[q], o->aux = A(Y(k)), o->n = 7;
            for (uint32_t idx = 1; idx <= 3; idx++)
                cwait(&p[r], k->t[0], k->ch[q], idx);
        }
        run(&W, (struct prog *[]){&p[0], &p[1]});
        for (int r = 0; r < 2; r++) {
            struct rk *k = &W.r[r];
            int q = 1 - r;
            use(r);
            expect(H(k, 0), len, 0, SEED(1, q), false, "batch WRITE");
            expect(G(k, 0), len, SEED(4, r), SEED(1, q), true, "batch WRITE_REDUCE");
            expect(H(k, 2), len, 0, SEED(1, q), false, "batch WRITE_WITH_NOTIFY");
            expect(G(k, 2), len, SEED(6, r), SEED(1, q), true, "batch WRITE_REDUCE_WITH_NOTIFY");
            expect(D(k), len, 0, SEED(3, q), false, "batch READ");
            expect(X(k), len, SEED(2, r), SEED(5, q), true, "batch READ_REDUCE");
        }
    }
}

/* The first 32-bit word of a region holding `seed`'s pattern in [0, len) and zeros after. */
static int32_t word(uint32_t seed, uint64_t len)
{
    uint8_t b[4];
    int32_t w;

    for (uint64_t i = 0; i < 4; i++)
        b[i] = i < len ? pat(seed, i) : 0;
    memcpy(&w, b, 4);
    return w;
}

static void notifies_fence_drain_and_join_order_work_across_threads_and_ranks(void **state)
{
    static struct prog p[2];
    (void)state;

    for (size_t li = 0; li < NLENS; li++) {
        uint64_t len = lens[li];
        for (int r = 0; r < 2; r++) {
            struct rk *k = &W.r[r];
            int q = 1 - r;
            ChannelHandle ch = k->ch[q];
            use(r);
            prep(S(k), len, SEED(1, r));
            prep(D(k), len, 0);
            prep(X(k), len + 8, 0);
            prep(Y(k), len + 8, 0);
            prep(H(k, 0), len, 0);
            prep(H(k, 1), len, SEED(3, r));
            prog_init(&p[r], k);
            op(&p[r], DPF_SET_WAIT, 0, 0)->ftimeout = 15.0f;
            xfer(&p[r], DPF_COPY, k->t[1], 0, D(k), S(k), len, 0, 0);
            trec(&p[r], k->t[1], k->t[0], 0);
            twait(&p[r], k->t[0], 0);
            xfer(&p[r], DPF_WRITE, k->t[0], ch, PH(k, q, 0), D(k), len, 0, 0);
            op(&p[r], DPF_CFENCE_T, k->t[0], 0)->other = ch;
            op(&p[r], DPF_CREC, k->t[0], 0)->other = ch;
            op(&p[r], DPF_CWAIT_DEF, k->t[0], 0)->other = ch;
            xfer(&p[r], DPF_COPY, k->t[0], 0, X(k), H(k, 0), len, 0, 0);
            trec(&p[r], k->t[0], k->t[1], 1);
            op(&p[r], DPF_TWAIT_DEF, k->t[1], 0)->idx = 1;
            xfer(&p[r], DPF_READ, k->t[1], ch, Y(k), PH(k, q, 1), len, 0, 0);
            op(&p[r], DPF_DRAIN, k->t[1], 0)->other = ch;
            /* The drain returned: the read's bytes are in place for the kernel to see. */
            op(&p[r], DPF_PEEK, 0, word(SEED(3, q), len))->dst = A(Y(k));
            op(&p[r], DPF_JOIN, k->t[0], 0)->timeout = 15;
            op(&p[r], DPF_PEEK, 0, word(SEED(1, q), len))->dst = A(X(k));
            op(&p[r], DPF_SYNC, k->t[1], 0);
        }
        run(&W, (struct prog *[]){&p[0], &p[1]});
        for (int r = 0; r < 2; r++) {
            struct rk *k = &W.r[r];
            int q = 1 - r;
            use(r);
            expect(D(k), len, 0, SEED(1, r), false, "copy before the thread notify");
            expect(H(k, 0), len, 0, SEED(1, q), false, "write before the channel notify");
            expect(X(k), len, 0, SEED(1, q), false, "copy after the channel notify");
            expect(Y(k), len, 0, SEED(3, q), false, "read before the drain");
        }
    }
}

/* This test's job folder (the one hcemu-* entry under HCEMU_JOB_DIR) into out. */
static void job_folder(char *out, size_t len)
{
    DIR *d = opendir(tmp);
    struct dirent *e;

    assert_non_null(d);
    out[0] = '\0';
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "hcemu-", 6) == 0)
            snprintf(out, len, "%s/%s", tmp, e->d_name);
    closedir(d);
    assert_true(out[0] != '\0');
}

/* Device 0's control block, mapped from this test's job folder (cu_ctl_unmap it), for a test
 * that watches rank 0's thread 1: *slot gets the thread's slot (its stream and run-queue
 * entry), *runq whether a wait of that thread on a channel may be published (the run queue
 * is on, and the channel is not through the network, whose records come from device 0's
 * own progress thread). */
static const struct emu_devctl *watch_thread1(uint32_t *slot, bool *runq)
{
    char job[CU_PATH];
    struct emu_handle th;

    job_folder(job, sizeof(job));
    const struct emu_devctl *ctl0 = cu_ctl_map(job, 0);
    assert_non_null(ctl0);
    assert_true(emu_handle_decode(W.r[0].t[1], EMU_HANDLE_THREAD, &th));
    *slot = th.index;
    *runq = atomic_load(&ctl0->runq_on) != 0 && flow_protocol != -1;
    return ctl0;
}

/* The job-wide run queue (docs/ARCHITECTURE.md): rank 0's thread 1 parks on rank 1's channel
 * notify with a copy behind it, so device 0 publishes both; the host then frees the copy's
 * source. Rank 1's executor, recording the notify while device 0's workers sleep, takes the
 * published tasks and runs the copy, whose range check fails. The failure is device 0's: one
 * report naming rank 0's thread and the copy, thread 1 fails (its join and rank 0's stream
 * synchronisation return errors), the destination keeps its bytes, rank 1 is unaffected, and
 * the next program on the same threads runs normally. With HCEMU_RUNQ=0, or with rank 1 on
 * another host (its record arrives through the network), device 0 runs the copy itself: the
 * same codes, bytes and report. */
static void dead_range_case(uint64_t off, bool reuse)
{
    static struct prog p[2];
    static const int32_t joins_ok[NT];
    const int32_t join_fail[NT] = {0, HCCL_E_INTERNAL};
    struct rk *k0 = &W.r[0], *k1 = &W.r[1];
    void *z = NULL, *again = NULL;
    uint32_t slot;
    bool runq;

    const struct emu_devctl *ctl0 = watch_thread1(&slot, &runq);
    const struct emu_runq_seg *g = &ctl0->runq[slot];
    use(0);
    assert_int_equal(aclrtMalloc(&z, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    prep(z, 4095, SEED(5, 0));
    prep(X(k0), 4096, SEED(6, 0));
    prog_init(&p[0], k0);
    cwait(&p[0], k0->t[1], k0->ch[1], 0);
    xfer(&p[0], DPF_COPY, k0->t[1], 0, X(k0), (uint8_t *)z + off, 4096 - off, 0, 0);
    prog_init(&p[1], k1);
    op(&p[1], DPF_SLEEP, 0, 0)->n = 20000; /* device 0's workers stop spinning meanwhile */
    op(&p[1], DPF_CREC, k1->t[1], 0)->other = k1->ch[0];
    long mark = log_mark();
    const struct emu_stream_ctl *sc = &ctl0->streams[slot];
    uint32_t base = atomic_load(&sc->submitted);
    void *b0 = prog_launch(k0, &p[0], join_fail);
    /* The copy was accepted (its source was live at the call) once the thread counts it;
     * with the run queue, device 0 publishes the wait and the copy. */
    for (int i = 0; i < 10000 && (atomic_load(&sc->submitted) - base < 2 ||
                                  (runq && atomic_load(&g->state) != EMU_RUNQ_PUBLISHED));
         i++)
        usleep(1000);
    assert_true(atomic_load(&sc->submitted) - base >= 2);
    if (runq)
        assert_int_equal(atomic_load(&g->state), EMU_RUNQ_PUBLISHED);
    assert_int_equal(aclrtFree(z), ACL_SUCCESS);
    /* A smaller allocation takes the freed offset (first fit): 2049 bytes, its span rounded
     * to 2080, so the copy's source starts in its padding, where the check's subtraction
     * used to wrap and let the copy through. */
    if (reuse)
        assert_int_equal(aclrtMalloc(&again, 2049, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    void *b1 = prog_launch(k1, &p[1], joins_ok);
    prog_check(k0, &p[0], b0, ACL_ERROR_RT_AICPU_EXCEPTION);
    prog_check(k1, &p[1], b1, ACL_SUCCESS);
    if (runq)
        assert_int_equal(g->runner, 1); /* rank 1's executor ran it */
    /* Through the network, device 0's progress thread that received the record usually runs
     * the wait and the copy itself; a worker of device 0 that is still awake may take them
     * first (the doorbell moved), which on a quiet machine happened in about 4 runs of 10.
     * Either way the failure is reported by (and for) device 0, as checked below; which
     * thread ran it is not asserted here (the ping-pong test counts the served hand-offs). */
    assert_int_equal(log_count(mark, "no longer a live allocation of device 0"), 1);
    assert_int_equal(log_count(mark, "local copy failed"), 1);
    use(0);
    expect(X(k0), 4095, SEED(6, 0), SEED(6, 0), false, "the failed copy's destination");
    /* The same threads again, the copy from a live buffer: the stale error is gone. */
    prep(Y(k0), 64, SEED(7, 0));
    prep(X(k0), 64, 0);
    prog_init(&p[0], k0);
    cwait(&p[0], k0->t[1], k0->ch[1], 0);
    xfer(&p[0], DPF_COPY, k0->t[1], 0, X(k0), Y(k0), 64, 0, 0);
    prog_init(&p[1], k1);
    op(&p[1], DPF_CREC, k1->t[1], 0)->other = k1->ch[0];
    run(&W, (struct prog *[]){&p[0], &p[1]});
    expect(X(k0), 64, 0, SEED(7, 0), false, "the next copy on the same thread");
    if (again != NULL)
        assert_int_equal(aclrtFree(again), ACL_SUCCESS);
    cu_ctl_unmap(ctl0);
}

static void a_taken_tasks_dead_range_fails_on_its_own_device(void **state)
{
    (void)state;
    dead_range_case(0, false);
}

/* An entry of the job-wide run queue grows while it is out (sched.c, extend): rank 0's
 * thread 1 parks on rank 1's channel notify with a copy behind it, so device 0 publishes the
 * two; rank 0's kernel then sleeps and queues a second copy on that thread, which device 0
 * describes behind the first instead of keeping it home. Rank 1's executor, recording the
 * notify, runs all three: both copies' bytes land, and the entry says rank 1 ran it. The
 * copies read a buffer past the first 256 MiB of device 0, beyond what rank 1's executor maps
 * of it for the channel, so the runner grows its alias to run them (emu_devmap_reach)
 * instead of handing the entry back. */
static void a_published_entry_grows_while_out(void **state)
{
    static struct prog p[2];
    static const int32_t joins_ok[NT];
    struct rk *k0 = &W.r[0], *k1 = &W.r[1];
    void *gap = NULL, *far = NULL;
    uint32_t slot;
    bool runq;
    (void)state;

    const struct emu_devctl *ctl0 = watch_thread1(&slot, &runq);
    const struct emu_runq_seg *g = &ctl0->runq[slot];
    use(0);
    /* Never touched: it only puts `far` past 256 MiB of device memory. */
    assert_int_equal(aclrtMalloc(&gap, 300u << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&far, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    prep(far, 128, SEED(8, 0));
    prep(X(k0), 128, 0);
    prog_init(&p[0], k0);
    cwait(&p[0], k0->t[1], k0->ch[1], 0);
    xfer(&p[0], DPF_COPY, k0->t[1], 0, X(k0), far, 64, 0, 0);
    op(&p[0], DPF_SLEEP, 0, 0)->n = 30000; /* thread 1 parks and is published meanwhile */
    xfer(&p[0], DPF_COPY, k0->t[1], 0, X(k0) + 64, (uint8_t *)far + 64, 64, 0, 0);
    prog_init(&p[1], k1);
    op(&p[1], DPF_SLEEP, 0, 0)->n = 20000; /* device 0's workers stop spinning meanwhile */
    op(&p[1], DPF_CREC, k1->t[1], 0)->other = k1->ch[0];
    void *b0 = prog_launch(k0, &p[0], joins_ok);
    for (int i = 0; i < 10000 && runq && atomic_load(&g->n) < 3; i++)
        usleep(1000);
    if (runq) {
        assert_int_equal(atomic_load(&g->state), EMU_RUNQ_PUBLISHED);
        assert_int_equal(atomic_load(&g->n), 3); /* the wait, the copy, the later copy */
    }
    void *b1 = prog_launch(k1, &p[1], joins_ok);
    prog_check(k0, &p[0], b0, ACL_SUCCESS);
    prog_check(k1, &p[1], b1, ACL_SUCCESS);
    use(0);
    expect(X(k0), 128, 0, SEED(8, 0), false, "both copies, the second queued while out");
    if (runq) { /* rank 1's executor ran all three */
        assert_int_equal(g->runner, 1);
        assert_int_equal(__atomic_load_n(&g->done, __ATOMIC_ACQUIRE), 3);
    }
    assert_int_equal(aclrtFree(far), ACL_SUCCESS);
    assert_int_equal(aclrtFree(gap), ACL_SUCCESS);
    cu_ctl_unmap(ctl0);
}

/* The same with the copy's source 2056 bytes into the freed buffer and a smaller
 * allocation made in its place before the copy runs: still "no longer a live allocation". */
static void a_dead_range_reused_by_a_smaller_allocation_fails(void **state)
{
    (void)state;
    dead_range_case(2056, true);
}

/* A ping-pong of write-reduce-with-notify between the ranks' main threads: rank 0 adds its
 * source into rank 1's H0 and records; rank 1 waits, adds its whole H0 into rank 0's H1 and
 * records back; N rounds. Each round's data depends on the previous one having landed
 * before its notify (rank 1's H0 is r times the source after round r, rank 0's H1 the sum of
 * those), so a notify set before its bytes, or a task run out of order, changes the result.
 * Through the network (HCEMU_HOST_SPLIT) each executor's progress thread receives the
 * peer's record and runs the waiting thread's next tasks itself, the write back included
 * (net_served counts those hand-offs); eager (4097 B) and rendezvous (3 MiB + 17) sizes. */
static void a_write_with_notify_ping_pong_keeps_its_order(void **state)
{
    static struct prog p[2];
    enum { N = 12 };
    struct rk *k0 = &W.r[0], *k1 = &W.r[1];
    char job[CU_PATH];
    (void)state;

    job_folder(job, sizeof(job));
    const struct emu_devctl *ctl[2] = {cu_ctl_map(job, 0), cu_ctl_map(job, 1)};
    assert_non_null(ctl[0]);
    assert_non_null(ctl[1]);
    uint32_t served[2] = {atomic_load(&ctl[0]->net_served), atomic_load(&ctl[1]->net_served)};
    const uint64_t sizes[] = {4097, BIG};
    for (size_t li = 0; li < 2; li++) {
        uint64_t len = sizes[li];
        use(0);
        prep(S(k0), len, SEED(1, 0));
        prep(H(k0, 1), len, 0);
        use(1);
        prep(H(k1, 0), len, 0);
        prog_init(&p[0], k0);
        struct dp_op *o = op(&p[0], DPF_LOOP, 0, 0);
        o->n = N, o->idx = 2;
        xfer(&p[0], DPF_WRITE_REDUCE_NOTIFY, k0->t[0], k0->ch[1], PH(k0, 1, 0), S(k0), len, 0, 0);
        cwait(&p[0], k0->t[0], k0->ch[1], 1);
        prog_init(&p[1], k1);
        o = op(&p[1], DPF_LOOP, 0, 0);
        o->n = N, o->idx = 2;
        cwait(&p[1], k1->t[0], k1->ch[0], 0);
        xfer(&p[1], DPF_WRITE_REDUCE_NOTIFY, k1->t[0], k1->ch[0], PH(k1, 0, 1), H(k1, 0), len, 1,
             0);
        run(&W, (struct prog *[]){&p[0], &p[1]});
        uint8_t *h0 = malloc(len + 1), *h1 = malloc(len + 1);
        use(1);
        get(h1, H(k1, 0), len + 1);
        use(0);
        get(h0, H(k0, 1), len + 1);
        for (uint64_t i = 0; i < len; i++) {
            uint8_t a = pat(SEED(1, 0), i);
            uint8_t want1 = (uint8_t)(a * N), want0 = (uint8_t)(a * (N * (N + 1) / 2));
            if (h1[i] != want1 || h0[i] != want0) {
                uint8_t g0 = h0[i], g1 = h1[i];
                free(h0);
                free(h1);
                fail_msg("len %llu byte %llu: rank 1 has 0x%02x (want 0x%02x), rank 0 has "
                         "0x%02x (want 0x%02x)", (unsigned long long)len, (unsigned long long)i,
                         g1, want1, g0, want0);
            }
        }
        assert_int_equal(h0[len], 0); /* the sentinels past the end */
        assert_int_equal(h1[len], 0);
        free(h0);
        free(h1);
    }
    /* Both progress threads ran hand-offs themselves (a worker may still win a race to some
     * of them while it spins, so not every round is counted). */
    if (flow_protocol == -1 && atomic_load(&ctl[0]->runq_on) != 0)
        for (int d = 0; d < 2; d++)
            assert_true(atomic_load(&ctl[d]->net_served) - served[d] >= 1);
    cu_ctl_unmap(ctl[0]);
    cu_ctl_unmap(ctl[1]);
}

static int cmp_dev(const uint8_t *dev, uint32_t seed, uint64_t n)
{
    uint8_t h[64];

    get(h, dev, n);
    for (uint64_t i = 0; i < n; i++)
        if (h[i] != init_byte(seed, i))
            return (int)i + 1;
    return 0;
}

static void remote_ranges_past_the_peer_memory_are_refused_with_one_line(void **state)
{
    static struct prog p;
    struct rk *k = &W.r[0], *peer = &W.r[1];
    ChannelHandle ch = k->ch[1];
    uint8_t *end = k->peer_hb[1] + k->peer_hb_size[1];
    uint8_t *reg_end = k->peer_reg[1] + k->peer_reg_size[1];
    HcommBatchTransferDesc d[2];
    (void)state;

    use(1);
    prep(peer->hb + peer->hb_size - 8, 7, 0);
    prep(peer->reg + REGSZ - 3, 2, 0);
    prep(H(peer, 3), 5, 0);
    use(0);
    prep(S(k), 16, SEED(1, 0));
    memset(d, 0, sizeof(d));
    d[0].transType = HCOMM_TRANSFER_TYPE_WRITE;
    d[0].transferInfo.write.len = 5;
    d[0].transferInfo.write.dst = PH(k, 1, 3);
    d[0].transferInfo.write.src = S(k);
    d[1] = d[0];
    d[1].transferInfo.write.dst = end - 4;
    put(Y(k), d, sizeof(d));
    prog_init(&p, k);
    xfer(&p, DPF_WRITE, k->t[0], ch, end - 8, S(k), 16, 0, HCCL_E_PARA);
    xfer(&p, DPF_WRITE, k->t[0], ch, end, S(k), 1, 0, HCCL_E_PARA);
    xfer(&p, DPF_READ, k->t[0], ch, D(k), end - 1, 2, 0, HCCL_E_PARA);
    xfer(&p, DPF_WRITE_NOTIFY, k->t[0], ch, end - 4, S(k), 8, 1, HCCL_E_PARA);
    xfer(&p, DPF_WRITE_REDUCE, k->t[0], ch, reg_end - 2, S(k), 3, 0, HCCL_E_PARA);
    xfer(&p, DPF_READ_REDUCE, k->t[0], ch, X(k), reg_end, 1, 0, HCCL_E_PARA);
    struct dp_op *o = op(&p, DPF_BATCH, k->t[0], HCCL_E_PARA);
    o->other = ch, o->aux = A(Y(k)), o->n = 2;
    /* Exactly up to the end is fine. */
    xfer(&p, DPF_WRITE, k->t[0], ch, end - 8, S(k), 8, 0, 0);
    xfer(&p, DPF_WRITE, k->t[0], ch, reg_end - 3, S(k), 3, 0, 0);
    long mark = log_mark();
    run(&W, (struct prog *[]){&p, NULL});
    assert_int_equal(log_count(mark, "] error: "), 7);
    assert_int_equal(log_count(mark, "is not inside the peer's HCCL buffer or a memory"), 7);
    assert_int_equal(log_count(mark, "HcommWriteOnThread refused"), 2);
    assert_int_equal(log_count(mark, "HcommReadOnThread refused"), 1);
    assert_int_equal(log_count(mark, "HcommWriteWithNotifyOnThread refused"), 1);
    assert_int_equal(log_count(mark, "HcommWriteReduceOnThread refused"), 1);
    assert_int_equal(log_count(mark, "HcommReadReduceOnThread refused"), 1);
    assert_int_equal(log_count(mark, "HcommBatchTransferOnThread entry 1 refused"), 1);
    use(1);
    assert_int_equal(cmp_dev(peer->hb + peer->hb_size - 8, SEED(1, 0), 8), 0);
    assert_int_equal(cmp_dev(peer->reg + REGSZ - 3, SEED(1, 0), 3), 0);
    /* The batch was refused as a whole: its valid first entry never ran. */
    assert_int_equal(cmp_dev(H(peer, 3), 0, 5), 0);
}

/* ---- tests: the docs/FLOW.md operator ---------------------------------------------------- */

static void handshake_flow_on_two_ranks_reuses_the_engine_context(void **state)
{
    struct flow_plan plan = {4, {DPC_PUSH, DPC_BATCH, DPC_READ, DPC_PUSH}, {3, 4097, BIG, 1}};
    (void)state;

    on_ranks(&W, flow_calls, &plan);
}

static void handshake_flow_on_a_mesh_of_three_ranks(void **state)
{
    static struct world m;
    struct flow_plan plan = {3, {DPC_PUSH, DPC_BATCH, DPC_READ}, {1, 4097, (1u << 20) + 3}};
    (void)state;

    world_up(&m, 3, false, 4);
    on_ranks(&m, flow_calls, &plan);
    /* Again with new communicators wrapping the same streams: a fresh miss, new resources. */
    world_reinit(&m);
    on_ranks(&m, flow_calls, &plan);
    world_down(&m);
}

static void handshake_flow_on_a_mesh_of_eight_ranks(void **state)
{
    static struct world m;
    struct flow_plan plan = {3, {DPC_PUSH, DPC_READ, DPC_BATCH}, {3, 4097, 200003}};
    (void)state;

    world_up(&m, 8, false, 2);
    on_ranks(&m, flow_calls, &plan);
    world_down(&m);
}

/* A rank as a process, started the way hcemu-run starts it. */
static int child_flow(void)
{
    const char *rs = getenv("HCEMU_RANK"), *ns = getenv("HCEMU_RANK_SIZE");
    struct rk k;
    struct flow_plan plan = {3, {DPC_PUSH, DPC_READ, DPC_BATCH}, {1, 4097, (1u << 20) + 3}};
    HcclRootInfo root;

    memset(&k, 0, sizeof(k));
    if (rs == NULL || ns == NULL)
        return 2;
    k.rank = atoi(rs);
    k.n = atoi(ns);
    CHECK(&k, aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(k.rank) == ACL_SUCCESS);
    CHECK(&k, HcclGetRootInfo(&root) == HCCL_SUCCESS); /* every rank derives the same */
    CHECK(&k, HcclCommInitRootInfo((uint32_t)k.n, &root, (uint32_t)k.rank, &k.comm) == 0);
    CHECK(&k, aclrtCreateStream(&k.stream) == ACL_SUCCESS);
    CHECK(&k, aclrtBinaryLoadFromFile(DPC_KERNELS_JSON, NULL, &bin) == ACL_SUCCESS &&
                  aclrtBinaryGetFunction(bin, "dpc_flow", &flow_fn) == ACL_SUCCESS);
    if (k.failures == 0)
        flow_calls(&k, &plan);
    CHECK(&k, HcclCommDestroy(k.comm) == HCCL_SUCCESS);
    CHECK(&k, aclrtDestroyStream(k.stream) == ACL_SUCCESS);
    CHECK(&k, aclrtBinaryUnLoad(bin) == ACL_SUCCESS);
    CHECK(&k, aclrtResetDevice(k.rank) == ACL_SUCCESS && aclFinalize() == ACL_SUCCESS);
    return k.failures != 0 ? 3 : 0;
}

/* A process with its own job folder (HCEMU_JOB_DIR) and device TEST_DEV: the root info
 * travels through a file, as between servers. */
static int child_own(const char *dir)
{
    struct rk k;
    struct flow_plan plan = {3, {DPC_PUSH, DPC_READ, DPC_BATCH}, {3, 4097, (1u << 20) + 3}};
    HcclRootInfo root;
    char path[CU_PATH * 2], part[CU_PATH * 3];
    int dev = atoi(getenv("TEST_DEV"));

    memset(&k, 0, sizeof(k));
    k.rank = atoi(getenv("TEST_RANK"));
    k.n = atoi(getenv("TEST_SIZE"));
    flow_protocol = -1;
    CHECK(&k, aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(dev) == ACL_SUCCESS);
    snprintf(path, sizeof(path), "%s/root.bin", dir);
    if (k.rank == 0) {
        CHECK(&k, HcclGetRootInfo(&root) == HCCL_SUCCESS);
        snprintf(part, sizeof(part), "%s.part", path);
        FILE *f = fopen(part, "wb");
        CHECK(&k, f != NULL && fwrite(&root, sizeof(root), 1, f) == 1);
        if (f != NULL)
            fclose(f);
        CHECK(&k, rename(part, path) == 0);
    } else {
        FILE *f = NULL;
        for (int t = 0; t < 3000 && (f = fopen(path, "rb")) == NULL; t++)
            usleep(10000);
        CHECK(&k, f != NULL && fread(&root, sizeof(root), 1, f) == 1);
        if (f != NULL)
            fclose(f);
    }
    if (k.failures != 0)
        return 3;
    CHECK(&k, HcclCommInitRootInfo((uint32_t)k.n, &root, (uint32_t)k.rank, &k.comm) == 0);
    CHECK(&k, aclrtCreateStream(&k.stream) == ACL_SUCCESS);
    CHECK(&k, aclrtBinaryLoadFromFile(DPC_KERNELS_JSON, NULL, &bin) == ACL_SUCCESS &&
                  aclrtBinaryGetFunction(bin, "dpc_flow", &flow_fn) == ACL_SUCCESS);
    if (k.failures == 0)
        flow_calls(&k, &plan);
    CHECK(&k, HcclCommDestroy(k.comm) == HCCL_SUCCESS);
    CHECK(&k, aclrtDestroyStream(k.stream) == ACL_SUCCESS);
    CHECK(&k, aclrtBinaryUnLoad(bin) == ACL_SUCCESS);
    CHECK(&k, aclrtResetDevice(dev) == ACL_SUCCESS && aclFinalize() == ACL_SUCCESS);
    return k.failures != 0 ? 3 : 0;
}

/* Two processes with their own job folders; `devs` gives each one's device. */
static void own_job_pair(const char *name, const int devs[2])
{
    char dir[CU_PATH * 2], root[CU_PATH * 3];
    static char env[2][5][CU_PATH * 3];
    pid_t pid[2];

    snprintf(dir, sizeof(dir), "%s/%s", tmp, name);
    assert_int_equal(mkdir(dir, 0700), 0);
    for (int r = 0; r < 2; r++) {
        snprintf(env[r][0], sizeof(env[r][0]), "TEST_RANK=%d", r);
        snprintf(env[r][1], sizeof(env[r][1]), "TEST_SIZE=2");
        snprintf(env[r][2], sizeof(env[r][2]), "TEST_DEV=%d", devs[r]);
        snprintf(env[r][3], sizeof(env[r][3]), "HCEMU_JOB_DIR=%s/r%d", dir, r);
        snprintf(env[r][4], sizeof(env[r][4]), "HCCL_BUFFSIZE=4");
        snprintf(root, sizeof(root), "%s/r%d", dir, r);
        assert_int_equal(mkdir(root, 0700), 0);
        char *e[] = {env[r][0], env[r][1], env[r][2], env[r][3], env[r][4], NULL};
        pid[r] = cu_spawn(self, "own", dir, e);
    }
    for (int r = 0; r < 2; r++) {
        int st = cu_wait(pid[r], 60000);
        if (st != 0)
            fail_msg("%s: rank %d (process, own job folder) exited with %d", name, r, st);
    }
    assert_int_equal(cu_wait_executors_gone(dir, 5000), 0);
    for (int r = 0; r < 2; r++) {
        snprintf(root, sizeof(root), "%s/r%d", dir, r);
        assert_int_equal(cu_count_files(root, NULL), 0);
    }
    cu_rmtree(dir);
}

static void handshake_flow_between_processes_with_their_own_job_folders(void **state)
{
    (void)state;
    own_job_pair("own01", (const int[2]){0, 1});
    own_job_pair("own00", (const int[2]){0, 0});
}

static void handshake_flow_on_three_ranks_as_processes(void **state)
{
    char job[CU_PATH * 2];
    static char env[3][6][CU_PATH * 3];
    pid_t pid[3];
    (void)state;

    snprintf(job, sizeof(job), "%s/procs", tmp);
    assert_int_equal(mkdir(job, 0700), 0);
    for (int r = 0; r < 3; r++) {
        snprintf(env[r][0], sizeof(env[r][0]), "HCEMU_RANK=%d", r);
        snprintf(env[r][1], sizeof(env[r][1]), "HCEMU_RANK_SIZE=3");
        snprintf(env[r][2], sizeof(env[r][2]), "HCEMU_JOB_PATH=%s", job);
        snprintf(env[r][3], sizeof(env[r][3]), "HCEMU_JOB_ID=%s", job);
        snprintf(env[r][4], sizeof(env[r][4]), "HCCL_BUFFSIZE=4");
        char *e[] = {env[r][0], env[r][1], env[r][2], env[r][3], env[r][4], NULL};
        pid[r] = cu_spawn(self, "flow", "", e);
    }
    for (int r = 0; r < 3; r++) {
        int st = cu_wait(pid[r], 60000);
        if (st != 0)
            fail_msg("rank %d of 3 (process) exited with %d", r, st);
    }
    assert_int_equal(cu_wait_executors_gone(job, 5000), 0);
    assert_int_equal(cu_count_files(job, "hcemu-comm-"), 0);
    cu_rmtree(job); /* with HCEMU_JOB_PATH the launcher owns the folder */
}

/* ---- tests: handles of a destroyed communicator -------------------------------------------- */

static void handles_of_a_destroyed_communicator_are_refused_after_reinit(void **state)
{
    static struct prog p;
    struct rk old = W.r[0];
    void *buf = NULL;
    uint64_t size = 0;
    (void)state;

    world_down(&W);
    world_up(&W, 2, true, HBMB);
    struct rk *k = &W.r[0];
    use(0);
    long mark = log_mark();
    assert_int_equal(HcclChannelGetHcclBuffer(k->comm, old.ch[1], &buf, &size), HCCL_E_NOT_FOUND);
    assert_int_equal(HcommThreadNotifyRecordOnThread(k->cpu, old.t0_on_cpu, START), HCCL_E_PARA);
    prep(S(k), 8, SEED(1, 0));
    prep(H(&W.r[1], 0), 8, 0);
    prog_init(&p, k);
    xfer(&p, DPF_WRITE, k->t[0], old.ch[1], PH(k, 1, 0), S(k), 8, 0, HCCL_E_PARA);
    xfer(&p, DPF_COPY, old.t[1], 0, D(k), S(k), 8, 0, HCCL_E_PARA);
    xfer(&p, DPF_WRITE, k->t[0], k->ch[1], PH(k, 1, 0), S(k), 8, 0, 0);
    run(&W, (struct prog *[]){&p, NULL});
    assert_int_equal(log_count(mark, "] error: "), 4);
    assert_int_equal(log_count(mark, "not a channel of this communicator"), 1);
    assert_int_equal(log_count(mark, "is stale"), 3);
    use(1);
    expect(H(&W.r[1], 0), 8, 0, SEED(1, 0), false, "write on the new channel");
}

/* ---- tests: a record the peer of another host refuses ------------------------------------- */

/* Through the network a channel notify record completes when it is sent (no answer), so a
 * peer that refuses it answers late: here rank 1 destroyed its communicator, so the notify
 * rank 0 records on their channel is no longer live there. The refusal is kept on rank 0's channel and
 * its next wait on that channel fails with it (HCCL_E_PARA's status: a failed thread, 507018
 * at synchronisation) and one line naming the record's stream and channel, instead of
 * waiting out its timeout; a drain of the channel returns it. Network only: on one host the record's slot is checked at the
 * call. */
static void a_refused_record_fails_the_channels_next_wait(void **state)
{
    static struct prog p;
    const int32_t join_fail[NT] = {HCCL_E_INTERNAL, 0};
    struct rk *k0 = &W.r[0], *k1 = &W.r[1];
    (void)state;

    if (flow_protocol != -1)
        skip();
    use(1);
    assert_int_equal(HcclCommDestroy(k1->comm), HCCL_SUCCESS); /* frees its notifies */
    k1->comm = NULL;
    long mark = log_mark();
    prog_init(&p, k0);
    op(&p, DPF_CREC, k0->t[0], 0)->other = k0->ch[1];
    cwait(&p, k0->t[0], k0->ch[1], 1);
    void *b = prog_launch(k0, &p, join_fail);
    prog_check(k0, &p, b, ACL_ERROR_RT_AICPU_EXCEPTION);
    assert_int_equal(log_count(mark, "names a notify that is not live"), 1);
    assert_int_equal(log_count(mark, "refused notify record"), 1);
    assert_int_equal(log_count(mark, "was not recorded within"), 0);
    /* A drain of the channel waits until the peer confirms it handled the record: it
     * returns the refusal (the thread itself did not fail). */
    mark = log_mark();
    prog_init(&p, k0);
    op(&p, DPF_CREC, k0->t[1], 0)->other = k0->ch[1];
    op(&p, DPF_DRAIN, k0->t[1], HCCL_E_PARA)->other = k0->ch[1];
    b = prog_launch(k0, &p, (const int32_t[NT]){0, 0});
    prog_check(k0, &p, b, ACL_SUCCESS);
    assert_int_equal(log_count(mark, "names a notify that is not live"), 1);
    assert_int_equal(log_count(mark, "HcommChannelDrainOnThread refused: device 1 of another "
                                     "host refused notify record"), 1);
}

/* ---- main ----------------------------------------------------------------------------------- */

static int group_setup(void **state)
{
    (void)state;
    if (aclInit(NULL) != ACL_SUCCESS ||
        aclrtBinaryLoadFromFile(DPC_KERNELS_JSON, NULL, &bin) != ACL_SUCCESS ||
        aclrtBinaryGetFunction(bin, "dp_exec", &exec_fn) != ACL_SUCCESS ||
        aclrtBinaryGetFunction(bin, "dpc_flow", &flow_fn) != ACL_SUCCESS)
        return -1;
    world_up(&W, 2, true, HBMB);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    world_down(&W);
    (void)aclrtBinaryUnLoad(bin);
    return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

static void dump_log(void)
{
    char *buf = log_since(0);
    size_t n = strlen(buf);
    const char *from = n > 200000 ? buf + n - 200000 : buf;

    if (write(saved_stderr, from, strlen(from)) < 0)
        buf[0] = '\0';
    free(buf);
}

int main(int argc, char **argv)
{
    /* Devices 1+ on a second host: other servers of the rank graph, linked by layer 1
     * (UBoE), not UB_CTP: the flows take the first link of any protocol. */
    if (getenv("HCEMU_HOST_SPLIT") != NULL)
        flow_protocol = -1;
    if (argc >= 3 && strcmp(argv[1], "--child") == 0)
        return strcmp(argv[2], "flow") == 0  ? child_flow()
               : strcmp(argv[2], "own") == 0 ? child_own(argc >= 4 ? argv[3] : "")
                                              : 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(control_plane_resources_are_consistent),
        cmocka_unit_test(local_copy_and_reduce_move_exact_bytes),
        cmocka_unit_test(write_read_and_reduce_forms_reach_hccl_buffer_and_registered_memory),
        cmocka_unit_test(with_notify_writes_land_before_their_notify),
        cmocka_unit_test(batch_transfer_runs_every_transfer_type),
        cmocka_unit_test(notifies_fence_drain_and_join_order_work_across_threads_and_ranks),
        cmocka_unit_test(a_taken_tasks_dead_range_fails_on_its_own_device),
        cmocka_unit_test(a_published_entry_grows_while_out),
        cmocka_unit_test(a_dead_range_reused_by_a_smaller_allocation_fails),
        cmocka_unit_test(a_write_with_notify_ping_pong_keeps_its_order),
        cmocka_unit_test(remote_ranges_past_the_peer_memory_are_refused_with_one_line),
        cmocka_unit_test(handshake_flow_on_two_ranks_reuses_the_engine_context),
        cmocka_unit_test(handshake_flow_on_a_mesh_of_three_ranks),
        cmocka_unit_test(handshake_flow_on_a_mesh_of_eight_ranks),
        cmocka_unit_test(handshake_flow_on_three_ranks_as_processes),
        cmocka_unit_test(handshake_flow_between_processes_with_their_own_job_folders),
        cmocka_unit_test(handles_of_a_destroyed_communicator_are_refused_after_reinit),
        cmocka_unit_test(a_refused_record_fails_the_channels_next_wait),
    };
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 1;
    self[n] = '\0';
    snprintf(tmp, sizeof(tmp), "/dev/shm/hcemu-dpctest-XXXXXX");
    if (mkdtemp(tmp) == NULL)
        return 1;
    setenv("HCEMU_JOB_DIR", tmp, 1);
    setenv("HCEMU_DEVICES", "8", 1);
    setenv("HCEMU_DEVICE_MEM_GB", "1", 1);
    setenv("HCCL_CONNECT_TIMEOUT", "30", 1);
    unsetenv("HCEMU_JOB_PATH");
    unsetenv("HCEMU_JOB_ID");
    unsetenv("HCEMU_RANK");
    unsetenv("HCEMU_RANK_SIZE");
    unsetenv("HCEMU_TOPOLOGY");
    unsetenv("HCEMU_SOC");
    /* Executors inherit stderr at start: capture it before the first device opens. */
    snprintf(log_path, sizeof(log_path), "/tmp/hcemu-dpctest-%d.log", (int)getpid());
    log_fd = open(log_path, O_RDWR | O_CREAT | O_TRUNC | O_APPEND, 0600);
    saved_stderr = dup(STDERR_FILENO);
    if (log_fd < 0 || saved_stderr < 0 || dup2(log_fd, STDERR_FILENO) < 0)
        return 1;
    int rc = cmocka_run_group_tests_name("dataplane_comm", tests, group_setup, group_teardown);
    int left_exec = cu_wait_executors_gone(tmp, 5000);
    int left_files = cu_count_files(tmp, NULL);
    if (rc != 0 || left_exec != 0 || left_files != 0 || getenv("DPC_SHOW_LOG") != NULL) {
        dump_log();
        dprintf(saved_stderr, "dataplane_comm: %d failed, %d executors and %d files left in %s\n",
                rc, left_exec, left_files, tmp);
    }
    cu_rmtree(tmp);
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(log_fd);
    if (getenv("DPC_KEEP_LOG") == NULL)
        unlink(log_path);
    return rc != 0 || left_exec != 0 || left_files != 0;
}
