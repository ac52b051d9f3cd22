/* api_hccl_device.c - the device-side functions HCCL's own AICPU kernels look up beside the
 * Hcomm* data plane (hcomm 9.2): communicator status and group state, diagnostics and
 * profiling reports, state callbacks, symmetric-window lookups.
 *
 * Exported from hcemu-device like api_hcomm.c (and reachable through libccl_kernel.so, see
 * device/kernel/ccl_kernel.c). What each does here (docs/DATA_PLANE.md "Device functions of HCCL"):
 * status and group state are real answers; profiling and DFX registrations are accepted
 * no-ops, since hcemu has no profiler and its own fault reports name the kernel's call site;
 * symmetric windows cannot exist in hcemu (HcclCommSymWinRegister is not provided), so every
 * window handle is refused. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_diag.h"
#include "hccl/hccl_sym_win.h"
#include "hccl/hcomm_diag.h"
#include "hcomm/hcomm_primitives.h"

#define DEV_API __attribute__((visibility("default"), noinline))
#define CALL(name)                                                                             \
    struct emu_hcomm_call c = {.side = &emu_dp_check_side,                                     \
                               .fn = (name),                                                   \
                               .callsite = (uint64_t)(uintptr_t)__builtin_return_address(0), \
                               .dev = emu_exec_g.dev,                                          \
                               .thread = EMU_HCOMM_NONE,                                       \
                               .channel = EMU_HCOMM_NONE}

/* The A3 profiling calls are package-internal (no public header): prototypes here. Their
 * operator record is passed by value; its bytes are not read. */
struct emu_prof_op_record {
    uint64_t bytes[64];
};
HcclResult HcommProfilingReportMainStreamAndFirstTask(ThreadHandle thread);
HcclResult HcommProfilingReportMainStreamAndLastTask(ThreadHandle thread);
HcclResult HcommProfilingReportDeviceHcclOpInfo(struct emu_prof_op_record profInfo);
HcclResult HcommProfilingInit(ThreadHandle *threads, uint32_t threadNum);
HcclResult HcommProfilingEnd(ThreadHandle *threads, uint32_t threadNum);
HcclResult HcommSymWinGetPeerPointer(HcclCommSymWindow winHandle, size_t offset,
                                     uint32_t peerRank, void **ptr);
int32_t HcommChannelNotifyWaitWithDefaultTimeout(ChannelHandle channel, uint32_t localNotifyIdx);

static HcclResult out(emu_status st)
{
    return (HcclResult)emu_status_to_hccl(st);
}

/* --- communicator status and group state ---------------------------------------------- */

/* READY for a communicator member on this device; HCCL_E_NOT_FOUND for another name. hcemu
 * never suspends a communicator, so SUSPENDING is never reported. */
DEV_API HcclResult HcclCommGetStatus(const char *commId, HcclCommStatus *status)
{
    CALL("HcclCommGetStatus");
    emu_status st = emu_dp_check_ptr(&c, "commId", commId);

    if (st == EMU_OK)
        st = emu_dp_check_ptr(&c, "status", status);
    if (st != EMU_OK)
        return out(st);
    if (!emu_dp_drain_comm_exists(commId)) {
        emu_hcomm_check_refuse(&c, "no communicator named \"%s\" on this device", commId);
        return HCCL_E_NOT_FOUND;
    }
    *status = HCCL_COMM_STATUS_READY;
    return HCCL_SUCCESS;
}

/* Group calls (HcclGroupStart/End) are host-side; a kernel never runs inside one. */
DEV_API HcclResult HcclGroupStatusGet(bool *isGroupEnabled)
{
    CALL("HcclGroupStatusGet");
    emu_status st = emu_dp_check_ptr(&c, "isGroupEnabled", isGroupEnabled);

    if (st != EMU_OK)
        return out(st);
    *isGroupEnabled = false;
    return HCCL_SUCCESS;
}

/* Destroy and resume happen on the host; no device phase ever fires, so nothing is kept. */
DEV_API HcclResult HcclCommRegCommStateCallback(const char *regName, HcclCommStateCallback cb,
                                                void *args)
{
    CALL("HcclCommRegCommStateCallback");
    emu_status st = emu_dp_check_ptr(&c, "regName", regName);

    (void)cb, (void)args;
    return out(st);
}

/* --- diagnostics registrations: accepted, nothing kept ---------------------------------- */

DEV_API HcclResult HcclDfxRegOpInfoByCommId(char *commId, void *hcclDfxOpInfo)
{
    CALL("HcclDfxRegOpInfoByCommId");
    emu_status st = emu_dp_check_ptr(&c, "commId", commId);

    if (st == EMU_OK)
        st = emu_dp_check_ptr(&c, "hcclDfxOpInfo", hcclDfxOpInfo);
    return out(st);
}

DEV_API HcclResult HcommRegOpInfo(const char *commId, void *opInfo, size_t size)
{
    CALL("HcommRegOpInfo");
    emu_status st = emu_dp_check_ptr(&c, "commId", commId);

    if (st == EMU_OK && size > 0)
        st = emu_dp_check_ptr(&c, "opInfo", opInfo);
    return out(st);
}

DEV_API HcclResult HcommRegOpTaskException(const char *commId, HcommGetOpInfoCallback callback)
{
    CALL("HcommRegOpTaskException");
    (void)callback;
    return out(emu_dp_check_ptr(&c, "commId", commId));
}

/* --- profiling reports: accepted, dropped ----------------------------------------------- */

DEV_API HcclResult HcommProfilingReportDeviceOp(const char *groupname)
{
    (void)groupname;
    return HCCL_SUCCESS;
}

DEV_API HcclResult HcommProfilingReportKernelStartTask(uint64_t thread, const char *groupname)
{
    (void)thread, (void)groupname;
    return HCCL_SUCCESS;
}

DEV_API HcclResult HcommProfilingReportKernelEndTask(uint64_t thread, const char *groupname)
{
    (void)thread, (void)groupname;
    return HCCL_SUCCESS;
}

DEV_API HcclResult HcommProfilingReportMainStreamAndFirstTask(ThreadHandle thread)
{
    (void)thread;
    return HCCL_SUCCESS;
}

DEV_API HcclResult HcommProfilingReportMainStreamAndLastTask(ThreadHandle thread)
{
    (void)thread;
    return HCCL_SUCCESS;
}

DEV_API HcclResult HcommProfilingReportDeviceHcclOpInfo(struct emu_prof_op_record profInfo)
{
    (void)profInfo;
    return HCCL_SUCCESS;
}

DEV_API HcclResult HcommProfilingInit(ThreadHandle *threads, uint32_t threadNum)
{
    (void)threads, (void)threadNum;
    return HCCL_SUCCESS;
}

DEV_API HcclResult HcommProfilingEnd(ThreadHandle *threads, uint32_t threadNum)
{
    (void)threads, (void)threadNum;
    return HCCL_SUCCESS;
}

/* --- calls a kernel cannot make here ---------------------------------------------------- */

/* A launch takes a host stream; on the device there is none. */
DEV_API HcclResult HcclAicpuKernelLaunch(HcclComm comm, const HcclOpDesc *opInfo,
                                         const HcclKernelFuncInfo *funcInfo,
                                         ThreadHandle aicpuThreadHandle, aclrtStream userStream,
                                         const HcclKernelLaunchCfg *kernelLaunchCfg)
{
    CALL("HcclAicpuKernelLaunch");
    (void)comm, (void)opInfo, (void)funcInfo, (void)aicpuThreadHandle, (void)userStream;
    (void)kernelLaunchCfg;
    return out(emu_dp_check_not_supported(&c, "a kernel launch is a host call (it takes a stream)"));
}

/* The untimed form of HcommChannelNotifyWait, which is the host-CPU RoCE path. */
DEV_API int32_t HcommChannelNotifyWaitWithDefaultTimeout(ChannelHandle channel,
                                                         uint32_t localNotifyIdx)
{
    CALL("HcommChannelNotifyWaitWithDefaultTimeout");
    (void)channel, (void)localNotifyIdx;
    return out(emu_dp_check_not_supported(&c, "host-CPU RoCE channel wait; use "
                                        "HcommChannelNotifyWaitOnThreadWithDefaultTimeout"));
}

static HcclResult no_window(struct emu_hcomm_call *c, HcclCommSymWindow win, void **ptr)
{
    emu_status st = emu_dp_check_ptr(c, "ptr", ptr);

    if (st == EMU_OK)
        st = emu_dp_check_ptr(c, "winHandle", win);
    if (st != EMU_OK)
        return out(st);
    *ptr = NULL;
    emu_hcomm_check_refuse(c, "%p is not a symmetric window (hcemu registers none)", win);
    return HCCL_E_PARA;
}

DEV_API HcclResult HcclSymWinGetPeerPointer(HcclCommSymWindow winHandle, size_t offset,
                                            uint32_t peerRank, void **ptr)
{
    CALL("HcclSymWinGetPeerPointer");
    (void)offset, (void)peerRank;
    return no_window(&c, winHandle, ptr);
}

DEV_API HcclResult HcommSymWinGetPeerPointer(HcclCommSymWindow winHandle, size_t offset,
                                             uint32_t peerRank, void **ptr)
{
    CALL("HcommSymWinGetPeerPointer");
    (void)offset, (void)peerRank;
    return no_window(&c, winHandle, ptr);
}

/* No window exists, so no range is inside one: HCCL then takes its ordinary path. */
DEV_API HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size,
                                     HcclCommSymWindow *winHandle, size_t *offset)
{
    (void)comm, (void)ptr, (void)size;
    if (winHandle != NULL)
        *winHandle = NULL;
    if (offset != NULL)
        *offset = 0;
    return HCCL_E_NOT_FOUND;
}
