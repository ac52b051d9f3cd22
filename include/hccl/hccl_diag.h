/* hccl_diag.h - operator diagnostics: profiling reports and the per-operator record HCCL
 * registers for task-exception reports (hcomm 9.2). hcemu's own rendition; the reports are
 * accepted no-ops (docs/CONTROL_PLANE.md "HCCL 9.2 additions").
 * The vendor struct carries C++ default member values; this one is plain so C can use it
 * (HcclDfxOpInfo is 504 bytes: header@0 beginTime@16 dataCount@56 root@64 algTag@68
 * engine@356 cpuTsThread@360 inputMemAddr@376 reserve@408). */
#ifndef HCEMU_HCCL_DIAG_H
#define HCEMU_HCCL_DIAG_H

#include <stddef.h>
#include <stdint.h>

#include "hccl_types.h"
#include "hcomm_res_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HCOMM_ALG_TAG_LENGTH 288U

HcclResult HcclProfilingReportOp(HcclComm comm, uint64_t beginTime);
HcclResult HcclReportAicpuKernel(HcclComm comm, uint64_t beginTime, char *kernelName);
HcclResult HcclReportAivKernel(HcclComm comm, uint64_t beginTime);
uint64_t HcommGetProfilingSysCycleTime(void);
HcclResult HcclDfxRegOpInfoByCommId(char *commId, void *hcclDfxOpInfo);

typedef struct HcclDfxOpInfo {
    CommAbiHeader header;
    uint64_t beginTime;
    uint64_t endTime;
    uint32_t opMode;
    uint32_t opType;
    uint32_t reduceOp;
    uint32_t dataType;
    uint32_t outputType;
    uint64_t dataCount;
    uint32_t root;
    char algTag[HCOMM_ALG_TAG_LENGTH];
    CommEngine engine;
    uint64_t cpuTsThread;
    uint32_t cpuWaitAicpuNotifyIdx;
    uint32_t cpuWaitAicpuNotifyId;
    uint64_t inputMemAddr;
    uint64_t inputMemSize;
    uint64_t outputMemAddr;
    uint64_t outputMemSize;
    int8_t reserve[96];
} HcclDfxOpInfo;

#ifdef __cplusplus
}
#endif

#endif
