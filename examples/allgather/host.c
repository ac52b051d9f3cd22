/* allgather/host.c - host side of the mesh AllGather example (docs/FLOW.md §1, §2, §4, §5).
 *
 * Rank r contributes `count` elements; afterwards every rank's output holds all N inputs in
 * rank order. Resources (docs/FLOW.md §7): N-1 AICPU_TS threads (one per peer) with N-1 notifies
 * each, and one UB_CTP channel per peer with 3 notifies. ex_main (examples/common) runs the
 * ranks, fills the inputs, checks the outputs and prints the verdict. */
#include "example.h"

static uint32_t pattern(uint32_t rank, uint64_t i)
{
    return (uint32_t)i * 2654435761u ^ (rank + 1) * 0x9E3779B9u;
}

static void sizes(const struct ex_rank *r, uint64_t *in, uint64_t *out, uint64_t *count)
{
    *count = r->opts->bytes / 4 ? r->opts->bytes / 4 : 1;
    *in = *count;
    *out = *count * r->size;
}

static uint32_t input(const struct ex_rank *r, uint64_t i)
{
    return pattern(r->rank, i);
}

static uint32_t expect(const struct ex_rank *r, uint64_t i)
{
    uint64_t count = r->opts->bytes / 4 ? r->opts->bytes / 4 : 1;

    return pattern((uint32_t)(i / count), i % count);
}

/* HcclAllGatherCustom(in, out, count, FP32, comm, stream): queues the operator on the
 * rank's stream and returns without waiting. */
static int allgather(struct ex_rank *r, void *in, void *out, uint64_t count)
{
    struct ex_op_param p;
    struct ex_shape shape;

    /* FLOW.md §2.1: the parameter block. */
    if (ex_param_init(&p, r, "hccl_custom_allgather", in, out, count, HCCL_DATA_TYPE_FP32,
                      HCCL_CMD_ALLGATHER) != 0)
        return -1;
    /* FLOW.md §2.2-2.8 with the mesh shape of §7 (a single thread with no peer when N = 1). */
    uint32_t t = r->size > 1 ? r->size - 1 : 1;
    ex_shape_mesh(&shape, r, t, t, 3);
    ThreadHandle host_thread, main_on_cpu;
    if (ex_op_resources(r, &shape, &p, &host_thread, &main_on_cpu) != 0)
        return -1;
    /* FLOW.md §2.9-2.12: start record, launch, completion wait on the host stream. */
    return ex_op_launch(r, &p, host_thread, main_on_cpu);
}

static const struct ex_example allgather_example = {
    .name = "allgather",
    .json = "ex_allgather_kernel.json",
    .kernel = "allgather_kernel",
    .sizes = sizes,
    .input = input,
    .expect = expect,
    .call = allgather,
};

int main(int argc, char **argv)
{
    return ex_main(argc, argv, &allgather_example);
}
