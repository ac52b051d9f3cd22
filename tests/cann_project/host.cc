/* host.cc - one rank per device (threads): fill a device buffer with the packaged kernel
 * (aclrtBinaryLoadFromFile of the installed descriptor) and with the <<<>>> kernel, check both. */
#include <stdio.h>
#include <stdlib.h>
#include <string>
#include <thread>
#include <vector>

#include <acl/acl.h>
#include <securec.h>

#include "mini.h"

int LaunchMiniAsc(MiniArgs &args, aclrtStream stream);

static const uint32_t COUNT = 1024;

#define CHECK(x)                                                                   \
    do {                                                                           \
        int rc_ = (x);                                                             \
        if (rc_ != 0) {                                                            \
            printf("rank %d: %s failed: %d\n", dev, #x, rc_);                      \
            return 1;                                                              \
        }                                                                          \
    } while (0)

static int check(int dev, const std::vector<uint32_t> &got, uint32_t base, uint32_t step)
{
    for (uint32_t i = 0; i < COUNT; i++)
        if (got[i] != base + step * i) {
            printf("rank %d: element %u is %u, expected %u\n", dev, i, got[i], base + step * i);
            return 1;
        }
    return 0;
}

static int rank(int dev)
{
    char json[4096];
    aclrtBinHandle bin;
    aclrtFuncHandle f;
    aclrtArgsHandle args;
    aclrtParamHandle ph;
    aclrtStream stream;
    void *buf;
    std::vector<uint32_t> host(COUNT);

    CHECK(aclrtSetDevice(dev));
    CHECK(aclrtCreateStream(&stream));
    CHECK(aclrtMalloc(&buf, COUNT * 4, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(sprintf_s(json, sizeof(json), "%s/opp/vendors/mini/aicpu/config/libmini_aicpu_kernel.json",
                    getenv("ASCEND_HOME_PATH")) < 0);
    CHECK(aclrtBinaryLoadFromFile(json, nullptr, &bin));
    CHECK(aclrtBinaryGetFunction(bin, "MiniFillKernel", &f));
    MiniArgs a = {reinterpret_cast<uint64_t>(buf), COUNT, 1000u * (uint32_t)dev};
    CHECK(aclrtKernelArgsInit(f, &args));
    CHECK(aclrtKernelArgsAppend(args, &a, sizeof(a), &ph));
    CHECK(aclrtKernelArgsFinalize(args));
    CHECK(aclrtLaunchKernelWithConfig(f, 1, stream, nullptr, args, nullptr));
    CHECK(aclrtSynchronizeStream(stream));
    CHECK(aclrtMemcpy(host.data(), COUNT * 4, buf, COUNT * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(check(dev, host, a.base, 1));

    a.base = 5000u * (uint32_t)dev;
    CHECK(LaunchMiniAsc(a, stream));
    CHECK(aclrtSynchronizeStream(stream));
    CHECK(aclrtMemcpy(host.data(), COUNT * 4, buf, COUNT * 4, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(check(dev, host, a.base, 2));
    printf("rank %d: packaged kernel ok, <<<>>> kernel ok\n", dev);
    CHECK(aclrtBinaryUnLoad(bin));
    CHECK(aclrtFree(buf));
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtResetDevice(dev));
    return 0;
}

int main()
{
    uint32_t n = 0;
    if (aclInit(nullptr) != 0 || aclrtGetDeviceCount(&n) != 0 || n < 2)
        return 1;
    std::vector<int> rc(n);
    std::vector<std::thread> ranks;
    for (uint32_t d = 0; d < n; d++)
        ranks.emplace_back([&rc, d] { rc[d] = rank((int)d); });
    int failed = 0;
    for (uint32_t d = 0; d < n; d++) {
        ranks[d].join();
        failed += rc[d] != 0;
    }
    aclFinalize();
    printf("mini custom op: %s - %u ranks\n", failed ? "FAIL" : "PASS", n);
    return failed ? 1 : 0;
}
