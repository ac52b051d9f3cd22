/* bench_net.c - the data plane between two hosts without the collective around it: two ranks
 * (threads of this process) on devices 0 and 1, device 1 on a second "host" (HCEMU_HOST_SPLIT,
 * so the channel between them goes through UCX), one AICPU_TS thread each, running programs of
 * the dp_exec kernel:
 *   - write only:  rank 0 issues HcommWriteOnThread N times into rank 1's HCCL buffer;
 *   - write + notify: rank 0 HcommWriteWithNotifyOnThread, rank 1 waits and records a notify
 *     back, N times (what a send/recv step costs);
 *   - notify hand-off: the two ranks ping-pong a channel notify N times.
 * Each figure is the difference of two runs (N1 and N2 rounds), so the kernel launch, the
 * join and the host's synchronisation drop out: bytes per second of the extra rounds, and
 * microseconds per one-way hand-off (round trip / 2). bench/net.sh prints them beside UCX's
 * own ucp_put_bw and ucp_am_lat. Not a test: prints rows, asserts nothing.
 * Usage: bench_net [--sizes 1M,4M,...] [--iters N] [--rounds N]
 * Output lines: "write BYTES WRITE_GBS NOTIFY_GBS" and "handoff US". */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hccl_res.h>
#include <hcomm/hcomm_primitives.h>
#include <hcomm/hcomm_primitives_expt.h>

#include "common/platform/os.h"
#include "kernels/dp_params.h"
#include "test_comm_util.h"

#define MAXOPS 8
#define CN 2 /* channel notifies: 0 forward, 1 back */

struct rank_res {
    int rank;
    int failures;
    HcclComm comm;
    aclrtStream stream;
    ThreadHandle t;
    ChannelHandle ch;
    uint8_t *src;
    uint8_t *peer_hb; /* the peer's HCCL buffer: where writes land */
    uint64_t max;
};

struct prog {
    struct dp_op ops[MAXOPS];
    uint32_t n;
};

static HcclRootInfo root;
static struct rank_res R[2];
static aclrtFuncHandle exec_fn;
static uint64_t max_bytes = 256ull << 20;

static struct dp_op *op(struct prog *p, uint32_t fn, const struct rank_res *k)
{
    struct dp_op *o = &p->ops[p->n++];
    memset(o, 0, sizeof(*o));
    o->fn = fn;
    o->thread = k->t;
    o->other = k->ch;
    o->timeout = 60;
    return o;
}

static void *rank_up(void *arg)
{
    struct rank_res *k = arg;
    HcclChannelDesc d;
    void *hb = NULL;
    uint64_t size = 0;

#define NEED(c)                                                                                    \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "bench_net: rank %d: %s failed\n", k->rank, #c);                       \
            k->failures++;                                                                         \
            return NULL;                                                                           \
        }                                                                                          \
    } while (0)
    NEED(aclrtSetDevice(k->rank) == ACL_SUCCESS);
    NEED(HcclCommInitRootInfo(2, &root, (uint32_t)k->rank, &k->comm) == HCCL_SUCCESS);
    NEED(aclrtCreateStream(&k->stream) == ACL_SUCCESS);
    NEED(HcclThreadAcquire(k->comm, COMM_ENGINE_AICPU_TS, 1, 2, &k->t) == HCCL_SUCCESS);
    NEED(aclrtMalloc((void **)&k->src, max_bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    NEED(aclrtMemset(k->src, max_bytes, 0x5a, max_bytes) == ACL_SUCCESS);
    memset(&d, 0, sizeof(d));
    NEED(cu_desc_to(k->comm, (uint32_t)k->rank, (uint32_t)(1 - k->rank), -1, CN, &d) ==
         HCCL_SUCCESS);
    NEED(HcclChannelAcquire(k->comm, COMM_ENGINE_AICPU_TS, &d, 1, &k->ch) == HCCL_SUCCESS);
    NEED(HcclChannelGetHcclBuffer(k->comm, k->ch, &hb, &size) == HCCL_SUCCESS && size >= max_bytes);
    k->peer_hb = hb;
#undef NEED
    return NULL;
}

static void *rank_down(void *arg)
{
    struct rank_res *k = arg;

    if (aclrtSetDevice(k->rank) != ACL_SUCCESS)
        return NULL;
    if (k->comm != NULL)
        (void)HcclCommDestroy(k->comm);
    if (k->src != NULL)
        (void)aclrtFree(k->src);
    if (k->stream != NULL)
        (void)aclrtDestroyStream(k->stream);
    return NULL;
}

static int on_both(void *(*fn)(void *))
{
    pthread_t th[2];

    for (int r = 0; r < 2; r++)
        if (pthread_create(&th[r], NULL, fn, &R[r]) != 0)
            return -1;
    for (int r = 0; r < 2; r++)
        pthread_join(th[r], NULL);
    return R[0].failures + R[1].failures;
}

/* Launch each rank's program (ps[r] NULL: none), ending with a join of its thread; seconds
 * from the first launch to the last synchronisation, or a negative value on failure. */
static double timed(struct prog **ps)
{
    void *blk[2] = {0};
    double s = -1;

    uint64_t t0 = emu_os_now_ns();
    for (int r = 0; r < 2; r++) {
        struct prog *p = ps[r];
        if (p == NULL)
            continue;
        op(p, DPF_JOIN, &R[r]);
        size_t bytes = sizeof(struct dp_args) + p->n * (sizeof(struct dp_op) + sizeof(int32_t));
        uint8_t host[sizeof(struct dp_args) + MAXOPS * (sizeof(struct dp_op) + sizeof(int32_t))];
        memset(host, 0, sizeof(host));
        if (aclrtSetDevice(r) != ACL_SUCCESS ||
            aclrtMalloc(&blk[r], bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
            goto out;
        struct dp_args *a = (struct dp_args *)host;
        a->ops = (uint64_t)(uintptr_t)blk[r] + sizeof(*a);
        a->rets = a->ops + p->n * sizeof(struct dp_op);
        a->nops = p->n;
        memcpy(host + sizeof(*a), p->ops, p->n * sizeof(struct dp_op));
        if (aclrtMemcpy(blk[r], bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS ||
            aclrtLaunchKernel(exec_fn, 1, blk[r], sizeof(struct dp_args), R[r].stream) !=
                ACL_SUCCESS)
            goto out;
    }
    for (int r = 0; r < 2; r++) {
        struct prog *p = ps[r];
        if (p == NULL)
            continue;
        int32_t rets[MAXOPS];
        if (aclrtSetDevice(r) != ACL_SUCCESS ||
            aclrtSynchronizeStream(R[r].stream) != ACL_SUCCESS ||
            aclrtMemcpy(rets, sizeof(rets),
                        (uint8_t *)blk[r] + sizeof(struct dp_args) + p->n * sizeof(struct dp_op),
                        p->n * sizeof(int32_t), ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
            goto out;
        for (uint32_t i = 0; i < p->n; i++)
            if (rets[i] != 0) {
                fprintf(stderr, "bench_net: rank %d op %u (fn %u) returned %d\n", r, i,
                        p->ops[i].fn, rets[i]);
                goto out;
            }
        p->n--; /* the join: the program can run again */
    }
    s = (double)(emu_os_now_ns() - t0) / 1e9;
out:
    for (int r = 0; r < 2; r++)
        if (blk[r] != NULL && aclrtSetDevice(r) == ACL_SUCCESS)
            (void)aclrtFree(blk[r]);
    return s;
}

/* Programs of `rounds` rounds. kind 0: write only; 1: write + notify and a notify back;
 * 2: notify ping-pong. */
static double run_kind(int kind, uint64_t bytes, uint64_t rounds)
{
    struct prog p0 = {.n = 0}, p1 = {.n = 0};
    struct prog *ps[2] = {&p0, kind == 0 ? NULL : &p1};
    struct dp_op *o;

    /* The ping-pong's tasks are handed over in batches (HcommBatchModeStart), as a kernel
     * that queues a whole algorithm does: what is timed is the hand-offs, not a ring of the
     * device per queued task while the other side already plays. */
    if (kind == 2)
        strcpy(op(&p0, DPF_BSTART, &R[0])->tag, "pp");
    o = op(&p0, DPF_LOOP, &R[0]);
    o->n = rounds, o->idx = kind == 0 ? 1 : 2;
    if (kind == 2) {
        op(&p0, DPF_CREC, &R[0])->idx = 0;
        op(&p0, DPF_CWAIT, &R[0])->idx = 1;
        strcpy(op(&p0, DPF_BEND, &R[0])->tag, "pp");
    } else {
        o = op(&p0, kind == 0 ? DPF_WRITE : DPF_WRITE_NOTIFY, &R[0]);
        o->dst = (uint64_t)(uintptr_t)R[0].peer_hb, o->src = (uint64_t)(uintptr_t)R[0].src;
        o->n = bytes, o->idx = 0;
        if (kind == 1)
            op(&p0, DPF_CWAIT, &R[0])->idx = 1;
    }
    if (kind != 0) {
        if (kind == 2)
            strcpy(op(&p1, DPF_BSTART, &R[1])->tag, "pp");
        o = op(&p1, DPF_LOOP, &R[1]);
        o->n = rounds, o->idx = 2;
        op(&p1, DPF_CWAIT, &R[1])->idx = 0;
        op(&p1, DPF_CREC, &R[1])->idx = 1;
        if (kind == 2)
            strcpy(op(&p1, DPF_BEND, &R[1])->tag, "pp");
    }
    return timed(ps);
}

/* Seconds per extra round: the difference of the best n-round and the best 2n+1-round run
 * of `iters` each. When noise makes it non-positive (a loaded machine), the 2n+1-round run's
 * mean round, launch and synchronisation included, with a note on stderr. */
static double per_round(int kind, uint64_t bytes, uint64_t n, int iters)
{
    double a = -1, b = -1;

    for (int i = 0; i < iters; i++) {
        double x = run_kind(kind, bytes, n), y = run_kind(kind, bytes, 2 * n + 1);
        if (x < 0 || y < 0) {
            fprintf(stderr, "bench_net: a run of kind %d, %llu bytes failed\n", kind,
                    (unsigned long long)bytes);
            return -1;
        }
        a = a < 0 || x < a ? x : a;
        b = b < 0 || y < b ? y : b;
    }
    if (b > a)
        return (b - a) / (double)(n + 1);
    fprintf(stderr,
            "bench_net: kind %d, %llu bytes: too noisy to subtract the launch; the mean "
            "round of the longer run is printed instead\n",
            kind, (unsigned long long)bytes);
    return b / (double)(2 * n + 1);
}

/* The next size of a "1M,4M,..." list (K/M/G suffixes), advancing *s; 0 at the end. */
static uint64_t next_size(const char **s)
{
    char *end;

    if (**s == '\0')
        return 0;
    uint64_t v = strtoull(*s, &end, 10);
    v <<= *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    *s = strchr(*s, ',') != NULL ? strchr(*s, ',') + 1 : "";
    return v;
}

int main(int argc, char **argv)
{
    char job[CU_PATH], mb[32];
    const char *sizes = "1M,4M,16M,64M,256M";
    int iters = 3;
    uint64_t rounds = 2000;
    aclrtBinHandle bin;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--sizes") == 0)
            sizes = argv[i + 1];
        else if (strcmp(argv[i], "--iters") == 0)
            iters = atoi(argv[i + 1]) > 0 ? atoi(argv[i + 1]) : 1;
        else if (strcmp(argv[i], "--rounds") == 0)
            rounds = strtoull(argv[i + 1], NULL, 0) > 0 ? strtoull(argv[i + 1], NULL, 0) : 1;
    }
    max_bytes = 0;
    for (const char *s = sizes; *s != '\0';) {
        uint64_t v = next_size(&s);
        max_bytes = v > max_bytes ? v : max_bytes;
    }
    if (max_bytes == 0)
        max_bytes = 4096;
    cu_job_begin(job, sizeof(job), "2", "1");
    snprintf(mb, sizeof(mb), "%llu", (unsigned long long)((max_bytes >> 20) + 1));
    setenv("HCCL_BUFFSIZE", mb, 1);
    setenv("HCEMU_DEVICE_MEM_GB", max_bytes > (200ull << 20) ? "2" : "1", 1);
    setenv("HCEMU_HOST_SPLIT", "1", 0);
    int rc = 1;
    R[0].rank = 0, R[1].rank = 1;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtBinaryLoadFromFile(DPC_KERNELS_JSON, NULL, &bin) != ACL_SUCCESS ||
        aclrtBinaryGetFunction(bin, "dp_exec", &exec_fn) != ACL_SUCCESS ||
        HcclGetRootInfo(&root) != HCCL_SUCCESS || on_both(rank_up) != 0) {
        fprintf(stderr, "bench_net: set-up failed\n");
        goto out;
    }
    for (const char *s = sizes; *s != '\0';) {
        uint64_t v = next_size(&s);
        if (v == 0)
            continue;
        /* Enough rounds for a second of transfers at ~1 GB/s, at least 2. */
        uint64_t n = (1ull << 28) / v > 2 ? (1ull << 28) / v : 2;
        n = n > 64 ? 64 : n;
        double w = per_round(0, v, n, iters), wn = per_round(1, v, n, iters);
        if (w < 0 || wn < 0)
            goto out;
        printf("write %llu %.3f %.3f\n", (unsigned long long)v, (double)v / w / 1e9,
               (double)v / wn / 1e9);
        fflush(stdout);
    }
    double h = per_round(2, 0, rounds, iters);
    if (h < 0)
        goto out;
    printf("handoff %.2f\n", h * 1e6 / 2);
    rc = 0;
out:
    on_both(rank_down);
    aclrtResetDevice(0);
    aclrtResetDevice(1);
    aclFinalize();
    return cu_job_end(job, rc);
}
