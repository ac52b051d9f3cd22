/* api_hccl_comm.c - the HCCL communicator boundary: root info, the init calls, destroy, the
 * member queries and the exchange info (hccl_exchange.c). Validates arguments, calls
 * hccl_comm.c, converts once on the way out. */
#include <hccl/hccl.h>
#include <hccl/hccl_res_expt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/hccl/hccl.h"
#include "host/hccl/hccl_comm.h"
#include "host/hccl/hccl_comm_life.h"
#include "host/hccl/hccl_comm_args.h"
#include "host/hccl/hccl_exchange.h"
#include "host/hccl/ranktable/hccl_ranktable.h"
#include "host/hccl/rdv/hccl_rdv.h"
#include "host/hccl/rdv/hccl_rdvnet.h"
#include "host/hccl/hccl_thread.h"

/* The vendor names defined below are the library's exports (host/exports.map). */
#pragma GCC visibility push(default)

#define CLUSTER_INFO_PATH_MAX 4096u

HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo)
{
    static const char fn[] = "HcclGetRootInfo";

    if (rootInfo == NULL)
        return emu_hccl_leave(NULL, emu_hccl_null(NULL, fn, "rootInfo"));
    if (!emu_runtime_is_initialized()) {
        EMU_LOG_ERR("%s: call aclInit first", fn);
        return emu_hccl_leave(NULL, EMU_EUNINIT);
    }
    return emu_hccl_leave(NULL, emu_rootinfo_make(rootInfo, fn));
}

static HcclResult init_root(uint32_t n, const HcclRootInfo *ri, uint32_t rank,
                            const HcclCommConfig *cfg, bool has_cfg, HcclComm *comm, const char *fn)
{
    struct emu_comm_args a = {.fn = fn, .rank = rank, .size = n, .config = cfg};
    struct emu_root_info info;
    struct emu_comm *c;
    emu_status s;

    if ((s = EMU_HCCL_NONNULL(NULL, ri, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(NULL, comm, fn)) != EMU_OK ||
        (has_cfg && (s = EMU_HCCL_NONNULL(NULL, cfg, fn)) != EMU_OK) ||
        (s = emu_comm_args_check_ranks(n, rank, fn)) != EMU_OK ||
        (cfg != NULL && (s = emu_comm_config_check(cfg, fn, rank)) != EMU_OK) ||
        (s = emu_hccl_need_device(fn, rank, &a.d)) != EMU_OK ||
        (s = emu_rootinfo_read(ri, &info, fn, rank)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    snprintf(a.rdv_dir, sizeof(a.rdv_dir), "%s", info.dir);
    a.nonce = info.nonce;
    a.multi_host = info.net_port != 0;
    a.root_ip = info.net_ip;
    a.root_port = info.net_port;
    memcpy(a.key, info.key, sizeof(a.key));
    /* Not the root's process: meet in our own job folder, kept in step over TCP. */
    if (info.net_port != 0 && !emu_rdvnet_is_listener(info.net_ip, info.net_port)) {
        snprintf(a.rdv_dir, sizeof(a.rdv_dir), "%s", emu_rt.job_dir);
        a.net_ip = info.net_ip;
        a.net_port = info.net_port;
    }
    if ((s = emu_comm_create(&a, &c)) == EMU_OK)
        *comm = c;
    return emu_hccl_leave(NULL, s);
}

HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                HcclComm *comm)
{
    return init_root(nRanks, rootInfo, rank, NULL, false, comm, "HcclCommInitRootInfo");
}

HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                      const HcclCommConfig *config, HcclComm *comm)
{
    return init_root(nRanks, rootInfo, rank, config, true, comm, "HcclCommInitRootInfoConfig");
}

static HcclResult init_cluster(const char *path, uint32_t rank, const HcclCommConfig *cfg,
                               bool has_cfg, HcclComm *comm, const char *fn)
{
    struct emu_comm_args a = {.fn = fn, .rank = rank, .config = cfg, .has_table = true};
    struct emu_ranktable_entry e;
    struct emu_comm *c;
    emu_status s;

    if ((s = EMU_HCCL_NONNULL(NULL, path, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(NULL, comm, fn)) != EMU_OK ||
        (has_cfg && (s = EMU_HCCL_NONNULL(NULL, cfg, fn)) != EMU_OK))
        return emu_hccl_leave(NULL, s);
    if (strnlen(path, CLUSTER_INFO_PATH_MAX) >= CLUSTER_INFO_PATH_MAX)
        return emu_hccl_leave(NULL, emu_hccl_bad(NULL, fn,
                                                 "clusterInfo path is longer than "
                                                 "%u bytes",
                                                 CLUSTER_INFO_PATH_MAX - 1));
    if ((cfg != NULL && (s = emu_comm_config_check(cfg, fn, rank)) != EMU_OK) ||
        (s = emu_hccl_need_device(fn, rank, &a.d)) != EMU_OK ||
        (s = emu_ranktable_load(path, rank, fn, &e)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    a.size = e.nranks;
    a.server = e.server;
    a.phy_id = e.phy_id;
    a.ip = e.ip;
    a.super_pod = e.super_pod;
    a.super_dev = e.super_dev;
    if ((s = emu_comm_args_cluster_rdv(&a, e.hash)) == EMU_OK && (s = emu_comm_create(&a, &c)) == EMU_OK)
        *comm = c;
    return emu_hccl_leave(NULL, s);
}

HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm)
{
    return init_cluster(clusterInfo, rank, NULL, false, comm, "HcclCommInitClusterInfo");
}

HcclResult HcclCommInitClusterInfoConfig(const char *clusterInfo, uint32_t rank,
                                         HcclCommConfig *config, HcclComm *comm)
{
    return init_cluster(clusterInfo, rank, config, true, comm, "HcclCommInitClusterInfoConfig");
}

/* ---- HcclCommInitAll: one member per device, each joining from its own OS thread -------- */

HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms)
{
    static const char fn[] = "HcclCommInitAll";
    emu_status s;

    if ((s = EMU_HCCL_NONNULL(NULL, devices, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(NULL, comms, fn)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if (!emu_runtime_is_initialized()) {
        EMU_LOG_ERR("%s: call aclInit first", fn);
        return emu_hccl_leave(NULL, EMU_EUNINIT);
    }
    if ((s = emu_comm_args_check_devices(ndev, devices, fn)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    struct emu_comm **made = calloc(ndev, sizeof(*made));
    if (made == NULL)
        return emu_hccl_leave(NULL, EMU_ENOMEM);
    if ((s = emu_comm_create_all(ndev, devices, made, fn)) == EMU_OK)
        for (uint32_t i = 0; i < ndev; i++)
            comms[i] = made[i];
    free(made);
    return emu_hccl_leave(NULL, s);
}

HcclResult HcclCommDestroy(HcclComm comm)
{
    static const char fn[] = "HcclCommDestroy";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter_any(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = emu_comm_destroy(c, fn)) == EMU_OK)
        return emu_hccl_leave(NULL, EMU_OK); /* c is gone: nothing to put */
    return emu_hccl_leave(c, s);
}

HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank)
{
    static const char fn[] = "HcclGetRankId";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, rank, fn)) == EMU_OK)
        *rank = c->rank;
    return emu_hccl_leave(c, s);
}

HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize)
{
    static const char fn[] = "HcclGetRankSize";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, rankSize, fn)) == EMU_OK)
        *rankSize = c->size;
    return emu_hccl_leave(c, s);
}

HcclResult HcclGetCommName(HcclComm comm, char *commName)
{
    static const char fn[] = "HcclGetCommName";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, commName, fn)) == EMU_OK)
        memcpy(commName, c->name, COMM_NAME_MAX_LENGTH);
    return emu_hccl_leave(c, s);
}

/* ---- exchange info (hccl_res_expt.h) --------------------------------------------------- */

HcclResult HcclCommAddExchangeInfo(HcclComm comm, const void *data, uint32_t length)
{
    static const char fn[] = "HcclCommAddExchangeInfo";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, data, fn)) == EMU_OK)
        s = emu_xinfo_add(c, data, length, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclCommGetExchangeInfo(HcclComm comm, uint32_t remoteRank, uint32_t length,
                                   void *data, uint32_t *actualLength)
{
    static const char fn[] = "HcclCommGetExchangeInfo";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, data, fn)) == EMU_OK &&
        (s = EMU_HCCL_NONNULL(c, actualLength, fn)) == EMU_OK)
        s = emu_xinfo_get(c, remoteRank, length, data, actualLength, fn);
    return emu_hccl_leave(c, s);
}

HcclResult HcclCommResetExchangeInfo(HcclComm comm)
{
    static const char fn[] = "HcclCommResetExchangeInfo";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    emu_xinfo_reset(c);
    return emu_hccl_leave(c, EMU_OK);
}

HcclResult HcclCommGetHandleWithName(const char *commName, HcclComm *comm)
{
    static const char fn[] = "HcclCommGetHandleWithName";
    emu_status s;

    if ((s = EMU_HCCL_NONNULL(NULL, commName, fn)) != EMU_OK ||
        (s = EMU_HCCL_NONNULL(NULL, comm, fn)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if (strnlen(commName, COMM_NAME_MAX_LENGTH) >= COMM_NAME_MAX_LENGTH)
        return emu_hccl_leave(NULL, emu_hccl_bad(NULL, fn,
                                                 "commName is not terminated within "
                                                 "%u bytes",
                                                 COMM_NAME_MAX_LENGTH));
    struct emu_comm *c = emu_comm_find_name(commName);
    if (c == NULL) {
        EMU_LOG_ERR("%s: no live communicator is named \"%s\" in this process", fn, commName);
        return emu_hccl_leave(NULL, EMU_ENOTFOUND);
    }
    *comm = c;
    return HCCL_SUCCESS;
}

HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError)
{
    static const char fn[] = "HcclGetCommAsyncError";
    struct emu_comm *c;
    emu_status s;

    if ((s = emu_hccl_enter(comm, fn, &c)) != EMU_OK)
        return emu_hccl_leave(NULL, s);
    if ((s = EMU_HCCL_NONNULL(c, asyncError, fn)) == EMU_OK) {
        pthread_mutex_lock(&c->lock);
        *asyncError = (HcclResult)emu_api_hccl(emu_thread_async_error(c));
        pthread_mutex_unlock(&c->lock);
    }
    return emu_hccl_leave(c, s);
}

const char *HcclGetErrorString(HcclResult code)
{
    static const char *const text[] = {"success",
                                       "invalid parameter",
                                       "null pointer",
                                       "memory error",
                                       "internal error",
                                       "feature not supported",
                                       "resource not found",
                                       "resource unavailable",
                                       "system call failed",
                                       "timeout",
                                       "cannot open file",
                                       "TCP connect failed",
                                       "RoCE connect failed",
                                       "TCP transfer failed",
                                       "RoCE transfer failed",
                                       "runtime (ACL) call failed",
                                       "driver call failed",
                                       "profiling call failed",
                                       "CCE call failed",
                                       "network call failed",
                                       "try again (communicator busy)",
                                       "error completion from remote",
                                       "communicator is suspending",
                                       "operator retry constraint",
                                       "out of memory"};

    if ((unsigned)code < sizeof(text) / sizeof(text[0]))
        return text[code];
    if (code == HCCL_E_IN_STATUS)
        return "error details are in the status object";
    return "unknown HcclResult";
}

#pragma GCC visibility pop
