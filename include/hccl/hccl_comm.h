/* hccl_comm.h - communicator lifecycle and queries (docs/CONTROL_PLANE.md §2).
 *
 * As in the vendor header most functions are declared weak (HCOMM_WEAK_SYMBOL), so a user
 * binary links even where the library lacks a symbol; the address is then NULL. Not weak,
 * per the vendor: HcclCommGetHandleWithName, HcclCommGetStatus, HcclGroupStart/End/StatusGet,
 * HcclConfigGetInfo. Preconditions for all: aclInit done and aclrtSetDevice called on the
 * calling OS thread. */
#ifndef HCEMU_HCCL_COMM_H
#define HCEMU_HCCL_COMM_H

#include <stdbool.h>
#include <stdint.h>

#include "../acl/acl.h"
#include "hccl_types.h"
#include "hccl_res.h"
#include "hccl_launch.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef HCOMM_WEAK_SYMBOL
#define HCOMM_WEAK_SYMBOL __attribute__((weak))
#endif

/* Root only: fills the blob every rank then passes to HcclCommInitRootInfo[Config]. */
HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo) HCOMM_WEAK_SYMBOL;
/* Collective: all nRanks members call with the same nRanks and root info; blocks until all
 * have joined. config must come from HcclCommConfigInit. */
HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                HcclComm *comm) HCOMM_WEAK_SYMBOL;
HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo,
                                      uint32_t rank, const HcclCommConfig *config,
                                      HcclComm *comm) HCOMM_WEAK_SYMBOL;
/* clusterInfo: path of a rank-table JSON. */
HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank,
                                   HcclComm *comm) HCOMM_WEAK_SYMBOL;
HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank,
                                         HcclCommConfig *config,
                                         HcclComm *comm) HCOMM_WEAK_SYMBOL;
/* One member per device of `devices` in this process; comms receives ndev handles. */
HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms) HCOMM_WEAK_SYMBOL;
/* Releases the communicator and every resource acquired through it; HCCL_E_AGAIN while busy. */
HcclResult HcclCommDestroy(HcclComm comm) HCOMM_WEAK_SYMBOL;

HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank) HCOMM_WEAK_SYMBOL;
HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize) HCOMM_WEAK_SYMBOL;
/* commName must hold COMM_NAME_MAX_LENGTH bytes. */
HcclResult HcclGetCommName(HcclComm comm, char *commName) HCOMM_WEAK_SYMBOL;
HcclResult HcclCommGetHandleWithName(const char *commName, HcclComm *comm);

HcclResult HcclCreateSubCommConfig(HcclComm *comm, uint32_t rankNum, uint32_t *rankIds,
                                   uint64_t subCommId, uint32_t subCommRankId,
                                   HcclCommConfig *config, HcclComm *subComm) HCOMM_WEAK_SYMBOL;
HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue) HCOMM_WEAK_SYMBOL;
HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue *configValue) HCOMM_WEAK_SYMBOL;
HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) HCOMM_WEAK_SYMBOL;
HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError) HCOMM_WEAK_SYMBOL;
/* Text for a result code; never NULL. */
const char *HcclGetErrorString(HcclResult code) HCOMM_WEAK_SYMBOL;
uint32_t HcclGetCommConfigCapability(void) HCOMM_WEAK_SYMBOL;
HcclResult HcclCommSuspend(HcclComm comm) HCOMM_WEAK_SYMBOL;
HcclResult HcclCommResume(HcclComm comm) HCOMM_WEAK_SYMBOL;
HcclResult HcclCommGetStatus(const char *commId, HcclCommStatus *status);
HcclResult HcclGroupStart(void);
HcclResult HcclGroupEnd(void);
HcclResult HcclGroupStatusGet(bool *isGroupEnabled);
HcclResult HcclConfigGetInfo(HcclComm comm, HcclConfigType cfgType, uint32_t infoLen, void *info);

/* Called with the communicator at each HcclCommStatePhase; registered process-wide by name. */
typedef HcclResult (*HcclCommStateCallback)(HcclComm comm, HcclCommStatePhase state, void *args);
HcclResult HcclCommRegCommStateCallback(const char *regName, HcclCommStateCallback cb, void *args);

/* Symmetric windows: the same registered range on every rank, addressed by (window, offset). */
HcclResult HcclCommSymWinRegister(HcclComm comm, void *addr, uint64_t size,
                                  HcclCommSymWindow *winHandle, uint32_t flag);
HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle);
HcclResult HcclCommSymWinGet(HcclComm comm, void *ptr, size_t size, HcclCommSymWindow *winHandle,
                             size_t *offset);

#ifdef __cplusplus
}
#endif

#endif
