/* fault_driver.c - hcemu-fault-driver: the host programs scripts/fault-table kills or lets
 * misbehave. Prints one line per call it makes ("<call> <aclError>") on stdout.
 *
 *   hcemu-fault-driver exit-race THREADS DEVICES   every thread opens a device, then all
 *                                                  call exit(0) at once
 *   hcemu-fault-driver allreduce THREADS BYTES     THREADS ranks as threads, each on its own
 *                                                  device, allreduce BYTES and synchronise in a
 *                                                  loop until something ends the process
 *   hcemu-fault-driver kernel JSON ENTRY TIMEOUT_S  launch ENTRY of JSON on device 0 (TIMEOUT_S
 *                                                  0: no timeout attribute), synchronise, then
 *                                                  allocate on the device */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>
#include <hccl/hccl.h>

static pthread_barrier_t ready;
static uint32_t n_devices = 1;

static void *opener(void *arg)
{
    int dev = (int)(uintptr_t)arg % (int)n_devices;
    void *p = NULL;

    if (aclrtSetDevice(dev) != ACL_SUCCESS || aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST) !=
                                                  ACL_SUCCESS)
        fprintf(stderr, "thread %d: device %d could not be used\n", (int)(uintptr_t)arg, dev);
    pthread_barrier_wait(&ready);
    exit(0);
}

static int exit_race(int threads)
{
    pthread_t th;

    if (threads < 1 || threads > 256 || aclInit(NULL) != ACL_SUCCESS)
        return 2;
    pthread_barrier_init(&ready, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; i++)
        if (pthread_create(&th, NULL, opener, (void *)(uintptr_t)i) != 0)
            return 2;
    pthread_barrier_wait(&ready);
    exit(0);
}

struct rank {
    int rank, n;
    uint64_t bytes;
    HcclRootInfo *root;
};

static void *rank_loop(void *arg)
{
    struct rank *r = arg;
    HcclComm c = NULL;
    aclrtStream s = NULL;
    void *buf = NULL;

    if (aclrtSetDevice(r->rank) != ACL_SUCCESS ||
        HcclCommInitRootInfo((uint32_t)r->n, r->root, (uint32_t)r->rank, &c) != HCCL_SUCCESS ||
        aclrtCreateStream(&s) != ACL_SUCCESS ||
        aclrtMalloc(&buf, r->bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        fprintf(stderr, "rank %d: set-up failed\n", r->rank);
        exit(3);
    }
    for (;;) {
        if (HcclAllReduce(buf, buf, r->bytes / 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, c, s) !=
                HCCL_SUCCESS ||
            aclrtSynchronizeStream(s) != ACL_SUCCESS) {
            fprintf(stderr, "rank %d: allreduce failed\n", r->rank);
            exit(4);
        }
    }
    return NULL;
}

static int allreduce(int n, uint64_t bytes)
{
    static HcclRootInfo root;
    struct rank r[64];
    pthread_t th[64];

    if (n < 1 || n > 64 || bytes < 4 || aclInit(NULL) != ACL_SUCCESS ||
        aclrtSetDevice(0) != ACL_SUCCESS || HcclGetRootInfo(&root) != HCCL_SUCCESS)
        return 2;
    for (int i = 0; i < n; i++) {
        r[i] = (struct rank){.rank = i, .n = n, .bytes = bytes, .root = &root};
        if (pthread_create(&th[i], NULL, rank_loop, &r[i]) != 0)
            return 2;
    }
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    return 0;
}

static int kernel(const char *json, const char *entry, unsigned timeout_s)
{
    aclrtBinaryLoadOption opt = {.type = ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE};
    aclrtBinaryLoadOptions opts = {.options = &opt, .numOpt = 1};
    aclrtLaunchKernelAttr at = {.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT};
    aclrtLaunchKernelCfg cfg = {.attrs = &at, .numAttrs = 1};
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL;
    aclrtArgsHandle a = NULL;
    aclrtParamHandle ph = NULL;
    aclrtStream s = NULL;
    void *out = NULL;
    uint64_t addr;

    opt.value.cpuKernelMode = 1;
    at.value.timeout = timeout_s;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtMalloc(&out, 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtCreateStream(&s) != ACL_SUCCESS)
        return 2;
    aclError e = aclrtBinaryLoadFromFile(json, &opts, &bin);
    printf("aclrtBinaryLoadFromFile %d\n", e);
    if (e == ACL_SUCCESS)
        e = aclrtBinaryGetFunction(bin, entry, &f);
    addr = (uint64_t)(uintptr_t)out;
    if (e == ACL_SUCCESS && (aclrtKernelArgsInit(f, &a) != ACL_SUCCESS ||
                             aclrtKernelArgsAppend(a, &addr, sizeof(addr), &ph) != ACL_SUCCESS ||
                             aclrtKernelArgsFinalize(a) != ACL_SUCCESS))
        return 2;
    if (e == ACL_SUCCESS) {
        e = aclrtLaunchKernelWithConfig(f, 1, s, timeout_s != 0 ? &cfg : NULL, a, NULL);
        printf("aclrtLaunchKernelWithConfig %d\n", e);
        fflush(stdout);
    }
    if (e == ACL_SUCCESS) {
        e = aclrtSynchronizeStream(s);
        printf("aclrtSynchronizeStream %d\n", e);
    }
    void *p = NULL;
    printf("aclrtMalloc %d\n", aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    fflush(stdout);
    (void)aclFinalize();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "exit-race") == 0) {
        n_devices = atoi(argv[3]) > 0 ? (uint32_t)atoi(argv[3]) : 1;
        return exit_race(atoi(argv[2]));
    }
    if (argc == 4 && strcmp(argv[1], "allreduce") == 0)
        return allreduce(atoi(argv[2]), strtoull(argv[3], NULL, 0));
    if (argc == 5 && strcmp(argv[1], "kernel") == 0)
        return kernel(argv[2], argv[3], (unsigned)atoi(argv[4]));
    fprintf(stderr, "usage: hcemu-fault-driver exit-race THREADS DEVICES | allreduce THREADS "
                    "BYTES | kernel JSON ENTRY TIMEOUT_S\n");
    return 2;
}
