/* api_hccl_diag.c - the host side of the hcomm 9.2 calls HCCL's own library makes around its
 * collectives: communicator status, group state and expansion mode (real answers),
 * diagnostics and profiling reports (accepted no-ops: hcemu has no profiler), state
 * callbacks (accepted, never fired). Symmetric windows: api_hccl_symwin.c.
 * See docs/CONTROL_PLANE.md "HCCL 9.2 additions". */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/platform/log.h"
#include "hccl/hccl.h"
#include "hccl/hccl_diag.h"
#include "hccl/hcom.h"
#include "hccl/hcomm_diag.h"
#include "host/hccl/api/hcomm_profiling.h"
#include "host/hccl/hccl.h"
#include "host/hccl/hccl_comm.h"


#define NOT_SUPPORTED(why)                                                                     \
    do {                                                                                       \
        EMU_LOG_ERR("%s is not supported by hcemu: %s", __func__, why);                        \
        return HCCL_E_NOT_SUPPORT;                                                             \
    } while (0)

/* --- real answers ----------------------------------------------------------------------- */

/* READY for a live communicator of this process (hcemu never suspends one). */
HcclResult HcclCommGetStatus(const char *commId, HcclCommStatus *status)
{
    static const char fn[] = "HcclCommGetStatus";
    emu_status s;

    if ((s = EMU_HCCL_NONNULL(NULL, commId, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(NULL, status, fn)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if (emu_comm_find_name(commId) == NULL) {
        EMU_LOG_ERR("%s: no live communicator is named \"%s\" in this process", fn, commId);
        return emu_hccl_leave(NULL, EMU_ENOTFOUND);
    }
    *status = HCCL_COMM_STATUS_READY;
    return HCCL_SUCCESS;
}

/* HcclGroupStatusGet is coll_group.c's: the built-in collectives keep the group state. */

/* Every communicator expands collectives on the AICPU: that is the flow hcemu emulates.
 * infoLen must be the size of the answer (4). The algorithm string is not configurable. */
HcclResult HcclConfigGetInfo(HcclComm comm, HcclConfigType cfgType, uint32_t infoLen, void *info)
{
    static const char fn[] = "HcclConfigGetInfo";
    struct emu_comm *c = emu_comm_get(comm, fn);
    emu_status s = EMU_OK;

    if (c == NULL)
        return emu_hccl_leave(NULL, EMU_EHANDLE);
    if ((s = EMU_HCCL_NONNULL(c, info, fn)) != EMU_OK) {
    } else if (cfgType != HCCL_CONFIG_TYPE_OP_EXPANSION_MODE) {
        s = emu_hccl_bad(c, fn, "cfgType %d is not HCCL_CONFIG_TYPE_OP_EXPANSION_MODE (0)",
                         (int)cfgType);
    } else if (infoLen != sizeof(HcclConfigTypeOpExpansionMode)) {
        s = emu_hccl_bad(c, fn, "infoLen %u is not %zu", infoLen,
                         sizeof(HcclConfigTypeOpExpansionMode));
    } else {
        HcclConfigTypeOpExpansionMode mode = HCCL_OP_EXPANSION_MODE_AI_CPU;
        memcpy(info, &mode, sizeof(mode));
    }
    emu_comm_put(c);
    return emu_hccl_leave(NULL, s);
}

/* --- diagnostics and profiling: accepted, nothing kept ------------------------------------ */

HcclResult HcclDfxRegOpInfoByCommId(char *commId, void *hcclDfxOpInfo)
{
    static const char fn[] = "HcclDfxRegOpInfoByCommId";
    emu_status s;

    if ((s = EMU_HCCL_NONNULL(NULL, commId, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(NULL, hcclDfxOpInfo, fn)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    return HCCL_SUCCESS;
}

HcclResult HcclProfilingReportOp(HcclComm comm, uint64_t beginTime)
{
    (void)comm, (void)beginTime;
    return HCCL_SUCCESS;
}

HcclResult HcclReportAicpuKernel(HcclComm comm, uint64_t beginTime, char *kernelName)
{
    (void)comm, (void)beginTime, (void)kernelName;
    return HCCL_SUCCESS;
}

HcclResult HcclReportAivKernel(HcclComm comm, uint64_t beginTime)
{
    (void)comm, (void)beginTime;
    return HCCL_SUCCESS;
}

/* No profiler clock: 0 cycles. */
uint64_t HcommGetProfilingSysCycleTime(void)
{
    return 0;
}

HcclResult HcommRegOpInfo(const char *commId, void *opInfo, size_t size)
{
    static const char fn[] = "HcommRegOpInfo";
    emu_status s = EMU_HCCL_NONNULL(NULL, commId, fn);

    if (s == EMU_OK && size > 0)
        s = EMU_HCCL_NONNULL(NULL, opInfo, fn);
    return emu_hccl_leave(NULL, s);
}

HcclResult HcommRegOpTaskException(const char *commId, HcommGetOpInfoCallback callback)
{
    (void)callback;
    return emu_hccl_leave(NULL, EMU_HCCL_NONNULL(NULL, commId, "HcommRegOpTaskException"));
}

HcclResult HcommProfilingReportDeviceOp(const char *groupname)
{
    (void)groupname;
    return HCCL_SUCCESS;
}

HcclResult HcommProfilingReportKernelStartTask(uint64_t thread, const char *groupname)
{
    (void)thread, (void)groupname;
    return HCCL_SUCCESS;
}

HcclResult HcommProfilingReportKernelEndTask(uint64_t thread, const char *groupname)
{
    (void)thread, (void)groupname;
    return HCCL_SUCCESS;
}

/* The host library registers an operator's streams with the profiler before it runs: nothing
 * to register with here. The vendor reads threads[0] (the main stream): NULL is refused. */
HcclResult HcommProfilingRegThread(HcomProInfo profInfo, ThreadHandle *threads)
{
    (void)profInfo;
    return emu_hccl_leave(NULL, EMU_HCCL_NONNULL(NULL, threads, "HcommProfilingRegThread"));
}

HcclResult HcommProfilingUnRegThread(HcomProInfo profInfo, ThreadHandle *threads)
{
    (void)profInfo;
    return emu_hccl_leave(NULL, EMU_HCCL_NONNULL(NULL, threads, "HcommProfilingUnRegThread"));
}

HcclResult HcommProfilingReportKernel(uint64_t beginTime, const char *profName)
{
    (void)beginTime, (void)profName;
    return HCCL_SUCCESS;
}

HcclResult HcommProfilingReportOp(HcomProInfo profInfo)
{
    (void)profInfo;
    return HCCL_SUCCESS;
}

/* hcemu never destroys or resumes a communicator behind the user's back, and HcclCommDestroy
 * does not call back: a registration is checked and accepted, and never fires. */
HcclResult HcclCommRegCommStateCallback(const char *regName, HcclCommStateCallback cb, void *args)
{
    static const char fn[] = "HcclCommRegCommStateCallback";
    emu_status s;

    (void)args;
    if ((s = EMU_HCCL_NONNULL(NULL, regName, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(NULL, cb, fn)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    return HCCL_SUCCESS;
}

/* --- HCCL-side launches and hcom groups ------------------------------------------------ */

/* HcclAicpuKernelLaunch is host/coll/api_aicpu_launch.c's: it launches hcemu's own kernel too. */

HcclResult HcomGetCommHandleByGroup(const char *group, HcclComm *commHandle)
{
    (void)group, (void)commHandle;
    NOT_SUPPORTED("hcom groups are not emulated; use HcclCommGetHandleWithName");
}
