/* test_diag_host.c - the host program of the diagnostics tests: runs one kernel of
 * tests/kernels/diag_bugs.c (named by DIAG_CASE, default diag_ok) on two ranks (the diag_fan
 * kernels on any number) with the examples' host boilerplate (examples/common).
 * DIAG_LATE_CHANNEL=1 holds rank 1 in channel set-up on the host before it launches.
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

/* DIAG_LATE_CHANNEL: rank 1 asks for one more channel to rank 0 (engine CPU_TS) before it
 * launches; rank 0 never asks for it, so rank 1 stays in HcclChannelAcquire on the host (up
 * to HCCL_CONNECT_TIMEOUT) while rank 0's kernel waits for rank 1's records. */
static int late_channel(struct ex_rank *r)
{
    CommLink *links = NULL;
    uint32_t n = 0;
    HcclChannelDesc d;
    ChannelHandle h;

    if (HcclRankGraphGetLinks(r->comm, 0, r->rank, 0, &links, &n) != HCCL_SUCCESS || n == 0 ||
        HcclChannelDescInit(&d, 1) != HCCL_SUCCESS)
        return -1;
    d.remoteRank = 0;
    d.notifyNum = 1;
    d.channelProtocol = links[0].linkAttr.linkProtocol;
    d.localEndpoint.protocol = links[0].srcEndpointDesc.protocol;
    d.localEndpoint.commAddr = links[0].srcEndpointDesc.commAddr;
    d.localEndpoint.loc = links[0].srcEndpointDesc.loc;
    d.remoteEndpoint.protocol = links[0].dstEndpointDesc.protocol;
    d.remoteEndpoint.commAddr = links[0].dstEndpointDesc.commAddr;
    d.remoteEndpoint.loc = links[0].dstEndpointDesc.loc;
    return HcclChannelAcquire(r->comm, COMM_ENGINE_CPU_TS, &d, 1, &h) == HCCL_SUCCESS ? 0 : -1;
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
    if (r->rank == 1 && getenv("DIAG_LATE_CHANNEL") != NULL && late_channel(r) != 0)
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
