/* test_diag_host.c - the host program of the diagnostics tests: runs one kernel of
 * tests/kernels/diag_bugs.c (named by DIAG_CASE, default diag_ok) on two ranks (the diag_fan
 * kernels on any number) with the examples' host boilerplate (examples/common).
 * tests/test_diag.c runs it under the diagnostics settings and checks what it prints. Options as every example (--ranks ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example.h"

static void sizes(const struct ex_rank *r, uint64_t *in, uint64_t *out, uint64_t *count)
{
    *in = *out = *count = r->opts->bytes / 4;
}

static uint32_t input(const struct ex_rank *r, uint64_t i)
{
    return r->rank * 1000003u + (uint32_t)i;
}

/* diag_ok: both ranks end with rank 0's input. */
static uint32_t expect(const struct ex_rank *r, uint64_t i)
{
    (void)r;
    return (uint32_t)i;
}

static int call(struct ex_rank *r, void *in, void *out, uint64_t count)
{
    struct ex_op_param p;
    struct ex_shape s;
    ThreadHandle host_thread, main_on_cpu;

    if (ex_param_init(&p, r, "diag", in, out, count, HCCL_DATA_TYPE_INT32, HCCL_CMD_ALLGATHER) != 0)
        return -1;
    ex_shape_mesh(&s, r, 2, 2, 2);
    if (ex_op_resources(r, &s, &p, &host_thread, &main_on_cpu) != 0)
        return -1;
    return ex_op_launch(r, &p, host_thread, main_on_cpu);
}

int main(int argc, char **argv)
{
    static struct ex_example ex = {
        .name = "diag",
        .json = "diag_bugs.json",
        .sizes = sizes,
        .input = input,
        .expect = expect,
        .call = call,
    };
    const char *k = getenv("DIAG_CASE");

    ex.kernel = k != NULL && *k != '\0' ? k : "diag_ok";
    return ex_main(argc, argv, &ex);
}
