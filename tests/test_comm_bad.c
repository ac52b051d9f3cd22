/* test_comm_bad.c - every HCCL control-plane call with bad input: each must return the
 * documented code and log exactly one error line naming the call (and the rank, once there is
 * a communicator), and never crash. Uses a 2-rank communicator made by HcclCommInitAll. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hccl_res_expt.h>

#include "test_comm_util.h"

static char job[CU_PATH];
static HcclComm comms[2];
static HcclComm comm; /* rank 0, on device 0 */

/* `call` must return `code` with exactly one error line containing n1 and n2. */
#define EXPECT_BAD(call, code, n1, n2)                                                             \
    do {                                                                                           \
        struct cu_capture cap_;                                                                    \
        cu_capture_begin(&cap_);                                                                   \
        HcclResult rc_ = (call);                                                                   \
        cu_capture_end(&cap_);                                                                     \
        if (rc_ != (code))                                                                         \
            fail_msg("%s returned %d, expected %d; log:\n%s", #call, rc_, code, cap_.text);        \
        cu_assert_one_error(&cap_, n1, n2);                                                        \
    } while (0)

static void communicator_calls_refuse_bad_input(void **state)
{
    HcclRootInfo ri, bad;
    HcclComm c;
    uint32_t v;
    char name[COMM_NAME_MAX_LENGTH];
    HcclResult err;
    (void)state;

    EXPECT_BAD(HcclGetRootInfo(NULL), HCCL_E_PTR, "HcclGetRootInfo", "rootInfo");
    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    EXPECT_BAD(HcclCommInitRootInfo(0, &ri, 0, &c), HCCL_E_PARA, "HcclCommInitRootInfo",
               "nRanks 0");
    EXPECT_BAD(HcclCommInitRootInfo(257, &ri, 0, &c), HCCL_E_PARA, "nRanks 257", NULL);
    EXPECT_BAD(HcclCommInitRootInfo(2, &ri, 2, &c), HCCL_E_PARA, "rank 2 is not below", NULL);
    EXPECT_BAD(HcclCommInitRootInfo(2, NULL, 0, &c), HCCL_E_PTR, "ri is NULL", NULL);
    EXPECT_BAD(HcclCommInitRootInfo(2, &ri, 0, NULL), HCCL_E_PTR, "comm is NULL", NULL);
    memset(&bad, 0x5A, sizeof(bad));
    EXPECT_BAD(HcclCommInitRootInfo(2, &bad, 0, &c), HCCL_E_PARA, "rank 0",
               "not filled by HcclGetRootInfo");
    bad = ri;
    uint32_t other_uid = (uint32_t)getuid() + 1;
    memcpy(bad.internal + 12, &other_uid, sizeof(other_uid)); /* emu_root_info.uid */
    EXPECT_BAD(HcclCommInitRootInfo(2, &bad, 0, &c), HCCL_E_PARA, "only the same user", NULL);

    HcclCommConfig cfg;
    EXPECT_BAD(HcclCommInitRootInfoConfig(1, &ri, 0, NULL, &c), HCCL_E_PTR, "cfg is NULL", NULL);
    memset(&cfg, 0, sizeof(cfg));
    EXPECT_BAD(HcclCommInitRootInfoConfig(1, &ri, 0, &cfg, &c), HCCL_E_PARA,
               "HcclCommInitRootInfoConfig", "HcclCommConfigInit");
    HcclCommConfigInit(&cfg);
    cfg.hcclBufferSize = 0;
    EXPECT_BAD(HcclCommInitRootInfoConfig(1, &ri, 0, &cfg, &c), HCCL_E_PARA, "hcclBufferSize",
               NULL);
    HcclCommConfigInit(&cfg);
    memset(cfg.hcclCommName, 'x', sizeof(cfg.hcclCommName));
    EXPECT_BAD(HcclCommInitRootInfoConfig(1, &ri, 0, &cfg, &c), HCCL_E_PARA, "hcclCommName", NULL);
    HcclCommConfigInit(&cfg);
    cfg.hcclExecTimeOut = -5;
    EXPECT_BAD(HcclCommInitRootInfoConfig(1, &ri, 0, &cfg, &c), HCCL_E_PARA, "hcclExecTimeOut",
               NULL);

    int32_t devs[2] = {0, 0}, far[1] = {99};
    HcclComm out[2];
    EXPECT_BAD(HcclCommInitAll(0, devs, out), HCCL_E_PARA, "HcclCommInitAll", "ndev 0");
    EXPECT_BAD(HcclCommInitAll(2, devs, out), HCCL_E_PARA, "listed twice", NULL);
    EXPECT_BAD(HcclCommInitAll(1, far, out), HCCL_E_PARA, "devices[0] = 99", NULL);
    EXPECT_BAD(HcclCommInitAll(1, NULL, out), HCCL_E_PTR, "devices is NULL", NULL);

    EXPECT_BAD(HcclCommDestroy(NULL), HCCL_E_PTR, "HcclCommDestroy", "comm is NULL");
    EXPECT_BAD(HcclCommDestroy((HcclComm)&ri), HCCL_E_PARA, "not a live communicator", NULL);
    EXPECT_BAD(HcclGetRankId(comm, NULL), HCCL_E_PTR, "HcclGetRankId: rank 0", "rank is NULL");
    EXPECT_BAD(HcclGetRankSize(NULL, &v), HCCL_E_PTR, "HcclGetRankSize", "comm is NULL");
    EXPECT_BAD(HcclGetCommName(comm, NULL), HCCL_E_PTR, "commName is NULL", NULL);
    EXPECT_BAD(HcclCommGetHandleWithName("no-such-comm", &c), HCCL_E_NOT_FOUND, "no-such-comm",
               NULL);
    EXPECT_BAD(HcclCommGetHandleWithName(NULL, &c), HCCL_E_PTR, "commName is NULL", NULL);
    EXPECT_BAD(HcclGetCommAsyncError(comm, NULL), HCCL_E_PTR, "asyncError is NULL", NULL);
    assert_int_equal(HcclGetCommName(comm, name), HCCL_SUCCESS);
    assert_int_equal(HcclGetCommAsyncError(comm, &err), HCCL_SUCCESS);
    assert_string_equal(HcclGetErrorString(HCCL_E_TIMEOUT), "timeout");
    assert_string_equal(HcclGetErrorString((HcclResult)999), "unknown HcclResult");
}

static void destroyed_comm_is_refused_everywhere(void **state)
{
    HcclRootInfo ri;
    HcclComm c;
    uint32_t v;
    (void)state;

    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    assert_int_equal(HcclCommInitRootInfo(1, &ri, 0, &c), HCCL_SUCCESS);
    assert_int_equal(HcclCommDestroy(c), HCCL_SUCCESS);
    EXPECT_BAD(HcclGetRankId(c, &v), HCCL_E_PARA, "not a live communicator", NULL);
    EXPECT_BAD(HcclCommDestroy(c), HCCL_E_PARA, "not a live communicator", NULL);
}

static void cluster_info_refuses_bad_tables(void **state)
{
    char path[CU_PATH];
    HcclComm c;
    (void)state;

    EXPECT_BAD(HcclCommInitClusterInfo(NULL, 0, &c), HCCL_E_PTR, "HcclCommInitClusterInfo",
               "path is NULL");
    EXPECT_BAD(HcclCommInitClusterInfo("/nonexistent/rt.json", 0, &c), HCCL_E_OPEN_FILE_FAILURE,
               "cannot read rank table", NULL);
    cu_write(job, "bad.json", "{not json", path, sizeof(path));
    EXPECT_BAD(HcclCommInitClusterInfo(path, 0, &c), HCCL_E_OPEN_FILE_FAILURE, "is not JSON", NULL);
    cu_write(job, "bad.json", "{\"version\": \"9.9\", \"server_list\": []}", path, sizeof(path));
    EXPECT_BAD(HcclCommInitClusterInfo(path, 0, &c), HCCL_E_PARA, "\"version\"", NULL);
    cu_write(job, "bad.json",
             "{\"version\": \"1.0\", \"server_list\": [{\"server_id\": \"a\", \"device\": ["
             "{\"device_id\": \"0\", \"rank_id\": \"0\"}, {\"device_id\": \"1\", \"rank_id\": "
             "\"0\"}]}]}",
             path, sizeof(path));
    EXPECT_BAD(HcclCommInitClusterInfo(path, 0, &c), HCCL_E_PARA, "appears twice", NULL);
    cu_write(job, "bad.json",
             "{\"version\": \"1.0\", \"server_list\": [{\"server_id\": \"a\", \"device\": ["
             "{\"device_id\": \"0\", \"rank_id\": \"0\"}]}]}",
             path, sizeof(path));
    EXPECT_BAD(HcclCommInitClusterInfo(path, 3, &c), HCCL_E_PARA, "no device with rank_id 3", NULL);
    cu_write(job, "bad.json",
             "{\"version\": \"1.0\", \"server_count\": \"2\", \"server_list\": [{\"server_id\": "
             "\"a\", \"device\": [{\"device_id\": \"0\", \"rank_id\": \"0\"}]}]}",
             path, sizeof(path));
    EXPECT_BAD(HcclCommInitClusterInfo(path, 0, &c), HCCL_E_PARA, "server_count", NULL);
    unlink(path);
}

static void rank_graph_queries_refuse_bad_input(void **state)
{
    uint32_t *arr, n, num;
    CommTopo t;
    CommLink *l;
    EndpointDesc eps[4];
    uint32_t info;
    (void)state;

    EXPECT_BAD(HcclRankGraphGetLayers(comm, NULL, &n), HCCL_E_PTR, "HcclRankGraphGetLayers",
               "netLayers is NULL");
    EXPECT_BAD(HcclRankGraphGetRanksByLayer(comm, 5, &arr, &n), HCCL_E_PARA, "layer 5", NULL);
    EXPECT_BAD(HcclRankGraphGetRankSizeByLayer(comm, 1, &n), HCCL_E_PARA, "layer 1", NULL);
    EXPECT_BAD(HcclRankGraphGetTopoTypeByLayer(comm, 0, NULL), HCCL_E_PTR, "topoType", NULL);
    EXPECT_BAD(HcclRankGraphGetInstSizeListByLayer(comm, 3, &arr, &n), HCCL_E_PARA, "layer 3",
               NULL);
    EXPECT_BAD(HcclRankGraphGetLinks(comm, 0, 0, 0, &l, &n), HCCL_E_PARA, "must differ", NULL);
    EXPECT_BAD(HcclRankGraphGetLinks(comm, 0, 0, 9, &l, &n), HCCL_E_PARA, "rank 9", NULL);
    EXPECT_BAD(HcclRankGraphGetTopoInstsByLayer(comm, 0, NULL, &n), HCCL_E_PTR, "topoInsts", NULL);
    EXPECT_BAD(HcclRankGraphGetTopoType(comm, 0, 77, &t), HCCL_E_PARA, "no instance 77", NULL);
    EXPECT_BAD(HcclRankGraphGetRanksByTopoInst(comm, 0, 77, &arr, &n), HCCL_E_PARA,
               "no instance 77", NULL);
    EXPECT_BAD(HcclGetHeterogMode(comm, NULL), HCCL_E_PTR, "mode is NULL", NULL);
    EXPECT_BAD(HcclRankGraphGetEndpointNum(comm, 0, 3, &num), HCCL_E_PARA, "no instance 3", NULL);
    num = 1;
    EXPECT_BAD(HcclRankGraphGetEndpointDesc(comm, 0, 0, &num, eps), HCCL_E_PARA, "*descNum is 1",
               NULL);
    num = 4;
    assert_int_equal(HcclRankGraphGetEndpointDesc(comm, 0, 0, &num, eps), HCCL_SUCCESS);
    assert_int_equal(num, 2);
    EXPECT_BAD(HcclRankGraphGetEndpointInfo(comm, 9, &eps[0], ENDPOINT_ATTR_BW_COEFF, 4, &info),
               HCCL_E_PARA, "rankId 9", NULL);
    EXPECT_BAD(HcclRankGraphGetEndpointInfo(comm, 0, &eps[0], ENDPOINT_ATTR_BW_COEFF, 3, &info),
               HCCL_E_PARA, "infoLen is 3", NULL);
    EXPECT_BAD(HcclRankGraphGetEndpointInfo(comm, 0, &eps[0], (EndpointAttr)9, 4, &info),
               HCCL_E_PARA, "attribute 9", NULL);
    EXPECT_BAD(HcclRankGraphGetEndpointInfo(comm, 0, &eps[1], ENDPOINT_ATTR_DIE_ID, 4, &info),
               HCCL_E_PARA, "not an endpoint of rank 0", NULL);
    assert_int_equal(
        HcclRankGraphGetEndpointInfo(comm, 1, &eps[1], ENDPOINT_ATTR_BW_COEFF, 4, &info),
        HCCL_SUCCESS);
}

static void thread_calls_refuse_bad_input(void **state)
{
    ThreadHandle th[2], out, foreign;
    ThreadConfig cfg[1];
    aclrtStream st, other, gone;
    void *info;
    (void)state;

    EXPECT_BAD(HcclThreadAcquire(comm, COMM_ENGINE_AIV, 1, 1, th), HCCL_E_PARA,
               "HcclThreadAcquire: rank 0", "engine AIV");
    EXPECT_BAD(HcclThreadAcquire(comm, (CommEngine)42, 1, 1, th), HCCL_E_PARA, "engine", NULL);
    EXPECT_BAD(HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 0, 1, th), HCCL_E_PARA, "threadNum 0",
               NULL);
    EXPECT_BAD(HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 5000, 1, th), HCCL_E_PARA,
               "threadNum 5000", NULL);
    EXPECT_BAD(HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 1, 65536, th), HCCL_E_PARA,
               "notifyNumPerThread 65536", NULL);
    EXPECT_BAD(HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 1, 1, NULL), HCCL_E_PTR,
               "threads is NULL", NULL);
    EXPECT_BAD(HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 2, 40000, th), HCCL_E_UNAVAIL, "pool",
               NULL);

    ThreadConfigInit(cfg, 1);
    EXPECT_BAD(HcclThreadAcquireWithConfig(comm, COMM_ENGINE_AICPU_TS, 1, THREAD_TYPE_TS, cfg, th),
               HCCL_E_PARA, "HcclThreadAcquireWithConfig", "CPU or AICPU");
    EXPECT_BAD(
        HcclThreadAcquireWithConfig(comm, COMM_ENGINE_AICPU, 1, THREAD_TYPE_INVALID, cfg, th),
        HCCL_E_PARA, "THREAD_TYPE_TS", NULL);
    EXPECT_BAD(HcclThreadAcquireWithConfig(comm, COMM_ENGINE_AICPU, 1, THREAD_TYPE_TS, NULL, th),
               HCCL_E_PTR, "config is NULL", NULL);
    memset(cfg, 0, sizeof(cfg));
    EXPECT_BAD(HcclThreadAcquireWithConfig(comm, COMM_ENGINE_AICPU, 1, THREAD_TYPE_TS, cfg, th),
               HCCL_E_PARA, "ThreadConfigInit", NULL);

    assert_int_equal(aclrtCreateStream(&st), ACL_SUCCESS);
    EXPECT_BAD(HcclThreadAcquireWithStream(comm, COMM_ENGINE_CPU_TS, NULL, 1, th), HCCL_E_PTR,
               "HcclThreadAcquireWithStream", "stream is NULL");
    EXPECT_BAD(HcclThreadAcquireWithStream(comm, COMM_ENGINE_AICPU_TS, st, 1, th), HCCL_E_PARA,
               "CPU, CPU_TS or CCU", NULL);
    EXPECT_BAD(HcclThreadAcquireWithStream(comm, COMM_ENGINE_CPU_TS, st, 70000, th), HCCL_E_PARA,
               "notifyNum 70000", NULL);
    assert_int_equal(aclrtCreateStream(&gone), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(gone), ACL_SUCCESS);
    EXPECT_BAD(HcclThreadAcquireWithStream(comm, COMM_ENGINE_CPU_TS, gone, 1, th), HCCL_E_PARA,
               "not a live stream", NULL);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&other), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    EXPECT_BAD(HcclThreadAcquireWithStream(comm, COMM_ENGINE_CPU_TS, other, 1, th), HCCL_E_PARA,
               "is on device 1", NULL);

    EXPECT_BAD(HcclDedicatedThreadAcquire(comm, HCCL_DED_THREAD_TYPE_INVALID, 1, th), HCCL_E_PARA,
               "HcclDedicatedThreadAcquire", "useType -1");
    EXPECT_BAD(HcclDedicatedThreadAcquire(comm, HCCL_DED_THREAD_TYPE_AICPU_LAUNCH, 65, th),
               HCCL_E_PARA, "above 64", NULL);
    EXPECT_BAD(HcclDedicatedThreadAcquire(comm, HCCL_DED_THREAD_TYPE_AICPU_LAUNCH, 1, NULL),
               HCCL_E_PTR, "thread is NULL", NULL);
    assert_int_equal(HcclDedicatedThreadAcquire(comm, HCCL_DED_THREAD_TYPE_AICPU_LAUNCH, 1, &out),
                     HCCL_SUCCESS);
    assert_int_equal(HcclDedicatedThreadAcquire(comm, HCCL_DED_THREAD_TYPE_AICPU_LAUNCH, 4, th),
                     HCCL_SUCCESS);
    assert_true(th[0] == out); /* cached, topped up */
    assert_int_equal(HcclDedicatedThreadAcquire(comm, HCCL_DED_THREAD_TYPE_AICPU_LAUNCH_GE, 1, th),
                     HCCL_SUCCESS);
    assert_true(th[0] == 0);

    assert_int_equal(HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 2, 1, th), HCCL_SUCCESS);
    assert_int_equal(HcclThreadAcquire(comms[1], COMM_ENGINE_AICPU_TS, 1, 1, &foreign),
                     HCCL_SUCCESS);
    EXPECT_BAD(HcclThreadExportToCommEngine(comm, 0, th, COMM_ENGINE_CPU_TS, &out), HCCL_E_PARA,
               "HcclThreadExportToCommEngine", "threadNum 0");
    EXPECT_BAD(HcclThreadExportToCommEngine(comm, 41, th, COMM_ENGINE_CPU_TS, &out), HCCL_E_PARA,
               "threadNum 41", NULL);
    EXPECT_BAD(HcclThreadExportToCommEngine(comm, 1, th, COMM_ENGINE_AIV, &out), HCCL_E_PARA,
               "dstCommEngine AIV", NULL);
    EXPECT_BAD(HcclThreadExportToCommEngine(comm, 1, NULL, COMM_ENGINE_CPU_TS, &out), HCCL_E_PTR,
               "threads is NULL", NULL);
    ThreadHandle junk = 0x1234;
    EXPECT_BAD(HcclThreadExportToCommEngine(comm, 1, &junk, COMM_ENGINE_CPU_TS, &out),
               HCCL_E_NOT_FOUND, "not a thread of this communicator", NULL);
    EXPECT_BAD(HcclThreadExportToCommEngine(comm, 1, &foreign, COMM_ENGINE_CPU_TS, &out),
               HCCL_E_NOT_FOUND, "not a thread of this communicator", NULL);

    EXPECT_BAD(HcclThreadResGetInfo(comm, th[0], THREAD_RES_TYPE_INVALID, 8, &info),
               HCCL_E_NOT_SUPPORT, "HcclThreadResGetInfo", "THREAD_RES_TYPE_STREAM");
    EXPECT_BAD(HcclThreadResGetInfo(comm, th[0], THREAD_RES_TYPE_STREAM, 4, &info), HCCL_E_PARA,
               "infoLen 4", NULL);
    EXPECT_BAD(HcclThreadResGetInfo(comm, junk, THREAD_RES_TYPE_STREAM, 8, &info), HCCL_E_NOT_FOUND,
               "not a thread", NULL);
    EXPECT_BAD(HcclThreadResGetInfo(comm, th[0], THREAD_RES_TYPE_STREAM, 8, &info),
               HCCL_E_NOT_SUPPORT, "AICPU_TS thread", NULL);
    EXPECT_BAD(HcclThreadResGetInfo(comm, th[0], THREAD_RES_TYPE_STREAM, 8, NULL), HCCL_E_PTR,
               "info is NULL", NULL);
    assert_int_equal(aclrtDestroyStream(st), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
    assert_int_equal(aclrtDestroyStream(other), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
}

static void desc_to_1(HcclChannelDesc *d)
{
    assert_int_equal(cu_desc_to(comm, 0, 1, COMM_PROTOCOL_UB_CTP, 2, d), HCCL_SUCCESS);
}

static void channel_calls_refuse_bad_input(void **state)
{
    HcclChannelDesc d;
    ChannelHandle ch;
    HcclMemHandle junk = (HcclMemHandle)&d;
    (void)state;

    desc_to_1(&d);
    EXPECT_BAD(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, NULL, 1, &ch), HCCL_E_PTR,
               "HcclChannelAcquire: rank 0", "descs is NULL");
    EXPECT_BAD(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &d, 0, &ch), HCCL_E_PARA,
               "channelNum 0", NULL);
    EXPECT_BAD(HcclChannelAcquire(comm, (CommEngine)9, &d, 1, &ch), HCCL_E_PARA, "not a CommEngine",
               NULL);
    HcclChannelDesc raw;
    memset(&raw, 0, sizeof(raw));
    EXPECT_BAD(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &raw, 1, &ch), HCCL_E_PARA,
               "HcclChannelDescInit", NULL);
    d.remoteRank = 0;
    EXPECT_BAD(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch), HCCL_E_PARA,
               "no channel to self", NULL);
    d.remoteRank = 5;
    EXPECT_BAD(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch), HCCL_E_PARA,
               "remoteRank 5 is not a rank", NULL);
    desc_to_1(&d);
    d.channelProtocol = COMM_PROTOCOL_RESERVED;
    EXPECT_BAD(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch), HCCL_E_PARA, "RESERVED",
               NULL);
    d.channelProtocol = COMM_PROTOCOL_HCCS;
    EXPECT_BAD(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch), HCCL_E_NOT_SUPPORT,
               "Atlas 350", "no HCCS channels");
    d.channelProtocol = COMM_PROTOCOL_ROCE;
    EXPECT_BAD(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch), HCCL_E_NOT_SUPPORT,
               "no ROCE channels to the AICPU_TS engine", NULL);
    d.channelProtocol = COMM_PROTOCOL_UBOE;
    EXPECT_BAD(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch), HCCL_E_PARA,
               "no UBOE link between rank 0 and rank 1", NULL);
    desc_to_1(&d);
    d.notifyNum = 65;
    EXPECT_BAD(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch), HCCL_E_PARA,
               "notifyNum 65", NULL);
    desc_to_1(&d);
    d.memHandleNum = 1;
    EXPECT_BAD(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch), HCCL_E_PTR,
               "memHandles is NULL", NULL);
    d.memHandles = &junk;
    EXPECT_BAD(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch), HCCL_E_PARA,
               "not a memory registered", NULL);
    desc_to_1(&d);
    d.localEndpoint = d.remoteEndpoint;
    EXPECT_BAD(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch), HCCL_E_PARA,
               "localEndpoint", NULL);

    HcclChannelConfig cfg;
    EXPECT_BAD(HcclChannelConfigCreate(NULL), HCCL_E_PARA, "HcclChannelConfigCreate", NULL);
    assert_int_equal(HcclChannelConfigCreate(&cfg), HCCL_SUCCESS);
    EXPECT_BAD(HcclChannelConfigSetInt(cfg, HCCL_CHANNEL_CONFIG_TYPE_SHARED_QUEUE_TAG, 1),
               HCCL_E_PARA, "HcclChannelConfigSetInt", "not an integer setting");
    EXPECT_BAD(HcclChannelConfigSetStr(cfg, HCCL_CHANNEL_CONFIG_TYPE_SHARED_QUEUE_TAG, NULL),
               HCCL_E_PARA, "value is NULL", NULL);
    char longtag[300];
    memset(longtag, 't', sizeof(longtag) - 1);
    longtag[sizeof(longtag) - 1] = '\0';
    EXPECT_BAD(HcclChannelConfigSetStr(cfg, HCCL_CHANNEL_CONFIG_TYPE_SHARED_QUEUE_TAG, longtag),
               HCCL_E_PARA, "longer than 254", NULL);
    EXPECT_BAD(
        HcclChannelConfigSetInt((HcclChannelConfig)&d, HCCL_CHANNEL_CONFIG_TYPE_IS_SHARED_QUEUE, 1),
        HCCL_E_PARA, "not a live channel config", NULL);
    assert_int_equal(HcclChannelConfigSetInt(cfg, HCCL_CHANNEL_CONFIG_TYPE_IS_SHARED_QUEUE, 1),
                     HCCL_SUCCESS);
    EXPECT_BAD(HcclChannelAcquireWithConfig(comm, COMM_ENGINE_AICPU_TS, &d, 1, cfg, &ch),
               HCCL_E_PARA, "HcclChannelAcquireWithConfig", "for the AIV engine");
    EXPECT_BAD(
        HcclChannelAcquireWithConfig(comm, COMM_ENGINE_AICPU_TS, &d, 1, (HcclChannelConfig)&d, &ch),
        HCCL_E_PARA, "not a live channel config", NULL);
    assert_int_equal(HcclChannelConfigDestroy(cfg), HCCL_SUCCESS);
    assert_int_equal(HcclChannelConfigDestroy(NULL), HCCL_SUCCESS);
    EXPECT_BAD(HcclChannelConfigDestroy(cfg), HCCL_E_PARA, "HcclChannelConfigDestroy", NULL);

    EXPECT_BAD(HcclChannelQuery(comm, COMM_ENGINE_AICPU_TS, &d, 1, NULL), HCCL_E_PTR,
               "HcclChannelQuery", "channels is NULL");
    ch = 0x77;
    EXPECT_BAD(HcclChannelDestroy(comm, &ch, 1), HCCL_E_NOT_FOUND, "HcclChannelDestroy",
               "not a channel of this communicator");
    EXPECT_BAD(HcclChannelDestroy(comm, &ch, 0), HCCL_E_PARA, "channelNum 0", NULL);
    void *buf;
    uint64_t size;
    uint32_t nm;
    CommMem *mems;
    char **tags;
    EXPECT_BAD(HcclChannelGetHcclBuffer(comm, ch, &buf, &size), HCCL_E_NOT_FOUND,
               "HcclChannelGetHcclBuffer", "0x77");
    EXPECT_BAD(HcclChannelGetHcclBuffer(comm, ch, NULL, &size), HCCL_E_PTR, "buffer is NULL", NULL);
    EXPECT_BAD(HcclChannelGetRemoteMems(comm, ch, &nm, &mems, &tags), HCCL_E_NOT_FOUND,
               "HcclChannelGetRemoteMems", NULL);
}

static void memory_calls_refuse_bad_input(void **state)
{
    void *ctx, *mem;
    uint64_t size;
    char longtag[300];
    uint8_t src[8] = {0};
    HcclMemHandle h;
    struct cu_capture cap;
    (void)state;

    memset(longtag, 't', sizeof(longtag) - 1);
    longtag[sizeof(longtag) - 1] = '\0';
    EXPECT_BAD(HcclGetHcclBuffer(comm, NULL, &size), HCCL_E_PTR, "HcclGetHcclBuffer",
               "buffer is NULL");
    EXPECT_BAD(HcclEngineCtxCreate(comm, "t", COMM_ENGINE_AICPU_TS, 0, &ctx), HCCL_E_PARA,
               "HcclEngineCtxCreate: rank 0", "size is 0");
    EXPECT_BAD(HcclEngineCtxCreate(comm, longtag, COMM_ENGINE_AICPU_TS, 8, &ctx), HCCL_E_PARA,
               "ctxTag is longer", NULL);
    EXPECT_BAD(HcclEngineCtxCreate(comm, "t", (CommEngine)9, 8, &ctx), HCCL_E_PARA,
               "not a CommEngine", NULL);
    EXPECT_BAD(HcclEngineCtxCreate(comm, "t", COMM_ENGINE_AICPU_TS, 8, NULL), HCCL_E_PTR,
               "ctx is NULL", NULL);
    assert_int_equal(HcclEngineCtxCreate(comm, "t", COMM_ENGINE_AICPU_TS, 8, &ctx), 0);
    EXPECT_BAD(HcclEngineCtxCreate(comm, "t", COMM_ENGINE_AICPU_TS, 8, &ctx), HCCL_E_PARA,
               "already exists", NULL);
    cu_capture_begin(&cap);
    HcclResult rc = HcclEngineCtxGet(comm, "missing", COMM_ENGINE_AICPU_TS, &ctx, &size);
    cu_capture_end(&cap);
    assert_int_equal(rc, HCCL_E_NOT_FOUND);
    assert_int_equal(cap.errors, 0); /* the operators' cache-miss test stays silent */
    EXPECT_BAD(HcclEngineCtxCopy(comm, COMM_ENGINE_AICPU_TS, "missing", src, 8, 0),
               HCCL_E_NOT_FOUND, "HcclEngineCtxCopy", "no engine context");
    EXPECT_BAD(HcclEngineCtxCopy(comm, COMM_ENGINE_AICPU_TS, "t", src, 8, 4), HCCL_E_PARA,
               "overruns", NULL);
    EXPECT_BAD(HcclEngineCtxCopy(comm, COMM_ENGINE_AICPU_TS, "t", src, 0, 0), HCCL_E_PARA,
               "size is 0", NULL);
    EXPECT_BAD(HcclEngineCtxCopy(comm, COMM_ENGINE_AICPU_TS, "t", NULL, 8, 0), HCCL_E_PTR,
               "srcCtx is NULL", NULL);
    EXPECT_BAD(HcclEngineCtxDestroy(comm, "missing", COMM_ENGINE_CPU_TS), HCCL_E_PARA,
               "HcclEngineCtxDestroy", "no engine context");
    assert_int_equal(HcclEngineCtxDestroy(comm, "t", COMM_ENGINE_AICPU_TS), 0);

    assert_int_equal(aclrtMalloc(&mem, 256, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    CommMem m = {COMM_MEM_TYPE_DEVICE, mem, 256};
    EXPECT_BAD(HcclCommMemReg(comm, "m", NULL, &h), HCCL_E_PTR, "HcclCommMemReg", "mem is NULL");
    EXPECT_BAD(HcclCommMemReg(comm, longtag, &m, &h), HCCL_E_PARA, "memTag is longer", NULL);
    CommMem z = {COMM_MEM_TYPE_DEVICE, NULL, 256};
    EXPECT_BAD(HcclCommMemReg(comm, "m", &z, &h), HCCL_E_PARA, "mem->addr is NULL", NULL);
    z = (CommMem){COMM_MEM_TYPE_DEVICE, mem, 0};
    EXPECT_BAD(HcclCommMemReg(comm, "m", &z, &h), HCCL_E_PARA, "mem->size is 0", NULL);
    z = (CommMem){COMM_MEM_TYPE_HOST, src, 8};
    EXPECT_BAD(HcclCommMemReg(comm, "m", &z, &h), HCCL_E_NOT_SUPPORT, "COMM_MEM_TYPE_DEVICE", NULL);
    z = (CommMem){COMM_MEM_TYPE_DEVICE, src, 8};
    EXPECT_BAD(HcclCommMemReg(comm, "m", &z, &h), HCCL_E_PARA, "not inside one allocation", NULL);
    z = (CommMem){COMM_MEM_TYPE_DEVICE, mem, 512};
    EXPECT_BAD(HcclCommMemReg(comm, "m", &z, &h), HCCL_E_PARA, "not inside one allocation", NULL);
    assert_int_equal(HcclCommMemReg(comm, "m", &m, &h), HCCL_SUCCESS);
    EXPECT_BAD(HcclCommMemReg(comm, "m", &m, &h), HCCL_E_PARA, "already registered", NULL);
    assert_int_equal(aclrtFree(mem), ACL_SUCCESS);
}

static int setup(void **state)
{
    int32_t devs[2] = {0, 1};
    (void)state;

    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        HcclCommInitAll(2, devs, comms) != HCCL_SUCCESS)
        return -1;
    comm = comms[0];
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    HcclCommDestroy(comms[0]);
    HcclCommDestroy(comms[1]);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(communicator_calls_refuse_bad_input),
        cmocka_unit_test(destroyed_comm_is_refused_everywhere),
        cmocka_unit_test(cluster_info_refuses_bad_tables),
        cmocka_unit_test(rank_graph_queries_refuse_bad_input),
        cmocka_unit_test(thread_calls_refuse_bad_input),
        cmocka_unit_test(channel_calls_refuse_bad_input),
        cmocka_unit_test(memory_calls_refuse_bad_input),
    };
    cu_tmpdir(job, sizeof(job));
    setenv("HCEMU_JOB_PATH", job, 1);
    setenv("HCEMU_DEVICES", "2", 1);
    setenv("HCEMU_DEVICE_MEM_GB", "1", 1);
    setenv("HCCL_BUFFSIZE", "2", 1);
    setenv("HCCL_CONNECT_TIMEOUT", "10", 1);
    unsetenv("HCEMU_RANK");
    unsetenv("HCEMU_TOPOLOGY");
    unsetenv("HCEMU_SOC");
    int rc = cmocka_run_group_tests_name("comm_bad", tests, setup, teardown);
    int left = cu_wait_executors_gone(job, 5000);
    cu_rmtree(job);
    return left != 0 ? 1 : rc;
}
