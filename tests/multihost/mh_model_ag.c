/* mh_model_ag.c - the held-out ring AllGather kernel (tests/kernels/model_ring_ag.c) between
 * two events of a stream, one rank per process under a launcher (hcemu-run, mpirun), for the
 * modelled clock across hosts (tests/multihost/model_split.sh). Each rank checks every byte
 * of the gathered buffer and prints its modelled elapsed time bit for bit:
 *     rank R: model_ring_ag <hex float> ms (<decimal> ms)
 *     rank R: PASS
 * Usage: mh_model_ag KERNELS_JSON (the kernel's json, next to its .so). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hccl_res.h>
#include <hccl/hccl_res_expt.h>
#include <hcomm/hcomm_primitives.h>

#include "ex_launch.h"
#include "kernels/model_ring_ag.h"

#define BYTES (1ull << 20) /* per rank */
#define START_IDX 1u

static struct ex_launch me;
static int failures;
static aclrtStream st; /* the kernel's stream: the host thread's, destroyed after the comm */

#define CHECK(cond, ...)                                                                      \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "rank %u: FAIL: ", me.rank);                                      \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__);                                \
            failures++;                                                                       \
        }                                                                                     \
    } while (0)

/* A channel description to `peer`: layer 0's first link inside a server, layer 1's between
 * servers (ranks of another host). */
static HcclResult desc_to(HcclComm comm, uint32_t peer, HcclChannelDesc *d)
{
    for (uint32_t layer = 0; layer < 2; layer++) {
        CommLink *links;
        uint32_t n;
        if (HcclRankGraphGetLinks(comm, layer, me.rank, peer, &links, &n) != HCCL_SUCCESS || n == 0)
            continue;
        HcclChannelDescInit(d, 1);
        d->remoteRank = peer;
        d->channelProtocol = links[0].linkAttr.linkProtocol;
        d->localEndpoint = links[0].srcEndpointDesc;
        d->remoteEndpoint = links[0].dstEndpointDesc;
        d->notifyNum = MRA_NOTIFIES;
        return HCCL_SUCCESS;
    }
    return HCCL_E_NOT_FOUND;
}

/* Threads and channels to both neighbours, into the kernel's arguments. */
static void setup(HcclComm comm, aclrtStream st, ThreadHandle *cpu, ThreadHandle *main_on_cpu,
                  struct mra_args *a)
{
    uint32_t n = me.size, peers[2] = {(me.rank + n - 1) % n, (me.rank + 1) % n};
    uint32_t m = peers[0] == peers[1] ? 1 : 2;
    HcclChannelDesc d[2];
    ChannelHandle ch[2];
    void *hb = NULL, *right = NULL;
    uint64_t size = 0, peer_size = 0;

    memset(a, 0, sizeof(*a));
    CHECK(HcclGetHcclBuffer(comm, &hb, &size) == 0 && size >= n * BYTES, "HCCL buffer");
    CHECK(HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 1, 2, &a->main) == 0, "thread");
    CHECK(HcclThreadAcquireWithStream(comm, COMM_ENGINE_CPU_TS, st, 1, cpu) == 0, "host thread");
    CHECK(HcclThreadExportToCommEngine(comm, 1, cpu, COMM_ENGINE_AICPU_TS, &a->host) == 0,
          "export host thread");
    CHECK(HcclThreadExportToCommEngine(comm, 1, &a->main, COMM_ENGINE_CPU_TS, main_on_cpu) == 0,
          "export main thread");
    for (uint32_t i = 0; i < m; i++)
        CHECK(desc_to(comm, peers[i], &d[i]) == HCCL_SUCCESS, "no link to rank %u", peers[i]);
    if (failures != 0)
        return;
    CHECK(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, d, m, ch) == 0, "channels");
    CHECK(HcclChannelGetHcclBuffer(comm, ch[m - 1], &right, &peer_size) == 0, "peer buffer");
    a->left = ch[0], a->right = ch[m - 1];
    a->buf = (uint64_t)(uintptr_t)hb;
    a->right_buf = (uint64_t)(uintptr_t)right;
    a->len = BYTES;
    a->rank = me.rank, a->n = n;
    a->start_idx = START_IDX;
}

/* Every float of block q of the gathered buffer is q + 1. */
static void check_blocks(uint64_t buf)
{
    float *h = malloc(BYTES);
    uint64_t bad = 0;

    CHECK(h != NULL, "out of memory");
    for (uint32_t q = 0; h != NULL && q < me.size; q++) {
        CHECK(aclrtMemcpy(h, BYTES, (void *)(uintptr_t)(buf + q * BYTES), BYTES,
                          ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "read block %u", q);
        for (uint64_t i = 0; i < BYTES / 4; i++)
            bad += h[i] != (float)(q + 1);
    }
    CHECK(bad == 0, "%llu floats of the gathered buffer are wrong", (unsigned long long)bad);
    free(h);
}

static void run(HcclComm comm, aclrtFuncHandle fn)
{
    aclrtStream side = NULL;
    aclrtEvent a = NULL, b = NULL;
    ThreadHandle cpu = 0, main_on_cpu = 0;
    struct mra_args args;
    void *in = NULL, *blk = NULL;
    float ms = 0, *h = malloc(BYTES);

    CHECK(h != NULL && aclrtCreateStream(&st) == ACL_SUCCESS &&
          aclrtCreateStream(&side) == ACL_SUCCESS, "streams");
    if (failures != 0)
        return;
    setup(comm, st, &cpu, &main_on_cpu, &args);
    CHECK(aclrtMalloc(&in, BYTES, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS &&
          aclrtMalloc(&blk, sizeof(args), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS, "malloc");
    CHECK(aclrtCreateEvent(&a) == ACL_SUCCESS && aclrtCreateEvent(&b) == ACL_SUCCESS, "events");
    if (failures != 0)
        return;
    for (uint64_t i = 0; i < BYTES / 4; i++)
        h[i] = (float)(me.rank + 1);
    args.in = (uint64_t)(uintptr_t)in;
    CHECK(aclrtMemcpy(in, BYTES, h, BYTES, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS &&
          aclrtMemcpy(blk, sizeof(args), &args, sizeof(args), ACL_MEMCPY_HOST_TO_DEVICE) ==
              ACL_SUCCESS, "inputs");
    /* Every rank's channels complete before any kernel runs; on another stream, so the
     * modelled time of the kernel's stream does not include the barrier. */
    CHECK(HcclBarrier(comm, side) == HCCL_SUCCESS && aclrtSynchronizeStream(side) == ACL_SUCCESS,
          "barrier");
    CHECK(aclrtRecordEvent(a, st) == ACL_SUCCESS, "record a");
    CHECK(HcommThreadNotifyRecordOnThread(cpu, main_on_cpu, START_IDX) == 0, "start");
    CHECK(aclrtLaunchKernel(fn, 1, blk, sizeof(args), st) == ACL_SUCCESS, "launch");
    CHECK(HcommThreadNotifyWaitOnThread(cpu, 0, 60) == 0, "kernel end");
    CHECK(aclrtRecordEvent(b, st) == ACL_SUCCESS, "record b");
    CHECK(aclrtSynchronizeStream(st) == ACL_SUCCESS, "synchronize");
    CHECK(aclrtEventElapsedTime(&ms, a, b) == ACL_SUCCESS, "aclrtEventElapsedTime");
    if (failures == 0)
        printf("rank %u: model_ring_ag %a ms (%.6f ms)\n", me.rank, (double)ms, (double)ms);
    check_blocks(args.buf);
    /* No peer still writes into my buffer when I leave. */
    CHECK(HcclBarrier(comm, side) == HCCL_SUCCESS && aclrtSynchronizeStream(side) == ACL_SUCCESS,
          "barrier");
    aclrtDestroyEvent(a), aclrtDestroyEvent(b);
    aclrtFree(in), aclrtFree(blk);
    free(h);
    aclrtDestroyStream(side);
}

int main(int argc, char **argv)
{
    HcclRootInfo root;
    HcclComm comm = NULL;
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle fn = NULL;

    if (argc != 2 || ex_launch_get(&me) != 1) {
        fprintf(stderr, "usage: mh_model_ag KERNELS_JSON, under a launcher (hcemu-run, mpirun)\n");
        return 2;
    }
    CHECK(aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice((int32_t)me.local) == ACL_SUCCESS,
          "aclInit/aclrtSetDevice(%u)", me.local);
    CHECK(aclrtBinaryLoadFromFile(argv[1], NULL, &bin) == ACL_SUCCESS &&
          aclrtBinaryGetFunction(bin, "model_ring_ag", &fn) == ACL_SUCCESS, "kernel %s", argv[1]);
    CHECK(HcclGetRootInfo(&root) == HCCL_SUCCESS, "HcclGetRootInfo");
    CHECK(failures == 0 && HcclCommInitRootInfo(me.size, &root, me.rank, &comm) == HCCL_SUCCESS,
          "HcclCommInitRootInfo");
    if (failures == 0)
        run(comm, fn);
    if (comm != NULL)
        CHECK(HcclCommDestroy(comm) == HCCL_SUCCESS, "HcclCommDestroy");
    if (st != NULL)
        aclrtDestroyStream(st);
    aclrtResetDevice((int32_t)me.local);
    aclFinalize();
    if (failures == 0)
        printf("rank %u: PASS\n", me.rank);
    return failures == 0 ? 0 : 1;
}
