/* hccl_ops_check.c - calls HcclAllGather, HcclAllReduce, HcclReduceScatter, HcclBroadcast and
 * HcclAlltoAll through whatever libhccl the program is linked with (compat-hccl-ops builds it
 * against HCCL's own) and checks every byte against a host reference. Each rank's input is
 * distinct per rank and per element, so a block in the wrong place, a missing peer or a
 * double reduction shows; integer sums are exact, float inputs are small integers so their
 * sums are exact too. Ranks are threads (`-t N`, default 8) or processes under a launcher
 * (hcemu-run -n N, mpirun). Exit 0 only if every case passed on every rank; rank 0 prints
 * one line per case and which library HcclAllGather came from.
 *
 * With -w each AllGather's input and output lie in one allocation that every rank registers
 * as a symmetric window (HcclCommSymWinRegister) before the call and deregisters after, as
 * the vendor's example does: HCCL's AllGather then finds both buffers in windows
 * (HcclCommSymWinGet) and its mesh template writes through HcclSymWinGetPeerPointer. Only
 * AllGather runs then: on Atlas 350 the windows serve that operator alone.
 *
 *   hccl_ops_check [-t ranks] [-c count,count,...] [-w]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>
#include <hccl/hccl.h>

#include "ex_launch.h"

#define MAX_RANKS 64
#define MAX_COUNTS 8

enum op { OP_ALLGATHER, OP_ALLREDUCE, OP_REDUCESCATTER, OP_BROADCAST, OP_ALLTOALL, OP_N };
static const char *const op_names[OP_N] = {"HcclAllGather", "HcclAllReduce",
                                           "HcclReduceScatter", "HcclBroadcast", "HcclAlltoAll"};

struct dtype {
    HcclDataType type;
    const char *name;
    size_t size;
};
static const struct dtype types[] = {
    {HCCL_DATA_TYPE_INT32, "int32", 4},
    {HCCL_DATA_TYPE_FP32, "fp32", 4},
    {HCCL_DATA_TYPE_INT8, "int8", 1},
};
#define N_TYPES (sizeof(types) / sizeof(types[0]))

static uint64_t counts[MAX_COUNTS] = {1, 1000, 99999, 300001};
static size_t n_counts = 4;
static bool windows; /* -w */

/* One result per (op, type, count) case, combined over the ranks. */
#define N_CASES (OP_N * N_TYPES * MAX_COUNTS)
static atomic_int case_failed[N_CASES];
static atomic_int case_error[N_CASES];

struct rank {
    uint32_t rank, n;
    int32_t dev;
    HcclRootInfo *root;
    int failed;
};

/* The value element i of rank r's input holds: small (exact in fp32 sums of 64 ranks and in
 * int8 sums of a few), different per rank and per position. */
static int64_t input_value(const struct dtype *t, uint32_t r, uint64_t i)
{
    if (t->size == 1)
        return (int64_t)((r * 7 + i * 3) % 11); /* int8: sum of 8 ranks stays below 128 */
    return (int64_t)(r * 1000 + i % 997);
}

static void put(const struct dtype *t, void *p, uint64_t i, int64_t v)
{
    if (t->type == HCCL_DATA_TYPE_FP32)
        ((float *)p)[i] = (float)v;
    else if (t->size == 4)
        ((int32_t *)p)[i] = (int32_t)v;
    else
        ((int8_t *)p)[i] = (int8_t)v;
}

static int64_t get(const struct dtype *t, const void *p, uint64_t i)
{
    if (t->type == HCCL_DATA_TYPE_FP32)
        return (int64_t)((const float *)p)[i];
    if (t->size == 4)
        return ((const int32_t *)p)[i];
    return ((const int8_t *)p)[i];
}

/* Expected element i of rank r's output. */
static int64_t expected(enum op op, const struct dtype *t, uint32_t r, uint32_t n, uint64_t count,
                        uint64_t i)
{
    int64_t sum = 0;

    switch (op) {
    case OP_ALLGATHER: /* block b comes from rank b */
        return input_value(t, (uint32_t)(i / count), i % count);
    case OP_ALLREDUCE:
        for (uint32_t k = 0; k < n; k++)
            sum += input_value(t, k, i);
        return sum;
    case OP_REDUCESCATTER: /* my block of the sum */
        for (uint32_t k = 0; k < n; k++)
            sum += input_value(t, k, r * count + i);
        return sum;
    case OP_BROADCAST: /* the root (n - 1) sends its own input */
        return input_value(t, n - 1, i);
    case OP_ALLTOALL: /* block b of mine is block r of rank b */
        return input_value(t, (uint32_t)(i / count), r * count + i % count);
    default:
        return 0;
    }
}

static HcclResult run_op(enum op op, const struct dtype *t, uint64_t count, void *send,
                         void *recv, struct rank *r, HcclComm comm, aclrtStream stream)
{
    switch (op) {
    case OP_ALLGATHER:
        return HcclAllGather(send, recv, count, t->type, comm, stream);
    case OP_ALLREDUCE:
        return HcclAllReduce(send, recv, count, t->type, HCCL_REDUCE_SUM, comm, stream);
    case OP_REDUCESCATTER:
        return HcclReduceScatter(send, recv, count, t->type, HCCL_REDUCE_SUM, comm, stream);
    case OP_BROADCAST:
        return HcclBroadcast(send, count, t->type, r->n - 1, comm, stream);
    case OP_ALLTOALL:
        return HcclAlltoAll(send, count, t->type, recv, count, t->type, comm, stream);
    default:
        return HCCL_E_PARA;
    }
}

/* Elements of input and output per rank for a case of `count`. */
static void sizes(enum op op, uint64_t count, uint32_t n, uint64_t *in, uint64_t *out)
{
    *in = op == OP_REDUCESCATTER || op == OP_ALLTOALL ? count * n : count;
    *out = op == OP_ALLGATHER || op == OP_ALLTOALL ? count * n : count;
}

static int one_case(struct rank *r, HcclComm comm, aclrtStream stream, enum op op,
                    const struct dtype *t, uint64_t count, int idx)
{
    uint64_t in_n, out_n;
    sizes(op, count, r->n, &in_n, &out_n);
    size_t in_b = in_n * t->size, out_b = out_n * t->size;
    void *send = NULL, *recv = NULL;
    char *host = malloc(in_b > out_b ? in_b : out_b);
    int bad = 0;

    HcclCommSymWindow win = NULL;

    if (windows) { /* one allocation, input then output, registered by every rank */
        if (host == NULL || aclrtMalloc(&send, in_b + out_b, ACL_MEM_MALLOC_HUGE_FIRST) !=
                                ACL_SUCCESS) {
            bad = 2;
            goto out;
        }
        recv = (char *)send + in_b;
        HcclResult w = HcclCommSymWinRegister(comm, send, in_b + out_b, &win, 1);
        if (w != HCCL_SUCCESS) {
            fprintf(stderr, "rank %u: HcclCommSymWinRegister: HcclResult %d\n", r->rank, (int)w);
            bad = 2;
            goto out;
        }
        /* What HCCL's AllGather asks before it chooses its window path: both buffers found,
         * at their offsets in the window. */
        HcclCommSymWindow got_in = NULL, got_out = NULL;
        size_t off_in = 1, off_out = 0;
        if (HcclCommSymWinGet(comm, send, in_b, &got_in, &off_in) != HCCL_SUCCESS ||
            HcclCommSymWinGet(comm, recv, out_b, &got_out, &off_out) != HCCL_SUCCESS ||
            got_in != win || got_out != win || off_in != 0 || off_out != in_b) {
            fprintf(stderr, "rank %u: HcclCommSymWinGet does not find the buffers\n", r->rank);
            bad = 2;
            goto out;
        }
    } else if (host == NULL ||
               aclrtMalloc(&send, in_b, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
               (op != OP_BROADCAST &&
                aclrtMalloc(&recv, out_b, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)) {
        bad = 2;
        goto out;
    }
    for (uint64_t i = 0; i < in_n; i++)
        put(t, host, i, input_value(t, r->rank, i));
    if (aclrtMemcpy(send, in_b, host, in_b, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) {
        bad = 2;
        goto out;
    }
    if (recv != NULL) {
        memset(host, 0x5a, out_b); /* a stale output must not pass */
        if (aclrtMemcpy(recv, out_b, host, out_b, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) {
            bad = 2;
            goto out;
        }
    }
    HcclResult h = run_op(op, t, count, send, recv, r, comm, stream);
    aclError a = h == HCCL_SUCCESS ? aclrtSynchronizeStream(stream) : ACL_SUCCESS;
    if (h != HCCL_SUCCESS || a != ACL_SUCCESS) {
        fprintf(stderr, "rank %u: %s %s count %llu: HcclResult %d, stream %d\n", r->rank,
                op_names[op], t->name, (unsigned long long)count, (int)h, (int)a);
        bad = 2;
        goto out;
    }
    void *result = op == OP_BROADCAST ? send : recv;
    if (aclrtMemcpy(host, out_b, result, out_b, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
        bad = 2;
        goto out;
    }
    for (uint64_t i = 0; i < out_n; i++) {
        int64_t want = expected(op, t, r->rank, r->n, count, i);
        int64_t got = get(t, host, i);
        if (got != want) {
            fprintf(stderr, "rank %u: %s %s count %llu: element %llu is %lld, want %lld\n",
                    r->rank, op_names[op], t->name, (unsigned long long)count,
                    (unsigned long long)i, (long long)got, (long long)want);
            bad = 1;
            break;
        }
    }
out:
    if (bad == 1)
        atomic_store(&case_failed[idx], 1);
    else if (bad == 2)
        atomic_store(&case_error[idx], 1);
    free(host);
    if (win != NULL && HcclCommSymWinDeregister(win) != HCCL_SUCCESS) {
        fprintf(stderr, "rank %u: HcclCommSymWinDeregister failed\n", r->rank);
        atomic_store(&case_error[idx], 1);
        bad = 2;
    }
    aclrtFree(send);
    if (recv != NULL && !windows)
        aclrtFree(recv);
    return bad;
}

static void rank_main(struct rank *r)
{
    HcclComm comm = NULL;
    aclrtStream stream = NULL;

    if (aclrtSetDevice(r->dev) != ACL_SUCCESS ||
        HcclCommInitRootInfo(r->n, r->root, r->rank, &comm) != HCCL_SUCCESS ||
        aclrtCreateStream(&stream) != ACL_SUCCESS) {
        fprintf(stderr, "rank %u: cannot join the communicator\n", r->rank);
        r->failed = 1;
        return;
    }
    for (int op = 0; op < (windows ? OP_ALLGATHER + 1 : OP_N); op++)
        for (size_t t = 0; t < N_TYPES; t++) {
            /* int8 sums stay exact at up to 11 ranks only; moves take any. */
            bool reduces = op == OP_ALLREDUCE || op == OP_REDUCESCATTER;
            if (types[t].size == 1 && reduces && r->n > 11)
                continue;
            for (size_t c = 0; c < n_counts; c++) {
                int idx = (int)((op * N_TYPES + t) * MAX_COUNTS + c);
                if (one_case(r, comm, stream, op, &types[t], counts[c], idx) != 0)
                    r->failed = 1;
            }
        }
    HcclCommDestroy(comm);
    aclrtDestroyStream(stream);
    aclrtResetDevice(r->dev);
}

static void *rank_thread(void *p)
{
    rank_main(p);
    return NULL;
}

static void report(uint32_t n, const char *mode)
{
    Dl_info info;
    int pass = 0, total = 0;

    if (dladdr((void *)HcclAllGather, &info) != 0 && info.dli_fname != NULL)
        printf("HcclAllGather from %s\n", info.dli_fname);
    for (int op = 0; op < (windows ? OP_ALLGATHER + 1 : OP_N); op++)
        for (size_t t = 0; t < N_TYPES; t++)
            for (size_t c = 0; c < n_counts; c++) {
                bool reduces = op == OP_ALLREDUCE || op == OP_REDUCESCATTER;
                if (types[t].size == 1 && reduces && n > 11)
                    continue;
                int idx = (int)((op * N_TYPES + t) * MAX_COUNTS + c);
                const char *v = atomic_load(&case_error[idx])    ? "error"
                                : atomic_load(&case_failed[idx]) ? "wrong bytes"
                                                                 : "ok";
                total++;
                pass += v[0] == 'o';
                printf("%-18s %-6s count %-8llu %u ranks (%s): %s\n", op_names[op],
                       types[t].name, (unsigned long long)counts[c], n, mode, v);
            }
    printf("%d of %d cases passed\n", pass, total);
}

static int parse_counts(char *s)
{
    n_counts = 0;
    for (char *tok = strtok(s, ","); tok != NULL; tok = strtok(NULL, ",")) {
        char *end;
        unsigned long long v = strtoull(tok, &end, 10);
        if (*end != '\0' || v == 0 || n_counts == MAX_COUNTS)
            return -1;
        counts[n_counts++] = v;
    }
    return n_counts > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    static HcclRootInfo root;
    struct ex_launch l;
    uint32_t n = 8;
    int failed = 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
            n = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
            if (parse_counts(argv[++i]) != 0) {
                fprintf(stderr, "%s: -c wants up to %d positive counts, comma-separated\n",
                        argv[0], MAX_COUNTS);
                return 2;
            }
        } else if (strcmp(argv[i], "-w") == 0) {
            windows = true;
        } else {
            fprintf(stderr, "usage: %s [-t ranks] [-c count,count,...] [-w]\n", argv[0]);
            return 2;
        }
    }
    int launched = ex_launch_get(&l);
    if (launched < 0 || (launched == 0 && (n < 2 || n > MAX_RANKS))) {
        fprintf(stderr, "%s: the rank count is not valid (2..%d)\n", argv[0], MAX_RANKS);
        return 2;
    }
    if (aclInit(NULL) != ACL_SUCCESS) {
        fprintf(stderr, "%s: aclInit failed\n", argv[0]);
        return 1;
    }
    if (launched == 1) {
        struct rank r = {.rank = l.rank, .n = l.size, .dev = (int32_t)l.local, .root = &root};
        if (aclrtSetDevice(r.dev) != ACL_SUCCESS || HcclGetRootInfo(&root) != HCCL_SUCCESS) {
            fprintf(stderr, "rank %u: cannot get the root info\n", r.rank);
            return 1;
        }
        rank_main(&r);
        failed = r.failed;
        /* Each process knows only its own verdicts; the launcher combines exit codes. */
        if (r.rank == 0)
            report(r.n, windows ? "processes, windows" : "processes");
    } else {
        struct rank r[MAX_RANKS];
        pthread_t tid[MAX_RANKS];
        if (aclrtSetDevice(0) != ACL_SUCCESS || HcclGetRootInfo(&root) != HCCL_SUCCESS) {
            fprintf(stderr, "%s: cannot make the root info\n", argv[0]);
            return 1;
        }
        for (uint32_t i = 0; i < n; i++) {
            r[i] = (struct rank){.rank = i, .n = n, .dev = (int32_t)i, .root = &root};
            if (pthread_create(&tid[i], NULL, rank_thread, &r[i]) != 0)
                return 1;
        }
        for (uint32_t i = 0; i < n; i++) {
            pthread_join(tid[i], NULL);
            failed |= r[i].failed;
        }
        report(n, windows ? "threads, windows" : "threads");
        aclrtResetDevice(0);
    }
    aclFinalize();
    return failed;
}
