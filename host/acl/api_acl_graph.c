/* api_acl_graph.c - the ACL boundary of graph capture (aclmdlRI*): handles and arguments are
 * checked here, acl_graph.c does the work. The codes follow the vendor runtime's: a NULL handle
 * is ACL_ERROR_INVALID_PARAM (checked by the ACL layer), a stale one ACL_ERROR_RT_INVALID_HANDLE
 * (the runtime's handle check), a bad value ACL_ERROR_RT_PARAM_INVALID. */
#include <acl/acl.h>

#include <stdio.h>
#include <string.h>

#include "api.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "acl_graph.h"
#include "runtime.h"
#include "stream.h"

static aclError out(emu_status s)
{
    return emu_api_acl(s);
}

#define NEED(cond, fn, ...)                                                                        \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            EMU_LOG_ERR(fn ": " __VA_ARGS__);                                                      \
            return out(EMU_EACLPARAM);                                                             \
        }                                                                                          \
    } while (0)

static aclError unsupported(const char *fn)
{
    EMU_LOG_ERR("%s is not supported by hcemu (graphs are made by capture only, and their "
                "tasks are not inspected or updated one by one)",
                fn);
    return out(EMU_ERTNOTSUP);
}

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
    struct emu_hstream *s;
    emu_status st;

    NEED(stream != NULL, "aclmdlRICaptureBegin",
         "stream is NULL (the default stream cannot "
         "be captured)");
    EMU_ACL_NEED_INIT("aclmdlRICaptureBegin");
    if ((unsigned)mode >= EMU_CAPTURE_MODES) {
        EMU_LOG_ERR("aclmdlRICaptureBegin: mode %d is not an aclmdlRICaptureMode", (int)mode);
        return out(EMU_EINVAL);
    }
    if ((st = emu_stream_resolve(stream, &s)) != EMU_OK ||
        (st = emu_aclgraph_begin(s, (int)mode)) != EMU_OK)
        return out(st);
    return ACL_SUCCESS;
}

aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
    struct emu_hstream *s;
    struct emu_graph *g;
    emu_status st;

    NEED(stream != NULL, "aclmdlRICaptureEnd", "stream is NULL");
    if (modelRI == NULL) {
        EMU_LOG_ERR("aclmdlRICaptureEnd: modelRI is NULL");
        return out(EMU_EINVAL);
    }
    *modelRI = NULL;
    if ((st = emu_stream_resolve(stream, &s)) != EMU_OK || (st = emu_aclgraph_end(s, &g)) != EMU_OK)
        return out(st);
    *modelRI = g;
    return ACL_SUCCESS;
}

aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus *status,
                                aclmdlRI *modelRI)
{
    struct emu_hstream *s;
    struct emu_graph *g;
    emu_status st;
    int state;

    NEED(stream != NULL, "aclmdlRICaptureGetInfo", "stream is NULL");
    if (status == NULL && modelRI == NULL) {
        EMU_LOG_ERR("aclmdlRICaptureGetInfo: status and modelRI cannot both be NULL");
        return out(EMU_EACLPARAM);
    }
    if ((st = emu_stream_resolve(stream, &s)) != EMU_OK)
        return out(st);
    emu_aclgraph_info(s, &state, &g);
    if (status != NULL)
        *status = (aclmdlRICaptureStatus)state;
    if (modelRI != NULL)
        *modelRI = g;
    return ACL_SUCCESS;
}

aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
    NEED(mode != NULL, "aclmdlRICaptureThreadExchangeMode", "mode is NULL");
    if ((unsigned)*mode >= EMU_CAPTURE_MODES) {
        EMU_LOG_ERR("aclmdlRICaptureThreadExchangeMode: mode %d is not a capture mode", (int)*mode);
        return out(EMU_EINVAL);
    }
    int m = (int)*mode;
    emu_aclgraph_exchange_mode(&m);
    *mode = (aclmdlRICaptureMode)m;
    return ACL_SUCCESS;
}

/* The graph behind modelRI (checked NULL by the caller). */
static emu_status graph_of(aclmdlRI modelRI, struct emu_graph **g)
{
    return emu_aclgraph_check(modelRI, g);
}

aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
    struct emu_graph *g;
    struct emu_hstream *s;
    emu_status st;

    NEED(modelRI != NULL, "aclmdlRIExecuteAsync", "modelRI is NULL");
    EMU_ACL_NEED_INIT("aclmdlRIExecuteAsync");
    if ((st = graph_of(modelRI, &g)) != EMU_OK || (st = emu_stream_resolve(stream, &s)) != EMU_OK ||
        (st = emu_aclgraph_execute(g, s, EMU_CALLSITE())) != EMU_OK)
        return out(st);
    return ACL_SUCCESS;
}

aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout)
{
    struct emu_graph *g;
    struct emu_hstream *s;
    emu_status st;

    NEED(modelRI != NULL, "aclmdlRIExecute", "modelRI is NULL");
    EMU_ACL_NEED_INIT("aclmdlRIExecute");
    if (timeout < -1 || timeout == 0) {
        EMU_LOG_ERR("aclmdlRIExecute: timeout %d ms (-1 = forever, else > 0)", timeout);
        return out(EMU_EINVAL);
    }
    /* The device's default stream carries it, as the runtime's own stream does. */
    if ((st = graph_of(modelRI, &g)) != EMU_OK || (st = emu_stream_resolve(NULL, &s)) != EMU_OK ||
        (st = emu_aclgraph_execute(g, s, EMU_CALLSITE())) != EMU_OK)
        return out(st);
    st = emu_stream_sync(s, emu_os_deadline_ms(timeout));
    return out(st == EMU_ESYNC_TIMEOUT ? EMU_ESYNC_TIMEOUT : st);
}

aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
    struct emu_graph *g;
    emu_status st;

    NEED(modelRI != NULL, "aclmdlRIDestroy", "modelRI is NULL");
    if ((st = graph_of(modelRI, &g)) != EMU_OK || (st = emu_aclgraph_destroy(g)) != EMU_OK)
        return out(st);
    return ACL_SUCCESS;
}

aclError aclmdlRIDebugPrint(aclmdlRI modelRI)
{
    struct emu_graph *g;
    emu_status st;

    NEED(modelRI != NULL, "aclmdlRIDebugPrint", "modelRI is NULL");
    if ((st = graph_of(modelRI, &g)) != EMU_OK)
        return out(st);
    emu_aclgraph_print(g);
    return ACL_SUCCESS;
}

aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path, uint32_t flags)
{
    struct emu_graph *g;
    emu_status st;

    NEED(modelRI != NULL && path != NULL, "aclmdlRIDebugJsonPrint", "modelRI or path is NULL");
    if (flags > ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE) {
        EMU_LOG_ERR("aclmdlRIDebugJsonPrint: flags 0x%x are not SUMMARY or VERBOSE", flags);
        return out(EMU_EINVAL);
    }
    if ((st = graph_of(modelRI, &g)) != EMU_OK || (st = emu_aclgraph_print_json(g, path)) != EMU_OK)
        return out(st);
    return ACL_SUCCESS;
}

aclError aclmdlRISetName(aclmdlRI modelRI, const char *name)
{
    struct emu_graph *g;
    emu_status st;

    NEED(modelRI != NULL && name != NULL, "aclmdlRISetName", "modelRI or name is NULL");
    if ((st = graph_of(modelRI, &g)) != EMU_OK || (st = emu_aclgraph_set_name(g, name)) != EMU_OK)
        return out(st);
    return ACL_SUCCESS;
}

aclError aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char *name)
{
    struct emu_graph *g;
    emu_status st;

    NEED(modelRI != NULL && name != NULL && maxLen > 0, "aclmdlRIGetName",
         "modelRI or name is NULL, or maxLen is 0");
    if ((st = graph_of(modelRI, &g)) != EMU_OK)
        return out(st);
    const char *n = emu_aclgraph_name(g);
    if (strlen(n) >= maxLen) {
        EMU_LOG_ERR("aclmdlRIGetName: the name needs %zu bytes, maxLen is %u", strlen(n) + 1,
                    maxLen);
        return out(EMU_EINVAL);
    }
    memcpy(name, n, strlen(n) + 1);
    return ACL_SUCCESS;
}

aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t *modelRIId)
{
    struct emu_graph *g;
    emu_status st;

    NEED(modelRI != NULL && modelRIId != NULL, "aclmdlRIGetId", "modelRI or modelRIId is NULL");
    if ((st = graph_of(modelRI, &g)) != EMU_OK)
        return out(st);
    *modelRIId = emu_aclgraph_id(g);
    return ACL_SUCCESS;
}

static aclError callback(aclmdlRI modelRI, aclrtCallback func, void *userData, bool add,
                         const char *fn)
{
    struct emu_graph *g;
    emu_status st;

    if (modelRI == NULL || func == NULL) {
        EMU_LOG_ERR("%s: modelRI or func is NULL", fn);
        return out(EMU_EACLPARAM);
    }
    if ((st = graph_of(modelRI, &g)) != EMU_OK ||
        (st = emu_aclgraph_on_destroy(g, func, userData, add)) != EMU_OK)
        return out(st);
    return ACL_SUCCESS;
}

aclError aclmdlRIDestroyRegisterCallback(aclmdlRI modelRI, aclrtCallback func, void *userData)
{
    return callback(modelRI, func, userData, true, "aclmdlRIDestroyRegisterCallback");
}

aclError aclmdlRIDestroyUnregisterCallback(aclmdlRI modelRI, aclrtCallback func)
{
    return callback(modelRI, func, NULL, false, "aclmdlRIDestroyUnregisterCallback");
}

/* ---- declared, not emulated ---------------------------------------------------------------- */

aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream)
{
    (void)stream;
    return unsupported("aclmdlRICaptureTaskGrpBegin");
}

aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle)
{
    (void)stream, (void)handle;
    return unsupported("aclmdlRICaptureTaskGrpEnd");
}

aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream, aclrtTaskGrp handle)
{
    (void)stream, (void)handle;
    return unsupported("aclmdlRICaptureTaskUpdateBegin");
}

aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream)
{
    (void)stream;
    return unsupported("aclmdlRICaptureTaskUpdateEnd");
}

aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag)
{
    (void)modelRI, (void)flag;
    return unsupported("aclmdlRIBuildBegin");
}

aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag)
{
    (void)modelRI, (void)stream, (void)flag;
    return unsupported("aclmdlRIBindStream");
}

aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream)
{
    (void)modelRI, (void)stream;
    return unsupported("aclmdlRIEndTask");
}

aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve)
{
    (void)modelRI, (void)reserve;
    return unsupported("aclmdlRIBuildEnd");
}

aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream)
{
    (void)modelRI, (void)stream;
    return unsupported("aclmdlRIUnbindStream");
}

aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams)
{
    (void)modelRI, (void)streams, (void)numStreams;
    return unsupported("aclmdlRIGetStreams");
}

aclError aclmdlRIGetTasksByStream(aclrtStream stream, aclmdlRITask *tasks, uint32_t *numTasks)
{
    (void)stream, (void)tasks, (void)numTasks;
    return unsupported("aclmdlRIGetTasksByStream");
}

aclError aclmdlRITaskGetType(aclmdlRITask task, aclmdlRITaskType *type)
{
    (void)task, (void)type;
    return unsupported("aclmdlRITaskGetType");
}

aclError aclmdlRITaskGetSeqId(aclmdlRITask task, uint32_t *id)
{
    (void)task, (void)id;
    return unsupported("aclmdlRITaskGetSeqId");
}

aclError aclmdlRITaskGetParams(aclmdlRITask task, aclmdlRITaskParams *params)
{
    (void)task, (void)params;
    return unsupported("aclmdlRITaskGetParams");
}

aclError aclmdlRITaskSetParams(aclmdlRITask task, aclmdlRITaskParams *params)
{
    (void)task, (void)params;
    return unsupported("aclmdlRITaskSetParams");
}

aclError aclmdlRIKernelTaskGetAttribute(aclmdlRITask task, aclrtLaunchKernelAttrId attrId,
                                        aclrtLaunchKernelAttrValue *attrValue)
{
    (void)task, (void)attrId, (void)attrValue;
    return unsupported("aclmdlRIKernelTaskGetAttribute");
}

aclError aclmdlRIUpdate(aclmdlRI modelRI)
{
    (void)modelRI;
    return unsupported("aclmdlRIUpdate");
}

aclError aclmdlRITaskDisable(aclmdlRITask task)
{
    (void)task;
    return unsupported("aclmdlRITaskDisable");
}

aclError aclmdlRIAbort(aclmdlRI modelRI)
{
    (void)modelRI;
    return unsupported("aclmdlRIAbort");
}

aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue,
                                  aclmdlRICondHandleFlag flag, aclmdlRICondHandle *handle)
{
    (void)modelRI, (void)defaultLaunchValue, (void)flag, (void)handle;
    return unsupported("aclmdlRICondHandleCreate");
}

aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle, uint64_t **ptr)
{
    (void)handle, (void)ptr;
    return unsupported("aclmdlRICondHandleGetCondPtr");
}

aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream, uint32_t flags)
{
    (void)params, (void)stream, (void)flags;
    return unsupported("aclmdlRIAddCondTask");
}

aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI,
                                       aclmdlRICaptureMode mode)
{
    (void)stream, (void)modelRI, (void)mode;
    return unsupported("aclmdlRICaptureToModelRIBegin");
}
