/* hcomm_profiling.h - the host-side profiling calls libhcomm exports without a public
 * prototype (api_hccl_diag.c defines them). The vendor's hcomm_diag.h declares none of them:
 * HCCL's host library declares each itself, weak, with its own copy of the profile struct
 * (HcomProInfoTmp, and a struct HcomProInfo of its own in alg_param.h), so a public
 * declaration here would clash with HCCL's when it is built against hcemu's headers. The
 * layout below is the one HCCL passes by value. */
#ifndef HCEMU_HOST_HCCL_API_HCOMM_PROFILING_H
#define HCEMU_HOST_HCCL_API_HCOMM_PROFILING_H

#include <stdbool.h>
#include <stdint.h>

#include <hccl/hccl_types.h>
#include <hccl/hcomm_res_defs.h>

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

/* The streams (threads[0] the main one, then slaveThreadNum more) an operator's profile
 * names, registered and withdrawn; the host's kernel and operator reports. */
HcclResult HcommProfilingRegThread(HcomProInfo profInfo, ThreadHandle *threads);
HcclResult HcommProfilingUnRegThread(HcomProInfo profInfo, ThreadHandle *threads);
HcclResult HcommProfilingReportKernel(uint64_t beginTime, const char *profName);
HcclResult HcommProfilingReportOp(HcomProInfo profInfo);

#endif
