/* hcomm_res_defs.h - HCOMM resource types shared by the control plane (Hccl*) and the data
 * plane (Hcomm*): handles, engines, protocols, addresses, endpoints, memory and thread configs.
 *
 * hcemu's own rendition of the vendor header: names, values and LP64 layouts follow
 * docs/CONTROL_PLANE.md §4. Unlike the vendor file it compiles as C11 too, so array bounds
 * are macros instead of `static const` objects. The anonymous unions are the vendor's layout;
 * `__extension__` only keeps -Wpedantic quiet for C++ users (no effect on layout). */
#ifndef HCEMU_HCOMM_RES_DEFS_H
#define HCEMU_HCOMM_RES_DEFS_H

#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Both this header and hcomm_primitives.h may define the handles, so each guards them. */
#ifndef CHANNEL_HANDLE_DEFINED
#define CHANNEL_HANDLE_DEFINED
typedef uint64_t ChannelHandle;
#endif
#ifndef THREAD_HANDLE_DEFINED
#define THREAD_HANDLE_DEFINED
typedef uint64_t ThreadHandle;
#endif

/* Values are HcclResult numbers (0 success, 2 null pointer, 4 internal...). */
typedef int32_t HcommResult;

typedef void *EndpointHandle;
typedef void *HcommMemHandle;
typedef void *HcommSocket;

/* Versioned structs start with this header; receivers check magicWord and copy the common
 * prefix when `size` differs, so the layout may grow at the end only. */
typedef struct {
    uint32_t version;
    uint32_t magicWord;
    uint32_t size;
    uint32_t reserved;
} CommAbiHeader;

typedef enum {
    COMM_ENGINE_RESERVED = -1,
    COMM_ENGINE_CPU = 0,
    COMM_ENGINE_CPU_TS = 1,
    COMM_ENGINE_AICPU = 2,
    COMM_ENGINE_AICPU_TS = 3,
    COMM_ENGINE_AIV = 4,
    COMM_ENGINE_CCU = 5
} CommEngine;

typedef enum {
    COMM_PROTOCOL_RESERVED = -1,
    COMM_PROTOCOL_HCCS = 0,
    COMM_PROTOCOL_ROCE = 1,
    COMM_PROTOCOL_PCIE = 2,
    COMM_PROTOCOL_SIO = 3,
    COMM_PROTOCOL_UB_CTP = 4,
    COMM_PROTOCOL_UBC_CTP = 4, /* alias of UB_CTP */
    COMM_PROTOCOL_UBC_TP = 5,
    COMM_PROTOCOL_UB_MEM = 6,
    COMM_PROTOCOL_UBOE = 7,
    COMM_PROTOCOL_HCCS_ONLY = 8,
    COMM_PROTOCOL_UB_RTP = 9,
    COMM_PROTOCOL_UBG = 9 /* alias of UB_RTP */
} CommProtocol;

/* The vendor spells this `static const uint32_t`, which C cannot use as an array bound. */
#define COMM_ADDR_EID_LEN 16U

typedef enum {
    COMM_ADDR_TYPE_RESERVED = -1,
    COMM_ADDR_TYPE_IP_V4 = 0,
    COMM_ADDR_TYPE_IP_V6 = 1,
    COMM_ADDR_TYPE_ID = 2,
    COMM_ADDR_TYPE_EID = 3
} CommAddrType;

typedef struct { /* 40 bytes */
    CommAddrType type;
    __extension__ union {
        uint8_t raws[36];
        struct in_addr addr;
        struct in6_addr addr6;
        uint32_t id;
        uint8_t eid[COMM_ADDR_EID_LEN];
    };
} CommAddr;

typedef enum {
    ENDPOINT_LOC_TYPE_RESERVED = -1,
    ENDPOINT_LOC_TYPE_DEVICE = 0,
    ENDPOINT_LOC_TYPE_HOST = 1
} EndpointLocType;

typedef struct { /* 64 bytes */
    EndpointLocType locType;
    __extension__ union {
        uint8_t raws[60];
        struct {
            uint32_t devPhyId;
            uint32_t superDevId;
            uint32_t serverIdx;
            uint32_t superPodIdx;
        } device;
        struct {
            uint32_t id;
        } host;
    };
} EndpointLoc;

typedef struct { /* 160 bytes */
    CommProtocol protocol;
    CommAddr commAddr;
    EndpointLoc loc;
    __extension__ union {
        uint8_t raws[52]; /* room for future fields; keeps the size fixed */
    };
} EndpointDesc;

typedef enum {
    COMM_MEM_TYPE_INVALID = -1,
    COMM_MEM_TYPE_DEVICE = 0,
    COMM_MEM_TYPE_HOST = 1
} CommMemType;

typedef struct { /* 24 bytes: type@0 addr@8 size@16 */
    CommMemType type;
    void *addr;
    uint64_t size;
} CommMem;

typedef enum {
    HCOMM_SOCKET_ROLE_RESERVED = -1,
    HCOMM_SOCKET_ROLE_CLIENT = 0,
    HCOMM_SOCKET_ROLE_SERVER = 1
} HcommSocketRole;

typedef enum {
    HCOMM_ENDPOINT_FEATURE_INVALID = -1,
    HCOMM_ENDPOINT_FEATURE_NDA = 0
} HcommEndpointFeatureType;

typedef enum {
    THREAD_TYPE_INVALID = -1,
    THREAD_TYPE_TS = 0
} ThreadType;

#define HCOMM_THREAD_CONFIG_MAGIC_WORD 0x0f0f0f2fU

typedef struct { /* 32 bytes */
    CommAbiHeader header;
    uint16_t notifyNumPerThread; /* 0..65535 */
    uint8_t reserved[14];
} ThreadConfig;

typedef enum {
    THREAD_RES_TYPE_INVALID = -1,
    THREAD_RES_TYPE_STREAM = 0
} ThreadResType;

/* Marks every field "not set" (all bytes 0xFF) and the three type tags RESERVED.
 * NULL is checked per element, so (NULL, 0) succeeds as in the vendor header.
 * Returns 0, or 2 (HCCL_E_PTR) for NULL with num > 0. */
static inline HcommResult EndpointDescInit(EndpointDesc *endpoint, uint32_t num)
{
    for (uint32_t i = 0; i < num; i++) {
        if (endpoint == NULL)
            return 2;
        memset(&endpoint[i], 0xFF, sizeof(endpoint[i]));
        endpoint[i].protocol = COMM_PROTOCOL_RESERVED;
        endpoint[i].commAddr.type = COMM_ADDR_TYPE_RESERVED;
        endpoint[i].loc.locType = ENDPOINT_LOC_TYPE_RESERVED;
    }
    return 0;
}

/* Zeroes each config and stamps its ABI header (version 1, size 32); notifyNumPerThread = 0.
 * Unlike EndpointDescInit, NULL is rejected before the loop, even for num == 0.
 * Returns 0, or 2 (HCCL_E_PTR) for NULL. */
static inline HcommResult ThreadConfigInit(ThreadConfig *config, uint32_t num)
{
    if (config == NULL)
        return 2;
    for (uint32_t i = 0; i < num; i++) {
        memset(&config[i], 0, sizeof(config[i]));
        config[i].header.version = 1;
        config[i].header.magicWord = HCOMM_THREAD_CONFIG_MAGIC_WORD;
        config[i].header.size = (uint32_t)sizeof(ThreadConfig);
        config[i].header.reserved = 0;
        config[i].notifyNumPerThread = 0;
    }
    return 0;
}

#ifdef __cplusplus
}
#endif

#endif
