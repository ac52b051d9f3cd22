// headers_hccl_decls.cpp - the declarations HCCL's own host library makes for itself, beside
// hcemu's public headers. scripts/compat-hccl-ops builds HCCL's sources against include/, and
// those sources declare a few hcomm functions on their own (weak, so that they run on any
// hcomm), some with types of their own, and define a struct HcomProInfo of their own. A public
// header of hcemu that declares one of these functions with other parameter types, or defines
// that struct, makes HCCL's build fail; hcemu's hcomm_diag.h once did both (libhcomm's public
// header declares neither). This unit repeats HCCL's side after every public header, so such
// a header fails hcemu's own build instead, where CI sees it.
#include <cstddef>
#include <cstdint>

#include "headers_all.h"

// HCCL's copy of an operator's profile, passed by value to the host profiling calls.
struct HcomProInfoTmp {
    uint8_t dataType;
    uint8_t cmdType;
    uint64_t dataCount;
    uint32_t rankSize;
    uint32_t userRank;
};

// The name HCCL gives its own operator profile (its op_common parameters).
struct HcomProInfo {
    uint8_t dataType;
    uint8_t cmdType;
};

extern "C" {
HcclResult HcommProfilingRegThread(HcomProInfoTmp profInfo, ThreadHandle *threads)
    __attribute__((weak));
HcclResult HcommProfilingUnRegThread(HcomProInfoTmp profInfo, ThreadHandle *threads)
    __attribute__((weak));
HcclResult HcommProfilingReportKernel(uint64_t beginTime, const char *profName)
    __attribute__((weak));
HcclResult HcommProfilingReportOp(HcomProInfoTmp profInfo) __attribute__((weak));
uint64_t HcommGetProfilingSysCycleTime() __attribute__((weak));
HcclResult HcclSymWinGetPeerPointer(HcclCommSymWindow winHandle, size_t offset, uint32_t peerRank,
                                    void **ptr) __attribute__((weak));
HcclResult HcommSymWinGetPeerPointer(HcclCommSymWindow winHandle, size_t offset, uint32_t peerRank,
                                     void **ptr) __attribute__((weak));
HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size, HcclCommSymWindow *winHandle,
                             size_t *offset) __attribute__((weak));
}

// Referenced, so the unit is not empty and the declarations are used as HCCL uses them.
extern "C" int emu_headers_hccl_decls(void)
{
    return HcommProfilingRegThread != nullptr || HcclCommSymWinGet != nullptr;
}
