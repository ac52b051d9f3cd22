/* test_model_time.c - HCEMU_TIME=model end to end (host/acl/model_time.c): events around
 * hcemu's built-in HcclAllReduce (ring) and around a held-out ring AllGather kernel written as
 * a user would (kernels/model_ring_ag.c) give, on every rank, the closed-form time of the task
 * graph they queue, within 1 %, with the bytes checked in the same run, and identical figures
 * across HCEMU_SEEDs. Each run is a child process with ranks as threads (executors and
 * HCEMU_ALGO take their settings when they start). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hccl_res.h>
#include <hccl/hccl_res_expt.h>
#include <hcomm/hcomm_primitives.h>

#include "common/model/model.h"
#include "kernels/model_ring_ag.h"
#include "test_comm_util.h"

/* Paths here are short temporary folders; GCC cannot know that. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define MAX_N 8
#define AR_BYTES (4ull << 20) /* the allreduce: one slot-sized round per step at 8 ranks */
#define AG_BYTES (1ull << 20) /* the held-out allgather: bytes per rank */
/* The built-in mesh allgather: bytes per rank, above the eager slots of two ranks (1 MiB
 * with this test's HCCL_BUFFSIZE), so that 2, 4 and 8 ranks all read staged blocks. */
#define MESH_AG_BYTES (2ull << 20)
/* The small allgather whose second call goes through the eager slots. */
#define EAGER_AG_BYTES 1024ull
#define START_IDX 1u

static char self[CU_PATH];
static char tmp[CU_PATH];

/* The model file of the allreduce runs: a slower link and an fp32 reduce figure. */
static const char model_json[] = "{\"link_GBps\": 40, \"reduce_GBps_by_dtype\": "
                                 "{\"fp32\": 100, \"fp16\": 50}}";

/* ---- children ---------------------------------------------------------------------------- */

struct job {
    aclrtFuncHandle fn; /* the held-out kernel */
    float ms[MAX_N];
};

static void fill(struct cu_rank *r, void *dev, uint64_t bytes, float v)
{
    float *h = malloc(bytes);

    CU_CHECK(r, h != NULL);
    if (h == NULL)
        return;
    for (uint64_t i = 0; i < bytes / 4; i++)
        h[i] = v;
    CU_CHECK(r, aclrtMemcpy(dev, bytes, h, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    free(h);
}

/* Every float of dev[off, off + bytes) equals v. */
static void expect(struct cu_rank *r, const void *dev, uint64_t off, uint64_t bytes, float v)
{
    float *h = malloc(bytes);
    uint64_t bad = 0;

    CU_CHECK(r, h != NULL);
    if (h == NULL)
        return;
    CU_CHECK(r, aclrtMemcpy(h, bytes, (const uint8_t *)dev + off, bytes,
                            ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    for (uint64_t i = 0; i < bytes / 4; i++)
        bad += h[i] != v;
    CU_CHECK(r, bad == 0);
    free(h);
}

/* hcemu's HcclAllReduce (HCEMU_ALGO picks ring): one call to set up, then one between events. */
static void allreduce_body(struct cu_rank *r)
{
    struct job *x = r->arg;
    aclrtStream st = NULL;
    aclrtEvent a = NULL, b = NULL;
    void *in = NULL, *out = NULL;
    uint64_t count = AR_BYTES / 4;

    CU_CHECK(r, aclrtCreateStream(&st) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&in, AR_BYTES, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&out, AR_BYTES, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtCreateEvent(&a) == ACL_SUCCESS && aclrtCreateEvent(&b) == ACL_SUCCESS);
    if (r->failures != 0)
        return;
    fill(r, in, AR_BYTES, (float)(r->rank + 1));
    CU_CHECK(r, HcclAllReduce(in, out, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, r->comm, st) ==
                    HCCL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(st) == ACL_SUCCESS);
    CU_CHECK(r, aclrtRecordEvent(a, st) == ACL_SUCCESS);
    CU_CHECK(r, HcclAllReduce(in, out, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, r->comm, st) ==
                    HCCL_SUCCESS);
    CU_CHECK(r, aclrtRecordEvent(b, st) == ACL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(st) == ACL_SUCCESS);
    CU_CHECK(r, aclrtEventElapsedTime(&x->ms[r->rank], a, b) == ACL_SUCCESS);
    expect(r, out, 0, AR_BYTES, (float)(r->n * (r->n + 1) / 2));
    CU_CHECK(r, aclrtDestroyEvent(a) == ACL_SUCCESS && aclrtDestroyEvent(b) == ACL_SUCCESS);
    CU_CHECK(r, aclrtFree(in) == ACL_SUCCESS && aclrtFree(out) == ACL_SUCCESS);
    CU_CHECK(r, HcclCommDestroy(r->comm) == HCCL_SUCCESS);
    r->keep = true;
    CU_CHECK(r, aclrtDestroyStream(st) == ACL_SUCCESS);
}

/* hcemu's HcclAllGather of `bytes` per rank, `calls` times, each between events A and B
 * (synchronised after each); the elapsed time of the last. Every rank's stream starts at the
 * same modelled instant, so a first call's closed form needs no earlier call. */
static void allgather_calls(struct cu_rank *r, uint64_t bytes, int calls)
{
    struct job *x = r->arg;
    aclrtStream st = NULL;
    aclrtEvent a = NULL, b = NULL;
    void *in = NULL, *out = NULL;

    CU_CHECK(r, aclrtCreateStream(&st) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&in, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&out, bytes * r->n, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtCreateEvent(&a) == ACL_SUCCESS && aclrtCreateEvent(&b) == ACL_SUCCESS);
    if (r->failures != 0)
        return;
    fill(r, in, bytes, (float)(r->rank + 1));
    for (int call = 0; call < calls; call++) {
        CU_CHECK(r, aclrtRecordEvent(a, st) == ACL_SUCCESS);
        CU_CHECK(r, HcclAllGather(in, out, bytes / 4, HCCL_DATA_TYPE_FP32, r->comm, st) ==
                        HCCL_SUCCESS);
        CU_CHECK(r, aclrtRecordEvent(b, st) == ACL_SUCCESS);
        CU_CHECK(r, aclrtSynchronizeStream(st) == ACL_SUCCESS);
    }
    CU_CHECK(r, aclrtEventElapsedTime(&x->ms[r->rank], a, b) == ACL_SUCCESS);
    for (int q = 0; q < r->n; q++)
        expect(r, out, (uint64_t)q * bytes, bytes, (float)(q + 1));
    CU_CHECK(r, aclrtDestroyEvent(a) == ACL_SUCCESS && aclrtDestroyEvent(b) == ACL_SUCCESS);
    CU_CHECK(r, aclrtFree(in) == ACL_SUCCESS && aclrtFree(out) == ACL_SUCCESS);
    CU_CHECK(r, HcclCommDestroy(r->comm) == HCCL_SUCCESS);
    r->keep = true;
    CU_CHECK(r, aclrtDestroyStream(st) == ACL_SUCCESS);
}

/* The mesh allgather's first call (staged reads at 2, 4 and 8 ranks). */
static void mesh_allgather_body(struct cu_rank *r)
{
    allgather_calls(r, MESH_AG_BYTES, 1);
}

/* 1 KiB per rank, twice: the first call exchanges through the slots (a pair's first exchange
 * in a communicator), the second through the eager slots, where HCEMU_PEER_THREADS decides
 * which threads run it. */
static void eager_allgather_body(struct cu_rank *r)
{
    allgather_calls(r, EAGER_AG_BYTES, 2);
}

/* Threads, channels to both neighbours and the argument block of the held-out kernel. */
static void ag_setup(struct cu_rank *r, aclrtStream st, ThreadHandle *cpu, ThreadHandle *main_on_cpu,
                     struct mra_args *args, void **hb)
{
    uint32_t me = (uint32_t)r->rank, n = (uint32_t)r->n;
    uint32_t peers[2] = {(me + n - 1) % n, (me + 1) % n}, m = peers[0] == peers[1] ? 1 : 2;
    HcclChannelDesc d[2];
    ChannelHandle ch[2];
    uint64_t size = 0, peer_size = 0;
    void *right_buf = NULL;

    memset(args, 0, sizeof(*args));
    memset(d, 0, sizeof(d));
    CU_CHECK(r, HcclGetHcclBuffer(r->comm, hb, &size) == 0 && size >= n * AG_BYTES);
    CU_CHECK(r, HcclThreadAcquire(r->comm, COMM_ENGINE_AICPU_TS, 1, 2, &args->main) == 0);
    CU_CHECK(r, HcclThreadAcquireWithStream(r->comm, COMM_ENGINE_CPU_TS, st, 1, cpu) == 0);
    CU_CHECK(r, HcclThreadExportToCommEngine(r->comm, 1, cpu, COMM_ENGINE_AICPU_TS, &args->host) ==
                    0);
    CU_CHECK(r, HcclThreadExportToCommEngine(r->comm, 1, &args->main, COMM_ENGINE_CPU_TS,
                                             main_on_cpu) == 0);
    for (uint32_t i = 0; i < m; i++)
        /* Any protocol: UB_CTP inside a server, layer 1's link between the servers of two
         * hosts (HCEMU_HOST_SPLIT). */
        CU_CHECK(r, cu_desc_to(r->comm, me, peers[i], -1, MRA_NOTIFIES, &d[i]) == HCCL_SUCCESS);
    CU_CHECK(r, HcclChannelAcquire(r->comm, COMM_ENGINE_AICPU_TS, d, m, ch) == 0);
    CU_CHECK(r, HcclChannelGetHcclBuffer(r->comm, ch[m - 1], &right_buf, &peer_size) == 0);
    args->left = ch[0], args->right = ch[m - 1];
    args->buf = (uint64_t)(uintptr_t)*hb;
    args->right_buf = (uint64_t)(uintptr_t)right_buf;
    args->len = AG_BYTES;
    args->rank = me, args->n = n;
    args->start_idx = START_IDX;
}

/* The held-out kernel between two events, as a user's host program launches it. */
static void allgather_body(struct cu_rank *r)
{
    struct job *x = r->arg;
    aclrtStream st = NULL;
    aclrtEvent a = NULL, b = NULL;
    ThreadHandle cpu = 0, main_on_cpu = 0;
    struct mra_args args;
    void *hb = NULL, *in = NULL, *blk = NULL;

    CU_CHECK(r, aclrtCreateStream(&st) == ACL_SUCCESS);
    ag_setup(r, st, &cpu, &main_on_cpu, &args, &hb);
    CU_CHECK(r, aclrtMalloc(&in, AG_BYTES, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtMalloc(&blk, sizeof(args), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    CU_CHECK(r, aclrtCreateEvent(&a) == ACL_SUCCESS && aclrtCreateEvent(&b) == ACL_SUCCESS);
    if (r->failures != 0)
        return;
    fill(r, in, AG_BYTES, (float)(r->rank + 1));
    args.in = (uint64_t)(uintptr_t)in;
    CU_CHECK(r, aclrtMemcpy(blk, sizeof(args), &args, sizeof(args), ACL_MEMCPY_HOST_TO_DEVICE) ==
                    ACL_SUCCESS);
    cu_barrier_wait(); /* every channel complete before any kernel runs */
    CU_CHECK(r, aclrtRecordEvent(a, st) == ACL_SUCCESS);
    CU_CHECK(r, HcommThreadNotifyRecordOnThread(cpu, main_on_cpu, START_IDX) == 0);
    CU_CHECK(r, aclrtLaunchKernel(x->fn, 1, blk, sizeof(args), st) == ACL_SUCCESS);
    CU_CHECK(r, HcommThreadNotifyWaitOnThread(cpu, 0, 60) == 0);
    CU_CHECK(r, aclrtRecordEvent(b, st) == ACL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(st) == ACL_SUCCESS);
    CU_CHECK(r, aclrtEventElapsedTime(&x->ms[r->rank], a, b) == ACL_SUCCESS);
    for (int q = 0; q < r->n; q++)
        expect(r, hb, (uint64_t)q * AG_BYTES, AG_BYTES, (float)(q + 1));
    cu_barrier_wait(); /* no peer still writes into my buffer */
    CU_CHECK(r, aclrtDestroyEvent(a) == ACL_SUCCESS && aclrtDestroyEvent(b) == ACL_SUCCESS);
    CU_CHECK(r, aclrtFree(in) == ACL_SUCCESS && aclrtFree(blk) == ACL_SUCCESS);
    CU_CHECK(r, HcclCommDestroy(r->comm) == HCCL_SUCCESS);
    r->keep = true;
    CU_CHECK(r, aclrtDestroyStream(st) == ACL_SUCCESS);
}

/* The child: "<allreduce|allgather|mesh|eager> <n> <out>"; writes every rank's milliseconds to out. */
static int child_run(const char *what, int n, const char *out)
{
    struct cu_rank ranks[MAX_N];
    struct job x = {0};
    aclrtBinHandle bin = NULL;
    HcclRootInfo root;
    bool ag = strcmp(what, "allgather") == 0;
    int bad = 0;

    memset(ranks, 0, sizeof(ranks));
    if (n < 2 || n > MAX_N || aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        HcclGetRootInfo(&root) != HCCL_SUCCESS)
        return 2;
    if (ag && (aclrtBinaryLoadFromFile(MODEL_KERNELS_JSON, NULL, &bin) != ACL_SUCCESS ||
               aclrtBinaryGetFunction(bin, "model_ring_ag", &x.fn) != ACL_SUCCESS))
        return 2;
    cu_rank_fn body = ag ? allgather_body : allreduce_body;
    if (strcmp(what, "mesh") == 0)
        body = mesh_allgather_body;
    if (strcmp(what, "eager") == 0)
        body = eager_allgather_body;
    cu_run_ranks(ranks, n, &root, body, &x);
    FILE *f = fopen(out, "w");
    bad = f == NULL;
    for (int i = 0; i < n; i++) {
        bad |= ranks[i].init_rc != HCCL_SUCCESS || ranks[i].failures != 0;
        if (f != NULL)
            fprintf(f, "%.9g\n", x.ms[i]);
    }
    if (f != NULL)
        fclose(f);
    if (bin != NULL)
        aclrtBinaryUnLoad(bin);
    aclrtResetDevice(0);
    aclFinalize();
    return bad ? 3 : 0;
}

/* Run a child; its ranks' elapsed milliseconds into ms[0..n). `algo` is HCEMU_ALGO; `topo`
 * a topology file's text (HCEMU_TOPOLOGY) or NULL; `peer` is HCEMU_PEER_THREADS. */
static void run_child_with(const char *what, int n, uint64_t seed, bool file, const char *algo,
                           const char *topo, const char *peer, double *ms)
{
    static char env[10][CU_PATH * 2];
    char arg[CU_PATH * 2], out[CU_PATH * 2], model[CU_PATH * 2];

    cu_write(tmp, "model.json", model_json, model, sizeof(model));
    snprintf(out, sizeof(out), "%s/out.txt", tmp);
    snprintf(arg, sizeof(arg), "%s:%d:%s", what, n, out);
    snprintf(env[0], sizeof(env[0]), "HCEMU_TIME=model");
    snprintf(env[1], sizeof(env[1]), "HCEMU_SEED=%llu", (unsigned long long)seed);
    snprintf(env[2], sizeof(env[2]), "HCEMU_JOB_DIR=%s", tmp);
    snprintf(env[3], sizeof(env[3]), "HCEMU_MODEL=%s", file ? model : "");
    snprintf(env[4], sizeof(env[4]), "HCCL_BUFFSIZE=40");
    snprintf(env[5], sizeof(env[5]), "HCEMU_ALGO=%s", algo);
    snprintf(env[6], sizeof(env[6]), "HCEMU_DEVICE_MEM_GB=1");
    char topo_path[CU_PATH * 2] = "";
    if (topo != NULL)
        cu_write(tmp, "topo.json", topo, topo_path, sizeof(topo_path));
    snprintf(env[7], sizeof(env[7]), "HCEMU_TOPOLOGY=%s", topo_path);
    snprintf(env[8], sizeof(env[8]), "HCEMU_PEER_THREADS=%s", peer);
    char *e[] = {env[0], env[1], env[2], env[3], env[4], env[5], env[6], env[7], env[8], NULL};
    int st = cu_wait(cu_spawn(self, "run", arg, e), 120000);
    if (st != 0)
        fail_msg("child %s n=%d HCEMU_SEED=%llu exited with %d", what, n,
                 (unsigned long long)seed, st);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    for (int i = 0; i < n; i++)
        assert_int_equal(fscanf(f, "%lf", &ms[i]), 1);
    fclose(f);
    unlink(out);
    assert_int_equal(cu_wait_executors_gone(tmp, 5000), 0);
}

static void run_child(const char *what, int n, uint64_t seed, bool file, double *ms)
{
    run_child_with(what, n, seed, file, "allreduce:ring,allgather:mesh", NULL, "auto", ms);
}

/* ---- closed forms -------------------------------------------------------------------------
 * Both graphs are the same on every rank, so every rank sees the same time. Around the call
 * on the host stream: event A; the start record (H); the kernel launch (K before its first
 * task); the host's wait for "done" (the larger of its own cost and the notify latency after
 * the kernel's last record); event B (H). On the AICPU thread: the start wait (T: the host's
 * record is long visible), a local copy, the steps, the record to the host (T). The built-in
 * collectives have no start record and no start wait (coll_launch.c: the launch's place on the
 * stream orders the kernel). One exchange step: ACK record (T), ACK wait (T: the neighbour's
 * record came at the same time), write of b bytes (T + link latency + b / B), DATA wait (T). */

static double host_part_of(const struct emu_model_params *p, bool start_notify)
{
    double H = p->host_task_s, N = p->notify_s;
    double start = start_notify ? H /* start record */ + p->task_s /* start wait */ : 0;
    return start + p->launch_s + p->task_s /* record to host */ + (H > N ? H : N) + H;
}

static double host_part(const struct emu_model_params *p)
{
    return host_part_of(p, true);
}

static double step(const struct emu_model_params *p, double bytes)
{
    return 4 * p->task_s + p->link_lat_s + bytes / p->link_bw;
}

/* Ring allreduce of S bytes: copy in -> out, n - 1 reduce-scatter steps each followed by a
 * local reduce of a block, n - 1 allgather steps each followed by a local copy of a block. */
static double ring_allreduce_ms(const struct emu_model_params *p, int n, double reduce_bw)
{
    double S = (double)AR_BYTES, blk = S / n, T = p->task_s;
    double rs = step(p, blk) + T + blk / reduce_bw, ag = step(p, blk) + T + blk / p->copy_bw;
    return (host_part_of(p, false) + T + S / p->copy_bw + (n - 1) * (rs + ag)) * 1e3;
}

/* The held-out kernel: copy my block into my slot, n - 1 exchange steps of one block. */
static double ring_allgather_ms(const struct emu_model_params *p, int n)
{
    double len = (double)AG_BYTES;
    return (host_part(p) + p->task_s + len / p->copy_bw + (n - 1) * step(p, len)) * 1e3;
}

static double max2(double a, double b)
{
    return a > b ? a : b;
}

/* Index of peer p's thread on rank me (coll_kernel.c: one thread per peer in rank order). */
static int peer_index(int me, int p)
{
    return p < me ? p : p - 1;
}

/* Mesh allgather of S bytes per rank (coll_kernel.c, STAGED, one round): the main thread
 * copies its block into its HCCL buffer, starts the peer threads one after the other (a
 * record each), copies its own block to its output, then waits for them in order. Peer thread
 * j records "staged" to its peer, waits for the peer's, reads the peer's block, records "read"
 * and waits for the peer's, and reports back. With one peer the main thread does that itself,
 * before its own block. Returns rank me's milliseconds. */
static double mesh_allgather_ms(const struct emu_model_params *p, int n, int me)
{
    double T = p->task_s, N = p->notify_s, S = (double)MESH_AG_BYTES;
    double move = T + p->link_lat_s + S / p->link_bw;
    double copy = T + S / p->copy_bw;
    double m0 = p->launch_s + copy; /* from A's end: the launch, my block staged */
    double end;

    if (n == 2) { /* every rank stages at the same instant */
        double ack = max2(m0 + 2 * T, m0 + T + N);
        double data = max2(ack + move + 2 * T, ack + move + T + N);
        end = data + copy + T;
    } else {
        double joined = m0 + n * T + S / p->copy_bw; /* the start records, my own block */
        for (int q = 0; q < n; q++) {
            if (q == me)
                continue;
            int j = peer_index(me, q), jq = peer_index(q, me);
            double w = m0 + (j + 1) * T + N, wq = m0 + (jq + 1) * T + N; /* threads start */
            double ack = max2(w + 2 * T, wq + T + N), ackq = max2(wq + 2 * T, w + T + N);
            double data = max2(ack + move + 2 * T, ackq + move + T + N);
            joined = max2(joined + T, data + T + N);
        }
        end = joined + T; /* the record to the host */
    }
    return (end + max2(p->host_task_s, N) + p->host_task_s) * 1e3; /* host wait, event B */
}

static void within_1pc(const char *what, int n, int rank, double got, double want)
{
    if (got < want * 0.99 || got > want * 1.01)
        fail_msg("%s n=%d rank %d: aclrtEventElapsedTime %.6f ms, closed form %.6f ms", what, n,
                 rank, got, want);
}

/* ---- tests --------------------------------------------------------------------------------- */

static void builtin_ring_allreduce_events_give_the_closed_form_at_2_4_8_ranks(void **state)
{
    static const int ns[] = {2, 4, 8};
    struct emu_model_params p;
    double ms[MAX_N], again[MAX_N];

    (void)state;
    emu_model_params_default(&p);
    p.link_bw = 40e9; /* the model file */
    for (size_t i = 0; i < 3; i++) {
        run_child("allreduce", ns[i], 11 * ns[i], true, ms);
        for (int r = 0; r < ns[i]; r++)
            within_1pc("ring allreduce", ns[i], r, ms[r], ring_allreduce_ms(&p, ns[i], 100e9));
    }
    /* The same run under another seed: the same figures, bit for bit. */
    run_child("allreduce", 8, 4242, true, again);
    for (int r = 0; r < 8; r++)
        if (again[r] != ms[r])
            fail_msg("rank %d: HCEMU_SEED=88 %.9g ms, HCEMU_SEED=4242 %.9g ms", r, ms[r], again[r]);
}

static void builtin_mesh_allgather_events_give_the_closed_form_at_2_4_8_ranks(void **state)
{
    static const int ns[] = {2, 4, 8};
    struct emu_model_params p;
    double ms[MAX_N];

    (void)state;
    emu_model_params_default(&p);
    for (size_t i = 0; i < 3; i++) {
        run_child("mesh", ns[i], 3, false, ms);
        for (int r = 0; r < ns[i]; r++)
            within_1pc("mesh allgather", ns[i], r, ms[r], mesh_allgather_ms(&p, ns[i], r));
    }
}

static void held_out_ring_allgather_kernel_elapsed_is_its_closed_form_across_seeds(void **state)
{
    static const uint64_t seeds[] = {0, 977};
    struct emu_model_params p;
    double ms[2][MAX_N], four[MAX_N];

    (void)state;
    emu_model_params_default(&p);
    run_child("allgather", 4, 5, false, four);
    for (int r = 0; r < 4; r++)
        within_1pc("held-out ring allgather", 4, r, four[r], ring_allgather_ms(&p, 4));
    for (int i = 0; i < 2; i++) {
        run_child("allgather", 8, seeds[i], false, ms[i]);
        for (int r = 0; r < 8; r++) {
            within_1pc("held-out ring allgather", 8, r, ms[i][r], ring_allgather_ms(&p, 8));
            if (ms[i][r] != ms[0][r])
                fail_msg("rank %d: HCEMU_SEED=%llu %.9g ms, HCEMU_SEED=0 %.9g ms", r,
                         (unsigned long long)seeds[i], ms[i][r], ms[0][r]);
        }
    }
}

/* A small mesh allgather's eager exchanges run, when the time is modelled, on a thread per
 * peer as the card dispatches them: HCEMU_PEER_THREADS=auto gives the figures of =on bit for
 * bit, and =off (every exchange on the main thread, the emulator's form when nothing is
 * modelled) gives others, so the comparison can tell the forms apart. */
static void modelled_small_mesh_runs_a_thread_per_peer(void **state)
{
    double automatic[MAX_N], on[MAX_N], off[MAX_N];
    bool differ = false;

    (void)state;
    run_child_with("eager", 4, 7, false, "allgather:mesh", NULL, "auto", automatic);
    run_child_with("eager", 4, 7, false, "allgather:mesh", NULL, "on", on);
    run_child_with("eager", 4, 7, false, "allgather:mesh", NULL, "off", off);
    for (int r = 0; r < 4; r++) {
        if (automatic[r] != on[r])
            fail_msg("rank %d: auto %.9g ms, a thread per peer %.9g ms", r, automatic[r], on[r]);
        differ |= off[r] != on[r];
    }
    if (!differ)
        fail_msg("the main-thread form gave the same modelled times as a thread per peer");
    print_message("1 KiB allgather, 4 ranks, modelled ms on rank 0: a thread per peer %.6f, "
                  "main thread %.6f\n", on[0], off[0]);
}

/* Two servers of four devices (HCEMU_TOPOLOGY): the inter-server ports have their own cost,
 * so the flat one-shot allreduce (every rank sends the whole buffer to four ranks of the other
 * server through one port) takes longer than on one server; the hierarchical allreduce sends
 * a quarter of it once through the port and beats the flat forms; its figures are the same,
 * bit for bit, under two seeds; every run checks the bytes. */
static const char two_servers[] = "{\"servers\": [{\"devices\": [0, 1, 2, 3]}, "
                                  "{\"devices\": [4, 5, 6, 7]}]}";

static double slowest(const double *ms, int n)
{
    double m = 0;
    for (int r = 0; r < n; r++)
        m = ms[r] > m ? ms[r] : m;
    return m;
}

static void hierarchical_allreduce_over_two_servers_beats_flat_and_is_deterministic(void **state)
{
    double one[MAX_N], flat[MAX_N], two[MAX_N], hier[MAX_N], again[MAX_N];

    (void)state;
    if (getenv("HCEMU_HOST_SPLIT") != NULL) {
        /* Device 0 alone on a second host: servers of 1, 3 and 4 ranks, no hierarchy. */
        print_message("skipped under HCEMU_HOST_SPLIT (servers of unequal sizes)\n");
        return;
    }
    run_child_with("allreduce", 8, 5, false, "allreduce:twoshot", NULL, "auto", one);
    run_child_with("allreduce", 8, 5, false, "allreduce:twoshot", two_servers, "auto", flat);
    run_child_with("allreduce", 8, 5, false, "allreduce:rhd", two_servers, "auto", two);
    run_child_with("allreduce", 8, 5, false, "allreduce:hier", two_servers, "auto", hier);
    run_child_with("allreduce", 8, 9191, false, "allreduce:hier", two_servers, "auto", again);
    if (!(slowest(flat, 8) > slowest(one, 8)))
        fail_msg("two-shot: %.6f ms over two servers, %.6f ms on one: the ports cost nothing",
                 slowest(flat, 8), slowest(one, 8));
    if (!(slowest(hier, 8) < slowest(flat, 8) && slowest(hier, 8) < slowest(two, 8)))
        fail_msg("hier %.6f ms, two-shot %.6f ms, rhd %.6f ms over two servers",
                 slowest(hier, 8), slowest(flat, 8), slowest(two, 8));
    for (int r = 0; r < 8; r++)
        if (again[r] != hier[r])
            fail_msg("rank %d: hier under HCEMU_SEED=5 %.9g ms, 9191 %.9g ms", r, hier[r],
                     again[r]);
    print_message("4 MiB fp32 allreduce, 8 ranks, modelled ms: one server two-shot %.4f; two "
                  "servers two-shot %.4f, rhd %.4f, hier %.4f\n",
                  slowest(one, 8), slowest(flat, 8), slowest(two, 8), slowest(hier, 8));
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--child") == 0 && strcmp(argv[2], "run") == 0) {
        char what[32], out[CU_PATH * 2];
        int n = 0;
        if (sscanf(argv[3], "%31[^:]:%d:%1023s", what, &n, out) != 3)
            return 2;
        return child_run(what, n, out);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtin_ring_allreduce_events_give_the_closed_form_at_2_4_8_ranks),
        cmocka_unit_test(builtin_mesh_allgather_events_give_the_closed_form_at_2_4_8_ranks),
        cmocka_unit_test(held_out_ring_allgather_kernel_elapsed_is_its_closed_form_across_seeds),
        cmocka_unit_test(hierarchical_allreduce_over_two_servers_beats_flat_and_is_deterministic),
        cmocka_unit_test(modelled_small_mesh_runs_a_thread_per_peer),
    };
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 1;
    self[n] = 0;
    cu_tmpdir(tmp, sizeof(tmp));
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cu_rmtree(tmp);
    return rc;
}
