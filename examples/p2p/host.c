/* p2p/host.c - host side of the point-to-point example (docs/FLOW.md §1, §2, §4-§6).
 *
 * Even rank r sends its input to rank r+1, which receives it into its output; an even last
 * rank without a partner copies its input to its output, and a sender's output stays
 * untouched. Resources: one AICPU_TS thread with one notify (the host start) and one UB_CTP
 * channel to the partner with two notifies. Like the vendor's P2P sample, the resource
 * context is a COMM_ENGINE_AICPU engine context filled with aclrtMemcpy. --push selects the
 * write-with-notify variant. */
#include "example.h"

#define POISON 0xA5A5A5A5u /* what example.c writes into every output before each call */

static uint32_t pattern(uint32_t rank, uint64_t i)
{
    return (uint32_t)i * 2654435761u ^ (rank + 1) * 0x9E3779B9u;
}

/* The rank this one talks to, or itself when it has no partner. */
static uint32_t partner(const struct ex_rank *r)
{
    if (r->rank % 2 == 1)
        return r->rank - 1;
    return r->rank + 1 < r->size ? r->rank + 1 : r->rank;
}

static void sizes(const struct ex_rank *r, uint64_t *in, uint64_t *out, uint64_t *count)
{
    *count = r->opts->bytes / 4 ? r->opts->bytes / 4 : 1;
    *in = *out = *count;
}

static uint32_t input(const struct ex_rank *r, uint64_t i)
{
    return pattern(r->rank, i);
}

static uint32_t expect(const struct ex_rank *r, uint64_t i)
{
    if (partner(r) == r->rank)
        return pattern(r->rank, i);
    return r->rank % 2 == 1 ? pattern(partner(r), i) : POISON;
}

static int send_recv(struct ex_rank *r, void *in, void *out, uint64_t count)
{
    struct ex_op_param p;
    struct ex_shape shape = {
        .thread_num = 1,
        .notifies_per_thread = 1,
        .channel_notifies = 2,
        .aicpu_memcpy_ctx = true,
    };

    /* FLOW.md §2.1 */
    if (ex_param_init(&p, r, "hccl_custom_p2p", in, out, count, HCCL_DATA_TYPE_FP32,
                      r->rank % 2 ? HCCL_CMD_RECEIVE : HCCL_CMD_SEND) != 0)
        return -1;
    p.variant = r->opts->push ? 1 : 0;
    /* FLOW.md §2.2-2.8: one channel, to the partner. */
    if (partner(r) != r->rank)
        shape.peers[shape.peer_num++] = partner(r);
    ThreadHandle host_thread, main_on_cpu;
    if (ex_op_resources(r, &shape, &p, &host_thread, &main_on_cpu) != 0)
        return -1;
    /* FLOW.md §2.9-2.12 */
    return ex_op_launch(r, &p, host_thread, main_on_cpu);
}

static const struct ex_example p2p_example = {
    .name = "p2p",
    .json = "ex_p2p_kernel.json",
    .kernel = "p2p_kernel",
    .sizes = sizes,
    .input = input,
    .expect = expect,
    .call = send_recv,
};

int main(int argc, char **argv)
{
    return ex_main(argc, argv, &p2p_example);
}
