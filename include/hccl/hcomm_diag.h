/* hcomm_diag.h - device-side diagnostics registration and profiling reports (hcomm 9.2).
 * hcemu's own rendition. hcemu has no profiler: the reports are accepted and dropped, the
 * registrations are checked and kept nowhere (docs/CONTROL_PLANE.md "HCCL 9.2 additions"). */
#ifndef HCEMU_HCOMM_DIAG_H
#define HCEMU_HCOMM_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hccl_types.h"
#include "hcomm_res_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An operator's profile as the host library registers it (passed by value). */
#define HCOM_PRO_INFO_MAX_LENGTH 128
typedef struct HcomProInfo {
    uint8_t dataType;
    uint8_t cmdType;
    uint64_t dataCount;
    uint32_t rankSize;
    uint32_t userRank;
    uint32_t blockDim;
    uint64_t beginTime;
    uint32_t root;
    uint32_t slaveThreadNum;
    uint64_t commNameLen;
    uint64_t algTypeLen;
    char tag[HCOM_PRO_INFO_MAX_LENGTH];
    char commName[HCOM_PRO_INFO_MAX_LENGTH];
    char algType[HCOM_PRO_INFO_MAX_LENGTH];
    bool isCapture;
    bool isAiv;
    uint8_t reserved[HCOM_PRO_INFO_MAX_LENGTH];
} HcomProInfo;

typedef void (*HcommGetOpInfoCallback)(const void *opInfo, char *outPut, size_t size);

HcclResult HcommRegOpInfo(const char *commId, void *opInfo, size_t size);
HcclResult HcommRegOpTaskException(const char *commId, HcommGetOpInfoCallback callback);
HcclResult HcommProfilingReportDeviceOp(const char *groupname);
HcclResult HcommProfilingReportKernelStartTask(uint64_t thread, const char *groupname);
HcclResult HcommProfilingReportKernelEndTask(uint64_t thread, const char *groupname);
/* Host side: the streams (threads[0] the main one, then slaveThreadNum more) an operator's
 * profile names, registered and withdrawn; the host's kernel and operator reports. */
HcclResult HcommProfilingRegThread(HcomProInfo profInfo, ThreadHandle *threads);
HcclResult HcommProfilingUnRegThread(HcomProInfo profInfo, ThreadHandle *threads);
HcclResult HcommProfilingReportKernel(uint64_t beginTime, const char *profName);
HcclResult HcommProfilingReportOp(HcomProInfo profInfo);

#ifdef __cplusplus
}
#endif

#endif
