/* alltoall/host.c - host side of the mesh AllToAll example.
 *
 * Every rank's input holds N blocks of `count` elements (count = --bytes / 4 / N); block p
 * goes to rank p, which stores it as block `rank` of its output. Resources: N-1 AICPU_TS
 * threads (one per peer) with N-1 notifies each and one UB_CTP channel per peer with three
 * notifies, as in the mesh AllGather. */
#include "example.h"

static uint32_t pattern(uint32_t rank, uint64_t i)
{
    return (uint32_t)i * 2654435761u ^ (rank + 1) * 0x9E3779B9u;
}

static uint64_t block_count(const struct ex_rank *r)
{
    uint64_t c = r->opts->bytes / 4 / r->size;

    return c ? c : 1;
}

static void sizes(const struct ex_rank *r, uint64_t *in, uint64_t *out, uint64_t *count)
{
    *count = block_count(r);
    *in = *out = *count * r->size;
}

static uint32_t input(const struct ex_rank *r, uint64_t i)
{
    return pattern(r->rank, i);
}

/* Output block p, element j, is rank p's input block `me`, element j. */
static uint32_t expect(const struct ex_rank *r, uint64_t i)
{
    uint64_t c = block_count(r);

    return pattern((uint32_t)(i / c), r->rank * c + i % c);
}

static int alltoall(struct ex_rank *r, void *in, void *out, uint64_t count)
{
    struct ex_op_param p;
    struct ex_shape shape;

    /* FLOW.md §2.1 */
    if (ex_param_init(&p, r, "hccl_custom_alltoall", in, out, count, HCCL_DATA_TYPE_FP32,
                      HCCL_CMD_ALLTOALL) != 0)
        return -1;
    /* FLOW.md §2.2-2.8: the mesh shape (one thread, no peer when N = 1). */
    uint32_t t = r->size > 1 ? r->size - 1 : 1;
    ex_shape_mesh(&shape, r, t, t, 3);
    ThreadHandle host_thread, main_on_cpu;
    if (ex_op_resources(r, &shape, &p, &host_thread, &main_on_cpu) != 0)
        return -1;
    /* FLOW.md §2.9-2.12 */
    return ex_op_launch(r, &p, host_thread, main_on_cpu);
}

static const struct ex_example alltoall_example = {
    .name = "alltoall",
    .json = "ex_alltoall_kernel.json",
    .kernel = "alltoall_kernel",
    .sizes = sizes,
    .input = input,
    .expect = expect,
    .call = alltoall,
};

int main(int argc, char **argv)
{
    return ex_main(argc, argv, &alltoall_example);
}
