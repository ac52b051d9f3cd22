/* rt_external.h - the part of the runtime's internal interface HCCL's host library calls:
 * task/stream ids for its records and adding a stream to a captured model. hcemu answers
 * both in host/acl/api_acl_extra.c (ids 0; capture is not emulated, so "not supported").
 * The task-failure callback types are here for HCCL's AIV helper, which registers one
 * through a weak rtRegTaskFailCallbackByModule; hcemu does not export that function (no AIV
 * engine, no exception records), so the helper finds it NULL and skips the registration. */
#ifndef HCEMU_PKG_INC_RUNTIME_RT_EXTERNAL_H
#define HCEMU_PKG_INC_RUNTIME_RT_EXTERNAL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef char char_t;
typedef int32_t rtError_t;
typedef void *rtStream_t;
typedef void *rtModel_t;

typedef struct rtExceptionInfo rtExceptionInfo_t; /* = aclrtExceptionInfo, opaque here */
typedef void (*rtTaskFailCallback)(rtExceptionInfo_t *exceptionInfo);

#define RT_ERROR_NONE 0

rtError_t rtGetTaskIdAndStreamID(uint32_t *taskId, uint32_t *streamId);
rtError_t rtStreamAddToModel(rtStream_t stm, rtModel_t captureMdl);

#ifdef __cplusplus
}
#endif

#endif
