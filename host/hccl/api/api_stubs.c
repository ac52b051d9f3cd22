/* api_stubs.c - definitions for the declared vendor calls that hcemu does not emulate.
 *
 * Every function here logs one line naming itself and returns the vendor "not supported"
 * code (HCCL_E_NOT_SUPPORT), so user code linked against the full vendor API builds, runs,
 * and fails cleanly if it strays outside the emulated Atlas 350 AICPU_TS flow. Why each
 * group is out of scope:
 * - Sub-communicators and suspend/resume (HcclCreateSubCommConfig,
 *   HcclCommSuspend/Resume): fault-recovery and split features of the
 *   full HCCL library; a custom operator only needs one communicator per rank.
 * - Process-wide config (HcclSetConfig/GetConfig, HcclGetCommConfigCapability): the built-in
 *   collectives (host/coll/) are deterministic already and have no process-wide switches;
 *   HcclCommConfig passed at init is handled by the init calls themselves.
 * HcclCommGetStatus, HcclGroupStatusGet and HcclConfigGetInfo answer for real
 * (api_hccl_diag.c).
 * - Package-internal extras of pkg_inc/hccl_res_expt.h other than thread export
 *   and exchange info (HcclGetRemoteIpcHcclBuf, HcclDevMemAcquire, HcclTaskRegister/
 *   UnRegister): internal hooks of HCCL's own operators, marked unstable and unused by the
 *   flow. The exchange-info calls are real (hccl_exchange.c).
 * All ACL and Hcomm functions that the headers declare are implemented by host/ and device/.
 */
#include "common/platform/log.h"
#include "hccl/hccl.h"

/* Logs the caller's name once and yields the not-supported code. */
#define EMU_STUB_NOT_SUPPORTED()                                                               \
    do {                                                                                       \
        EMU_LOG_ERR("%s is not supported by hcemu", __func__);                                 \
        return HCCL_E_NOT_SUPPORT;                                                             \
    } while (0)

/* --- hccl_comm.h ------------------------------------------------------------------------ */

HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds,
                                   uint64_t subCommId, uint32_t subCommRankId,
                                   HcclCommConfig *config, HcclComm *subComm)
{
    (void)comm, (void)rankNum, (void)rankIds, (void)subCommId, (void)subCommRankId;
    (void)config, (void)subComm;
    EMU_STUB_NOT_SUPPORTED();
}

HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue)
{
    (void)config, (void)configValue;
    EMU_STUB_NOT_SUPPORTED();
}

HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue)
{
    (void)config, (void)configValue;
    EMU_STUB_NOT_SUPPORTED();
}

/* Not an HcclResult: 0 reports "no optional config capability", the only value that cannot
 * be mistaken for a supported feature level. */
uint32_t HcclGetCommConfigCapability(void)
{
    EMU_LOG_ERR("%s is not supported by hcemu", __func__);
    return 0;
}

HcclResult HcclCommSuspend(HcclComm comm)
{
    (void)comm;
    EMU_STUB_NOT_SUPPORTED();
}

HcclResult HcclCommResume(HcclComm comm)
{
    (void)comm;
    EMU_STUB_NOT_SUPPORTED();
}

/* --- pkg_inc hccl_res_expt.h ------------------------------------------------------------ */

HcclResult HcclGetRemoteIpcHcclBuf(HcclComm comm, uint64_t remoteRank, void **addr,
                                   uint64_t *size)
{
    (void)comm, (void)remoteRank, (void)addr, (void)size;
    EMU_STUB_NOT_SUPPORTED();
}

HcclResult HcclDevMemAcquire(HcclComm comm, const char *memTag, uint64_t *size, void **addr,
                             bool *newCreated)
{
    (void)comm, (void)memTag, (void)size, (void)addr, (void)newCreated;
    EMU_STUB_NOT_SUPPORTED();
}

int32_t HcclTaskRegister(HcclComm comm, const char *msgTag, Callback cb)
{
    (void)comm, (void)msgTag, (void)cb;
    EMU_STUB_NOT_SUPPORTED();
}

int32_t HcclTaskUnRegister(HcclComm comm, const char *msgTag)
{
    (void)comm, (void)msgTag;
    EMU_STUB_NOT_SUPPORTED();
}
