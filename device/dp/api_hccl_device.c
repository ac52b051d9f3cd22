/* api_hccl_device.c - the device-side functions HCCL's own AICPU kernels look up beside the
 * Hcomm* data plane (hcomm 9.2): communicator status and group state, diagnostics and
 * profiling reports, state callbacks, symmetric-window lookups.
 *
 * Exported from hcemu-device like api_hcomm.c (and reachable through libccl_kernel.so, see
 * device/kernel/ccl_kernel.c). What each does here (docs/DATA_PLANE.md "Device functions of HCCL"):
 * status and group state are real answers; profiling and DFX registrations are accepted
 * no-ops, since hcemu has no profiler and its own fault reports name the kernel's call site;
 * symmetric-window handles resolve to the peers' addresses (dp_symwin.c). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dp.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_diag.h"
#include "hccl/hccl_sym_win.h"
#include "hccl/hcomm_diag.h"
#include "hcomm/hcomm_primitives.h"

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
EMU_DP_API HcclResult HcclCommGetStatus(const char *commId, HcclCommStatus *status)
{
    EMU_DP_CALL("HcclCommGetStatus");
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
EMU_DP_API HcclResult HcclGroupStatusGet(bool *isGroupEnabled)
{
    EMU_DP_CALL("HcclGroupStatusGet");
    emu_status st = emu_dp_check_ptr(&c, "isGroupEnabled", isGroupEnabled);

    if (st != EMU_OK)
        return out(st);
    *isGroupEnabled = false;
    return HCCL_SUCCESS;
}

/* Destroy and resume happen on the host; no device phase ever fires, so nothing is kept. */
EMU_DP_API HcclResult HcclCommRegCommStateCallback(const char *regName, HcclCommStateCallback cb,
                                                   void *args)
{
    EMU_DP_CALL("HcclCommRegCommStateCallback");
    emu_status st = emu_dp_check_ptr(&c, "regName", regName);

    (void)cb, (void)args;
    return out(st);
}

/* --- diagnostics registrations: accepted, nothing kept ---------------------------------- */

EMU_DP_API HcclResult HcclDfxRegOpInfoByCommId(char *commId, void *hcclDfxOpInfo)
{
    EMU_DP_CALL("HcclDfxRegOpInfoByCommId");
    emu_status st = emu_dp_check_ptr(&c, "commId", commId);

    if (st == EMU_OK)
        st = emu_dp_check_ptr(&c, "hcclDfxOpInfo", hcclDfxOpInfo);
    return out(st);
}

EMU_DP_API HcclResult HcommRegOpInfo(const char *commId, void *opInfo, size_t size)
{
    EMU_DP_CALL("HcommRegOpInfo");
    emu_status st = emu_dp_check_ptr(&c, "commId", commId);

    if (st == EMU_OK && size > 0)
        st = emu_dp_check_ptr(&c, "opInfo", opInfo);
    return out(st);
}

EMU_DP_API HcclResult HcommRegOpTaskException(const char *commId, HcommGetOpInfoCallback callback)
{
    EMU_DP_CALL("HcommRegOpTaskException");
    (void)callback;
    return out(emu_dp_check_ptr(&c, "commId", commId));
}

/* --- profiling reports: accepted, dropped ----------------------------------------------- */

EMU_DP_API HcclResult HcommProfilingReportDeviceOp(const char *groupname)
{
    (void)groupname;
    return HCCL_SUCCESS;
}

EMU_DP_API HcclResult HcommProfilingReportKernelStartTask(uint64_t thread, const char *groupname)
{
    (void)thread, (void)groupname;
    return HCCL_SUCCESS;
}

EMU_DP_API HcclResult HcommProfilingReportKernelEndTask(uint64_t thread, const char *groupname)
{
    (void)thread, (void)groupname;
    return HCCL_SUCCESS;
}

EMU_DP_API HcclResult HcommProfilingReportMainStreamAndFirstTask(ThreadHandle thread)
{
    (void)thread;
    return HCCL_SUCCESS;
}

EMU_DP_API HcclResult HcommProfilingReportMainStreamAndLastTask(ThreadHandle thread)
{
    (void)thread;
    return HCCL_SUCCESS;
}

EMU_DP_API HcclResult HcommProfilingReportDeviceHcclOpInfo(struct emu_prof_op_record profInfo)
{
    (void)profInfo;
    return HCCL_SUCCESS;
}

EMU_DP_API HcclResult HcommProfilingInit(ThreadHandle *threads, uint32_t threadNum)
{
    (void)threads, (void)threadNum;
    return HCCL_SUCCESS;
}

EMU_DP_API HcclResult HcommProfilingEnd(ThreadHandle *threads, uint32_t threadNum)
{
    (void)threads, (void)threadNum;
    return HCCL_SUCCESS;
}

/* --- calls a kernel cannot make here ---------------------------------------------------- */

/* A launch takes a host stream; on the device there is none. */
EMU_DP_API HcclResult HcclAicpuKernelLaunch(HcclComm comm, const HcclOpDesc *opInfo,
                                            const HcclKernelFuncInfo *funcInfo,
                                            ThreadHandle aicpuThreadHandle, aclrtStream userStream,
                                            const HcclKernelLaunchCfg *kernelLaunchCfg)
{
    EMU_DP_CALL("HcclAicpuKernelLaunch");
    (void)comm, (void)opInfo, (void)funcInfo, (void)aicpuThreadHandle, (void)userStream;
    (void)kernelLaunchCfg;
    return out(emu_dp_check_not_supported(&c, "a kernel launch is a host call (it takes a stream)"));
}

/* The untimed form of HcommChannelNotifyWait, which is the host-CPU RoCE path. */
EMU_DP_API int32_t HcommChannelNotifyWaitWithDefaultTimeout(ChannelHandle channel,
                                                            uint32_t localNotifyIdx)
{
    EMU_DP_CALL("HcommChannelNotifyWaitWithDefaultTimeout");
    (void)channel, (void)localNotifyIdx;
    return out(emu_dp_check_not_supported(&c, "host-CPU RoCE channel wait; use "
                                        "HcommChannelNotifyWaitOnThreadWithDefaultTimeout"));
}

/* --- symmetric windows ------------------------------------------------------------------ */

/* The address of `offset` in peerRank's copy of the window, as this device addresses a peer:
 * its global device address, which a transfer on a channel to that peer accepts as the
 * remote end (dp_check.c). The handle resolves in this device's memory (dp_symwin.c). */
static HcclResult peer_pointer(struct emu_hcomm_call *c, HcclCommSymWindow win, size_t offset,
                               uint32_t peer, void **ptr)
{
    emu_status st = emu_dp_check_ptr(c, "ptr", ptr);

    if (st == EMU_OK)
        *ptr = NULL;
    if (st == EMU_OK)
        st = emu_dp_check_ptr(c, "winHandle", win);
    if (st != EMU_OK)
        return out(st);
    const struct emu_symwin_desc *d = emu_dp_symwin_desc((uint64_t)(uintptr_t)win);
    if (d == NULL) {
        emu_hcomm_check_refuse(c, "winHandle %p is not a symmetric window registered on device "
                               "%u (deregistered, or never a window handle)", win,
                               emu_exec_g.dev);
        return HCCL_E_PARA;
    }
    if (peer >= d->rank_size || offset >= d->size) {
        emu_hcomm_check_refuse(c, "%s %llu is out of range (the window has %u ranks and %llu "
                               "bytes)", peer >= d->rank_size ? "peerRank" : "offset",
                               peer >= d->rank_size ? (unsigned long long)peer
                                                    : (unsigned long long)offset,
                               d->rank_size, (unsigned long long)d->size);
        return HCCL_E_PARA;
    }
    *ptr = (void *)(uintptr_t)(d->base[peer] + offset);
    return HCCL_SUCCESS;
}

EMU_DP_API HcclResult HcclSymWinGetPeerPointer(HcclCommSymWindow winHandle, size_t offset,
                                               uint32_t peerRank, void **ptr)
{
    EMU_DP_CALL("HcclSymWinGetPeerPointer");
    return peer_pointer(&c, winHandle, offset, peerRank, ptr);
}

EMU_DP_API HcclResult HcommSymWinGetPeerPointer(HcclCommSymWindow winHandle, size_t offset,
                                                uint32_t peerRank, void **ptr)
{
    EMU_DP_CALL("HcommSymWinGetPeerPointer");
    return peer_pointer(&c, winHandle, offset, peerRank, ptr);
}

/* The lookup by address is a host call (HCCL makes it before an operator, on the host); a
 * kernel holds no HcclComm to look in, so no range is found here, without a line. */
EMU_DP_API HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size,
                                        HcclCommSymWindow *winHandle, size_t *offset)
{
    (void)comm, (void)ptr, (void)size;
    if (winHandle != NULL)
        *winHandle = NULL;
    if (offset != NULL)
        *offset = 0;
    return HCCL_E_NOT_FOUND;
}
