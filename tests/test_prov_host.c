/* test_prov_host.c - the host program of the provenance tests: runs one kernel of
 * tests/kernels/prov_bugs.c (PROV_CASE, default prov_gather_ok) with the examples' host
 * boilerplate, its inputs filled by hcemuProvenanceFill, its output poisoned before and
 * checked after each call by hcemuProvenanceCheck; prints "PROV rank R: W wrong" and the
 * report. tests/test_provenance.c runs it and reads what it prints. Options as every example
 * (--ranks, --bytes, --iters). This is how a user's kernel test uses include/hcemu_provenance.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hcemu_provenance.h>

#include "example.h"

static bool reduces(void)
{
    const char *c = getenv("PROV_CASE");
    return c != NULL && strstr(c, "reduce") != NULL;
}

static uint64_t count_of(const struct ex_rank *r)
{
    return r->opts->bytes / 4 ? r->opts->bytes / 4 : 1;
}

static hcemuProvSpec spec_of(const struct ex_rank *r, uint32_t rank)
{
    return (hcemuProvSpec){HCCL_DATA_TYPE_FP32, reduces() ? HCCL_REDUCE_SUM : HCCL_REDUCE_RESERVED,
                           r->size, rank};
}


static void sizes(const struct ex_rank *r, uint64_t *in, uint64_t *out, uint64_t *count)
{
    *count = *in = count_of(r);
    *out = reduces() ? *count : *count * r->size;
}

/* Element i of rank `rank`'s input, as hcemuProvenanceFill writes it (host memory is fine). */
static uint32_t pattern(const struct ex_rank *r, uint32_t rank, uint64_t i)
{
    hcemuProvSpec sp = spec_of(r, rank);
    uint32_t v;

    if (hcemuProvenanceFill(&v, 1, &sp, 0, i) != HCCL_SUCCESS)
        abort();
    return v;
}

static uint32_t input(const struct ex_rank *r, uint64_t i)
{
    return pattern(r, r->rank, i);
}

static uint32_t expect(const struct ex_rank *r, uint64_t i)
{
    uint64_t n = count_of(r);
    float acc = 0, f;

    if (!reduces())
        return pattern(r, (uint32_t)(i / n), i % n);
    for (uint32_t k = 0; k < r->size; k++) {
        uint32_t b = pattern(r, k, i);
        memcpy(&f, &b, 4);
        acc += f;
    }
    return ex_f32_bits(acc);
}

/* What the output should hold: every rank's block in rank order, or the sum of all. */
static int check(const struct ex_rank *r, void *out)
{
    static _Thread_local hcemuProvRange L[EX_MAX_RANKS];
    static _Thread_local char report[8192];
    hcemuProvSpec sp = spec_of(r, r->rank);
    uint64_t n = count_of(r), wrong = 0;
    uint32_t nl = 0;

    if (reduces())
        L[nl++] = (hcemuProvRange){.count = n, .kind = hcemuProvReduce};
    else
        for (uint32_t k = 0; k < r->size; k++)
            L[nl++] = (hcemuProvRange){.outElem = k * n, .count = n, .kind = hcemuProvCopy,
                                       .rank = k};
    HcclResult rc = hcemuProvenanceCheck(out, reduces() ? n : n * r->size, &sp, L, nl, &wrong,
                                         report, sizeof(report));
    printf("PROV rank %u: %llu wrong (status %d)\n%s", r->rank, (unsigned long long)wrong,
           (int)rc, report);
    fflush(stdout);
    return rc == HCCL_SUCCESS ? 0 : -1;
}

static int call(struct ex_rank *r, void *in, void *out, uint64_t count)
{
    struct ex_op_param p;
    struct ex_shape s;
    ThreadHandle host_thread, main_on_cpu;

    if (hcemuProvenancePoison(out, reduces() ? count : count * r->size, HCCL_DATA_TYPE_FP32) !=
            HCCL_SUCCESS ||
        ex_param_init(&p, r, "prov", in, out, count, HCCL_DATA_TYPE_FP32,
                      reduces() ? HCCL_CMD_ALLREDUCE : HCCL_CMD_ALLGATHER) != 0)
        return -1;
    ex_shape_mesh(&s, r, 1, 1, 2);
    if (ex_op_resources(r, &s, &p, &host_thread, &main_on_cpu) != 0 ||
        ex_op_launch(r, &p, host_thread, main_on_cpu) != 0 ||
        aclrtSynchronizeStream(r->stream) != ACL_SUCCESS)
        return -1;
    return check(r, out);
}

int main(int argc, char **argv)
{
    static struct ex_example ex = {
        .name = "prov",
        .json = "prov_bugs.json",
        .sizes = sizes,
        .input = input,
        .expect = expect,
        .call = call,
    };
    const char *k = getenv("PROV_CASE");

    ex.kernel = k != NULL ? k : "prov_gather_ok";
    return ex_main(argc, argv, &ex);
}
