/* reduce_scatter/host.c - host side of the ring ReduceScatter example (sum of FP32 blocks).
 *
 * Every rank's input holds N blocks of `count` floats (count = --bytes / 4 / N); rank r's
 * output receives the element-wise sum of block r of every rank. Resources: one AICPU_TS
 * thread with one notify and UB_CTP channels to both ring neighbours with two notifies. */
#include "example.h"

static float value(uint32_t rank, uint64_t i)
{
    return (float)((rank + 1) * (i % 251 + 1));
}

static uint64_t block_count(const struct ex_rank *r)
{
    uint64_t c = r->opts->bytes / 4 / r->size;

    return c ? c : 1;
}

static void sizes(const struct ex_rank *r, uint64_t *in, uint64_t *out, uint64_t *count)
{
    *count = block_count(r);
    *in = *count * r->size;
    *out = *count;
}

static uint32_t input(const struct ex_rank *r, uint64_t i)
{
    return ex_f32_bits(value(r->rank, i));
}

static uint32_t expect(const struct ex_rank *r, uint64_t i)
{
    uint64_t k = (r->rank * block_count(r) + i) % 251 + 1;

    return ex_f32_bits((float)(r->size * (r->size + 1) / 2 * k));
}

static int reduce_scatter(struct ex_rank *r, void *in, void *out, uint64_t count)
{
    struct ex_op_param p;
    struct ex_shape shape = {.thread_num = 1, .notifies_per_thread = 1, .channel_notifies = 2};

    /* FLOW.md §2.1 */
    if (ex_param_init(&p, r, "hccl_custom_reduce_scatter", in, out, count, HCCL_DATA_TYPE_FP32,
                      HCCL_CMD_REDUCE_SCATTER) != 0)
        return -1;
    p.reduce_op = HCCL_REDUCE_SUM;
    /* FLOW.md §2.2-2.8: channels[0] = left neighbour, channels[last] = right neighbour. */
    if (r->size > 1)
        shape.peers[shape.peer_num++] = (r->rank + r->size - 1) % r->size;
    if (r->size > 2)
        shape.peers[shape.peer_num++] = (r->rank + 1) % r->size;
    ThreadHandle host_thread, main_on_cpu;
    if (ex_op_resources(r, &shape, &p, &host_thread, &main_on_cpu) != 0)
        return -1;
    /* FLOW.md §2.9-2.12 */
    return ex_op_launch(r, &p, host_thread, main_on_cpu);
}

static const struct ex_example reduce_scatter_example = {
    .name = "reduce_scatter",
    .json = "ex_reduce_scatter_kernel.json",
    .kernel = "reduce_scatter_kernel",
    .sizes = sizes,
    .input = input,
    .expect = expect,
    .call = reduce_scatter,
};

int main(int argc, char **argv)
{
    return ex_main(argc, argv, &reduce_scatter_example);
}
