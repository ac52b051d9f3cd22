/* hccl92_probe.c - the kernel of test_hccl92: calls the HCCL 9.2 device functions directly
 * and, as HCCL's own kernel does, through dlopen("libccl_kernel.so") + dlsym, and stores
 * every result in the int32_t array at args.out for the host to check.
 * args (packed): char comm[128]; uint64_t out. */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "hccl/hccl_comm.h"
#include "hccl/hccl_diag.h"
#include "hccl/hccl_sym_win.h"
#include "hccl/hcomm_diag.h"

#include "hccl92_params.h"

typedef HcclResult (*status_fn)(const char *, HcclCommStatus *);
typedef HcclResult (*task_fn)(uint64_t, const char *);

static void through_library(const char *comm, int32_t *r)
{
    void *h = dlopen("libccl_kernel.so", RTLD_NOW);
    HcclCommStatus st = HCCL_COMM_STATUS_RESERVED;

    r[H92_DL_OPEN] = h != NULL;
    if (h == NULL)
        return;
    status_fn status = (status_fn)dlsym(h, "HcclCommGetStatus");
    task_fn end = (task_fn)dlsym(h, "HcommProfilingReportKernelEndTask");
    r[H92_DL_STATUS] = status != NULL ? (int32_t)status(comm, &st) : -1;
    r[H92_DL_STATUS_VALUE] = st;
    r[H92_DL_END_TASK] = end != NULL ? (int32_t)end(7, comm) : -1;
    r[H92_DL_HAS_WRITE] = dlsym(h, "HcommWriteOnThread") != NULL;
    dlclose(h);
}

uint32_t hccl92_probe(void *p)
{
    struct hccl92_args a;
    HcclCommStatus st = HCCL_COMM_STATUS_RESERVED;
    bool group = true;
    char info[64] = {0};
    void *peer = &a;

    memcpy(&a, p, sizeof(a));
    int32_t *r = (int32_t *)(uintptr_t)a.out;
    r[H92_STATUS] = HcclCommGetStatus(a.comm, &st);
    r[H92_STATUS_VALUE] = st;
    r[H92_STATUS_UNKNOWN] = HcclCommGetStatus("no such communicator", &st);
    r[H92_GROUP] = HcclGroupStatusGet(&group);
    r[H92_GROUP_VALUE] = group;
    r[H92_DEVICE_OP] = HcommProfilingReportDeviceOp(a.comm);
    r[H92_START_TASK] = HcommProfilingReportKernelStartTask(1, a.comm);
    r[H92_DFX] = HcclDfxRegOpInfoByCommId(a.comm, info);
    r[H92_REG_OP] = HcommRegOpInfo(a.comm, info, sizeof(info));
    r[H92_PEER_PTR] = HcclSymWinGetPeerPointer((HcclCommSymWindow)info, 0, 1, &peer);
    r[H92_PEER_PTR_NULL] = peer == NULL;
    through_library(a.comm, r);
    return 0;
}
