/* test_headers.c - pins the public headers to the vendor ABI: every struct size and field
 * offset, every enum value and constant that the vendor docs state, and the exact bytes the inline
 * initialisers leave behind. Also links two C and one C++ translation unit that include all
 * headers (headers_c_tu1.c, headers_c_tu2.c, headers_cxx.cpp). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "headers_all.h"

#define SIZE_IS(type, n) assert_int_equal(sizeof(type), (n))
#define OFF_IS(type, field, n) assert_int_equal(offsetof(type, field), (n))

/* Writes v little-endian at p; the vendor layouts are LP64 little-endian. */
static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void acl_structs_have_vendor_sizes(void **state)
{
    (void)state;
    SIZE_IS(aclrtMallocAttrValue, 8);
    SIZE_IS(aclrtMallocAttribute, 12);
    OFF_IS(aclrtMallocAttribute, value, 4);
    SIZE_IS(aclrtMallocConfig, 16);
    OFF_IS(aclrtMallocConfig, numAttrs, 8);
    SIZE_IS(aclrtBinaryLoadOptionValue, 16);
    SIZE_IS(aclrtBinaryLoadOption, 20);
    OFF_IS(aclrtBinaryLoadOption, value, 4);
    SIZE_IS(aclrtBinaryLoadOptions, 16);
    OFF_IS(aclrtBinaryLoadOptions, numOpt, 8);
    SIZE_IS(aclrtTimeoutUs, 8);
    SIZE_IS(aclrtLaunchKernelAttrValue, 16);
    SIZE_IS(aclrtLaunchKernelAttr, 20);
    OFF_IS(aclrtLaunchKernelAttr, value, 4);
    SIZE_IS(aclrtLaunchKernelCfg, 16);
    OFF_IS(aclrtLaunchKernelCfg, numAttrs, 8);
    SIZE_IS(aclError, 4);
    SIZE_IS(aclrtStream, sizeof(void *));
    SIZE_IS(aclrtMemcpyKind, 4);
    SIZE_IS(aclrtMemMallocPolicy, 4);
}

static void acl_enums_and_macros_have_vendor_values(void **state)
{
    (void)state;
    assert_int_equal(ACL_MAJOR_VERSION, 1);
    assert_int_equal(ACL_MINOR_VERSION, 17);
    assert_int_equal(ACL_PATCH_VERSION, 0);
    assert_int_equal(ACL_RT_THREAD_LEVEL, 0);
    assert_int_equal(ACL_STREAM_STATUS_COMPLETE, 0);
    assert_int_equal(ACL_STREAM_STATUS_NOT_READY, 1);
    assert_int_equal(ACL_STREAM_STATUS_RESERVED, 0xFFFF);
    assert_int_equal(ACL_NOTIFY_DEFAULT, 0);
    assert_int_equal(ACL_NOTIFY_DEVICE_USE_ONLY, 1);
    assert_int_equal(ACL_STREAM_FAST_LAUNCH, 0x1);
    assert_int_equal(ACL_STREAM_FAST_SYNC, 0x2);
    assert_int_equal(ACL_STREAM_PERSISTENT, 0x4);
    assert_int_equal(ACL_STREAM_HUGE, 0x8);
    assert_int_equal(ACL_STREAM_CPU_SCHEDULE, 0x10);
    assert_int_equal(ACL_STREAM_DEVICE_USE_ONLY, 0x20);

    assert_int_equal(ACL_MEMCPY_HOST_TO_HOST, 0);
    assert_int_equal(ACL_MEMCPY_HOST_TO_DEVICE, 1);
    assert_int_equal(ACL_MEMCPY_DEVICE_TO_HOST, 2);
    assert_int_equal(ACL_MEMCPY_DEVICE_TO_DEVICE, 3);
    assert_int_equal(ACL_MEMCPY_DEFAULT, 4);
    assert_int_equal(ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, 5);
    assert_int_equal(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, 6);
    assert_int_equal(ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, 7);

    assert_int_equal(ACL_MEM_MALLOC_HUGE_FIRST, 0);
    assert_int_equal(ACL_MEM_MALLOC_HUGE_ONLY, 1);
    assert_int_equal(ACL_MEM_MALLOC_NORMAL_ONLY, 2);
    assert_int_equal(ACL_MEM_MALLOC_HUGE_FIRST_P2P, 3);
    assert_int_equal(ACL_MEM_MALLOC_HUGE_ONLY_P2P, 4);
    assert_int_equal(ACL_MEM_MALLOC_NORMAL_ONLY_P2P, 5);
    assert_int_equal(ACL_MEM_MALLOC_HUGE1G_ONLY, 6);
    assert_int_equal(ACL_MEM_MALLOC_HUGE1G_ONLY_P2P, 7);
    assert_int_equal(ACL_MEM_TYPE_LOW_BAND_WIDTH, 0x0100);
    assert_int_equal(ACL_MEM_TYPE_HIGH_BAND_WIDTH, 0x1000);
    assert_int_equal(ACL_MEM_ACCESS_USER_SPACE_READONLY, 0x100000);

    assert_int_equal(ACL_RT_MEM_ATTR_RSV, 0);
    assert_int_equal(ACL_RT_MEM_ATTR_MODULE_ID, 1);
    assert_int_equal(ACL_RT_MEM_ATTR_DEVICE_ID, 2);
    assert_int_equal(ACL_RT_MEM_ATTR_VA_FLAG, 3);

    assert_int_equal(ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD, 1);
    assert_int_equal(ACL_RT_BINARY_LOAD_OPT_LAZY_MAGIC, 2);
    assert_int_equal(ACL_RT_BINARY_LOAD_OPT_MAGIC, 2);
    assert_int_equal(ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE, 3);
    assert_int_equal(ACL_RT_BINARY_MAGIC_ELF_AICORE, 0x43554245U);
    assert_int_equal(ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE, 0x41415246U);
    assert_int_equal(ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE, 0x41494343U);

    assert_int_equal(ACL_RT_ENGINE_TYPE_AIC, 0);
    assert_int_equal(ACL_RT_ENGINE_TYPE_AIV, 1);
    assert_int_equal(ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE, 1);
    assert_int_equal(ACL_RT_LAUNCH_KERNEL_ATTR_LOCAL_MEMORY_SIZE, 2);
    assert_int_equal(ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE, 2);
    assert_int_equal(ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE, 3);
    assert_int_equal(ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET, 4);
    assert_int_equal(ACL_RT_LAUNCH_KERNEL_ATTR_NUMBLOCKS_OFFSET, 4);
    assert_int_equal(ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH, 5);
    assert_int_equal(ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP, 6);
    assert_int_equal(ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, 7);
    assert_int_equal(ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US, 8);
    assert_int_equal(ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING, 9);
}

static void acl_error_codes_have_vendor_values(void **state)
{
    (void)state;
    assert_int_equal(ACL_SUCCESS, 0);
    assert_int_equal(ACL_ERROR_NONE, 0);
    assert_int_equal(ACL_ERROR_INVALID_PARAM, 100000);
    assert_int_equal(ACL_ERROR_UNINITIALIZE, 100001);
    assert_int_equal(ACL_ERROR_REPEAT_INITIALIZE, 100002);
    assert_int_equal(ACL_ERROR_INVALID_FILE, 100003);
    assert_int_equal(ACL_ERROR_INVALID_FILE_SIZE, 100005);
    assert_int_equal(ACL_ERROR_PARSE_FILE, 100006);
    assert_int_equal(ACL_ERROR_FILE_MISSING_ATTR, 100007);
    assert_int_equal(ACL_ERROR_FILE_ATTR_INVALID, 100008);
    assert_int_equal(ACL_ERROR_KERNEL_NOT_FOUND, 100029);
    assert_int_equal(ACL_ERROR_REPEAT_FINALIZE, 100037);
    assert_int_equal(ACL_ERROR_BAD_ALLOC, 200000);
    assert_int_equal(ACL_ERROR_API_NOT_SUPPORT, 200001);
    assert_int_equal(ACL_ERROR_INVALID_DEVICE, 200002);
    assert_int_equal(ACL_ERROR_MEMORY_ADDRESS_UNALIGNED, 200003);
    assert_int_equal(ACL_ERROR_RESOURCE_NOT_MATCH, 200004);
    assert_int_equal(ACL_ERROR_INVALID_RESOURCE_HANDLE, 200005);
    assert_int_equal(ACL_ERROR_FEATURE_UNSUPPORTED, 200006);
    assert_int_equal(ACL_ERROR_STORAGE_OVER_LIMIT, 300000);
    assert_int_equal(ACL_ERROR_INTERNAL_ERROR, 500000);
    assert_int_equal(ACL_ERROR_FAILURE, 500001);
    assert_int_equal(ACL_ERROR_RT_FAILURE, 500003);
    assert_int_equal(ACL_ERROR_DRV_FAILURE, 500004);

    assert_int_equal(ACL_RT_SUCCESS, 0);
    assert_int_equal(ACL_ERROR_RT_PARAM_INVALID, 107000);
    assert_int_equal(ACL_ERROR_RT_INVALID_DEVICEID, 107001);
    assert_int_equal(ACL_ERROR_RT_CONTEXT_NULL, 107002);
    assert_int_equal(ACL_ERROR_RT_STREAM_CONTEXT, 107003);
    assert_int_equal(ACL_ERROR_RT_FILE_OPEN, 107009);
    assert_int_equal(ACL_ERROR_RT_INVALID_MEMORY_TYPE, 107016);
    assert_int_equal(ACL_ERROR_RT_INVALID_HANDLE, 107017);
    assert_int_equal(ACL_ERROR_RT_WAIT_TIMEOUT, 107019);
    assert_int_equal(ACL_ERROR_RT_TASK_TIMEOUT, 107020);
    assert_int_equal(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, 207000);
    assert_int_equal(ACL_ERROR_RT_MEMORY_ALLOCATION, 207001);
    assert_int_equal(ACL_ERROR_RT_MEMORY_FREE, 207002);
    assert_int_equal(ACL_ERROR_RT_NO_DEVICE, 207004);
    assert_int_equal(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, 207005);
    assert_int_equal(ACL_ERROR_RT_NO_STREAM_RESOURCE, 207008);
    assert_int_equal(ACL_ERROR_RT_NO_NOTIFY_RESOURCE, 207009);
    assert_int_equal(ACL_ERROR_RT_INTERNAL_ERROR, 507000);
    assert_int_equal(ACL_ERROR_RT_KERNEL_LOOKUP, 507027);
    assert_int_equal(ACL_ERROR_RT_AICPU_TIMEOUT, 507017);
    assert_int_equal(ACL_ERROR_RT_AICPU_EXCEPTION, 507018);
    assert_int_equal(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, 507046);
    assert_int_equal(ACL_ERROR_RT_AICPU_INTERNAL_ERROR, 507900);
}

static void resource_structs_have_vendor_layouts(void **state)
{
    (void)state;
    SIZE_IS(CommAbiHeader, 16);
    OFF_IS(CommAbiHeader, version, 0);
    OFF_IS(CommAbiHeader, magicWord, 4);
    OFF_IS(CommAbiHeader, size, 8);
    OFF_IS(CommAbiHeader, reserved, 12);

    SIZE_IS(CommAddr, 40);
    OFF_IS(CommAddr, type, 0);
    OFF_IS(CommAddr, raws, 4);
    OFF_IS(CommAddr, addr, 4);
    OFF_IS(CommAddr, addr6, 4);
    OFF_IS(CommAddr, id, 4);
    OFF_IS(CommAddr, eid, 4);

    SIZE_IS(EndpointLoc, 64);
    OFF_IS(EndpointLoc, locType, 0);
    OFF_IS(EndpointLoc, raws, 4);
    OFF_IS(EndpointLoc, device.devPhyId, 4);
    OFF_IS(EndpointLoc, device.superDevId, 8);
    OFF_IS(EndpointLoc, device.serverIdx, 12);
    OFF_IS(EndpointLoc, device.superPodIdx, 16);
    OFF_IS(EndpointLoc, host.id, 4);

    SIZE_IS(EndpointDesc, 160);
    OFF_IS(EndpointDesc, protocol, 0);
    OFF_IS(EndpointDesc, commAddr, 4);
    OFF_IS(EndpointDesc, loc, 44);
    OFF_IS(EndpointDesc, raws, 108);

    SIZE_IS(CommMem, 24);
    OFF_IS(CommMem, type, 0);
    OFF_IS(CommMem, addr, 8);
    OFF_IS(CommMem, size, 16);

    SIZE_IS(ThreadConfig, 32);
    OFF_IS(ThreadConfig, header, 0);
    OFF_IS(ThreadConfig, notifyNumPerThread, 16);
    OFF_IS(ThreadConfig, reserved, 18);

    SIZE_IS(ChannelHandle, 8);
    SIZE_IS(ThreadHandle, 8);
    SIZE_IS(HcommResult, 4);
    SIZE_IS(ThreadResTypeStream, 8);
}

static void channel_desc_has_vendor_layout(void **state)
{
    (void)state;
    SIZE_IS(HcclChannelDesc, 496);
    assert_int_equal(_Alignof(HcclChannelDesc), 8);
    OFF_IS(HcclChannelDesc, header, 0);
    OFF_IS(HcclChannelDesc, remoteRank, 16);
    OFF_IS(HcclChannelDesc, channelProtocol, 20);
    OFF_IS(HcclChannelDesc, localEndpoint, 24);
    OFF_IS(HcclChannelDesc, remoteEndpoint, 184);
    OFF_IS(HcclChannelDesc, notifyNum, 344);
    OFF_IS(HcclChannelDesc, memHandles, 352);
    OFF_IS(HcclChannelDesc, memHandleNum, 360);
    OFF_IS(HcclChannelDesc, raws, 364);
    OFF_IS(HcclChannelDesc, roceAttr.queueNum, 364);
    OFF_IS(HcclChannelDesc, roceAttr.retryCnt, 368);
    OFF_IS(HcclChannelDesc, roceAttr.retryInterval, 372);
    OFF_IS(HcclChannelDesc, roceAttr.tc, 376);
    OFF_IS(HcclChannelDesc, roceAttr.sl, 377);
    OFF_IS(HcclChannelDesc, ubMemAttr.pathMode, 364);
}

static void comm_link_has_vendor_layout(void **state)
{
    (void)state;
    SIZE_IS(CommLink, 464);
    OFF_IS(CommLink, header, 0);
    OFF_IS(CommLink, srcEndpointDesc, 16);
    OFF_IS(CommLink, dstEndpointDesc, 176);
    OFF_IS(CommLink, linkAttr, 336);
    OFF_IS(CommLink, linkAttr.raws, 336);
    OFF_IS(CommLink, linkAttr.linkProtocol, 336);
    OFF_IS(CommLink, linkAttr.hop, 340);
}

static void comm_config_has_vendor_layout(void **state)
{
    (void)state;
    SIZE_IS(HcclCommConfig, 2248);
    OFF_IS(HcclCommConfig, reserved, 0);
    OFF_IS(HcclCommConfig, hcclBufferSize, 24);
    OFF_IS(HcclCommConfig, hcclDeterministic, 28);
    OFF_IS(HcclCommConfig, hcclCommName, 32);
    OFF_IS(HcclCommConfig, hcclUdi, 160);
    OFF_IS(HcclCommConfig, hcclOpExpansionMode, 288);
    OFF_IS(HcclCommConfig, hcclRdmaTrafficClass, 292);
    OFF_IS(HcclCommConfig, hcclRdmaServiceLevel, 296);
    OFF_IS(HcclCommConfig, hcclWorldRankID, 300);
    OFF_IS(HcclCommConfig, hcclJobID, 304);
    OFF_IS(HcclCommConfig, aclGraphZeroCopyEnable, 312);
    OFF_IS(HcclCommConfig, hcclExecTimeOut, 316);
    OFF_IS(HcclCommConfig, hcclAlgo, 320);
    OFF_IS(HcclCommConfig, hcclRetryEnable, 1920);
    OFF_IS(HcclCommConfig, hcclRetryParams, 1970);
    OFF_IS(HcclCommConfig, hcclBufferName, 2098);
    OFF_IS(HcclCommConfig, hcclQos, 2228);
    OFF_IS(HcclCommConfig, hcclSymWinMaxMemSizePerRank, 2232);
    OFF_IS(HcclCommConfig, hcclChannelSqDepth, 2240);

    SIZE_IS(HcclRootInfo, 4108);
    assert_int_equal(_Alignof(HcclRootInfo), 1);
    SIZE_IS(HcclConfigValue, 4);
    SIZE_IS(HcclConfigType, 4);
}

static void batch_transfer_desc_has_vendor_layout(void **state)
{
    (void)state;
    SIZE_IS(HcommBatchTransferDesc, 64);
    assert_int_equal(_Alignof(HcommBatchTransferDesc), 8);
    OFF_IS(HcommBatchTransferDesc, transType, 0);
    OFF_IS(HcommBatchTransferDesc, reserved, 4);
    OFF_IS(HcommBatchTransferDesc, transferInfo, 8);
    OFF_IS(HcommBatchTransferDesc, transferInfo.raws, 8);
    assert_int_equal(sizeof(((HcommBatchTransferDesc *)0)->transferInfo), 56);
    OFF_IS(HcommBatchTransferDesc, transferInfo.write.len, 8);
    OFF_IS(HcommBatchTransferDesc, transferInfo.write.dst, 16);
    OFF_IS(HcommBatchTransferDesc, transferInfo.write.src, 24);
    OFF_IS(HcommBatchTransferDesc, transferInfo.read.len, 8);
    OFF_IS(HcommBatchTransferDesc, transferInfo.read.dst, 16);
    OFF_IS(HcommBatchTransferDesc, transferInfo.read.src, 24);
    OFF_IS(HcommBatchTransferDesc, transferInfo.reduce.count, 8);
    OFF_IS(HcommBatchTransferDesc, transferInfo.reduce.dst, 16);
    OFF_IS(HcommBatchTransferDesc, transferInfo.reduce.src, 24);
    OFF_IS(HcommBatchTransferDesc, transferInfo.reduce.reduceOp, 32);
    OFF_IS(HcommBatchTransferDesc, transferInfo.reduce.dataType, 36);
    OFF_IS(HcommBatchTransferDesc, transferInfo.notifyRecord.notifyIdx, 8);
    OFF_IS(HcommBatchTransferDesc, transferInfo.writeWithNotify.len, 8);
    OFF_IS(HcommBatchTransferDesc, transferInfo.writeWithNotify.dst, 16);
    OFF_IS(HcommBatchTransferDesc, transferInfo.writeWithNotify.src, 24);
    OFF_IS(HcommBatchTransferDesc, transferInfo.writeWithNotify.notifyIdx, 32);
    OFF_IS(HcommBatchTransferDesc, transferInfo.writeReduceWithNotify.count, 8);
    OFF_IS(HcommBatchTransferDesc, transferInfo.writeReduceWithNotify.dst, 16);
    OFF_IS(HcommBatchTransferDesc, transferInfo.writeReduceWithNotify.src, 24);
    OFF_IS(HcommBatchTransferDesc, transferInfo.writeReduceWithNotify.reduceOp, 32);
    OFF_IS(HcommBatchTransferDesc, transferInfo.writeReduceWithNotify.dataType, 36);
    OFF_IS(HcommBatchTransferDesc, transferInfo.writeReduceWithNotify.notifyIdx, 40);
}

static void resource_enums_have_vendor_values(void **state)
{
    (void)state;
    SIZE_IS(CommEngine, 4);
    SIZE_IS(CommProtocol, 4);
    SIZE_IS(EndpointAttr, 4);
    assert_int_equal(COMM_ENGINE_RESERVED, -1);
    assert_int_equal(COMM_ENGINE_CPU, 0);
    assert_int_equal(COMM_ENGINE_CPU_TS, 1);
    assert_int_equal(COMM_ENGINE_AICPU, 2);
    assert_int_equal(COMM_ENGINE_AICPU_TS, 3);
    assert_int_equal(COMM_ENGINE_AIV, 4);
    assert_int_equal(COMM_ENGINE_CCU, 5);

    assert_int_equal(COMM_PROTOCOL_RESERVED, -1);
    assert_int_equal(COMM_PROTOCOL_HCCS, 0);
    assert_int_equal(COMM_PROTOCOL_ROCE, 1);
    assert_int_equal(COMM_PROTOCOL_PCIE, 2);
    assert_int_equal(COMM_PROTOCOL_SIO, 3);
    assert_int_equal(COMM_PROTOCOL_UB_CTP, 4);
    assert_int_equal(COMM_PROTOCOL_UBC_CTP, 4);
    assert_int_equal(COMM_PROTOCOL_UBC_TP, 5);
    assert_int_equal(COMM_PROTOCOL_UB_MEM, 6);
    assert_int_equal(COMM_PROTOCOL_UBOE, 7);
    assert_int_equal(COMM_PROTOCOL_HCCS_ONLY, 8);
    assert_int_equal(COMM_PROTOCOL_UB_RTP, 9);
    assert_int_equal(COMM_PROTOCOL_UBG, 9);

    assert_int_equal(COMM_ADDR_EID_LEN, 16);
    assert_int_equal(COMM_ADDR_TYPE_RESERVED, -1);
    assert_int_equal(COMM_ADDR_TYPE_IP_V4, 0);
    assert_int_equal(COMM_ADDR_TYPE_IP_V6, 1);
    assert_int_equal(COMM_ADDR_TYPE_ID, 2);
    assert_int_equal(COMM_ADDR_TYPE_EID, 3);
    assert_int_equal(ENDPOINT_LOC_TYPE_RESERVED, -1);
    assert_int_equal(ENDPOINT_LOC_TYPE_DEVICE, 0);
    assert_int_equal(ENDPOINT_LOC_TYPE_HOST, 1);
    assert_int_equal(COMM_MEM_TYPE_INVALID, -1);
    assert_int_equal(COMM_MEM_TYPE_DEVICE, 0);
    assert_int_equal(COMM_MEM_TYPE_HOST, 1);
    assert_int_equal(HCOMM_SOCKET_ROLE_RESERVED, -1);
    assert_int_equal(HCOMM_SOCKET_ROLE_CLIENT, 0);
    assert_int_equal(HCOMM_SOCKET_ROLE_SERVER, 1);
    assert_int_equal(HCOMM_ENDPOINT_FEATURE_INVALID, -1);
    assert_int_equal(HCOMM_ENDPOINT_FEATURE_NDA, 0);
    assert_int_equal(THREAD_TYPE_INVALID, -1);
    assert_int_equal(THREAD_TYPE_TS, 0);
    assert_int_equal(THREAD_RES_TYPE_INVALID, -1);
    assert_int_equal(THREAD_RES_TYPE_STREAM, 0);
    assert_int_equal(HCOMM_THREAD_CONFIG_MAGIC_WORD, 0x0f0f0f2f);

    assert_int_equal(HCCL_DED_THREAD_TYPE_INVALID, -1);
    assert_int_equal(HCCL_DED_THREAD_TYPE_AICPU_LAUNCH, 0);
    assert_int_equal(HCCL_DED_THREAD_TYPE_AICPU_LAUNCH_GE, 1);
    assert_int_equal(HCCL_DED_THREAD_TYPE_AICPU_ORDER_LAUNCH_OPBASE, 2);
    assert_int_equal(HCCL_DED_THREAD_TYPE_AICPU_ORDER_LAUNCH_ACLGRAPH, 3);
    assert_int_equal(HCCL_DED_THREAD_TYPE_AICPU_ORDER_LAUNCH_GE, 4);
    assert_int_equal(HCCL_DED_THREAD_TYPE_AICPU_ORDER_LAUNCH_DEVICE, 5);

    assert_int_equal(COMM_TOPO_RESERVED, -1);
    assert_int_equal(COMM_TOPO_CLOS, 0);
    assert_int_equal(COMM_TOPO_1DMESH, 1);
    assert_int_equal(COMM_TOPO_910_93, 2);
    assert_int_equal(COMM_TOPO_310P, 3);
    assert_int_equal(COMM_TOPO_A2AXSERVER, 4);
    assert_int_equal(COMM_TOPO_CUSTOM, 5);
    assert_int_equal(HCCL_HETEROG_MODE_INVALID, -1);
    assert_int_equal(HCCL_HETEROG_MODE_HOMOGENEOUS, 0);
    assert_int_equal(HCCL_HETEROG_MODE_MIX_A2_A3, 1);
    assert_int_equal(ENDPOINT_ATTR_INVALID, -1);
    assert_int_equal(ENDPOINT_ATTR_BW_COEFF, 0);
    assert_int_equal(ENDPOINT_ATTR_DIE_ID, 1);
    assert_int_equal(ENDPOINT_ATTR_LOCATION, 2);

    assert_int_equal(HCCL_CHANNEL_MAGIC_WORD, 0x0f0f0f0f);
    assert_int_equal(HCCL_CHANNEL_VERSION, 1);
    assert_int_equal(HCCL_CHANNEL_DESC_RAW_MAX_LEN, 128);
    assert_int_equal(HCCL_CHANNEL_CONFIG_TYPE_INVALID, -1);
    assert_int_equal(HCCL_CHANNEL_CONFIG_TYPE_IS_SHARED_QUEUE, 0);
    assert_int_equal(HCCL_CHANNEL_CONFIG_TYPE_SHARED_QUEUE_TAG, 1);
    assert_int_equal(HCCL_CHANNEL_CONFIG_SHARED_QUEUE_TAG_MAX_LEN, 255);
}

static void hccl_enums_have_vendor_values(void **state)
{
    (void)state;
    static const int results[] = {
        HCCL_SUCCESS,        HCCL_E_PARA,         HCCL_E_PTR,         HCCL_E_MEMORY,
        HCCL_E_INTERNAL,     HCCL_E_NOT_SUPPORT,  HCCL_E_NOT_FOUND,   HCCL_E_UNAVAIL,
        HCCL_E_SYSCALL,      HCCL_E_TIMEOUT,      HCCL_E_OPEN_FILE_FAILURE,
        HCCL_E_TCP_CONNECT,  HCCL_E_ROCE_CONNECT, HCCL_E_TCP_TRANSFER, HCCL_E_ROCE_TRANSFER,
        HCCL_E_RUNTIME,      HCCL_E_DRV,          HCCL_E_PROFILING,   HCCL_E_CCE,
        HCCL_E_NETWORK,      HCCL_E_AGAIN,        HCCL_E_REMOTE,      HCCL_E_SUSPENDING,
        HCCL_E_OPRETRY_FAIL, HCCL_E_OOM,
    };
    for (int i = 0; i < (int)(sizeof(results) / sizeof(results[0])); i++)
        assert_int_equal(results[i], i);
    assert_int_equal(HCCL_E_IN_STATUS, 1041);
    assert_int_equal(HCCL_E_RESERVED, 1042);
    SIZE_IS(HcclResult, 4);

    /* Data types: both families share the numbering (13 unassigned). */
    static const int hccl_types[] = {
        HCCL_DATA_TYPE_INT8,   HCCL_DATA_TYPE_INT16,  HCCL_DATA_TYPE_INT32,
        HCCL_DATA_TYPE_FP16,   HCCL_DATA_TYPE_FP32,   HCCL_DATA_TYPE_INT64,
        HCCL_DATA_TYPE_UINT64, HCCL_DATA_TYPE_UINT8,  HCCL_DATA_TYPE_UINT16,
        HCCL_DATA_TYPE_UINT32, HCCL_DATA_TYPE_FP64,   HCCL_DATA_TYPE_BFP16,
        HCCL_DATA_TYPE_INT128,
    };
    static const int hcomm_types[] = {
        HCOMM_DATA_TYPE_INT8,   HCOMM_DATA_TYPE_INT16,  HCOMM_DATA_TYPE_INT32,
        HCOMM_DATA_TYPE_FP16,   HCOMM_DATA_TYPE_FP32,   HCOMM_DATA_TYPE_INT64,
        HCOMM_DATA_TYPE_UINT64, HCOMM_DATA_TYPE_UINT8,  HCOMM_DATA_TYPE_UINT16,
        HCOMM_DATA_TYPE_UINT32, HCOMM_DATA_TYPE_FP64,   HCOMM_DATA_TYPE_BFP16,
        HCOMM_DATA_TYPE_INT128,
    };
    for (int i = 0; i < 13; i++) {
        assert_int_equal(hccl_types[i], i);
        assert_int_equal(hcomm_types[i], i);
    }
    assert_int_equal(HCCL_DATA_TYPE_HIF8, 14);
    assert_int_equal(HCCL_DATA_TYPE_FP8E4M3, 15);
    assert_int_equal(HCCL_DATA_TYPE_FP8E5M2, 16);
    assert_int_equal(HCCL_DATA_TYPE_FP8E8M0, 17);
    assert_int_equal(HCCL_DATA_TYPE_RESERVED, 255);
    assert_int_equal(HCOMM_DATA_TYPE_HIF8, 14);
    assert_int_equal(HCOMM_DATA_TYPE_FP8E4M3, 15);
    assert_int_equal(HCOMM_DATA_TYPE_FP8E5M2, 16);
    assert_int_equal(HCOMM_DATA_TYPE_FP8E8M0, 17);
    assert_int_equal(HCOMM_DATA_TYPE_RESERVED, 255);

    assert_int_equal(HCCL_REDUCE_SUM, 0);
    assert_int_equal(HCCL_REDUCE_PROD, 1);
    assert_int_equal(HCCL_REDUCE_MAX, 2);
    assert_int_equal(HCCL_REDUCE_MIN, 3);
    assert_int_equal(HCCL_REDUCE_RESERVED, 255);
    assert_int_equal(HCOMM_REDUCE_SUM, 0);
    assert_int_equal(HCOMM_REDUCE_PROD, 1);
    assert_int_equal(HCOMM_REDUCE_MAX, 2);
    assert_int_equal(HCOMM_REDUCE_MIN, 3);
    assert_int_equal(HCOMM_REDUCE_RESERVED, 255);

    assert_int_equal(HCOMM_TRANSFER_TYPE_INVALID, -1);
    assert_int_equal(HCOMM_TRANSFER_TYPE_WRITE, 0);
    assert_int_equal(HCOMM_TRANSFER_TYPE_WRITE_REDUCE, 1);
    assert_int_equal(HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY, 2);
    assert_int_equal(HCOMM_TRANSFER_TYPE_WRITE_REDUCE_WITH_NOTIFY, 3);
    assert_int_equal(HCOMM_TRANSFER_TYPE_READ, 4);
    assert_int_equal(HCOMM_TRANSFER_TYPE_READ_REDUCE, 5);
    assert_int_equal(HCOMM_TRANSFER_TYPE_NOTIFY_RECORD, 6);
    assert_int_equal(HCOMM_TIMEOUT_FLOAT_TYPE, 1);

    assert_int_equal(HCCL_CMD_INVALID, 0);
    assert_int_equal(HCCL_CMD_BROADCAST, 1);
    assert_int_equal(HCCL_CMD_ALLREDUCE, 2);
    assert_int_equal(HCCL_CMD_REDUCE, 3);
    assert_int_equal(HCCL_CMD_SEND, 4);
    assert_int_equal(HCCL_CMD_RECEIVE, 5);
    assert_int_equal(HCCL_CMD_ALLGATHER, 6);
    assert_int_equal(HCCL_CMD_REDUCE_SCATTER, 7);
    assert_int_equal(HCCL_CMD_ALLTOALLV, 8);
    assert_int_equal(HCCL_CMD_ALLTOALLVC, 9);
    assert_int_equal(HCCL_CMD_ALLTOALL, 10);
    assert_int_equal(HCCL_CMD_GATHER, 11);
    assert_int_equal(HCCL_CMD_SCATTER, 12);
    assert_int_equal(HCCL_CMD_BATCH_SEND_RECV, 13);
    assert_int_equal(HCCL_CMD_BATCH_PUT, 14);
    assert_int_equal(HCCL_CMD_BATCH_GET, 15);
    assert_int_equal(HCCL_CMD_ALLGATHER_V, 16);
    assert_int_equal(HCCL_CMD_REDUCE_SCATTER_V, 17);
    assert_int_equal(HCCL_CMD_BATCH_WRITE, 18);
    assert_int_equal(HCCL_CMD_HALF_ALLTOALLV, 20);
    assert_int_equal(HCCL_CMD_ALL, 21);
    assert_int_equal(HCCL_CMD_FINALIZE, 100);
    assert_int_equal(HCCL_CMD_INTER_GROUP_SYNC, 101);
    assert_int_equal(HCCL_CMD_INIT, 102);
    assert_int_equal(HCCL_CMD_BARRIER, 103);
    assert_int_equal(HCCL_CMD_MAX, 104);

    assert_int_equal(HCCL_DETERMINISTIC, 0);
    assert_int_equal(HCCL_COMM_STATUS_READY, 0);
    assert_int_equal(HCCL_COMM_STATUS_SUSPENDING, 1);
    assert_int_equal(HCCL_COMM_STATUS_INVALID, 254);
    assert_int_equal(HCCL_COMM_STATUS_RESERVED, 255);

    assert_int_equal(HCCL_ROOT_INFO_BYTES, 4108);
    assert_int_equal(HCCL_RES_TAG_MAX_LEN, 255);
    assert_int_equal(COMM_NAME_MAX_LENGTH, 128);
    assert_int_equal(HCCL_COMM_CONFIG_MAGIC_WORD, 0xf0f0f0f0U);
    assert_int_equal(HCCL_COMM_CONFIG_VERSION, 11);
    assert_int_equal(HCCL_COMM_DEFAULT_BUFFSIZE, 200);
    assert_int_equal(HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET, 0xffffffffU);
}

static void endpoint_desc_init_fills_ff_and_checks_null_per_element(void **state)
{
    (void)state;
    EndpointDesc ep[3];
    uint8_t ff[sizeof(ep)];

    memset(ep, 0, sizeof(ep));
    memset(ff, 0xFF, sizeof(ff));
    assert_int_equal(EndpointDescInit(ep, 3), 0);
    /* Every field, including the RESERVED (-1) tags, ends up as 0xFF bytes. */
    assert_memory_equal(ep, ff, sizeof(ep));
    assert_int_equal(ep[2].protocol, COMM_PROTOCOL_RESERVED);
    assert_int_equal(ep[2].commAddr.type, COMM_ADDR_TYPE_RESERVED);
    assert_int_equal(ep[2].loc.locType, ENDPOINT_LOC_TYPE_RESERVED);

    assert_int_equal(EndpointDescInit(NULL, 0), 0);
    assert_int_equal(EndpointDescInit(NULL, 1), HCCL_E_PTR);
}

static void thread_config_init_zeroes_and_rejects_null_even_for_zero(void **state)
{
    (void)state;
    ThreadConfig cfg[2];
    uint8_t want[sizeof(ThreadConfig)] = {0};

    put_u32(want + 0, 1);
    put_u32(want + 4, 0x0f0f0f2f);
    put_u32(want + 8, 32);
    memset(cfg, 0xAB, sizeof(cfg));
    assert_int_equal(ThreadConfigInit(cfg, 2), 0);
    assert_memory_equal(&cfg[0], want, sizeof(want));
    assert_memory_equal(&cfg[1], want, sizeof(want));

    assert_int_equal(ThreadConfigInit(NULL, 0), HCCL_E_PTR);
    assert_int_equal(ThreadConfigInit(NULL, 4), HCCL_E_PTR);
    memset(cfg, 0xAB, sizeof(cfg));
    assert_int_equal(ThreadConfigInit(cfg, 0), 0);
    assert_int_equal(((uint8_t *)cfg)[0], 0xAB);
}

static void channel_desc_init_sets_vendor_bytes(void **state)
{
    (void)state;
    HcclChannelDesc desc[3];
    uint8_t want[sizeof(HcclChannelDesc)];

    memset(want, 0xFF, sizeof(want));
    put_u32(want + 0, HCCL_CHANNEL_VERSION);
    put_u32(want + 4, HCCL_CHANNEL_MAGIC_WORD);
    put_u32(want + 8, 496);
    put_u32(want + 12, 0);
    put_u32(want + 344, 0); /* notifyNum; padding 348..351 stays 0xFF */
    put_u64(want + 352, 0); /* memHandles */
    put_u32(want + 360, 0); /* memHandleNum; union and tail padding stay 0xFF */

    memset(desc, 0, sizeof(desc));
    assert_int_equal(HcclChannelDescInit(desc, 3), HCCL_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_memory_equal(&desc[i], want, sizeof(want));
    assert_int_equal(desc[1].remoteRank, 0xFFFFFFFFU);
    assert_int_equal(desc[1].channelProtocol, COMM_PROTOCOL_RESERVED);
    assert_int_equal(desc[1].localEndpoint.loc.locType, ENDPOINT_LOC_TYPE_RESERVED);
    assert_int_equal(desc[1].remoteEndpoint.commAddr.type, COMM_ADDR_TYPE_RESERVED);
    assert_null(desc[1].memHandles);
    assert_int_equal(desc[1].roceAttr.retryCnt, 0xFFFFFFFFU);
    assert_int_equal(desc[1].ubMemAttr.pathMode, 0xFF);

    assert_int_equal(HcclChannelDescInit(NULL, 0), HCCL_SUCCESS);
    assert_int_equal(HcclChannelDescInit(NULL, 1), HCCL_E_PTR);
}

static void comm_link_init_sets_header_reserved_protocol_and_hop_one(void **state)
{
    (void)state;
    CommLink link[2];
    uint8_t want[sizeof(CommLink)];

    memset(want, 0xFF, sizeof(want));
    put_u32(want + 0, 1);
    put_u32(want + 4, 0x0f0e0f0f);
    put_u32(want + 8, 464);
    put_u32(want + 12, 0);
    want[340] = 1; /* hop; linkProtocol (-1) at 336 is already 0xFF */

    memset(link, 0, sizeof(link));
    assert_int_equal(CommLinkInit(link, 2), HCCL_SUCCESS);
    assert_memory_equal(&link[0], want, sizeof(want));
    assert_memory_equal(&link[1], want, sizeof(want));
    assert_int_equal(link[1].linkAttr.linkProtocol, COMM_PROTOCOL_RESERVED);
    assert_int_equal(link[1].linkAttr.hop, 1);

    assert_int_equal(CommLinkInit(NULL, 0), HCCL_SUCCESS);
    assert_int_equal(CommLinkInit(NULL, 1), HCCL_E_PTR);
}

static void comm_config_init_sets_vendor_defaults(void **state)
{
    (void)state;
    HcclCommConfig c;
    uint8_t hdr[24] = {0};

    put_u64(hdr + 0, 2248);
    put_u32(hdr + 8, 0xf0f0f0f0U);
    put_u32(hdr + 12, 11);
    memset(&c, 0x5A, sizeof(c));
    HcclCommConfigInit(&c);
    assert_memory_equal(c.reserved, hdr, sizeof(hdr));
    assert_int_equal(c.hcclBufferSize, 0xFFFFFFFFU);
    assert_int_equal(c.hcclDeterministic, 0xFFFFFFFFU);
    assert_string_equal(c.hcclCommName, "");
    assert_string_equal(c.hcclUdi, "");
    assert_int_equal(c.hcclOpExpansionMode, 0);
    assert_int_equal(c.hcclRdmaTrafficClass, 0xFFFFFFFFU);
    assert_int_equal(c.hcclRdmaServiceLevel, 0xFFFFFFFFU);
    assert_int_equal(c.hcclWorldRankID, 0);
    assert_int_equal(c.hcclJobID, 0);
    assert_int_equal(c.aclGraphZeroCopyEnable, 0);
    assert_int_equal(c.hcclExecTimeOut, -1);
    assert_string_equal(c.hcclAlgo, "");
    assert_string_equal(c.hcclRetryEnable, "");
    assert_string_equal(c.hcclRetryParams, "");
    assert_string_equal(c.hcclBufferName, "");
    assert_int_equal(c.hcclQos, 0xFFFFFFFFU);
    assert_int_equal(c.hcclSymWinMaxMemSizePerRank, 16);
    assert_int_equal(c.hcclChannelSqDepth, 0xFFFFFFFFU);

    HcclCommConfigInit(NULL); /* must simply return */
}

static void cxx_build_of_initialisers_matches_c_bytes(void **state)
{
    (void)state;
    HcclChannelDesc d1, d2;
    CommLink l1, l2;
    ThreadConfig t1, t2;
    EndpointDesc e1, e2;
    HcclCommConfig c1, c2;

    memset(&d1, 0, sizeof(d1));
    memset(&l1, 0, sizeof(l1));
    memset(&t1, 0, sizeof(t1));
    memset(&e1, 0, sizeof(e1));
    memset(&c1, 0, sizeof(c1));
    memset(&d2, 1, sizeof(d2));
    memset(&l2, 1, sizeof(l2));
    memset(&t2, 1, sizeof(t2));
    memset(&e2, 1, sizeof(e2));
    memset(&c2, 1, sizeof(c2));
    headers_cxx_init_bytes(&d1, &l1, &t1, &e1, &c1);
    assert_int_equal(HcclChannelDescInit(&d2, 1), HCCL_SUCCESS);
    assert_int_equal(CommLinkInit(&l2, 1), HCCL_SUCCESS);
    assert_int_equal(ThreadConfigInit(&t2, 1), 0);
    assert_int_equal(EndpointDescInit(&e2, 1), 0);
    HcclCommConfigInit(&c2);
    assert_memory_equal(&d1, &d2, sizeof(d1));
    assert_memory_equal(&l1, &l2, sizeof(l1));
    assert_memory_equal(&t1, &t2, sizeof(t1));
    assert_memory_equal(&e1, &e2, sizeof(e1));
    assert_memory_equal(&c1, &c2, sizeof(c1));
}

static void every_translation_unit_links_and_probes_ok(void **state)
{
    (void)state;
    assert_int_equal(headers_c_tu1_probe(), 0);
    assert_int_equal(headers_c_tu2_probe(), 0);
    assert_int_equal(headers_cxx_probe(), 0);
}

/* This executable links no hcemu library, so weak declarations resolve to NULL instead of
 * failing the link, exactly what vendor users rely on. */
static void hccl_comm_functions_are_weak(void **state)
{
    (void)state;
    HcclResult (*get_rank_id)(HcclComm, uint32_t *) = HcclGetRankId;
    HcclResult (*destroy)(HcclComm) = HcclCommDestroy;
    const char *(*err_str)(HcclResult) = HcclGetErrorString;

    assert_true(get_rank_id == NULL);
    assert_true(destroy == NULL);
    assert_true(err_str == NULL);
}

/* hcomm 9.2 additions: the launch descriptors, send/recv items, the DFX record, the enums
 * HCCL's library switches on. */
static void hcomm_92_structs_have_vendor_layouts(void **state)
{
    (void)state;
    SIZE_IS(HcclP2pKernelParam, 8200);
    OFF_IS(HcclP2pKernelParam, opParams, 8);
    SIZE_IS(HcclOpP2pDesc, 48);
    OFF_IS(HcclOpP2pDesc, cmdType, 16);
    OFF_IS(HcclOpP2pDesc, dataType, 20);
    OFF_IS(HcclOpP2pDesc, count, 24);
    OFF_IS(HcclOpP2pDesc, remoteRank, 32);
    OFF_IS(HcclOpP2pDesc, unfoldStream, 40);
    SIZE_IS(HcclOpDesc, 360);
    OFF_IS(HcclOpDesc, opDescType, 16);
    OFF_IS(HcclOpDesc, opName, 20);
    OFF_IS(HcclOpDesc, raws, 280);
    OFF_IS(HcclOpDesc, p2p, 280);
    SIZE_IS(HcclKernelFuncInfo, 528);
    OFF_IS(HcclKernelFuncInfo, kernelFuncName, 256);
    OFF_IS(HcclKernelFuncInfo, args, 512);
    OFF_IS(HcclKernelFuncInfo, argSize, 520);
    SIZE_IS(HcclKernelLaunchCfg, 128);
    OFF_IS(HcclKernelLaunchCfg, timeOut, 16);
    OFF_IS(HcclKernelLaunchCfg, reserved, 24);
    SIZE_IS(HcclSendRecvItem, 32);
    OFF_IS(HcclSendRecvItem, buf, 8);
    OFF_IS(HcclSendRecvItem, count, 16);
    OFF_IS(HcclSendRecvItem, dataType, 24);
    OFF_IS(HcclSendRecvItem, remoteRank, 28);
    SIZE_IS(HcclDfxOpInfo, 504);
    OFF_IS(HcclDfxOpInfo, beginTime, 16);
    OFF_IS(HcclDfxOpInfo, dataCount, 56);
    OFF_IS(HcclDfxOpInfo, root, 64);
    OFF_IS(HcclDfxOpInfo, algTag, 68);
    OFF_IS(HcclDfxOpInfo, engine, 356);
    OFF_IS(HcclDfxOpInfo, cpuTsThread, 360);
    OFF_IS(HcclDfxOpInfo, inputMemAddr, 376);
    OFF_IS(HcclDfxOpInfo, reserve, 408);
    SIZE_IS(EndpointAttrBwCoeff, 4);
    SIZE_IS(EndpointAttrDieId, 4);
    SIZE_IS(EndpointAttrLocation, 4);
    SIZE_IS(HcclOpExpansionMode, 4);
    SIZE_IS(aclrtPlaceHolderInfo, 8);
}

static void hcomm_92_enums_and_constants_have_vendor_values(void **state)
{
    (void)state;
    assert_int_equal(P2P_MAX_ARG_SIZE, 8192);
    assert_int_equal(HCCL_OP_DESC_OP_NAME_MAX_LEN, 256);
    assert_int_equal(HCCL_OPDESC_MAGIC_WORD, 0x0f0f0f0f);
    assert_int_equal(HCCL_KERNEL_LAUNCH_CFG_MAGIC_WORD, 0x0f0f0f0f);
    assert_int_equal(HCCL_KERNEL_SO_NAME_MAX_LEN, 256);
    assert_int_equal(HCOMM_ALG_TAG_LENGTH, 288);
    assert_int_equal(HCCL_CONFIG_TYPE_INVALID, -1);
    assert_int_equal(HCCL_CONFIG_TYPE_OP_EXPANSION_MODE, 0);
    assert_int_equal(HCCL_CONFIG_TYPE_HCCL_ALGO, 1);
    assert_int_equal(HCCL_OP_EXPANSION_MODE_AI_CPU, 0);
    assert_int_equal(HCCL_OP_EXPANSION_MODE_AIV, 1);
    assert_int_equal(HCCL_OP_EXPANSION_MODE_HOST, 2);
    assert_int_equal(HCCL_OP_EXPANSION_MODE_CCU_SCHED, 5);
    assert_int_equal(HCCL_OP_EXPANSION_AIV_ONLY, 6);
    assert_int_equal(HCCL_COMM_STATE_PHASE_INVALID, -1);
    assert_int_equal(HCCL_COMM_STATE_PHASE_RESUME_POST, 3);
    assert_int_equal(HCCL_SEND, 0);
    assert_int_equal(HCCL_RECV, 1);
    assert_int_equal(ACL_MODEL_RI_CAPTURE_STATUS_NONE, 0);
    assert_int_equal(ACL_MODEL_RI_CAPTURE_MODE_RELAXED, 2);
    assert_int_equal(ACL_DEV_ATTR_PHY_CHIP_ID, 402);
    assert_int_equal(ACL_DEV_ATTR_SUPER_POD_ID, 405);
    assert_int_equal(HCEMU_CANN_VERSION_NUM, 90200000);
}

/* Both initialisers fill with 0xFF, then stamp the header; NULL gives HCCL_E_PTR. */
static void hcomm_92_initialisers_stamp_their_headers(void **state)
{
    HcclOpDesc d;
    HcclKernelLaunchCfg k;
    (void)state;

    assert_int_equal(HcclOpDescInit(&d), HCCL_SUCCESS);
    assert_int_equal(d.header.version, 1);
    assert_int_equal(d.header.magicWord, 0x0f0f0f0f);
    assert_int_equal(d.header.size, 360);
    assert_int_equal(d.header.reserved, 0);
    assert_int_equal(d.opDescType, 0xFFFFFFFFu);
    assert_int_equal((uint8_t)d.opName[255], 0xFF);
    assert_int_equal(HcclKernelLaunchCfgInit(&k), HCCL_SUCCESS);
    assert_int_equal(k.header.size, 128);
    assert_int_equal(k.header.magicWord, 0x0f0f0f0f);
    assert_int_equal(k.timeOut, UINT64_MAX);
    assert_int_equal(k.reserved[103], 0xFF);
    assert_int_equal(HcclOpDescInit(NULL), HCCL_E_PTR);
    assert_int_equal(HcclKernelLaunchCfgInit(NULL), HCCL_E_PTR);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hcomm_92_structs_have_vendor_layouts),
        cmocka_unit_test(hcomm_92_enums_and_constants_have_vendor_values),
        cmocka_unit_test(hcomm_92_initialisers_stamp_their_headers),
        cmocka_unit_test(acl_structs_have_vendor_sizes),
        cmocka_unit_test(acl_enums_and_macros_have_vendor_values),
        cmocka_unit_test(acl_error_codes_have_vendor_values),
        cmocka_unit_test(resource_structs_have_vendor_layouts),
        cmocka_unit_test(channel_desc_has_vendor_layout),
        cmocka_unit_test(comm_link_has_vendor_layout),
        cmocka_unit_test(comm_config_has_vendor_layout),
        cmocka_unit_test(batch_transfer_desc_has_vendor_layout),
        cmocka_unit_test(resource_enums_have_vendor_values),
        cmocka_unit_test(hccl_enums_have_vendor_values),
        cmocka_unit_test(endpoint_desc_init_fills_ff_and_checks_null_per_element),
        cmocka_unit_test(thread_config_init_zeroes_and_rejects_null_even_for_zero),
        cmocka_unit_test(channel_desc_init_sets_vendor_bytes),
        cmocka_unit_test(comm_link_init_sets_header_reserved_protocol_and_hop_one),
        cmocka_unit_test(comm_config_init_sets_vendor_defaults),
        cmocka_unit_test(cxx_build_of_initialisers_matches_c_bytes),
        cmocka_unit_test(every_translation_unit_links_and_probes_ok),
        cmocka_unit_test(hccl_comm_functions_are_weak),
    };
    return cmocka_run_group_tests_name("headers", tests, NULL, NULL);
}
