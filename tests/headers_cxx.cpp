// headers_cxx.cpp - the C++17 view of the public headers, linked into test_headers.
// Vendor users are C++, so the layouts must agree under a C++ compiler and the inline
// initialisers must compile and produce the same bytes as their C builds.
#include <cstddef>
#include <type_traits>

#include "headers_all.h"

static_assert(sizeof(CommAbiHeader) == 16, "CommAbiHeader");
static_assert(sizeof(CommAddr) == 40, "CommAddr");
static_assert(sizeof(EndpointLoc) == 64, "EndpointLoc");
static_assert(sizeof(EndpointDesc) == 160, "EndpointDesc");
static_assert(sizeof(CommMem) == 24, "CommMem");
static_assert(sizeof(ThreadConfig) == 32, "ThreadConfig");
static_assert(sizeof(HcclChannelDesc) == 496, "HcclChannelDesc");
static_assert(offsetof(HcclChannelDesc, memHandles) == 352, "HcclChannelDesc.memHandles");
static_assert(offsetof(HcclChannelDesc, roceAttr) == 364, "HcclChannelDesc.roceAttr");
static_assert(sizeof(CommLink) == 464, "CommLink");
static_assert(offsetof(CommLink, linkAttr) == 336, "CommLink.linkAttr");
static_assert(sizeof(HcclCommConfig) == 2248, "HcclCommConfig");
static_assert(offsetof(HcclCommConfig, hcclChannelSqDepth) == 2240, "HcclCommConfig tail");
static_assert(sizeof(HcommBatchTransferDesc) == 64, "HcommBatchTransferDesc");
static_assert(sizeof(HcclRootInfo) == 4108, "HcclRootInfo");
static_assert(sizeof(aclrtLaunchKernelAttr) == 20, "aclrtLaunchKernelAttr");
static_assert(sizeof(aclrtBinaryLoadOption) == 20, "aclrtBinaryLoadOption");
static_assert(sizeof(aclrtMallocAttribute) == 12, "aclrtMallocAttribute");
static_assert(sizeof(HcclResult) == 4 && sizeof(CommEngine) == 4, "enum width");

// Prototypes whose ABI changed across vendor versions or that are easy to get wrong.
// decltype does not odr-use the functions, so nothing needs to be linked.
static_assert(std::is_same<decltype(&HcommSetNotifyWaitTimeOut), int32_t (*)(float)>::value,
              "float timeout setter");
static_assert(std::is_same<decltype(&HcommThreadResAcquireTimeOut), int32_t (*)(float)>::value,
              "float timeout setter");
static_assert(std::is_same<decltype(&HcclTaskRegister),
                           int32_t (*)(HcclComm, const char *, Callback *)>::value,
              "Callback is a function type");
static_assert(std::is_same<decltype(&HcommAicpuTsTaskCacheLookup),
                           HcommResult (*)(const char *, bool *)>::value,
              "task cache returns HcommResult");
static_assert(std::is_same<decltype(&aclrtKernelArgsParaUpdate),
                           aclError (*)(aclrtArgsHandle, aclrtParamHandle, void *, size_t)>::value,
              "ParaUpdate");

// Vendor C++ code passes a plain function where a Callback is expected.
static int32_t cxx_task_cb(uint64_t, int32_t) { return 7; }
static Callback *const cxx_cb_ptr = cxx_task_cb;

extern "C" int headers_cxx_probe(void)
{
    HcclChannelDesc desc[2];
    if (HcclChannelDescInit(desc, 2) != HCCL_SUCCESS || HcclChannelDescInit(nullptr, 1) != HCCL_E_PTR)
        return -1;
    ThreadConfig cfg;
    if (ThreadConfigInit(&cfg, 1) != 0 || ThreadConfigInit(nullptr, 0) != 2)
        return -1;
    HcclCommConfig config;
    HcclCommConfigInit(&config);
    HcclCommConfigInit(nullptr);
    HcclConfigValue v{};
    v.value = 1;
    aclrtLaunchKernelAttr attr{};
    attr.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT;
    attr.value.timeout = 1836;
    return (cxx_cb_ptr(0, 0) == 7 && v.value == 1 && attr.value.timeout == 1836 &&
            config.hcclExecTimeOut == -1) ? 0 : -1;
}

extern "C" void headers_cxx_init_bytes(HcclChannelDesc *desc, CommLink *link, ThreadConfig *cfg,
                                       EndpointDesc *ep, HcclCommConfig *config)
{
    (void)HcclChannelDescInit(desc, 1);
    (void)CommLinkInit(link, 1);
    (void)ThreadConfigInit(cfg, 1);
    (void)EndpointDescInit(ep, 1);
    HcclCommConfigInit(config);
}
