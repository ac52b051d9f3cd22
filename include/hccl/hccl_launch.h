/* hccl_launch.h - HcclAicpuKernelLaunch and its descriptors (hcomm 9.2): an operator
 * description, the kernel to run (image name, entry, argument bytes) and launch settings.
 *
 * hcemu's own rendition. The vendor header is C++ only (`const uint32_t` bounds, nullptr);
 * here bounds are macros so it is valid C11 too. Layouts (LP64): HcclOpP2pDesc 48 bytes,
 * HcclOpDesc 360, HcclKernelFuncInfo 528, HcclKernelLaunchCfg 128, HcclP2pKernelParam 8200. */
#ifndef HCEMU_HCCL_LAUNCH_H
#define HCEMU_HCCL_LAUNCH_H

#include <stdint.h>
#include <string.h>

#include "../acl/acl_rt.h"
#include "hccl_types.h"
#include "hcomm_res_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define P2P_MAX_ARG_SIZE 8192U
#define HCCL_OP_DESC_OP_NAME_MAX_LEN 256U
#define HCCL_OPDESC_MAGIC_WORD 0x0f0f0f0fU
#define HCCL_OPDESC_VERSION 1U
#define HCCL_KERNEL_SO_NAME_MAX_LEN 256U
#define HCCL_KERNEL_FUNC_NAME_MAX_LEN 256U
#define HCCL_KERNEL_LAUNCH_CFG_MAGIC_WORD 0x0f0f0f0fU
#define HCCL_KERNEL_LAUNCH_CFG_VERSION 1U

/* Argument block of a point-to-point kernel: the thread it runs on, then opaque bytes. */
typedef struct {
    ThreadHandle sendRecvThread;
    uint8_t opParams[P2P_MAX_ARG_SIZE];
} HcclP2pKernelParam;

typedef struct {
    void *buffer;
    uint8_t reserved[8];
    HcclCMDType cmdType;
    HcclDataType dataType;
    uint64_t count;
    uint32_t remoteRank;
    void *unfoldStream;
} HcclOpP2pDesc;

typedef struct {
    CommAbiHeader header;
    uint32_t opDescType;
    char opName[HCCL_OP_DESC_OP_NAME_MAX_LEN];
    __extension__ union {
        uint8_t raws[76];
        HcclOpP2pDesc p2p;
    };
} HcclOpDesc;

typedef struct {
    char kernelSoName[HCCL_KERNEL_SO_NAME_MAX_LEN];
    char kernelFuncName[HCCL_KERNEL_FUNC_NAME_MAX_LEN];
    void *args;
    uint32_t argSize;
} HcclKernelFuncInfo;

typedef struct {
    CommAbiHeader header;
    uint64_t timeOut;
    uint8_t reserved[104];
} HcclKernelLaunchCfg;

/* Both initialisers mark every field "not set" (all bytes 0xFF), then stamp the ABI header.
 * Return 0, or 2 (HCCL_E_PTR) for NULL. */
static inline HcclResult HcclOpDescInit(HcclOpDesc *opDesc)
{
    if (opDesc == NULL)
        return HCCL_E_PTR;
    memset(opDesc, 0xFF, sizeof(*opDesc));
    opDesc->header.version = HCCL_OPDESC_VERSION;
    opDesc->header.magicWord = HCCL_OPDESC_MAGIC_WORD;
    opDesc->header.size = (uint32_t)sizeof(HcclOpDesc);
    opDesc->header.reserved = 0;
    return HCCL_SUCCESS;
}

static inline HcclResult HcclKernelLaunchCfgInit(HcclKernelLaunchCfg *cfg)
{
    if (cfg == NULL)
        return HCCL_E_PTR;
    memset(cfg, 0xFF, sizeof(*cfg));
    cfg->header.version = HCCL_KERNEL_LAUNCH_CFG_VERSION;
    cfg->header.magicWord = HCCL_KERNEL_LAUNCH_CFG_MAGIC_WORD;
    cfg->header.size = (uint32_t)sizeof(HcclKernelLaunchCfg);
    cfg->header.reserved = 0;
    return HCCL_SUCCESS;
}

/* Launches funcInfo's entry on an AICPU thread of comm from the user stream's position. */
HcclResult HcclAicpuKernelLaunch(HcclComm comm, const HcclOpDesc *opInfo,
                                 const HcclKernelFuncInfo *funcInfo,
                                 ThreadHandle aicpuThreadHandle, aclrtStream userStream,
                                 const HcclKernelLaunchCfg *kernelLaunchCfg);

#ifdef __cplusplus
}
#endif

#endif
