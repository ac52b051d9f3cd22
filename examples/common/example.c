/* example.c - the host boilerplate of the examples (see example.h): options, rank threads or
 * the process's own rank, root info, buffers, checks, verdict, and the per-call steps of
 * docs/FLOW.md §2. Entry point: ex_main(). */
#include "example.h"
#include "ex_launch.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Where the installed kernels live, relative to the executable's folder (set by CMake). */
#ifndef EX_INSTALLED_KERNEL_DIR
#define EX_INSTALLED_KERNEL_DIR "../lib/hcemu/examples"
#endif

#define EX_POISON 0xA5 /* output bytes before each call, so a stale result cannot pass */

/* What the host caches in its CPU_TS engine context (docs/FLOW.md §2.8): the main thread and its
 * start notify, needed on every later call to hand-shake with the kernel. */
struct ex_host_cache {
    ThreadHandle main_thread;
    uint32_t start_idx;
};

/* Set once by ex_main before any rank starts; read-only afterwards. */
static char kernel_json[PATH_MAX];
static bool process_mode;

/* Logs "rank r: <call> failed: <code> (<text>)" once, where the failing call is known. */
#define EX_CHECK(r, call)                                                                          \
    do {                                                                                           \
        int rc_ = (int)(call);                                                                     \
        if (rc_ != 0) {                                                                            \
            ex_report_failure((r), #call, rc_);                                                    \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

static void ex_report_failure(const struct ex_rank *r, const char *call, int rc)
{
    const char *msg = aclGetRecentErrMsg();

    fprintf(stderr, "rank %u: %s failed: %d%s%s\n", r->rank, call, rc, msg ? ": " : "",
            msg ? msg : "");
}

uint32_t ex_f32_bits(float f)
{
    uint32_t u;

    memcpy(&u, &f, sizeof(u));
    return u;
}

/* ---- docs/FLOW.md §2: one operator call ----------------------------------------------- */

int ex_param_init(struct ex_op_param *p, const struct ex_rank *r, const char *tag, void *in,
                  void *out, uint64_t count, HcclDataType type, HcclCMDType op)
{
    const char *soc = aclrtGetSocName();

    memset(p, 0, sizeof(*p));
    /* The samples refuse to run their Atlas 350 flow anywhere else. */
    if (soc == NULL || strstr(soc, "Ascend950") == NULL) {
        fprintf(stderr, "rank %u: SoC %s is not an Ascend950 (Atlas 350); set HCEMU_SOC\n", r->rank,
                soc ? soc : "(unknown)");
        return -1;
    }
    snprintf(p->tag, sizeof(p->tag), "%s", tag);
    EX_CHECK(r, HcclGetCommName(r->comm, p->comm_name));
    EX_CHECK(r, HcclGetRankId(r->comm, &p->rank));
    EX_CHECK(r, HcclGetRankSize(r->comm, &p->rank_size));
    p->input = in;
    p->output = out;
    p->count = count;
    p->data_type = (uint32_t)type;
    p->reduce_op = (uint32_t)HCCL_REDUCE_SUM;
    p->op_type = (uint32_t)op;
    return 0;
}

void ex_shape_mesh(struct ex_shape *s, const struct ex_rank *r, uint32_t thread_num,
                   uint32_t notifies_per_thread, uint32_t channel_notifies)
{
    memset(s, 0, sizeof(*s));
    s->thread_num = thread_num;
    s->notifies_per_thread = notifies_per_thread;
    s->channel_notifies = channel_notifies;
    for (uint32_t p = 0; p < r->size; p++)
        if (p != r->rank)
            s->peers[s->peer_num++] = p;
}

/* docs/FLOW.md §2.6.1-2: the channel description for `peer`, from the rank graph: the UB_CTP
 * link of layer 0 inside a server; between servers (other hosts), the first inter-server
 * link of layer 1 (UBoE on Ascend950, RoCE on A2/A3). */
static int describe_channel(const struct ex_rank *r, uint32_t peer, uint32_t notify_num,
                            HcclChannelDesc *d)
{
    CommLink *links = NULL;
    uint32_t n = 0, *layers = NULL, nl = 0;

    EX_CHECK(r, HcclRankGraphGetLayers(r->comm, &layers, &nl));
    for (uint32_t layer = 0; layer < nl && layer < 2; layer++) {
        EX_CHECK(r, HcclRankGraphGetLinks(r->comm, layer, r->rank, peer, &links, &n));
        for (uint32_t i = 0; i < n; i++) {
            if (layer == 0 && links[i].linkAttr.linkProtocol != COMM_PROTOCOL_UB_CTP)
                continue;
            EX_CHECK(r, HcclChannelDescInit(d, 1));
            d->remoteRank = peer;
            d->notifyNum = notify_num;
            d->channelProtocol = links[i].linkAttr.linkProtocol;
            d->localEndpoint.protocol = links[i].srcEndpointDesc.protocol;
            d->localEndpoint.commAddr = links[i].srcEndpointDesc.commAddr;
            d->localEndpoint.loc = links[i].srcEndpointDesc.loc;
            d->remoteEndpoint.protocol = links[i].dstEndpointDesc.protocol;
            d->remoteEndpoint.commAddr = links[i].dstEndpointDesc.commAddr;
            d->remoteEndpoint.loc = links[i].dstEndpointDesc.loc;
            return 0;
        }
    }
    fprintf(stderr, "rank %u: no UB_CTP link (layer 0) nor inter-server link (layer 1) to rank "
                    "%u (HCCL_E_NOT_FOUND)\n",
            r->rank, peer);
    return -1;
}

/* docs/FLOW.md §2.4-2.8, the engine-context miss: build the resources and serialise them. */
static int build_resources(struct ex_rank *r, const struct ex_shape *shape, struct ex_op_param *p,
                           ThreadHandle *main_on_cpu)
{
    static _Thread_local struct ex_res_ctx res; /* 2.6 KiB: off the stack, one per rank */
    static _Thread_local HcclChannelDesc descs[EX_MAX_RANKS];
    HcclComm comm = r->comm;
    void *dev_ctx = NULL, *host_ctx = NULL;

    memset(&res, 0, sizeof(res));
    /* 2.4: the HCCL buffer, where data is staged for (and by) the peers. */
    EX_CHECK(r, HcclGetHcclBuffer(comm, &res.hccl_buf, &res.hccl_buf_size));
    /* 2.5: the algorithm threads; the main thread's highest notify is the host start. */
    res.thread_num = shape->thread_num;
    res.notify_num = shape->notifies_per_thread;
    res.start_idx = shape->notifies_per_thread - 1;
    EX_CHECK(r, HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, res.thread_num, res.notify_num,
                                  res.threads));
    /* 2.6: one UB_CTP channel per peer; the acquire pairs with each peer's matching call. */
    res.channel_num = shape->peer_num;
    for (uint32_t i = 0; i < shape->peer_num; i++)
        if (describe_channel(r, shape->peers[i], shape->channel_notifies, &descs[i]) != 0)
            return -1;
    if (shape->peer_num > 0) {
        ChannelHandle handles[EX_MAX_RANKS];
        EX_CHECK(r,
                 HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, descs, shape->peer_num, handles));
        for (uint32_t i = 0; i < shape->peer_num; i++) {
            struct ex_channel_res *c = &res.channels[i];
            c->handle = handles[i];
            c->peer_rank = shape->peers[i];
            c->notify_num = shape->channel_notifies;
            EX_CHECK(r, HcclChannelGetHcclBuffer(comm, c->handle, &c->peer_buf, &c->peer_buf_size));
        }
    }
    /* 2.7: the main thread as the host names it, for the start signal. */
    EX_CHECK(
        r, HcclThreadExportToCommEngine(comm, 1, &res.threads[0], COMM_ENGINE_CPU_TS, main_on_cpu));
    /* 2.8: the resource context in device memory, in one of the two styles of the samples. */
    if (shape->aicpu_memcpy_ctx) {
        EX_CHECK(r, HcclEngineCtxCreate(comm, p->tag, COMM_ENGINE_AICPU, sizeof(res), &dev_ctx));
        EX_CHECK(r,
                 aclrtMemcpy(dev_ctx, sizeof(res), &res, sizeof(res), ACL_MEMCPY_HOST_TO_DEVICE));
    } else {
        EX_CHECK(r, HcclEngineCtxCreate(comm, p->tag, COMM_ENGINE_AICPU_TS, sizeof(res), &dev_ctx));
        EX_CHECK(r, HcclEngineCtxCopy(comm, COMM_ENGINE_AICPU_TS, p->tag, &res, sizeof(res), 0));
    }
    /* ...and the host's own cache: host engines return host memory, written directly. */
    EX_CHECK(r, HcclEngineCtxCreate(comm, p->tag, COMM_ENGINE_CPU_TS, sizeof(struct ex_host_cache),
                                    &host_ctx));
    struct ex_host_cache *cache = host_ctx;
    cache->main_thread = res.threads[0];
    cache->start_idx = res.start_idx;
    p->ctx = dev_ctx;
    p->ctx_size = sizeof(res);
    p->start_idx = res.start_idx;
    return 0;
}

int ex_op_resources(struct ex_rank *r, const struct ex_shape *shape, struct ex_op_param *p,
                    ThreadHandle *host_thread, ThreadHandle *main_on_cpu)
{
    HcclComm comm = r->comm;
    CommEngine dev_engine = shape->aicpu_memcpy_ctx ? COMM_ENGINE_AICPU : COMM_ENGINE_AICPU_TS;
    void *ctx = NULL;
    uint64_t size = 0;

    /* 2.2: the host stream as a CPU_TS thread with one notify (index 0: "kernel done"), and
     * its name inside the kernel. Bound to this call's stream, so never cached. */
    EX_CHECK(r, HcclThreadAcquireWithStream(comm, COMM_ENGINE_CPU_TS, r->stream, 1, host_thread));
    EX_CHECK(r, HcclThreadExportToCommEngine(comm, 1, host_thread, COMM_ENGINE_AICPU_TS,
                                             &p->host_thread));
    /* 2.3: the tag's device context: a hit reuses every resource of an earlier call. */
    HcclResult rc = HcclEngineCtxGet(comm, p->tag, dev_engine, &ctx, &size);
    if (rc == HCCL_E_NOT_FOUND)
        return build_resources(r, shape, p, main_on_cpu);
    EX_CHECK(r, rc);
    void *host_ctx = NULL;
    uint64_t host_size = 0;
    EX_CHECK(r, HcclEngineCtxGet(comm, p->tag, COMM_ENGINE_CPU_TS, &host_ctx, &host_size));
    const struct ex_host_cache *cache = host_ctx;
    EX_CHECK(r, HcclThreadExportToCommEngine(comm, 1, &cache->main_thread, COMM_ENGINE_CPU_TS,
                                             main_on_cpu));
    p->ctx = ctx;
    p->ctx_size = size;
    p->start_idx = cache->start_idx;
    return 0;
}

int ex_op_launch(struct ex_rank *r, struct ex_op_param *p, ThreadHandle host_thread,
                 ThreadHandle main_on_cpu)
{
    /* 2.9: the kernel binary, once per OS thread (each rank has its own). */
    if (r->bin == NULL) {
        aclrtBinaryLoadOption opt = {.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE};
        aclrtBinaryLoadOptions opts = {.options = &opt, .numOpt = 1};
        opt.value.cpuKernelMode = 0;
        EX_CHECK(r, aclrtBinaryLoadFromFile(kernel_json, &opts, &r->bin));
    }
    /* 2.10: the start signal, queued on the host stream. */
    EX_CHECK(r, HcommThreadNotifyRecordOnThread(host_thread, main_on_cpu, p->start_idx));
    /* 2.11: the launch; the parameter block is the kernel's only argument. */
    aclrtFuncHandle func;
    aclrtArgsHandle args;
    aclrtParamHandle param;
    EX_CHECK(r, aclrtBinaryGetFunction(r->bin, r->ex->kernel, &func));
    EX_CHECK(r, aclrtKernelArgsInit(func, &args));
    EX_CHECK(r, aclrtKernelArgsAppend(args, p, sizeof(*p), &param));
    EX_CHECK(r, aclrtKernelArgsFinalize(args));
    aclrtLaunchKernelAttr attr = {.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT};
    attr.value.timeout = EX_NOTIFY_TIMEOUT;
    aclrtLaunchKernelCfg cfg = {.attrs = &attr, .numAttrs = 1};
    EX_CHECK(r, aclrtLaunchKernelWithConfig(func, 1, r->stream, &cfg, args, NULL));
    /* 2.12: the host stream waits for the kernel's "done" on notify 0 of the host thread. */
    EX_CHECK(r, HcommThreadNotifyWaitOnThread(host_thread, 0, EX_NOTIFY_TIMEOUT));
    return 0;
}

/* ---- one rank: docs/FLOW.md §1.4, the calls, §4.6 read back, §5 teardown -------------- */

struct ex_result {
    bool ok; /* every API call succeeded and every byte was right */
    bool api_failed;
    uint64_t wrong; /* wrong elements in the last checked call */
    uint64_t first_bad;
    uint32_t got, want;
    uint64_t in_bytes, out_bytes;
    double ms;
};

static int fill_input(struct ex_rank *r, void *dev, uint64_t elems)
{
    uint32_t *h = NULL;

    EX_CHECK(r, aclrtMallocHost((void **)&h, elems * 4));
    for (uint64_t i = 0; i < elems; i++)
        h[i] = r->ex->input(r, i);
    aclError rc = aclrtMemcpy(dev, elems * 4, h, elems * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtFreeHost(h);
    EX_CHECK(r, rc);
    return 0;
}

static void check_output(const struct ex_rank *r, const uint32_t *h, uint64_t elems,
                         struct ex_result *res)
{
    res->wrong = 0;
    for (uint64_t i = 0; i < elems; i++) {
        uint32_t want = r->ex->expect(r, i);
        if (h[i] == want)
            continue;
        if (res->wrong++ == 0) {
            res->first_bad = i;
            res->got = h[i];
            res->want = want;
        }
    }
}

static double ms_since(const struct timespec *t0)
{
    struct timespec t1;

    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Runs the operator opts->iters times on buffers that stay allocated, checking each call. */
static int run_calls(struct ex_rank *r, struct ex_result *res)
{
    uint64_t in_elems, out_elems, count;
    void *in = NULL, *out = NULL;
    uint32_t *host_out = NULL;
    int ret = -1;

    r->ex->sizes(r, &in_elems, &out_elems, &count);
    in_elems = in_elems ? in_elems : 1; /* aclrtMalloc refuses 0 bytes */
    out_elems = out_elems ? out_elems : 1;
    res->in_bytes = in_elems * 4;
    res->out_bytes = out_elems * 4;
    if (aclrtMalloc(&in, in_elems * 4, ACL_MEM_MALLOC_HUGE_ONLY) != ACL_SUCCESS ||
        aclrtMalloc(&out, out_elems * 4, ACL_MEM_MALLOC_HUGE_ONLY) != ACL_SUCCESS ||
        aclrtMallocHost((void **)&host_out, out_elems * 4) != ACL_SUCCESS) {
        ex_report_failure(r, "aclrtMalloc/aclrtMallocHost (data buffers)", -1);
        goto out;
    }
    if (fill_input(r, in, in_elems) != 0)
        goto out;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    res->ok = true;
    for (uint32_t it = 0; it < r->opts->iters; it++) {
        if (aclrtMemset(out, out_elems * 4, EX_POISON, out_elems * 4) != ACL_SUCCESS ||
            r->ex->call(r, in, out, count) != 0)
            goto out;
        aclError rc = aclrtSynchronizeStream(r->stream);
        if (rc != ACL_SUCCESS) {
            ex_report_failure(r, "aclrtSynchronizeStream", rc);
            goto out;
        }
        rc = aclrtMemcpy(host_out, out_elems * 4, out, out_elems * 4, ACL_MEMCPY_DEVICE_TO_HOST);
        if (rc != ACL_SUCCESS) {
            ex_report_failure(r, "aclrtMemcpy (read back)", rc);
            goto out;
        }
        check_output(r, host_out, out_elems, res);
        if (res->wrong > 0)
            res->ok = false;
    }
    res->ms = ms_since(&t0);
    ret = 0;
out:
    if (ret != 0)
        res->api_failed = true;
    aclrtFreeHost(host_out);
    aclrtFree(out);
    aclrtFree(in);
    return ret;
}

static void print_rank_line(const struct ex_rank *r, const struct ex_result *res)
{
    char line[512];
    int n = snprintf(line, sizeof(line), "rank %u/%u (device %d): %s ", r->rank, r->size, r->dev,
                     r->ex->name);

    if (res->api_failed)
        snprintf(line + n, sizeof(line) - (size_t)n, "FAILED (see the error above)");
    else if (!res->ok)
        snprintf(line + n, sizeof(line) - (size_t)n,
                 "WRONG: %llu of %llu elements differ, first at element %llu: got 0x%08x, "
                 "want 0x%08x",
                 (unsigned long long)res->wrong, (unsigned long long)(res->out_bytes / 4),
                 (unsigned long long)res->first_bad, res->got, res->want);
    else
        snprintf(line + n, sizeof(line) - (size_t)n,
                 "ok: %llu bytes in, %llu bytes out, %u calls, %.1f ms",
                 (unsigned long long)res->in_bytes, (unsigned long long)res->out_bytes,
                 r->opts->iters, res->ms);
    /* One printf per line: rank threads print concurrently. */
    printf("%s\n", line);
    fflush(stdout);
}

/* One rank from aclrtSetDevice to aclrtResetDevice. */
static void rank_main(struct ex_rank *r, const HcclRootInfo *root, struct ex_result *res)
{
    memset(res, 0, sizeof(*res));
    res->api_failed = true;
    /* 1.4.1-3: device, communicator (collective: blocks until every rank joined), stream. */
    if (aclrtSetDevice(r->dev) != ACL_SUCCESS) {
        ex_report_failure(r, "aclrtSetDevice", -1);
        return;
    }
    HcclResult hr = HcclCommInitRootInfo(r->size, root, r->rank, &r->comm);
    if (hr != HCCL_SUCCESS) {
        ex_report_failure(r, "HcclCommInitRootInfo", hr);
        aclrtResetDevice(r->dev);
        return;
    }
    if (aclrtCreateStream(&r->stream) != ACL_SUCCESS) {
        ex_report_failure(r, "aclrtCreateStream", -1);
    } else {
        res->api_failed = false;
        run_calls(r, res);
        if (r->bin != NULL)
            aclrtBinaryUnLoad(r->bin);
    }
    /* FLOW.md §5: the communicator releases threads, channels, contexts and the HCCL buffer. */
    hr = HcclCommDestroy(r->comm);
    if (hr != HCCL_SUCCESS) {
        ex_report_failure(r, "HcclCommDestroy", hr);
        res->api_failed = true;
    }
    if (r->stream != NULL)
        aclrtDestroyStream(r->stream);
    aclrtResetDevice(r->dev);
}

/* ---- options ------------------------------------------------------------------------------ */

static void ex_usage(FILE *f, const char *name)
{
    fprintf(f,
            "usage: %s [--ranks N] [--bytes B[K|M]] [--iters K] [--root R] [--push]\n"
            "  Runs the %s example. Without HCEMU_RANK every rank is a thread of this\n"
            "  process (N ranks, default HCEMU_DEVICES or 8); under hcemu-run each process is\n"
            "  the rank HCEMU_RANK of HCEMU_RANK_SIZE.\n"
            "  --bytes  each rank's input size (default 1M)   --iters  calls (default 2)\n"
            "  --root   broadcast root (default 0)            --push   p2p: push variant\n",
            name, name);
}

static bool parse_size(const char *s, uint64_t *out)
{
    char *end;

    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || s[0] == '-')
        return false;
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    if (*end != '\0' || v == 0)
        return false;
    *out = v;
    return true;
}

static int parse_opts(int argc, char **argv, const struct ex_example *ex, struct ex_opts *o)
{
    o->bytes = 1 << 20;
    o->iters = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : "";
        char *end;
        uint64_t v = 0;
        bool ok = true;

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            ex_usage(stdout, ex->name);
            exit(0);
        }
        if (strcmp(a, "--push") == 0) {
            o->push = true;
            continue;
        }
        if (strcmp(a, "--bytes") == 0) {
            ok = parse_size(val, &o->bytes);
        } else {
            errno = 0;
            v = strtoull(val, &end, 10);
            ok = errno == 0 && end != val && *end == '\0' && val[0] != '-';
            if (strcmp(a, "--ranks") == 0 && ok && v >= 1 && v <= EX_MAX_RANKS)
                o->ranks = (uint32_t)v;
            else if (strcmp(a, "--iters") == 0 && ok && v >= 1 && v <= 1000000)
                o->iters = (uint32_t)v;
            else if (strcmp(a, "--root") == 0 && ok && v < EX_MAX_RANKS)
                o->root = (uint32_t)v;
            else
                ok = false;
        }
        if (!ok) {
            fprintf(stderr, "%s: bad option %s %s\n", ex->name, a, val);
            ex_usage(stderr, ex->name);
            return 2;
        }
        i++;
    }
    return 0;
}

/* The descriptor next to the executable (build tree), else in the installed kernel folder. */
static int find_kernel(const char *json)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

    if (n <= 0)
        return -1;
    exe[n] = '\0';
    const char *dir = dirname(exe);
    snprintf(kernel_json, sizeof(kernel_json), "%s/%s", dir, json);
    if (access(kernel_json, R_OK) == 0)
        return 0;
    snprintf(kernel_json, sizeof(kernel_json), "%s/%s/%s", dir, EX_INSTALLED_KERNEL_DIR, json);
    if (access(kernel_json, R_OK) == 0)
        return 0;
    fprintf(stderr, "cannot find the kernel descriptor %s next to %s or in %s/%s\n", json, exe, dir,
            EX_INSTALLED_KERNEL_DIR);
    return -1;
}

/* ---- thread mode: every rank a thread of this process (docs/FLOW.md §1) ----------------- */

struct rank_thread {
    pthread_t tid;
    struct ex_rank r;
    struct ex_result res;
    const HcclRootInfo *root;
};

static void *rank_thread_main(void *arg)
{
    struct rank_thread *t = arg;

    rank_main(&t->r, t->root, &t->res);
    print_rank_line(&t->r, &t->res);
    if (t->res.api_failed) {
        /* The other rank threads may wait forever for this one inside a collective call;
         * exit() still runs the library's clean-up (devices, job folder). */
        printf("%s: FAIL - rank %u failed; stopping\n", t->r.ex->name, t->r.rank);
        fflush(stdout);
        exit(1);
    }
    return NULL;
}

static int run_threads(const struct ex_example *ex, const struct ex_opts *o)
{
    HcclRootInfo *root = NULL;
    uint32_t ndev = 0, bad = 0;

    if (aclrtGetDeviceCount(&ndev) != ACL_SUCCESS || ndev < o->ranks) {
        fprintf(stderr, "%s: %u ranks need %u devices, there are %u (HCEMU_DEVICES)\n", ex->name,
                o->ranks, o->ranks, ndev);
        return 1;
    }
    /* 1.3: the root info, made on the root's device and shared through memory. */
    if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtMallocHost((void **)&root, sizeof(*root)) != 0 ||
        HcclGetRootInfo(root) != HCCL_SUCCESS) {
        fprintf(stderr, "%s: cannot make the root info\n", ex->name);
        return 1;
    }
    struct rank_thread *t = calloc(o->ranks, sizeof(*t));
    if (t == NULL)
        return 1;
    for (uint32_t i = 0; i < o->ranks; i++) {
        t[i].r =
            (struct ex_rank){.rank = i, .size = o->ranks, .dev = (int32_t)i, .opts = o, .ex = ex};
        t[i].root = root;
        if (pthread_create(&t[i].tid, NULL, rank_thread_main, &t[i]) != 0) {
            fprintf(stderr, "%s: cannot start rank thread %u\n", ex->name, i);
            exit(1); /* the started ranks would wait for this one forever */
        }
    }
    for (uint32_t i = 0; i < o->ranks; i++) {
        pthread_join(t[i].tid, NULL);
        bad += !t[i].res.ok || t[i].res.api_failed;
    }
    if (bad == 0)
        printf("%s: PASS - %u ranks as threads, %llu bytes in per rank, %u calls each\n", ex->name,
               o->ranks, (unsigned long long)t[0].res.in_bytes, o->iters);
    else
        printf("%s: FAIL - %u of %u ranks wrong or failed\n", ex->name, bad, o->ranks);
    fflush(stdout); /* the verdict must survive whatever happens at exit */
    free(t);
    aclrtFreeHost(root);
    aclrtResetDevice(0);
    return bad == 0 ? 0 : 1;
}

/* ---- process mode: this process is one rank of an hcemu-run job --------------------------- */

/* Each rank leaves "<name>.rank<r>.<ok|fail>" in the job folder; rank 0 collects them for the
 * verdict. hcemu-run removes the folder, and stops rank 0 if another rank dies. */
static void publish_result(const struct ex_example *ex, const struct ex_rank *r, bool ok)
{
    const char *job = getenv("HCEMU_JOB_PATH");
    char path[PATH_MAX];

    if (job == NULL)
        return;
    snprintf(path, sizeof(path), "%s/%s.rank%u.%s", job, ex->name, r->rank, ok ? "ok" : "fail");
    int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}

static void print_job_verdict(const struct ex_example *ex, const struct ex_rank *r,
                              const struct ex_result *res)
{
    const char *job = getenv("HCEMU_JOB_PATH");
    char path[PATH_MAX];
    uint32_t bad = 0;

    /* Ranks of other hosts leave their results in their own job folders. */
    if (job == NULL || getenv("HCEMU_ROOT") != NULL) {
        printf("%s: %s - rank %u only (the other ranks report on their own hosts)\n", ex->name,
               res->ok && !res->api_failed ? "PASS" : "FAIL", r->rank);
        return;
    }
    for (uint32_t k = 0; k < r->size; k++) {
        for (int tries = 0;; tries++) {
            snprintf(path, sizeof(path), "%s/%s.rank%u.ok", job, ex->name, k);
            if (access(path, F_OK) == 0)
                break;
            snprintf(path, sizeof(path), "%s/%s.rank%u.fail", job, ex->name, k);
            if (access(path, F_OK) == 0 || tries > 60000) { /* 10 minutes */
                bad++;
                break;
            }
            usleep(10000);
        }
    }
    if (bad == 0)
        printf("%s: PASS - %u ranks as processes, %llu bytes in per rank, %u calls each\n",
               ex->name, r->size, (unsigned long long)res->in_bytes, r->opts->iters);
    else
        printf("%s: FAIL - %u of %u ranks wrong or failed\n", ex->name, bad, r->size);
    fflush(stdout);
}

static int run_process(const struct ex_example *ex, struct ex_opts *o)
{
    struct ex_launch l;
    struct ex_rank r = {.opts = o, .ex = ex};
    struct ex_result res;
    HcclRootInfo *root = NULL;

    if (ex_launch_get(&l) != 1 || l.size > EX_MAX_RANKS) {
        fprintf(stderr,
                "%s: the launcher's rank variables are not valid (a rank below a rank count "
                "of at most %u; start with hcemu-run, mpirun or srun)\n",
                ex->name, (unsigned)EX_MAX_RANKS);
        return 2;
    }
    r.rank = l.rank;
    r.size = l.size;
    r.dev = (int32_t)l.local; /* each host numbers its own devices from 0 */
    o->ranks = r.size;
    /* 1.3: under hcemu-run every rank gets the job's root info from HcclGetRootInfo itself. */
    if (aclrtSetDevice(r.dev) != ACL_SUCCESS ||
        aclrtMallocHost((void **)&root, sizeof(*root)) != ACL_SUCCESS ||
        HcclGetRootInfo(root) != HCCL_SUCCESS) {
        fprintf(stderr, "rank %u: cannot get the root info\n", r.rank);
        return 1;
    }
    rank_main(&r, root, &res);
    print_rank_line(&r, &res);
    bool ok = res.ok && !res.api_failed;
    publish_result(ex, &r, ok);
    if (r.rank == 0 || getenv("HCEMU_ROOT") != NULL)
        print_job_verdict(ex, &r, &res);
    aclrtFreeHost(root);
    aclrtResetDevice(r.dev);
    return ok ? 0 : 1;
}

int ex_main(int argc, char **argv, const struct ex_example *ex)
{
    struct ex_opts o = {0};
    const char *devs = getenv("HCEMU_DEVICES");

    if (parse_opts(argc, argv, ex, &o) != 0)
        return 2;
    struct ex_launch l;
    process_mode = ex_launch_get(&l) != 0;
    if (!process_mode && o.ranks == 0)
        o.ranks = devs != NULL && atoi(devs) > 0 ? (uint32_t)atoi(devs) : 8;
    /* More ranks than the default 8 devices: ask the emulator for enough of them. */
    if (!process_mode && devs == NULL && o.ranks > 8) {
        char v[16];
        snprintf(v, sizeof(v), "%u", o.ranks);
        setenv("HCEMU_DEVICES", v, 1);
    }
    if (find_kernel(ex->json) != 0)
        return 1;
    aclError rc = aclInit(NULL);
    if (rc != ACL_SUCCESS && rc != ACL_ERROR_REPEAT_INITIALIZE) {
        fprintf(stderr, "%s: aclInit failed: %d\n", ex->name, rc);
        return 1;
    }
    int code = process_mode ? run_process(ex, &o) : run_threads(ex, &o);
    aclFinalize();
    return code;
}
