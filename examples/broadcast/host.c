/* broadcast/host.c - host side of the Broadcast example.
 *
 * The root's (--root, default 0) `count` elements end up in every rank's output. Resources:
 * on the root N-1 AICPU_TS threads with N-1 notifies each and one UB_CTP channel per peer; on
 * the other ranks one thread with one notify and one channel, to the root. Channels carry two
 * notifies. */
#include <stdio.h>

#include "example.h"

static uint32_t pattern(uint32_t rank, uint64_t i)
{
    return (uint32_t)i * 2654435761u ^ (rank + 1) * 0x9E3779B9u;
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
    return pattern(r->opts->root, i);
}

static int broadcast(struct ex_rank *r, void *in, void *out, uint64_t count)
{
    struct ex_op_param p;
    struct ex_shape shape;
    uint32_t root = r->opts->root;

    if (root >= r->size) {
        fprintf(stderr, "rank %u: --root %u is not a rank of %u\n", r->rank, root, r->size);
        return -1;
    }
    /* FLOW.md §2.1 */
    if (ex_param_init(&p, r, "hccl_custom_broadcast", in, out, count, HCCL_DATA_TYPE_FP32,
                      HCCL_CMD_BROADCAST) != 0)
        return -1;
    p.root = root;
    /* FLOW.md §2.2-2.8: the root talks to everyone, every other rank only to the root. */
    if (r->rank == root) {
        uint32_t t = r->size > 1 ? r->size - 1 : 1;
        ex_shape_mesh(&shape, r, t, t, 2);
    } else {
        shape = (struct ex_shape){.thread_num = 1,
                                  .notifies_per_thread = 1,
                                  .channel_notifies = 2,
                                  .peer_num = 1,
                                  .peers = {root}};
    }
    ThreadHandle host_thread, main_on_cpu;
    if (ex_op_resources(r, &shape, &p, &host_thread, &main_on_cpu) != 0)
        return -1;
    /* FLOW.md §2.9-2.12 */
    return ex_op_launch(r, &p, host_thread, main_on_cpu);
}

static const struct ex_example broadcast_example = {
    .name = "broadcast",
    .json = "ex_broadcast_kernel.json",
    .kernel = "broadcast_kernel",
    .sizes = sizes,
    .input = input,
    .expect = expect,
    .call = broadcast,
};

int main(int argc, char **argv)
{
    return ex_main(argc, argv, &broadcast_example);
}
