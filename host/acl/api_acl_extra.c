/* api_acl_extra.c - the ACL and rt calls HCCL 9.2's library makes beyond the custom-kernel
 * flow: event kinds, device and stream ids, version numbers, launches with host arguments.
 * Real answers where the question has one without an NPU; the rest refuse with one line.
 * See docs/CONTROL_PLANE.md "HCCL 9.2 additions". */
#include <acl/acl.h>
#include <pkg_inc/runtime/rt_external.h>

#include <stdint.h>
#include <string.h>

#include "api.h"
#include "acl_graph.h"
#include "common/platform/log.h"
#include "event.h"
#include "runtime.h"
#include "stream.h"


static aclError out(emu_status s)
{
    return emu_api_acl(s);
}

static aclError refuse_null(const char *fn, const char *what)
{
    EMU_LOG_ERR("%s: %s is NULL", fn, what);
    return out(EMU_EINVAL);
}

static aclError unsupported(const char *fn, const char *why)
{
    EMU_LOG_ERR("%s is not supported by hcemu: %s", fn, why);
    return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
}

static aclError check_device(const char *fn, int64_t dev)
{
    EMU_ACL_NEED_INIT(fn);
    if (dev < 0 || dev >= (int64_t)emu_rt.ndev) {
        EMU_LOG_ERR("%s: device %lld is not one of the %u devices", fn, (long long)dev,
                    emu_rt.ndev);
        return out(EMU_EINVAL);
    }
    return ACL_SUCCESS;
}

/* Every emulated device is its own chip in one server of one super pod. */
aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
    static const char fn[] = "aclrtGetDeviceInfo";
    aclError e;

    if (value == NULL)
        return refuse_null(fn, "value");
    if ((e = check_device(fn, deviceId)) != ACL_SUCCESS)
        return e;
    switch (attr) {
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE:
        *value = (int64_t)emu_rt.dev_mem;
        return ACL_SUCCESS;
    case ACL_DEV_ATTR_PHY_CHIP_ID:
    case ACL_DEV_ATTR_SUPER_POD_DEVICE_ID:
        *value = deviceId;
        return ACL_SUCCESS;
    case ACL_DEV_ATTR_SMP_ID:
    case ACL_DEV_ATTR_SUPER_POD_SERVER_ID:
    case ACL_DEV_ATTR_SUPER_POD_ID:
    case ACL_DEV_ATTR_CUST_OP_PRIVILEGE: /* custom operators load without extra privilege */
        *value = 0;
        return ACL_SUCCESS;
    default:
        return unsupported(fn, "this device attribute has no emulated value");
    }
}

/* The emulated devices of one job are one server whose devices all reach each other directly
 * (the UB mesh of HcclRankGraph*); the closest vendor link kind for that is HCCS. */
aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value)
{
    static const char fn[] = "aclrtGetDevicesTopo";
    aclError e;

    if (value == NULL)
        return refuse_null(fn, "value");
    if ((e = check_device(fn, deviceId)) != ACL_SUCCESS ||
        (e = check_device(fn, otherDeviceId)) != ACL_SUCCESS)
        return e;
    *value = ACL_RT_DEVS_TOPOLOGY_HCCS;
    return ACL_SUCCESS;
}

aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId)
{
    static const char fn[] = "aclrtGetLogicDevIdByPhyDevId";
    aclError e;

    if (logicDevId == NULL)
        return refuse_null(fn, "logicDevId");
    if ((e = check_device(fn, phyDevId)) != ACL_SUCCESS)
        return e;
    *logicDevId = phyDevId;
    return ACL_SUCCESS;
}

aclError aclrtGetOpTimeOutInterval(uint64_t *interval)
{
    (void)interval;
    return unsupported("aclrtGetOpTimeOutInterval", "there is no operator timeout hardware");
}

/* The cores this thread may use: no limit can be set here, so it is the hardware's count, and
 * the emulated devices have no cube or vector cores: 0. (HCCL records the vector-core figure
 * in its cross-rank consistency record; it never launches AIV kernels on hcemu.) */
aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value)
{
    static const char fn[] = "aclrtGetResInCurrentThread";

    if (value == NULL)
        return refuse_null(fn, "value");
    if (type != ACL_RT_DEV_RES_CUBE_CORE && type != ACL_RT_DEV_RES_VECTOR_CORE) {
        EMU_LOG_ERR("%s: resource type %d is unknown", fn, (int)type);
        return out(EMU_EINVAL);
    }
    *value = 0;
    return ACL_SUCCESS;
}

/* The stream's slot in its device's stream table: unique per device while it lives. */
aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    struct emu_hstream *s;
    emu_status st;

    if (streamId == NULL)
        return refuse_null("aclrtStreamGetId", "streamId");
    if ((st = emu_stream_resolve(stream, &s)) != EMU_OK)
        return out(st);
    *streamId = (int32_t)s->slot;
    return ACL_SUCCESS;
}

/* hcemu never produces exception records (its faults are reported by the library itself),
 * so any pointer here is not one: UINT32_MAX. */
static uint32_t no_exception(const char *fn)
{
    EMU_LOG_ERR("%s: hcemu makes no aclrtExceptionInfo records", fn);
    return UINT32_MAX;
}

uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    (void)info;
    return no_exception("aclrtGetDeviceIdFromExceptionInfo");
}

uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    (void)info;
    return no_exception("aclrtGetStreamIdFromExceptionInfo");
}

uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    (void)info;
    return no_exception("aclrtGetTaskIdFromExceptionInfo");
}

uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info)
{
    (void)info;
    return no_exception("aclrtGetErrorCodeFromExceptionInfo");
}

/* hcomm and HCCL compare this with 9.0.0 to choose their current (non-legacy) paths. */
aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
    if (pkgName == NULL)
        return refuse_null("aclsysGetVersionNum", "pkgName");
    if (versionNum == NULL)
        return refuse_null("aclsysGetVersionNum", "versionNum");
    *versionNum = HCEMU_CANN_VERSION_NUM;
    return ACL_SUCCESS;
}

/* Asked by HCCL for its task records; the host thread runs no task: both ids 0. */
rtError_t rtGetTaskIdAndStreamID(uint32_t *taskId, uint32_t *streamId)
{
    if (taskId == NULL || streamId == NULL)
        return refuse_null("rtGetTaskIdAndStreamID", "taskId or streamId");
    *taskId = 0;
    *streamId = 0;
    return 0;
}

/* HCCL adds the streams of its secondary threads to the capture of the user's stream, so their
 * tasks are recorded into the same graph (docs/GRAPH_CAPTURE.md). */
rtError_t rtStreamAddToModel(rtStream_t stm, rtModel_t captureMdl)
{
    struct emu_graph *g;
    struct emu_hstream *s;
    emu_status st;

    if (stm == NULL || captureMdl == NULL)
        return refuse_null("rtStreamAddToModel", stm == NULL ? "stm" : "captureMdl");
    if ((st = emu_aclgraph_check(captureMdl, &g)) != EMU_OK ||
        (st = emu_stream_resolve(stm, &s)) != EMU_OK ||
        (st = emu_aclgraph_add_stream(g, s)) != EMU_OK)
        return out(st);
    return ACL_SUCCESS;
}
