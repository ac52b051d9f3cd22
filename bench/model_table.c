/* model_table.c - hcemu-model-table: hcemu's real built-in collectives (libhcemu's
 * HcclAllReduce and HcclAllGather, every algorithm, chosen with HCEMU_ALGO) run at N ranks
 * with HCEMU_TIME=model; per size, the modelled time between two events around one call
 * beside the vendor cost model's alpha-beta formula for the same algorithm (docs/MODEL.md),
 * so a user sees which algorithm wins where. Each algorithm runs in a child process (the
 * setting is read once per process), ranks as threads. Usage:
 *   hcemu-model-table [--ranks N] [--max BYTES]   (N a power of two, 2..16) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>
#include <hccl/hccl.h>

#define MAX_RANKS 16
#define MAX_SIZES 16
#define MIN_BYTES 1024ull

/* Vendor figures (HCCL cost_model.cc): bytes per second and seconds per task. */
#define V_LINK 56e9
#define V_COPY 750e9
#define V_REDUCE 483e9
#define V_TASK 2e-6
#define V_AG_TASK 5e-6 /* its AllGather templates count 5 us per task */

enum coll { ALLREDUCE, ALLGATHER };

struct algo {
    enum coll coll;
    const char *name;   /* HCEMU_ALGO value */
    const char *vendor; /* the vendor template whose formula stands beside it */
    double (*formula)(double bytes, double ranks);
};

/* The vendor's cost per template: (A + B) * bytes + C, at full link utilisation. */
static double v_ar_oneshot(double d, double r)
{
    return d / V_LINK + d / V_COPY + (r - 1) * d / V_REDUCE + 1 * V_TASK;
}

static double v_ar_twoshot(double d, double r)
{
    return 2 * d / (r * V_LINK) + d / (r * V_COPY) + (r - 1) * d / (r * V_REDUCE) + 20 * V_TASK;
}

static double v_ar_nhr(double d, double r) /* its NHR template assumes 8 ports (CLOS) */
{
    return 2 * (r - 1) * d / (8 * r * V_LINK) + 2 * d / V_COPY + 10 * V_TASK;
}

static double v_ag_mesh(double d, double r)
{
    (void)r;
    return d / V_LINK + d / V_COPY + 10 * V_AG_TASK;
}

static double v_ag_nhr(double d, double r) /* 6 ports, 4 log2(r) + 1 tasks */
{
    int lg = 0;
    for (double x = r; x > 1.5; x /= 2)
        lg++;
    return (r - 1) * d / (6 * V_LINK) + d / V_COPY + (4 * lg + 1) * V_AG_TASK;
}

static const struct algo algos[] = {
    {ALLREDUCE, "mesh", "mesh 1D one-shot", v_ar_oneshot},
    {ALLREDUCE, "twoshot", "mesh 1D two-shot", v_ar_twoshot},
    {ALLREDUCE, "ring", "NHR", v_ar_nhr},
    {ALLREDUCE, "rhd", "NHR", v_ar_nhr},
    {ALLGATHER, "mesh", "mesh 1D", v_ag_mesh},
    {ALLGATHER, "ring", "NHR", v_ag_nhr},
    {ALLGATHER, "rhd", "NHR", v_ag_nhr},
};
#define N_ALGOS (sizeof(algos) / sizeof(algos[0]))

static const char *const coll_names[] = {"allreduce", "allgather"};

/* ---- child: one algorithm, ranks as threads --------------------------------------------- */

struct rank {
    uint32_t rank, n;
    enum coll coll;
    uint64_t maxb;
    const HcclRootInfo *root;
    double us[MAX_SIZES]; /* modelled time of each size; < 0 when it failed */
};

static HcclResult call(const struct rank *r, HcclComm comm, aclrtStream st, void *in, void *out,
                       uint64_t bytes)
{
    if (r->coll == ALLREDUCE)
        return HcclAllReduce(in, out, bytes / 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, st);
    return HcclAllGather(in, out, bytes / 4, HCCL_DATA_TYPE_FP32, comm, st);
}

/* One timed call: events around it on an otherwise idle stream. */
static double timed(const struct rank *r, HcclComm comm, aclrtStream st, void *in, void *out,
                    uint64_t bytes, aclrtEvent a, aclrtEvent b)
{
    float ms = -1;

    if (aclrtRecordEvent(a, st) != ACL_SUCCESS || call(r, comm, st, in, out, bytes) != 0 ||
        aclrtRecordEvent(b, st) != ACL_SUCCESS || aclrtSynchronizeStream(st) != ACL_SUCCESS ||
        aclrtEventElapsedTime(&ms, a, b) != ACL_SUCCESS)
        return -1;
    return ms * 1e3;
}

static void *rank_thread(void *p)
{
    struct rank *r = p;
    HcclComm comm = NULL;
    aclrtStream st = NULL;
    aclrtEvent a = NULL, b = NULL;
    void *in = NULL, *out = NULL;
    uint64_t out_max = r->coll == ALLGATHER ? r->maxb * r->n : r->maxb;

    for (int i = 0; i < MAX_SIZES; i++)
        r->us[i] = -1;
    if (aclrtSetDevice((int32_t)r->rank) != ACL_SUCCESS ||
        HcclCommInitRootInfo(r->n, r->root, r->rank, &comm) != HCCL_SUCCESS)
        return NULL;
    if (aclrtCreateStream(&st) == ACL_SUCCESS && aclrtCreateEvent(&a) == ACL_SUCCESS &&
        aclrtCreateEvent(&b) == ACL_SUCCESS &&
        aclrtMalloc(&in, r->maxb, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS &&
        aclrtMalloc(&out, out_max, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS &&
        call(r, comm, st, in, out, MIN_BYTES) == 0 && aclrtSynchronizeStream(st) == ACL_SUCCESS) {
        int i = 0;
        for (uint64_t bytes = MIN_BYTES; bytes <= r->maxb && i < MAX_SIZES; bytes *= 4)
            r->us[i++] = timed(r, comm, st, in, out, bytes, a, b);
    }
    aclrtFree(in), aclrtFree(out);
    if (a != NULL)
        aclrtDestroyEvent(a);
    if (b != NULL)
        aclrtDestroyEvent(b);
    HcclCommDestroy(comm);
    if (st != NULL)
        aclrtDestroyStream(st);
    aclrtResetDevice((int32_t)r->rank);
    return NULL;
}

/* Prints "bytes us" per size: the slowest rank's modelled time. */
static int child(enum coll coll, uint32_t n, uint64_t maxb)
{
    static HcclRootInfo root;
    static struct rank ranks[MAX_RANKS];
    pthread_t tid[MAX_RANKS];
    int bad = 0;

    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        HcclGetRootInfo(&root) != HCCL_SUCCESS)
        return 1;
    for (uint32_t i = 0; i < n; i++) {
        ranks[i] = (struct rank){.rank = i, .n = n, .coll = coll, .maxb = maxb, .root = &root};
        if (pthread_create(&tid[i], NULL, rank_thread, &ranks[i]) != 0)
            return 1;
    }
    for (uint32_t i = 0; i < n; i++)
        pthread_join(tid[i], NULL);
    int k = 0;
    for (uint64_t bytes = MIN_BYTES; bytes <= maxb && k < MAX_SIZES; bytes *= 4, k++) {
        double worst = 0;
        for (uint32_t i = 0; i < n && worst >= 0; i++)
            worst = ranks[i].us[k] < 0 ? -1 : ranks[i].us[k] > worst ? ranks[i].us[k] : worst;
        bad |= worst < 0;
        printf("%llu %.3f\n", (unsigned long long)bytes, worst);
    }
    aclrtResetDevice(0);
    aclFinalize();
    return bad;
}

/* ---- parent: one child per algorithm, then the table ------------------------------------- */

static double us[N_ALGOS][MAX_SIZES];

static int run_algo(const char *self, size_t a, uint32_t n, uint64_t maxb)
{
    char cmd[1200], setting[64];
    unsigned long long bytes;
    double t;
    int k = 0;

    for (int i = 0; i < MAX_SIZES; i++)
        us[a][i] = -1; /* "-1.00": that size did not run */
    snprintf(setting, sizeof(setting), "%s:%s", coll_names[algos[a].coll], algos[a].name);
    setenv("HCEMU_ALGO", setting, 1);
    if (snprintf(cmd, sizeof(cmd), "'%s' --child %d %u %llu", self, (int)algos[a].coll, n,
                 (unsigned long long)maxb) >= (int)sizeof(cmd))
        return 1;
    FILE *p = popen(cmd, "r");
    if (p == NULL)
        return 1;
    while (k < MAX_SIZES && fscanf(p, "%llu %lf", &bytes, &t) == 2)
        us[a][k++] = t;
    return pclose(p) != 0;
}

static void print_table(enum coll coll, uint32_t n, uint64_t maxb)
{
    printf("\n%s, %u ranks, fp32%s: modelled us / vendor formula us\n", coll_names[coll], n,
           coll == ALLREDUCE ? " sum" : " (bytes per rank)");
    printf("%10s", "bytes");
    for (size_t a = 0; a < N_ALGOS; a++)
        if (algos[a].coll == coll)
            printf(" %21s", algos[a].name);
    printf("  %-8s %s\n", "fastest", "vendor's pick");
    int k = 0;
    for (uint64_t bytes = MIN_BYTES; bytes <= maxb && k < MAX_SIZES; bytes *= 4, k++) {
        size_t best = N_ALGOS, vbest = N_ALGOS;
        double vb = 0;
        printf("%10llu", (unsigned long long)bytes);
        for (size_t a = 0; a < N_ALGOS; a++) {
            if (algos[a].coll != coll)
                continue;
            double v = algos[a].formula((double)bytes, n) * 1e6;
            printf(" %10.2f / %8.2f", us[a][k], v);
            if (us[a][k] >= 0 && (best == N_ALGOS || us[a][k] < us[best][k]))
                best = a;
            if (vbest == N_ALGOS || v < vb)
                vbest = a, vb = v;
        }
        printf("  %-8s %s\n", best < N_ALGOS ? algos[best].name : "-", algos[vbest].vendor);
    }
}

int main(int argc, char **argv)
{
    uint32_t n = 8;
    uint64_t maxb = 64ull << 20;
    char self[1024];
    int bad = 0;

    if (argc == 5 && strcmp(argv[1], "--child") == 0)
        return child((enum coll)atoi(argv[2]), (uint32_t)atoi(argv[3]),
                     strtoull(argv[4], NULL, 10));
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--ranks") == 0)
            n = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--max") == 0)
            maxb = strtoull(argv[i + 1], NULL, 10);
    }
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (argc % 2 == 0 || n < 2 || n > MAX_RANKS || (n & (n - 1)) != 0 || maxb < MIN_BYTES ||
        len <= 0) {
        fprintf(stderr, "usage: hcemu-model-table [--ranks 2|4|8|16] [--max BYTES]\n");
        return 2;
    }
    self[len] = 0;
    setenv("HCEMU_TIME", "model", 1);
    printf("modelled Atlas 350 time of hcemu's built-in collectives (HCEMU_TIME=model, one call "
           "between two events, slowest rank), %u ranks;\nbeside it the vendor cost model's "
           "formula for the same algorithm (docs/MODEL.md); default figures\n",
           n);
    for (size_t a = 0; a < N_ALGOS; a++)
        if (run_algo(self, a, n, algos[a].coll == ALLGATHER ? maxb / n : maxb) != 0) {
            fprintf(stderr, "hcemu-model-table: %s %s failed\n", coll_names[algos[a].coll],
                    algos[a].name);
            bad = 1;
        }
    print_table(ALLREDUCE, n, maxb);
    print_table(ALLGATHER, n, maxb / n);
    printf("\nvendor templates: allreduce mesh = mesh 1D one-shot, twoshot = mesh 1D two-shot, "
           "ring and rhd = NHR (its AICPU cost model has no ring template);\nallgather mesh = "
           "mesh 1D, ring and rhd = NHR. \"vendor's pick\": the template with the smallest "
           "formula.\n");
    return bad;
}
