/* test_ranktable.c - the rank-table forms of HcclCommInitClusterInfo: the 950 rank_list form
 * (version 2.0 with rank_count / rank_list / level_list, one server and the two-server
 * super-pod shape), version 1.2 with super_pod_list, version 2.0 written with server_list;
 * each builds its communicator and the rank graph follows the table (servers, super pods,
 * addresses, super device ids). Then one bad field at a time: each is refused with
 * HCCL_E_PARA and one error line naming the field. */
#include <arpa/inet.h>
#include <pthread.h>
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
#include <hccl/hccl_rank_graph.h>

#include "test_comm_util.h"

static char job[CU_PATH];

/* The hcomm sample's shape: two ranks of one server (rack). */
static const char v2_two[] =
    "{\"version\": \"2.0\", \"rank_count\": 2, \"status\": \"completed\", \"rank_list\": [\n"
    " {\"rank_id\": 0, \"device_id\": 0, \"local_id\": 0, \"level_list\": [\n"
    "  {\"net_layer\": 0, \"net_instance_id\": \"az0-rack0\", \"net_type\": \"TOPO_FILE_DESC\",\n"
    "   \"net_attr\": \"\", \"rank_addr_list\": [{\"addr_type\": \"IPV4\", \"addr\": "
    "\"223.0.0.10\",\n"
    "   \"ports\": [\"0/0\"]}]}]},\n"
    " {\"rank_id\": 1, \"local_id\": 1, \"device_id\": 1, \"level_list\": [\n"
    "  {\"net_layer\": 0, \"net_instance_id\": \"az0-rack0\", \"net_type\": \"TOPO_FILE_DESC\",\n"
    "   \"net_attr\": \"\", \"rank_addr_list\": [{\"addr_type\": \"IPV4\", \"addr\": "
    "\"223.0.0.28\",\n"
    "   \"ports\": [\"0/1\"]}]}]}]}\n";

/* Two servers (net_layer 0 instances pod0, pod1) under one net_layer 1 instance; rank_list
 * not in rank order, EID addresses at layer 0 and IPv4 at layer 1. */
#define V2_RANK(id, dev, pod, eid, ip)                                                             \
    " {\"rank_id\": " #id ", \"device_id\": " #dev ", \"local_id\": " #dev                         \
    ", \"device_port\": 16666, \"host_port\": 6000" #id ", \"level_list\": [\n"                    \
    "  {\"net_layer\": 0, \"net_instance_id\": \"" pod "\", \"net_type\": \"TOPO_FILE_DESC\",\n"   \
    "   \"rank_addr_list\": [{\"addr_type\": \"EID\", \"addr\": \"" eid "\", \"ports\": "          \
    "[\"0/4\", \"0/5\"], \"plane_id\": \"plane0\"}]},\n"                                           \
    "  {\"net_layer\": 1, \"net_instance_id\": \"az0\", \"net_type\": \"CLOS\", \"net_attr\": "    \
    "\"\",\n"                                                                                      \
    "   \"rank_addr_list\": [{\"addr_type\": \"IPV4\", \"addr\": \"" ip "\", \"ports\": "          \
    "[\"1/5\"], \"backup_addr\": [\"172.16.9.9\"]}]}]}"
static const char v2_pods[] =
    "{\"version\": \"2.0\", \"rank_count\": 4, \"detour\": \"false\", \"rank_list\": [\n" V2_RANK(
        2, 0, "pod1", "000000000000000000100000dfdf0030",
        "172.16.1.15") ",\n" V2_RANK(0, 0, "pod0", "000000000000000000100000dfdf0020",
                                     "172.16.0.15") ",\n" V2_RANK(1, 1, "pod0",
                                                                  "000000000000000000100000dfdf002"
                                                                  "1",
                                                                  "172.16.0.33") ",\n" V2_RANK(3, 1,
                                                                                               "pod"
                                                                                               "1",
                                                                                               "000"
                                                                                               "000"
                                                                                               "000"
                                                                                               "000"
                                                                                               "000"
                                                                                               "000"
                                                                                               "100"
                                                                                               "000"
                                                                                               "dfd"
                                                                                               "f00"
                                                                                               "31",
                                                                                               "172"
                                                                                               ".16"
                                                                                               ".1."
                                                                                               "33") "]}\n";

/* Version 1.2: two servers of two devices, each server its own super pod. */
static const char v12_pods[] =
    "{\"status\": \"completed\", \"version\": \"1.2\", \"server_count\": \"2\",\n"
    " \"server_list\": [\n"
    "  {\"server_id\": \"node_0\", \"host_ip\": \"172.16.0.100\", \"device\": [\n"
    "   {\"device_id\": \"0\", \"super_device_id\": \"10\", \"device_ip\": \"192.168.1.6\",\n"
    "    \"device_port\": \"16666\", \"backup_device_ip\": \"192.168.1.7\", \"rank_id\": \"0\"},\n"
    "   {\"device_id\": \"1\", \"super_device_id\": \"11\", \"device_ip\": \"192.168.1.7\",\n"
    "    \"host_port\": \"16666\", \"rank_id\": \"1\"}]},\n"
    "  {\"server_id\": \"node_1\", \"device\": [\n"
    "   {\"device_id\": \"0\", \"super_device_id\": \"20\", \"device_ip\": \"192.168.2.6\", "
    "\"rank_id\": \"2\"},\n"
    "   {\"device_id\": \"1\", \"super_device_id\": \"21\", \"device_ip\": \"192.168.2.7\", "
    "\"rank_id\": \"3\"}]}],\n"
    " \"super_pod_list\": [{\"super_pod_id\": \"sp0\", \"server_list\": [{\"server_id\": "
    "\"node_0\"}]},\n"
    "                    {\"super_pod_id\": \"sp1\", \"server_list\": [{\"server_id\": "
    "\"node_1\"}]}]}\n";

/* Version 2.0 written with server_list, numbers as integers. */
static const char v2_servers[] =
    "{\"version\": \"2.0\", \"server_count\": 1, \"server_list\": [{\"server_id\": \"s\", "
    "\"device\": [{\"device_id\": 0, \"rank_id\": 1}, {\"device_id\": 1, \"rank_id\": 0}]}]}";

struct table_run {
    const char *path;
    void (*body)(struct cu_rank *r);
};

static void *table_rank(void *arg)
{
    struct cu_rank *r = arg;
    const struct table_run *t = r->arg;

    aclrtSetDevice(r->rank);
    r->init_rc = HcclCommInitClusterInfo(t->path, (uint32_t)r->rank, &r->comm);
    if (r->init_rc == HCCL_SUCCESS) {
        uint32_t n = 0, me = 99;
        CU_CHECK(r, HcclGetRankSize(r->comm, &n) == 0 && n == (uint32_t)r->n);
        CU_CHECK(r, HcclGetRankId(r->comm, &me) == 0 && me == (uint32_t)r->rank);
        t->body(r);
        cu_barrier_wait();
        r->destroy_rc = HcclCommDestroy(r->comm);
    }
    aclrtResetDevice(r->rank);
    return NULL;
}

/* Every rank of `text` builds its communicator and runs body. */
static void run_table(const char *text, int n, void (*body)(struct cu_rank *r))
{
    struct cu_rank r[4];
    pthread_t t[4];
    char path[CU_PATH];

    cu_write(job, "ranktable.json", text, path, sizeof(path));
    struct table_run run = {.path = path, .body = body};
    cu_barrier_init(n);
    for (int i = 0; i < n; i++) {
        r[i] = (struct cu_rank){.rank = i, .n = n, .arg = &run};
        pthread_create(&t[i], NULL, table_rank, &r[i]);
    }
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < n; i++) {
        assert_int_equal(r[i].init_rc, HCCL_SUCCESS);
        assert_int_equal(r[i].failures, 0);
        assert_int_equal(r[i].destroy_rc, HCCL_SUCCESS);
    }
    unlink(path);
}

/* The location of `rank` as the graph reports it: the far end of a link to it from another
 * rank (layer 0, else layer 1). */
static EndpointLoc loc_of(struct cu_rank *r, uint32_t rank, EndpointDesc *ep)
{
    uint32_t from = rank == 0 ? 1 : 0, n = 0;
    CommLink *l = NULL;
    EndpointLoc loc;

    memset(&loc, 0xFF, sizeof(loc));
    for (uint32_t layer = 0; layer < 2; layer++) {
        if (HcclRankGraphGetLinks(r->comm, layer, from, rank, &l, &n) == 0 && n > 0) {
            loc = l[0].dstEndpointDesc.loc;
            if (ep != NULL)
                *ep = l[0].dstEndpointDesc;
            return loc;
        }
    }
    CU_CHECK(r, !"no link reaches the rank");
    return loc;
}

static void body_v2_two(struct cu_rank *r)
{
    uint32_t *layers, nl, *sizes, ns;
    EndpointDesc ep;

    CU_CHECK(r, HcclRankGraphGetLayers(r->comm, &layers, &nl) == 0 && nl == 1);
    CU_CHECK(r, HcclRankGraphGetInstSizeListByLayer(r->comm, 0, &sizes, &ns) == 0 && ns == 1 &&
                    sizes[0] == 2);
    EndpointLoc l = loc_of(r, 1, &ep);
    CU_CHECK(r, l.device.devPhyId == 1 && l.device.serverIdx == 0 && l.device.superPodIdx == 0);
    /* The rank's address is the table's. */
    CU_CHECK(r, ep.commAddr.type != COMM_ADDR_TYPE_IP_V4 ||
                    ep.commAddr.addr.s_addr == inet_addr("223.0.0.28"));
}

static void hcomm_sample_table_builds_one_server(void **state)
{
    (void)state;
    run_table(v2_two, 2, body_v2_two);
}

static void body_v2_pods(struct cu_rank *r)
{
    uint32_t *layers, nl, *sizes, ns, *ranks, nr;

    CU_CHECK(r, HcclRankGraphGetLayers(r->comm, &layers, &nl) == 0 && nl == 2);
    /* pod0 appears first among the rank entries after pod1: servers follow first appearance,
     * pod1 (rank_list[0]) is server 0. */
    CU_CHECK(r, HcclRankGraphGetInstSizeListByLayer(r->comm, 0, &sizes, &ns) == 0 && ns == 2 &&
                    sizes[0] == 2 && sizes[1] == 2);
    CU_CHECK(r, HcclRankGraphGetRanksByTopoInst(r->comm, 0, 0, &ranks, &nr) == 0 && nr == 2 &&
                    ranks[0] == 2 && ranks[1] == 3);
    CU_CHECK(r, HcclRankGraphGetRankSizeByLayer(r->comm, 1, &nr) == 0 && nr == 4);
    EndpointDesc ep;
    EndpointLoc l = loc_of(r, 0, &ep);
    CU_CHECK(r, l.device.serverIdx == 1 && l.device.devPhyId == 0 && l.device.superPodIdx == 0);
    /* Rank 0's IPv4 address is its first IPV4 one (layer 1: its layer 0 has an EID). */
    CU_CHECK(r, ep.commAddr.type != COMM_ADDR_TYPE_IP_V4 ||
                    ep.commAddr.addr.s_addr == inet_addr("172.16.0.15"));
}

static void super_pod_950_table_builds_two_servers(void **state)
{
    (void)state;
    run_table(v2_pods, 4, body_v2_pods);
}

static void body_v12(struct cu_rank *r)
{
    EndpointLoc l = loc_of(r, 3, NULL);

    CU_CHECK(r, l.device.serverIdx == 1 && l.device.superPodIdx == 1 && l.device.superDevId == 21 &&
                    l.device.devPhyId == 1);
    l = loc_of(r, 0, NULL);
    CU_CHECK(r, l.device.serverIdx == 0 && l.device.superPodIdx == 0 && l.device.superDevId == 10);
}

static void version_1_2_super_pods_reach_the_graph(void **state)
{
    (void)state;
    run_table(v12_pods, 4, body_v12);
}

static void body_plain(struct cu_rank *r)
{
    (void)r;
}

static void version_2_0_with_server_list_is_read(void **state)
{
    (void)state;
    run_table(v2_servers, 2, body_plain);
}

/* ---- one bad field at a time ----------------------------------------------------------- */

/* A one-rank rank_list table whose rank entry is `rank` (the text between the braces). */
#define V2_ONE(rank) "{\"version\": \"2.0\", \"rank_count\": 1, \"rank_list\": [{" rank "}]}"
#define V2_LEVEL(level)                                                                            \
    V2_ONE("\"rank_id\": 0, \"device_id\": 0, \"local_id\": 0, \"level_list\": [{" level "}]")
#define V2_ADDR(addr)                                                                              \
    V2_LEVEL("\"net_layer\": 0, \"net_instance_id\": \"r\", \"rank_addr_list\": [{" addr "}]")
#define V1_ONE(dev)                                                                                \
    "{\"version\": \"1.0\", \"server_list\": [{\"server_id\": \"a\", \"device\": [{" dev "}]}]}"

struct bad_case {
    const char *text;
    const char *field; /* the field path the error line must name */
    const char *why;
};

static const struct bad_case bad_cases[] = {
    {"{\"version\": \"3.0\", \"rank_count\": 1, \"rank_list\": []}", "\"version\"", "3.0"},
    {"{\"version\": \"2.0\", \"status\": \"initializing\", \"rank_count\": 1, \"rank_list\": []}",
     "\"status\"", "initializing"},
    {"{\"version\": \"2.0\", \"rank_list\": [{}]}", "\"rank_count\"", "missing"},
    {"{\"version\": \"2.0\", \"rank_count\": \"1\", \"rank_list\": [{}]}", "\"rank_count\"",
     "not an integer"},
    {"{\"version\": \"2.0\", \"rank_count\": 0, \"rank_list\": [{}]}", "\"rank_count\"",
     "outside [1, 65536]"},
    {"{\"version\": \"2.0\", \"rank_count\": 2, \"rank_list\": [{}]}", "\"rank_count\"",
     "does not match"},
    {"{\"version\": \"2.0\", \"rank_count\": 1, \"rank_list\": {}}", "\"rank_list\"",
     "not an array"},
    {"{\"version\": \"2.0\", \"detour\": \"maybe\", \"rank_count\": 1, \"rank_list\": [{}]}",
     "\"detour\"", NULL},
    {V2_ONE("\"device_id\": 0, \"local_id\": 0, \"level_list\": []"), "\"rank_list[0].rank_id\"",
     "missing"},
    {V2_ONE("\"rank_id\": 1, \"device_id\": 0, \"local_id\": 0"), "\"rank_list[0].rank_id\"",
     "outside [0, 0]"},
    {V2_ONE("\"rank_id\": 0, \"device_id\": 0, \"local_id\": 65"), "\"rank_list[0].local_id\"",
     "outside [0, 64]"},
    {V2_ONE("\"rank_id\": 0, \"device_id\": 0, \"local_id\": 64"),
     "\"rank_list[0].replaced_local_id\"", "missing"},
    {V2_ONE("\"rank_id\": 0, \"device_id\": 65, \"local_id\": 0"), "\"rank_list[0].device_id\"",
     "outside [0, 64]"},
    {V2_ONE("\"rank_id\": 0, \"device_id\": 0, \"local_id\": 0, \"device_port\": 0"),
     "\"rank_list[0].device_port\"", "outside [1, 65535]"},
    {V2_ONE("\"rank_id\": 0, \"device_id\": 0, \"local_id\": 0, \"host_port\": 70000"),
     "\"rank_list[0].host_port\"", "outside [1, 65535]"},
    {V2_ONE("\"rank_id\": 0, \"device_id\": 0, \"local_id\": 0"), "\"rank_list[0].level_list\"",
     "missing"},
    {V2_LEVEL("\"net_layer\": 8, \"net_instance_id\": \"r\", \"rank_addr_list\": []"),
     "\"rank_list[0].level_list[0].net_layer\"", "outside [0, 7]"},
    {V2_LEVEL("\"net_layer\": 0, \"net_instance_id\": \"\", \"rank_addr_list\": []"),
     "\"rank_list[0].level_list[0].net_instance_id\"", "length 0"},
    {V2_LEVEL("\"net_layer\": 0, \"net_instance_id\": \"r\", \"net_type\": \"RING\", "
              "\"rank_addr_list\": []"),
     "\"rank_list[0].level_list[0].net_type\"", "RING"},
    {V2_LEVEL("\"net_layer\": 0, \"net_instance_id\": \"r\""),
     "\"rank_list[0].level_list[0].rank_addr_list\"", "missing"},
    {V2_ONE("\"rank_id\": 0, \"device_id\": 0, \"local_id\": 0, \"level_list\": ["
            "{\"net_layer\": 1, \"net_instance_id\": \"a\", \"rank_addr_list\": []},"
            "{\"net_layer\": 0, \"net_instance_id\": \"b\", \"rank_addr_list\": []}]"),
     "\"rank_list[0].level_list[1]\"", "must increase"},
    {V2_ADDR("\"addr_type\": \"MAC\", \"addr\": \"x\", \"ports\": [\"0/0\"]"),
     "\"rank_list[0].level_list[0].rank_addr_list[0].addr_type\"", "MAC"},
    {V2_ADDR("\"addr_type\": \"IPV4\", \"addr\": \"300.0.0.1\", \"ports\": [\"0/0\"]"),
     "\"rank_list[0].level_list[0].rank_addr_list[0].addr\"", "not an IPv4"},
    {V2_ADDR("\"addr_type\": \"EID\", \"addr\": \"00ff\", \"ports\": [\"0/0\"]"),
     "\"rank_list[0].level_list[0].rank_addr_list[0].addr\"", "not an EID"},
    {V2_ADDR("\"addr_type\": \"IPV6\", \"addr\": \"fe80::1\", \"ports\": []"),
     "\"rank_list[0].level_list[0].rank_addr_list[0].ports\"", "at least 1"},
    {V2_ADDR("\"addr_type\": \"IPV4\", \"addr\": \"1.2.3.4\", \"ports\": [\"\"]"),
     "\"rank_list[0].level_list[0].rank_addr_list[0].ports[0]\"", "length 0"},
    {V2_ADDR("\"addr_type\": \"IPV4\", \"addr\": \"1.2.3.4\", \"ports\": [\"0/0\"], "
             "\"backup_addr\": [\"fe80::1\"]"),
     "\"rank_list[0].level_list[0].rank_addr_list[0].backup_addr[0]\"", "not an IPv4"},
    {V1_ONE("\"device_id\": \"0\""), "\"server_list[0].device[0].rank_id\"", "missing"},
    {V1_ONE("\"device_id\": \"x\", \"rank_id\": \"0\""), "\"server_list[0].device[0].device_id\"",
     "not a decimal number"},
    {V1_ONE("\"device_id\": \"0\", \"rank_id\": \"0\", \"device_ip\": \"1.2.3\""),
     "\"server_list[0].device[0].device_ip\"", "not an IPv4 or IPv6"},
    {V1_ONE("\"device_id\": \"0\", \"rank_id\": \"0\", \"device_port\": \"99999\""),
     "\"server_list[0].device[0].device_port\"", "outside [1, 65535]"},
    {"{\"version\": \"1.0\", \"server_list\": [{\"device\": [{\"device_id\": 0, \"rank_id\": "
     "0}]}]}",
     "\"server_list[0].server_id\"", "missing"},
    {"{\"version\": \"1.2\", \"server_list\": [{\"server_id\": \"a\", \"device\": [{\"device_id\": "
     "0, \"rank_id\": 0}]}], \"super_pod_list\": [{\"super_pod_id\": \"p\", \"server_list\": "
     "[{\"server_id\": \"b\"}]}]}",
     "\"super_pod_list[0].server_list[0]\"", "not in server_list"},
    {"{\"version\": \"1.2\", \"server_list\": [{\"server_id\": \"a\", \"device\": [{\"device_id\": "
     "0, \"rank_id\": 0}]}], \"super_pod_list\": [{\"server_list\": [{\"server_id\": \"a\"}]}]}",
     "\"super_pod_list[0].super_pod_id\"", "missing"},
    {"{\"version\": \"1.0\", \"server_list\": [{\"server_id\": \"a\", \"device\": [{\"device_id\": "
     "0, \"rank_id\": 0, \"super_device_id\": -1}]}]}",
     "\"server_list[0].device[0].super_device_id\"", "outside"},
};

static void each_bad_field_is_named(void **state)
{
    char path[CU_PATH];
    HcclComm c;
    (void)state;

    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        const struct bad_case *b = &bad_cases[i];
        struct cu_capture cap;
        cu_write(job, "bad.json", b->text, path, sizeof(path));
        cu_capture_begin(&cap);
        HcclResult rc = HcclCommInitClusterInfo(path, 0, &c);
        cu_capture_end(&cap);
        if (rc != HCCL_E_PARA)
            fail_msg("case %zu returned %d, expected HCCL_E_PARA; log:\n%s", i, rc, cap.text);
        cu_assert_one_error(&cap, b->field, b->why);
    }
    /* Ranks sharing an instance list the same number of addresses. */
    static const char uneven[] =
        "{\"version\": \"2.0\", \"rank_count\": 2, \"rank_list\": ["
        "{\"rank_id\": 0, \"device_id\": 0, \"local_id\": 0, \"level_list\": [{\"net_layer\": 0, "
        "\"net_instance_id\": \"r\", \"rank_addr_list\": []}]},"
        "{\"rank_id\": 1, \"device_id\": 1, \"local_id\": 1, \"level_list\": [{\"net_layer\": 0, "
        "\"net_instance_id\": \"r\", \"rank_addr_list\": [{\"addr_type\": \"IPV4\", \"addr\": "
        "\"1.2.3.4\", \"ports\": [\"0/0\"]}]}]}]}";
    struct cu_capture cap;
    cu_write(job, "bad.json", uneven, path, sizeof(path));
    cu_capture_begin(&cap);
    HcclResult rc = HcclCommInitClusterInfo(path, 0, &c);
    cu_capture_end(&cap);
    assert_int_equal(rc, HCCL_E_PARA);
    cu_assert_one_error(&cap, "\"rank_list[1].level_list[0].rank_addr_list\"", "lists 1 addresses");
    assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hcomm_sample_table_builds_one_server),
        cmocka_unit_test(super_pod_950_table_builds_two_servers),
        cmocka_unit_test(version_1_2_super_pods_reach_the_graph),
        cmocka_unit_test(version_2_0_with_server_list_is_read),
        cmocka_unit_test(each_bad_field_is_named),
    };
    cu_job_begin(job, sizeof(job), "4", "2");
    int rc = cmocka_run_group_tests_name("ranktable", tests, cu_acl_setup, cu_acl_teardown);
    return cu_job_end(job, rc);
}
