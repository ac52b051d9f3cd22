/* fuzz_api.c - libFuzzer target over sequences of host API calls: each input is read as a
 * list of (opcode, arguments) and replayed on one process's communicators (1 rank, and 2
 * ranks as threads of this process): rank graph queries, channel descriptors and configs,
 * thread handles and their notifies, kernel arguments of a loaded image, and collectives with
 * random types, counts, ops, roots and buffers. Any return code is fine; a crash, a hang past
 * libFuzzer's -timeout or a sanitizer report is a bug. Built and run by scripts/fuzz only
 * (libhcemu and hcemu-device built by clang with the fuzzer's instrumentation).
 *
 * Calls that would wait for a rank nobody drives (a channel to the 2-rank communicator's
 * other rank, a notify wait) are left out or bounded by the settings made at start-up. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hcomm/hcomm_primitives.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BUF 4096u

static HcclComm one, two[2];
static aclrtStream stream;
static void *dev_a, *dev_b;
static aclrtBinHandle image;
static aclrtFuncHandle func;

/* The input, read from the front; zeros once it is used up. */
struct in {
    const uint8_t *p;
    size_t n;
};

static uint32_t take(struct in *in, uint32_t bytes)
{
    uint32_t v = 0;

    for (uint32_t i = 0; i < bytes; i++) {
        v = v << 8 | (in->n > 0 ? *in->p : 0);
        if (in->n > 0)
            in->p++, in->n--;
    }
    return v;
}

static HcclComm a_comm(struct in *in)
{
    switch (take(in, 1) % 4) {
    case 0: return one;
    case 1: return two[0];
    case 2: return NULL;
    default: return (HcclComm)&dev_a; /* not a communicator */
    }
}

/* A buffer: device memory (maybe misaligned or near its end), host memory, or NULL. */
static void *a_buf(struct in *in)
{
    static uint8_t host[BUF];
    uint32_t off = take(in, 2) % BUF;

    switch (take(in, 1) % 5) {
    case 0: return dev_a;
    case 1: return dev_b;
    case 2: return (uint8_t *)dev_a + off;
    case 3: return host;
    default: return NULL;
    }
}

static void graph(struct in *in)
{
    HcclComm c = a_comm(in);
    uint32_t layer = take(in, 1) % 4, src = take(in, 1) % 4, dst = take(in, 1) % 4;
    CommLink *links = NULL;
    uint32_t n = 0, *list = NULL, num = 0;
    EndpointDesc eps[4];

    (void)HcclRankGraphGetLinks(c, layer, src, dst, take(in, 1) & 1 ? &links : NULL, &n);
    (void)HcclRankGraphGetLayers(c, &list, &num);
    (void)HcclRankGraphGetRanksByLayer(c, layer, &list, &num);
    (void)HcclRankGraphGetTopoInstsByLayer(c, layer, &list, &num);
    (void)HcclRankGraphGetEndpointNum(c, layer, src, &num);
    num = take(in, 1) % 6;
    (void)HcclRankGraphGetEndpointDesc(c, layer, src, &num, num <= 4 ? eps : NULL);
}

static void channels(struct in *in)
{
    HcclChannelDesc d[3];
    ChannelHandle h[3] = {0};
    uint32_t n = take(in, 1) % 4;
    HcclChannelConfig cfg = NULL;

    (void)HcclChannelDescInit(d, 3);
    for (uint32_t i = 0; i < 3; i++) {
        if (take(in, 1) & 1)
            d[i].remoteRank = take(in, 1) % 4;
        if (take(in, 1) & 1)
            d[i].notifyNum = take(in, 2);
        if (take(in, 1) & 1)
            d[i].channelProtocol = (CommProtocol)(take(in, 1) % 8);
        if (take(in, 1) & 1)
            d[i].header.magicWord ^= take(in, 1);
    }
    CommEngine e = (CommEngine)(take(in, 1) % 8);
    (void)HcclChannelQuery(a_comm(in), e, n ? d : NULL, n, h);
    if (HcclChannelConfigCreate(&cfg) == HCCL_SUCCESS) {
        (void)HcclChannelConfigSetInt(cfg, (HcclChannelConfigType)(int)(take(in, 1) % 4) - 1,
                                      take(in, 1));
        char tag[300];
        uint32_t len = take(in, 2) % sizeof(tag);
        memset(tag, 'a' + (int)(len % 26), len);
        tag[len] = '\0';
        (void)HcclChannelConfigSetStr(cfg, HCCL_CHANNEL_CONFIG_TYPE_SHARED_QUEUE_TAG,
                                      take(in, 1) & 1 ? tag : NULL);
    }
    /* Only the 1-rank communicator: every channel there is refused at once (no peer). */
    (void)HcclChannelAcquireWithConfig(one, e, n ? d : NULL, n, take(in, 1) & 1 ? cfg : NULL, h);
    (void)HcclChannelConfigDestroy(cfg);
}

static void threads(struct in *in)
{
    ThreadHandle t[4] = {0};
    uint32_t n = take(in, 1) % 5, notifies = take(in, 1) % 70;
    CommEngine e = (CommEngine)(take(in, 1) % 8);

    if (HcclThreadAcquire(a_comm(in), e, n, notifies, n ? t : NULL) != HCCL_SUCCESS)
        return;
    ThreadHandle host = 0;
    if (HcclThreadAcquireWithStream(one, COMM_ENGINE_CPU_TS, stream, 1 + take(in, 1) % 3, &host) !=
        HCCL_SUCCESS)
        return;
    /* A record on the host stream's own thread, to a random index: one wait that finds it. */
    uint32_t idx = take(in, 1) % 4;
    if (HcommThreadNotifyRecordOnThread(host, take(in, 1) & 1 ? host : t[0], idx) == 0 &&
        take(in, 1) & 1)
        (void)HcommThreadNotifyWaitOnThread(host, idx, 1);
    ThreadHandle out[4];
    (void)HcclThreadExportToCommEngine(one, n, n ? t : NULL, (CommEngine)(take(in, 1) % 8), out);
    (void)aclrtSynchronizeStreamWithTimeout(stream, 2000);
}

static void kernel_args(struct in *in)
{
    aclrtArgsHandle h = NULL;
    aclrtParamHandle p;
    uint8_t block[512];

    if (func == NULL || aclrtKernelArgsInit(take(in, 1) & 1 ? func : NULL, &h) != ACL_SUCCESS)
        return;
    memset(block, (int)take(in, 1), sizeof(block));
    for (uint32_t k = take(in, 1) % 4; k > 0; k--)
        (void)aclrtKernelArgsAppend(h, take(in, 1) & 1 ? block : NULL, take(in, 2) % (sizeof(block) + 1), &p);
    (void)aclrtKernelArgsAppendPlaceHolder(h, &p);
    (void)aclrtKernelArgsFinalize(h);
}

static void collective(struct in *in)
{
    HcclComm c = take(in, 1) % 8 ? one : a_comm(in);
    HcclDataType t = (HcclDataType)(take(in, 1) % 20);
    HcclReduceOp op = (HcclReduceOp)(take(in, 1) % 6);
    uint64_t count = take(in, 2) % 1100;
    uint32_t root = take(in, 1) % 3;
    void *s = a_buf(in), *r = a_buf(in);
    uint64_t v[4] = {take(in, 1) % 300, take(in, 1) % 300, 0, 0};
    uint64_t w[4] = {take(in, 1) % 300, take(in, 1) % 300, 0, 0};
    aclrtStream st = take(in, 1) % 8 ? stream : NULL;
    HcclResult rc = HCCL_SUCCESS;

    switch (take(in, 1) % 12) {
    case 0: rc = HcclAllReduce(s, r, count, t, op, c, st); break;
    case 1: rc = HcclReduce(s, r, count, t, op, root, c, st); break;
    case 2: rc = HcclBroadcast(s, count, t, root, c, st); break;
    case 3: rc = HcclAllGather(s, r, count, t, c, st); break;
    case 4: rc = HcclReduceScatter(s, r, count, t, op, c, st); break;
    case 5: rc = HcclScatter(s, r, count, t, root, c, st); break;
    case 6: rc = HcclAlltoAll(s, count, t, r, count, t, c, st); break;
    case 7: rc = HcclAllGatherV(s, count, r, v, w, t, c, st); break;
    case 8: rc = HcclReduceScatterV(s, v, w, r, count, t, op, c, st); break;
    case 9: rc = HcclAlltoAllV(s, v, w, t, r, v, w, t, c, st); break;
    case 10: rc = HcclAlltoAllVC(s, v, t, r, t, c, st); break;
    default: rc = HcclBarrier(c, st); break;
    }
    if (rc == HCCL_SUCCESS)
        (void)aclrtSynchronizeStreamWithTimeout(stream, 5000);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct in in = {data, size};

    for (int steps = 0; in.n > 0 && steps < 32; steps++) {
        switch (take(&in, 1) % 5) {
        case 0: graph(&in); break;
        case 1: channels(&in); break;
        case 2: threads(&in); break;
        case 3: kernel_args(&in); break;
        default: collective(&in); break;
        }
    }
    return 0;
}

static void finish(void)
{
    if (image != NULL)
        (void)aclrtBinaryUnLoad(image);
    (void)HcclCommDestroy(one);
    (void)HcclCommDestroy(two[0]);
    (void)HcclCommDestroy(two[1]);
    (void)aclrtDestroyStream(stream);
    (void)aclrtFree(dev_a);
    (void)aclrtFree(dev_b);
    (void)aclrtResetDevice(0);
    (void)aclFinalize();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    int32_t dev0[1] = {0}, devs[2] = {0, 1};
    const char *json = getenv("FUZZ_API_IMAGE");

    (void)argc, (void)argv;
    setenv("HCEMU_DEVICES", "2", 1);
    setenv("HCEMU_DEVICE_MEM_GB", "1", 1);
    setenv("HCCL_BUFFSIZE", "1", 1);
    setenv("HCCL_CONNECT_TIMEOUT", "1", 1);
    setenv("HCEMU_HANG_MS", "300", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtCreateStream(&stream) != ACL_SUCCESS ||
        aclrtMalloc(&dev_a, BUF, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtMalloc(&dev_b, BUF, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        HcclCommInitAll(1, dev0, &one) != HCCL_SUCCESS ||
        HcclCommInitAll(2, devs, two) != HCCL_SUCCESS) {
        fprintf(stderr, "fuzz_api: cannot set up the devices and communicators\n");
        exit(1);
    }
    (void)aclrtSetDevice(0);
    if (json != NULL && aclrtBinaryLoadFromFile(json, NULL, &image) == ACL_SUCCESS)
        (void)aclrtBinaryGetFunction(image, "hcemu_coll_run", &func);
    atexit(finish);
    return 0;
}
