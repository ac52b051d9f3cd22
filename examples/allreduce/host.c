/* allreduce/host.c - host side of the ring AllReduce example (sum of FP32 vectors).
 *
 * Every rank contributes `count` floats and receives the element-wise sum of all inputs.
 * Resources: one AICPU_TS thread with one notify (the host start) and UB_CTP channels to the
 * left and right neighbours of the ring (one channel when N = 2) with two notifies each. The
 * inputs are small integers, so the float sums are exact whatever the order. */
#include "example.h"

static float value(uint32_t rank, uint64_t i)
{
    return (float)((rank + 1) * (i % 251 + 1));
}

static void sizes(const struct ex_rank *r, uint64_t *in, uint64_t *out, uint64_t *count)
{
    *count = r->opts->bytes / 4 ? r->opts->bytes / 4 : 1;
    *in = *out = *count;
}

static uint32_t input(const struct ex_rank *r, uint64_t i)
{
    return ex_f32_bits(value(r->rank, i));
}

static uint32_t expect(const struct ex_rank *r, uint64_t i)
{
    return ex_f32_bits((float)(r->size * (r->size + 1) / 2 * (i % 251 + 1)));
}

static int allreduce(struct ex_rank *r, void *in, void *out, uint64_t count)
{
    struct ex_op_param p;
    struct ex_shape shape = {.thread_num = 1, .notifies_per_thread = 1, .channel_notifies = 2};
    uint32_t left = (r->rank + r->size - 1) % r->size, right = (r->rank + 1) % r->size;

    /* FLOW.md §2.1 */
    if (ex_param_init(&p, r, "hccl_custom_allreduce", in, out, count, HCCL_DATA_TYPE_FP32,
                      HCCL_CMD_ALLREDUCE) != 0)
        return -1;
    p.reduce_op = HCCL_REDUCE_SUM;
    /* FLOW.md §2.2-2.8: channels[0] = left, channels[last] = right (the kernel relies on it). */
    if (r->size > 1)
        shape.peers[shape.peer_num++] = left;
    if (r->size > 2)
        shape.peers[shape.peer_num++] = right;
    ThreadHandle host_thread, main_on_cpu;
    if (ex_op_resources(r, &shape, &p, &host_thread, &main_on_cpu) != 0)
        return -1;
    /* FLOW.md §2.9-2.12 */
    return ex_op_launch(r, &p, host_thread, main_on_cpu);
}

static const struct ex_example allreduce_example = {
    .name = "allreduce",
    .json = "ex_allreduce_kernel.json",
    .kernel = "allreduce_kernel",
    .sizes = sizes,
    .input = input,
    .expect = expect,
    .call = allreduce,
};

int main(int argc, char **argv)
{
    return ex_main(argc, argv, &allreduce_example);
}
