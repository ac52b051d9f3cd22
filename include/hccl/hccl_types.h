/* hccl_types.h - core HCCL types: result codes, communicator handle, data types, reduce ops,
 * root info, command types, communicator config and its inline initialiser.
 *
 * hcemu's own rendition of the vendor header (docs/CONTROL_PLANE.md §1, §2). The vendor file
 * only compiles as C++ (`const uint32_t` array bounds, an untagged `union HcclConfigValue`);
 * here bounds are macros and every tag is typedef'd, so it is valid C11 as well. */
#ifndef HCEMU_HCCL_TYPES_H
#define HCEMU_HCCL_TYPES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every HCCL and HCOMM call returns these numbers, even where the declared type is int32_t. */
typedef enum {
    HCCL_SUCCESS = 0,
    HCCL_E_PARA = 1,
    HCCL_E_PTR = 2,
    HCCL_E_MEMORY = 3,
    HCCL_E_INTERNAL = 4,
    HCCL_E_NOT_SUPPORT = 5,
    HCCL_E_NOT_FOUND = 6,
    HCCL_E_UNAVAIL = 7,
    HCCL_E_SYSCALL = 8,
    HCCL_E_TIMEOUT = 9,
    HCCL_E_OPEN_FILE_FAILURE = 10,
    HCCL_E_TCP_CONNECT = 11,
    HCCL_E_ROCE_CONNECT = 12,
    HCCL_E_TCP_TRANSFER = 13,
    HCCL_E_ROCE_TRANSFER = 14,
    HCCL_E_RUNTIME = 15,
    HCCL_E_DRV = 16,
    HCCL_E_PROFILING = 17,
    HCCL_E_CCE = 18,
    HCCL_E_NETWORK = 19,
    HCCL_E_AGAIN = 20,
    HCCL_E_REMOTE = 21,
    HCCL_E_SUSPENDING = 22,
    HCCL_E_OPRETRY_FAIL = 23,
    HCCL_E_OOM = 24,
    HCCL_E_IN_STATUS = 1041,
    HCCL_E_RESERVED /* 1042 */
} HcclResult;

typedef void *HcclComm;
typedef void *HcclConn;
typedef void *HcclCommSymWindow;

/* Same numbering as HcommDataType; 13 is unassigned. */
typedef enum {
    HCCL_DATA_TYPE_INT8 = 0,
    HCCL_DATA_TYPE_INT16 = 1,
    HCCL_DATA_TYPE_INT32 = 2,
    HCCL_DATA_TYPE_FP16 = 3,
    HCCL_DATA_TYPE_FP32 = 4,
    HCCL_DATA_TYPE_INT64 = 5,
    HCCL_DATA_TYPE_UINT64 = 6,
    HCCL_DATA_TYPE_UINT8 = 7,
    HCCL_DATA_TYPE_UINT16 = 8,
    HCCL_DATA_TYPE_UINT32 = 9,
    HCCL_DATA_TYPE_FP64 = 10,
    HCCL_DATA_TYPE_BFP16 = 11,
    HCCL_DATA_TYPE_INT128 = 12,
    HCCL_DATA_TYPE_HIF8 = 14,
    HCCL_DATA_TYPE_FP8E4M3 = 15,
    HCCL_DATA_TYPE_FP8E5M2 = 16,
    HCCL_DATA_TYPE_FP8E8M0 = 17,
    HCCL_DATA_TYPE_RESERVED = 255
} HcclDataType;

/* Same numbering as HcommReduceOp. */
typedef enum {
    HCCL_REDUCE_SUM = 0,
    HCCL_REDUCE_PROD = 1,
    HCCL_REDUCE_MAX = 2,
    HCCL_REDUCE_MIN = 3,
    HCCL_REDUCE_RESERVED = 255
} HcclReduceOp;

/* The vendor spells these `const uint32_t`; macros keep them usable as C array bounds. */
#define HCCL_ROOT_INFO_BYTES 4108U
#define HCCL_RES_TAG_MAX_LEN 255U /* ctxTag / memTag, characters */
#define COMM_NAME_MAX_LENGTH 128U /* communicator name, bytes including the NUL */
#define HCCL_COMM_ALGO_MAX_LENGTH 1600U /* an algorithm configuration string, bytes */

/* Opaque blob from HcclGetRootInfo on the root; every rank passes identical bytes to
 * HcclCommInitRootInfo. Its format is private to the library. */
typedef struct HcclRootInfoDef {
    char internal[HCCL_ROOT_INFO_BYTES];
} HcclRootInfo;

typedef enum {
    HCCL_CMD_INVALID = 0,
    HCCL_CMD_BROADCAST = 1,
    HCCL_CMD_ALLREDUCE = 2,
    HCCL_CMD_REDUCE = 3,
    HCCL_CMD_SEND = 4,
    HCCL_CMD_RECEIVE = 5,
    HCCL_CMD_ALLGATHER = 6,
    HCCL_CMD_REDUCE_SCATTER = 7,
    HCCL_CMD_ALLTOALLV = 8,
    HCCL_CMD_ALLTOALLVC = 9,
    HCCL_CMD_ALLTOALL = 10,
    HCCL_CMD_GATHER = 11,
    HCCL_CMD_SCATTER = 12,
    HCCL_CMD_BATCH_SEND_RECV = 13,
    HCCL_CMD_BATCH_PUT = 14,
    HCCL_CMD_BATCH_GET = 15,
    HCCL_CMD_ALLGATHER_V = 16,
    HCCL_CMD_REDUCE_SCATTER_V = 17,
    HCCL_CMD_BATCH_WRITE = 18,
    HCCL_CMD_HALF_ALLTOALLV = 20,
    HCCL_CMD_ALL = 21,
    HCCL_CMD_FINALIZE = 100,
    HCCL_CMD_INTER_GROUP_SYNC = 101,
    HCCL_CMD_INIT = 102,
    HCCL_CMD_BARRIER = 103,
    HCCL_CMD_MAX = 104
} HcclCMDType;

/* Process-wide settings for HcclSetConfig/HcclGetConfig. */
typedef enum {
    HCCL_DETERMINISTIC = 0
} HcclConfig;

typedef union HcclConfigValue {
    int32_t value;
} HcclConfigValue;

/* Enumerator spelling (HCCL_COMM_STATUS_ prefix) unconfirmed; values documented. */
typedef enum {
    HCCL_COMM_STATUS_READY = 0,
    HCCL_COMM_STATUS_SUSPENDING = 1,
    HCCL_COMM_STATUS_INVALID = 254,
    HCCL_COMM_STATUS_RESERVED = 255
} HcclCommStatus;

/* Selector for HcclConfigGetInfo (hcomm 9.2). */
typedef enum {
    HCCL_CONFIG_TYPE_INVALID = -1,
    HCCL_CONFIG_TYPE_OP_EXPANSION_MODE = 0, /* info: HcclConfigTypeOpExpansionMode */
    HCCL_CONFIG_TYPE_HCCL_ALGO = 1
} HcclConfigType;

/* Where a communicator's collectives are expanded into tasks (HcclConfigGetInfo answer). */
typedef enum {
    HCCL_OP_EXPANSION_MODE_INVALID = -1,
    HCCL_OP_EXPANSION_MODE_AI_CPU = 0,
    HCCL_OP_EXPANSION_MODE_AIV = 1,
    HCCL_OP_EXPANSION_MODE_HOST = 2,
    HCCL_OP_EXPANSION_MODE_HOST_TS = 3,
    HCCL_OP_EXPANSION_MODE_CCU_MS = 4,
    HCCL_OP_EXPANSION_MODE_CCU_SCHED = 5,
    HCCL_OP_EXPANSION_AIV_ONLY = 6
} HcclOpExpansionMode;
typedef HcclOpExpansionMode HcclConfigTypeOpExpansionMode;

/* Moments a registered HcclCommStateCallback is called at. */
typedef enum {
    HCCL_COMM_STATE_PHASE_INVALID = -1,
    HCCL_COMM_STATE_PHASE_DESTROY_PRE = 0,
    HCCL_COMM_STATE_PHASE_DESTROY_POST = 1,
    HCCL_COMM_STATE_PHASE_RESUME_PRE = 2,
    HCCL_COMM_STATE_PHASE_RESUME_POST = 3
} HcclCommStatePhase;

/* One element of a batched send/receive (24 + 4 + 4 bytes: type@0 buf@8 count@16
 * dataType@24 remoteRank@28). */
typedef enum {
    HCCL_SEND = 0,
    HCCL_RECV = 1,
    HCCL_SEND_RECV_RESERVED = 2
} HcclSendRecvType;

typedef struct HcclSendRecvItemDef {
    HcclSendRecvType sendRecvType;
    void *buf;
    uint64_t count;
    HcclDataType dataType;
    uint32_t remoteRank;
} HcclSendRecvItem;

#define HCCL_COMM_CONFIG_MAGIC_WORD 0xf0f0f0f0U
#define HCCL_COMM_CONFIG_VERSION 11U
#define HCCL_COMM_DEFAULT_BUFFSIZE 200U /* MB */
#define HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET 0xffffffffU

/* Per-communicator settings, 2248 bytes. `reserved` carries a versioning header
 * {size_t size; uint32_t magicWord; uint32_t version; uint64_t reserved;} written by
 * HcclCommConfigInit; fields left at 0xFFFFFFFF mean "not set, use the environment". */
typedef struct {
    char reserved[24];
    uint32_t hcclBufferSize;    /* MB, >= 1; overrides HCCL_BUFFSIZE */
    uint32_t hcclDeterministic; /* ignored on 950 */
    char hcclCommName[COMM_NAME_MAX_LENGTH];
    char hcclUdi[128];
    uint32_t hcclOpExpansionMode;
    uint32_t hcclRdmaTrafficClass;
    uint32_t hcclRdmaServiceLevel;
    uint32_t hcclWorldRankID;
    uint64_t hcclJobID;
    uint8_t aclGraphZeroCopyEnable;
    int32_t hcclExecTimeOut; /* seconds, -1 = not set */
    char hcclAlgo[1600];
    char hcclRetryEnable[50];
    char hcclRetryParams[128];
    char hcclBufferName[128];
    uint32_t hcclQos;
    uint64_t hcclSymWinMaxMemSizePerRank; /* GB */
    uint32_t hcclChannelSqDepth;
} HcclCommConfig;

/* Sets every field to its default (the vendor's defaults; docs/CONTROL_PLANE.md §2). NULL is
 * ignored. The vendor only writes the listed fields and the first byte of each string; this
 * version zeroes the struct first, so padding and string tails are 0 rather than stale. */
static inline void HcclCommConfigInit(HcclCommConfig *config)
{
    if (config == NULL)
        return;
    struct {
        size_t size;
        uint32_t magicWord;
        uint32_t version;
        uint64_t reserved;
    } info = {sizeof(HcclCommConfig), HCCL_COMM_CONFIG_MAGIC_WORD, HCCL_COMM_CONFIG_VERSION, 0};

    memset(config, 0, sizeof(*config));
    /* memcpy, not a cast, because `reserved` is a char array (aliasing rules). */
    memcpy(config->reserved, &info, sizeof(info));
    config->hcclBufferSize = HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET;
    config->hcclDeterministic = 0xFFFFFFFFU;
    config->hcclOpExpansionMode = 0;
    config->hcclRdmaTrafficClass = 0xFFFFFFFFU;
    config->hcclRdmaServiceLevel = 0xFFFFFFFFU;
    config->hcclWorldRankID = 0;
    config->hcclJobID = 0;
    config->aclGraphZeroCopyEnable = 0;
    config->hcclExecTimeOut = -1;
    config->hcclQos = 0xFFFFFFFFU;
    config->hcclSymWinMaxMemSizePerRank = 16;
    config->hcclChannelSqDepth = 0xFFFFFFFFU;
}

#ifdef __cplusplus
}
#endif

#endif
