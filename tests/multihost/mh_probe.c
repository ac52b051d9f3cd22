/* mh_probe.c - one rank of a job split over "hosts" (tests/multihost/run_split.sh,
 * run_netns.sh): joins the communicator through the launcher's variables, checks the rank
 * graph against the split it was told about, and (--collectives) runs HcclAllReduce and
 * HcclAllGather with every built-in algorithm, checking every byte. Prints "PASS" when
 * every check held, else one "FAIL" line per broken check.
 *
 *   mh_probe --servers 4,4 [--inter UBOE,ROCE] [--collectives BYTES] [--stall SECONDS]
 *
 * --servers: the layer-0 instance sizes the job must have, in rank order (4,4: ranks 0-3 on
 * one server, 4-7 on another); --inter: the protocols expected between servers (default:
 * the Ascend950 default, UBOE and ROCE). The collectives need a data plane between the
 * hosts. --stall: after joining, print "stalling" and sleep that long, then fail (a rank that
 * joined and then hangs or is killed: tests/multihost/dead_rdv.sh). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hccl_rank_graph.h>

#include "ex_launch.h"

#define MAX_SERVERS 64

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL: rank %u: ", me.rank);                                                    \
            printf(__VA_ARGS__);                                                                   \
            printf(" (%s:%d)\n", __FILE__, __LINE__);                                              \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static struct ex_launch me;

struct expect {
    uint32_t nserv, size[MAX_SERVERS], first[MAX_SERVERS];
    uint32_t ninter;
    int32_t inter[4];
};

static uint32_t server_of(const struct expect *e, uint32_t r)
{
    for (uint32_t s = 0; s < e->nserv; s++)
        if (r >= e->first[s] && r < e->first[s] + e->size[s])
            return s;
    return UINT32_MAX;
}

static bool parse_list(const char *s, uint32_t *out, uint32_t max, uint32_t *n)
{
    *n = 0;
    while (*s != '\0' && *n < max) {
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || v == 0 || v > 4096)
            return false;
        out[(*n)++] = (uint32_t)v;
        s = *end == ',' ? end + 1 : end;
        if (*end != ',' && *end != '\0')
            return false;
    }
    return *n > 0 && *s == '\0';
}

static int32_t proto_of(const char *s, size_t len)
{
    static const struct {
        const char *name;
        int32_t p;
    } names[] = {{"UBOE", COMM_PROTOCOL_UBOE}, {"ROCE", COMM_PROTOCOL_ROCE},
                 {"UB_CTP", COMM_PROTOCOL_UB_CTP}, {"HCCS", COMM_PROTOCOL_HCCS}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strlen(names[i].name) == len && strncmp(names[i].name, s, len) == 0)
            return names[i].p;
    return -1;
}

/* The graph as the vendor's queries answer it, against the expected split. */
static void check_graph(HcclComm comm, const struct expect *e)
{
    uint32_t *layers = NULL, nl = 0, *sizes = NULL, ns = 0, *insts = NULL, ni = 0, *ranks = NULL;
    uint32_t nr = 0, mine = server_of(e, me.rank);
    CommTopo topo;

    CHECK(HcclRankGraphGetLayers(comm, &layers, &nl) == HCCL_SUCCESS, "GetLayers");
    CHECK(nl == (e->nserv > 1 ? 2u : 1u) && layers[0] == 0 && (nl < 2 || layers[1] == 1),
          "%u layers, want %u", nl, e->nserv > 1 ? 2u : 1u);
    CHECK(HcclRankGraphGetInstSizeListByLayer(comm, 0, &sizes, &ns) == HCCL_SUCCESS &&
              ns == e->nserv,
          "layer 0 has %u instances, want %u", ns, e->nserv);
    CHECK(HcclRankGraphGetTopoInstsByLayer(comm, 0, &insts, &ni) == HCCL_SUCCESS && ni == ns,
          "layer 0 instance ids");
    for (uint32_t s = 0; s < ns && s < e->nserv && failures == 0; s++) {
        /* Instance ids ascend; the servers are numbered in the order of their first rank. */
        CHECK(insts[s] == s && sizes[s] == e->size[s], "instance %u: id %u size %u, want %u",
              s, insts[s], sizes[s], e->size[s]);
        CHECK(HcclRankGraphGetRanksByTopoInst(comm, 0, s, &ranks, &nr) == HCCL_SUCCESS &&
                  nr == e->size[s],
              "ranks of instance %u", s);
        for (uint32_t i = 0; i < nr && i < e->size[s]; i++)
            CHECK(ranks[i] == e->first[s] + i, "instance %u rank %u is %u", s, i, ranks[i]);
    }
    CHECK(HcclRankGraphGetRanksByLayer(comm, 0, &ranks, &nr) == HCCL_SUCCESS &&
              nr == e->size[mine] && ranks[0] == e->first[mine],
          "my layer-0 instance");
    /* An Atlas 350 server layer reads as hcomm reports it: custom (its instances are 1D meshes). */
    CHECK(HcclRankGraphGetTopoTypeByLayer(comm, 0, &topo) == HCCL_SUCCESS &&
              topo == COMM_TOPO_CUSTOM,
          "layer 0 is reported as COMM_TOPO_CUSTOM, as on Atlas 350");
    if (e->nserv > 1) {
        CHECK(HcclRankGraphGetRankSizeByLayer(comm, 1, &nr) == HCCL_SUCCESS && nr == me.size,
              "layer 1 holds %u ranks, want %u", nr, me.size);
        CHECK(HcclRankGraphGetTopoTypeByLayer(comm, 1, &topo) == HCCL_SUCCESS &&
                  topo == COMM_TOPO_CLOS,
              "layer 1 is a CLOS");
    }
    /* Links: layer 0 within my server only; layer 1 to every rank, over the inter-server
     * protocols (each device has its own port on the CLOS network). */
    for (uint32_t peer = 0; peer < me.size; peer++) {
        CommLink *l = NULL;
        uint32_t n = 0;
        bool same = server_of(e, peer) == mine;
        if (peer == me.rank)
            continue;
        CHECK(HcclRankGraphGetLinks(comm, 0, me.rank, peer, &l, &n) == HCCL_SUCCESS &&
                  n == (same ? 1u : 0u),
              "layer-0 links to rank %u: %u", peer, n);
        if (e->nserv < 2)
            continue;
        CHECK(HcclRankGraphGetLinks(comm, 1, me.rank, peer, &l, &n) == HCCL_SUCCESS &&
                  n == e->ninter,
              "layer-1 links to rank %u: %u, want %u", peer, n, e->ninter);
        for (uint32_t i = 0; i < n && i < e->ninter; i++)
            CHECK((int32_t)l[i].linkAttr.linkProtocol == e->inter[i] &&
                      l[i].dstEndpointDesc.loc.device.serverIdx == server_of(e, peer) &&
                      l[i].srcEndpointDesc.loc.device.serverIdx == mine,
                  "layer-1 link %u to rank %u: protocol %d servers %u->%u", i, peer,
                  (int)l[i].linkAttr.linkProtocol, l[i].srcEndpointDesc.loc.device.serverIdx,
                  l[i].dstEndpointDesc.loc.device.serverIdx);
    }
}

static void fill(float *h, uint64_t count, uint32_t rank)
{
    for (uint64_t i = 0; i < count; i++)
        h[i] = (float)((rank + 1) * 3 + i % 7);
}

/* HcclAllReduce (sum) and HcclAllGather of `bytes` (per rank for the gather) under the algorithm
 * HCEMU_ALGO picked for this process; every byte checked against integers exact in fp32. */
static void check_collectives(HcclComm comm, aclrtStream st, uint64_t bytes)
{
    uint64_t count = bytes / 4, n = me.size;
    float *h = malloc(bytes * n);
    void *in = NULL, *out = NULL;

    CHECK(h != NULL, "malloc");
    CHECK(aclrtMalloc(&in, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS &&
              aclrtMalloc(&out, bytes * n, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS,
          "aclrtMalloc");
    if (failures != 0)
        goto out;
    fill(h, count, me.rank);
    CHECK(aclrtMemcpy(in, bytes, h, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS, "copy in");
    CHECK(HcclAllReduce(in, out, count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, comm, st) ==
                  HCCL_SUCCESS &&
              aclrtSynchronizeStream(st) == ACL_SUCCESS,
          "HcclAllReduce");
    CHECK(aclrtMemcpy(h, bytes, out, bytes, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS, "copy out");
    uint64_t bad = 0;
    for (uint64_t i = 0; i < count; i++)
        bad += h[i] != (float)(3 * n * (n + 1) / 2 + n * (i % 7));
    CHECK(bad == 0, "HcclAllReduce of %llu bytes: %llu wrong elements", (unsigned long long)bytes,
          (unsigned long long)bad);
    CHECK(HcclAllGather(in, out, count, HCCL_DATA_TYPE_FP32, comm, st) == HCCL_SUCCESS &&
              aclrtSynchronizeStream(st) == ACL_SUCCESS,
          "HcclAllGather");
    CHECK(aclrtMemcpy(h, bytes * n, out, bytes * n, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS,
          "copy out");
    bad = 0;
    for (uint64_t q = 0; q < n; q++)
        for (uint64_t i = 0; i < count; i++)
            bad += h[q * count + i] != (float)((q + 1) * 3 + i % 7);
    CHECK(bad == 0, "HcclAllGather of %llu bytes per rank: %llu wrong elements",
          (unsigned long long)bytes, (unsigned long long)bad);
out:
    if (in != NULL)
        aclrtFree(in);
    if (out != NULL)
        aclrtFree(out);
    free(h);
}

int main(int argc, char **argv)
{
    struct expect e = {.ninter = 2, .inter = {COMM_PROTOCOL_UBOE, COMM_PROTOCOL_ROCE}};
    uint64_t coll_bytes = 0;
    unsigned stall_s = 0;
    HcclRootInfo root;
    HcclComm comm = NULL;
    aclrtStream st = NULL;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--servers") == 0 && parse_list(argv[i + 1], e.size, MAX_SERVERS,
                                                            &e.nserv))
            continue;
        if (strcmp(argv[i], "--collectives") == 0 && (coll_bytes = strtoull(argv[i + 1], NULL, 0)) >= 4)
            continue;
        if (strcmp(argv[i], "--stall") == 0 && (stall_s = (unsigned)atoi(argv[i + 1])) > 0)
            continue;
        if (strcmp(argv[i], "--inter") == 0) {
            const char *s = argv[i + 1];
            e.ninter = 0;
            while (*s != '\0' && e.ninter < 4) {
                size_t len = strcspn(s, ",");
                e.inter[e.ninter++] = proto_of(s, len);
                s += len + (s[len] == ',');
            }
            continue;
        }
        fprintf(stderr, "usage: mh_probe --servers N,N... [--inter P,P] [--collectives BYTES] "
                        "[--stall SECONDS]\n");
        return 2;
    }
    if (e.nserv == 0 || ex_launch_get(&me) != 1) {
        fprintf(stderr, "mh_probe: needs --servers and a launcher (hcemu-run, mpirun)\n");
        return 2;
    }
    for (uint32_t s = 1; s < e.nserv; s++)
        e.first[s] = e.first[s - 1] + e.size[s - 1];
    CHECK(e.first[e.nserv - 1] + e.size[e.nserv - 1] == me.size, "--servers does not add up to %u",
          me.size);
    CHECK(aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice((int32_t)me.local) == ACL_SUCCESS,
          "aclInit/aclrtSetDevice(%u)", me.local);
    CHECK(HcclGetRootInfo(&root) == HCCL_SUCCESS, "HcclGetRootInfo");
    if (failures == 0) {
        HcclResult rc = HcclCommInitRootInfo(me.size, &root, me.rank, &comm);
        CHECK(rc == HCCL_SUCCESS, "HcclCommInitRootInfo returned %d", (int)rc);
    }
    if (failures == 0 && stall_s > 0) {
        printf("rank %u: joined, stalling %u s\n", me.rank, stall_s);
        fflush(stdout);
        sleep(stall_s);
        CHECK(0, "stalled %u s and nobody killed us", stall_s);
    }
    if (failures == 0)
        check_graph(comm, &e);
    if (failures == 0 && coll_bytes > 0) {
        CHECK(aclrtCreateStream(&st) == ACL_SUCCESS, "aclrtCreateStream");
        if (failures == 0)
            check_collectives(comm, st, coll_bytes & ~3ull);
        if (st != NULL)
            aclrtDestroyStream(st);
    }
    if (comm != NULL)
        CHECK(HcclCommDestroy(comm) == HCCL_SUCCESS, "HcclCommDestroy");
    aclrtResetDevice((int32_t)me.local);
    aclFinalize();
    if (failures == 0)
        printf("rank %u: PASS\n", me.rank);
    return failures == 0 ? 0 : 1;
}
