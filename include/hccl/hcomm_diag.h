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

typedef void (*HcommGetOpInfoCallback)(const void *opInfo, char *outPut, size_t size);

HcclResult HcommRegOpInfo(const char *commId, void *opInfo, size_t size);
HcclResult HcommRegOpTaskException(const char *commId, HcommGetOpInfoCallback callback);
HcclResult HcommProfilingReportDeviceOp(const char *groupname);
HcclResult HcommProfilingReportKernelStartTask(uint64_t thread, const char *groupname);
HcclResult HcommProfilingReportKernelEndTask(uint64_t thread, const char *groupname);

#ifdef __cplusplus
}
#endif

#endif
