/* test_comm.c - communicators and their resources with ranks as threads of this process:
 * init of 1, 2, 4 and 8 ranks, HcclCommInitAll, threads, channels seen from both ends in
 * the devices' control blocks, engine contexts, buffers, timeouts, busy destroy, and a
 * destroy/re-create loop that must leave nothing behind.
 *
 * The job folder is a private temporary folder under /dev/shm (HCEMU_JOB_PATH), so the
 * tests can map dev<N>.ctl and check what the data plane will read. */
#include <arpa/inet.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hccl_res_expt.h>
#include <hcomm/hcomm_res.h>

#include "common/contract/handle.h"
#include "test_comm_util.h"

#define NDEV 8
#define BUF_MB 4

static char job[CU_PATH];

/* Filled by the rank bodies, compared across ranks. */
struct shared {
    char names[NDEV][COMM_NAME_MAX_LENGTH];
    void *bufs[NDEV];
    void *mems[NDEV];
    ChannelHandle chans[NDEV][NDEV]; /* [me][peer] */
};
static struct shared sh;

static void check_all_ranks(struct cu_rank *r, int n)
{
    for (int i = 0; i < n; i++) {
        if (r[i].init_rc != HCCL_SUCCESS || r[i].destroy_rc != HCCL_SUCCESS || r[i].failures)
            fail_msg("rank %d: init %d destroy %d, %d failed checks", i, r[i].init_rc,
                     r[i].destroy_rc, r[i].failures);
    }
}

/* Every device's tables hold nothing of a communicator any more. */
static void check_devices_clean(const uint64_t *notify_base)
{
    for (int d = 0; d < NDEV; d++) {
        const struct emu_devctl *ctl = cu_ctl_map(job, d);
        if (ctl == NULL)
            continue;
        assert_int_equal(cu_live_streams(ctl, EMU_STREAM_DEVICE), 0);
        assert_int_equal(cu_live_channels(ctl), 0);
        assert_int_equal(cu_live_comms(ctl), 0);
        if (notify_base != NULL)
            assert_int_equal(cu_notifies_used(ctl), notify_base[d]);
        cu_ctl_unmap(ctl);
    }
    assert_int_equal(cu_count_files(job, "hcemu-comm-"), 0);
}

static void notify_baseline(uint64_t *out)
{
    for (int d = 0; d < NDEV; d++) {
        const struct emu_devctl *ctl = cu_ctl_map(job, d);
        out[d] = ctl != NULL ? cu_notifies_used(ctl) : 0;
        cu_ctl_unmap(ctl);
    }
}

/* ---- init ------------------------------------------------------------------------------ */

static void body_queries(struct cu_rank *r)
{
    uint32_t id = 99, size = 0, *layers, nl, *ranks, nr;
    HcclComm h = NULL;

    CU_CHECK(r, HcclGetRankId(r->comm, &id) == HCCL_SUCCESS && id == (uint32_t)r->rank);
    CU_CHECK(r, HcclGetRankSize(r->comm, &size) == HCCL_SUCCESS && size == (uint32_t)r->n);
    CU_CHECK(r, HcclGetCommName(r->comm, sh.names[r->rank]) == HCCL_SUCCESS);
    CU_CHECK(r, HcclCommGetHandleWithName(sh.names[r->rank], &h) == HCCL_SUCCESS && h == r->comm);
    CU_CHECK(r, HcclRankGraphGetLayers(r->comm, &layers, &nl) == HCCL_SUCCESS && nl == 1 &&
                    layers[0] == 0);
    CU_CHECK(r, HcclRankGraphGetRanksByLayer(r->comm, 0, &ranks, &nr) == HCCL_SUCCESS &&
                    nr == (uint32_t)r->n && ranks[r->n - 1] == (uint32_t)r->n - 1);
    if (r->n > 1) {
        CommLink *l;
        uint32_t n;
        uint32_t peer = (uint32_t)(r->rank + 1) % (uint32_t)r->n;
        CU_CHECK(r, HcclRankGraphGetLinks(r->comm, 0, (uint32_t)r->rank, peer, &l, &n) ==
                        HCCL_SUCCESS);
        CU_CHECK(r, n == 1 && l[0].linkAttr.linkProtocol == COMM_PROTOCOL_UB_CTP &&
                        l[0].srcEndpointDesc.loc.device.devPhyId == (uint32_t)r->rank &&
                        l[0].dstEndpointDesc.loc.device.devPhyId == peer);
    }
    /* The kernel finds the member by name on its device. */
    const struct emu_devctl *ctl = cu_ctl_map(job, r->rank);
    int found = 0;
    for (uint32_t i = 0; ctl != NULL && i < EMU_MAX_COMMS; i++)
        found += atomic_load(&((struct emu_devctl *)ctl)->comms[i].state) == 1 &&
                 strcmp(ctl->comms[i].name, sh.names[r->rank]) == 0 &&
                 ctl->comms[i].rank == (uint32_t)r->rank && ctl->comms[i].size == (uint32_t)r->n;
    CU_CHECK(r, found == 1);
    cu_ctl_unmap(ctl);
    cu_barrier_wait(); /* keep every member alive until all checked the device tables */
}

static void init_of_1_2_4_8_ranks_as_threads(void **state)
{
    static const int sizes[] = {1, 2, 4, 8};
    struct cu_rank r[NDEV];
    HcclRootInfo ri;
    (void)state;

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        int n = sizes[k];
        memset(&sh, 0, sizeof(sh));
        memset(r, 0, sizeof(r));
        assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
        cu_run_ranks(r, n, &ri, body_queries, NULL);
        check_all_ranks(r, n);
        for (int i = 1; i < n; i++)
            assert_string_equal(sh.names[i], sh.names[0]);
    }
    check_devices_clean(NULL);
}

static void init_all_makes_one_member_per_device(void **state)
{
    int32_t devs[4] = {3, 1, 0, 2};
    HcclComm comms[4];
    uint32_t id, size;
    (void)state;

    assert_int_equal(HcclCommInitAll(4, devs, comms), HCCL_SUCCESS);
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(HcclGetRankId(comms[i], &id), HCCL_SUCCESS);
        assert_int_equal(HcclGetRankSize(comms[i], &size), HCCL_SUCCESS);
        assert_int_equal(id, i);
        assert_int_equal(size, 4);
    }
    /* devices[0] = 3 is rank 0: its link to rank 1 leads to device 1. */
    CommLink *l;
    uint32_t n;
    assert_int_equal(HcclRankGraphGetLinks(comms[0], 0, 0, 1, &l, &n), HCCL_SUCCESS);
    assert_int_equal(l[0].srcEndpointDesc.loc.device.devPhyId, 3);
    assert_int_equal(l[0].dstEndpointDesc.loc.device.devPhyId, 1);
    for (int i = 0; i < 4; i++)
        assert_int_equal(HcclCommDestroy(comms[i]), HCCL_SUCCESS);
    check_devices_clean(NULL);
}

/* Reports name threads by their labels: two acquire calls, or two communicators with the same
 * rank on one device, must never both make a "rank 0 thread 0". */
static void thread_labels_are_unique_on_a_device(void **state)
{
    int32_t devs[2] = {0, 1};
    HcclComm a[2], b[2];
    ThreadHandle t1, t2[2], t3;
    (void)state;

    assert_int_equal(HcclCommInitAll(2, devs, a), HCCL_SUCCESS);
    assert_int_equal(HcclThreadAcquire(a[0], COMM_ENGINE_AICPU_TS, 1, 1, &t1), HCCL_SUCCESS);
    assert_int_equal(HcclThreadAcquire(a[0], COMM_ENGINE_AICPU_TS, 2, 1, t2), HCCL_SUCCESS);
    /* A second communicator's rank 0 on the same device: its thread says which comm. */
    assert_int_equal(HcclCommInitAll(2, devs, b), HCCL_SUCCESS);
    assert_int_equal(HcclThreadAcquire(b[0], COMM_ENGINE_AICPU_TS, 1, 1, &t3), HCCL_SUCCESS);
    const struct emu_devctl *ctl = cu_ctl_map(job, 0);
    assert_non_null(ctl);
    char labels[4][sizeof(ctl->streams[0].label)];
    int n = 0;
    for (uint32_t s = 0; s < EMU_MAX_STREAMS && n < 4; s++)
        if (atomic_load(&((struct emu_devctl *)ctl)->streams[s].kind) == EMU_STREAM_DEVICE)
            memcpy(labels[n++], ctl->streams[s].label, sizeof(labels[0]));
    cu_ctl_unmap(ctl);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(HcclCommDestroy(a[i]), HCCL_SUCCESS);
        assert_int_equal(HcclCommDestroy(b[i]), HCCL_SUCCESS);
    }
    assert_int_equal(n, 4);
    int plain = 0, with_comm = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++)
            if (strcmp(labels[i], labels[j]) == 0)
                fail_msg("two threads are both \"%s\"", labels[i]);
        plain += strcmp(labels[i], "rank 0 thread 0") == 0 ||
                 strcmp(labels[i], "rank 0 thread 1") == 0 ||
                 strcmp(labels[i], "rank 0 thread 2") == 0;
        with_comm += strncmp(labels[i], "rank 0 thread 0 comm ", 21) == 0;
    }
    assert_int_equal(plain, 3);
    assert_int_equal(with_comm, 1);
    check_devices_clean(NULL);
}

/* ---- resources ---------------------------------------------------------------------------- */

static void check_threads(struct cu_rank *r, const ThreadHandle *th, uint32_t n)
{
    const struct emu_devctl *ctl = cu_ctl_map(job, r->rank);
    struct emu_handle h;

    for (uint32_t i = 0; i < n; i++) {
        CU_CHECK(r, emu_handle_decode(th[i], EMU_HANDLE_THREAD, &h));
        const struct emu_stream_ctl *sc = &ctl->streams[h.index];
        char label[36];
        snprintf(label, sizeof(label), "rank %d thread %u", r->rank, i);
        CU_CHECK(r, h.dev == (uint32_t)r->rank && h.engine == COMM_ENGINE_AICPU_TS && !h.exported &&
                        h.gen == sc->gen && h.gen != 0);
        CU_CHECK(r, atomic_load(&((struct emu_stream_ctl *)sc)->kind) == EMU_STREAM_DEVICE &&
                        sc->engine == COMM_ENGINE_AICPU_TS && sc->rank == (uint32_t)r->rank &&
                        sc->thread_index == i && sc->notify_num == 3 &&
                        strcmp(sc->label, label) == 0);
    }
    cu_ctl_unmap(ctl);
}

static void body_stream_threads(struct cu_rank *r, ThreadHandle main_thread)
{
    aclrtStream st, got = NULL;
    ThreadHandle cpu, again, onaicpu, oncpu;
    struct emu_handle h;

    CU_CHECK(r, aclrtCreateStream(&st) == ACL_SUCCESS);
    CU_CHECK(r, HcclThreadAcquireWithStream(r->comm, COMM_ENGINE_CPU_TS, st, 1, &cpu) == 0);
    /* The samples re-acquire on every call: same thread, no new notifies. */
    const struct emu_devctl *ctl = cu_ctl_map(job, r->rank);
    uint64_t used = cu_notifies_used(ctl);
    for (int i = 0; i < 5; i++)
        CU_CHECK(r, HcclThreadAcquireWithStream(r->comm, COMM_ENGINE_CPU_TS, st, 1, &again) == 0 &&
                        again == cpu);
    CU_CHECK(r, cu_notifies_used(ctl) == used);
    CU_CHECK(r, emu_handle_decode(cpu, EMU_HANDLE_THREAD, &h) && h.engine == 1);
    CU_CHECK(r, ctl->streams[h.index].notify_num == 1 && ctl->streams[h.index].engine == 1 &&
                    ctl->streams[h.index].rank == (uint32_t)r->rank);
    CU_CHECK(r, HcclThreadAcquireWithStream(r->comm, COMM_ENGINE_CPU_TS, st, 2, &again) == 0 &&
                    again == cpu && ctl->streams[h.index].notify_num == 2);
    CU_CHECK(r, HcclThreadResGetInfo(r->comm, cpu, THREAD_RES_TYPE_STREAM,
                                     sizeof(ThreadResTypeStream), (void **)&got) == 0 &&
                    got == st);
    /* The communicator-less form finds the same stream through the handle alone (HCCL's
     * own collectives ask it for their ordering thread's stream); its refusals as the
     * vendor's: NULL or 0 HCCL_E_PTR, another size HCCL_E_PARA, another type
     * HCCL_E_NOT_SUPPORT, an AICPU_TS thread (no aclrtStream) too, a stranger not found. */
    got = NULL;
    CU_CHECK(r, HcommThreadResGetInfo(cpu, THREAD_RES_TYPE_STREAM, sizeof(ThreadResTypeStream),
                                      (void **)&got) == HCCL_SUCCESS &&
                    got == st);
    CU_CHECK(r, HcommThreadResGetInfo(cpu, THREAD_RES_TYPE_STREAM, sizeof(ThreadResTypeStream),
                                      NULL) == HCCL_E_PTR);
    CU_CHECK(r, HcommThreadResGetInfo(0, THREAD_RES_TYPE_STREAM, sizeof(ThreadResTypeStream),
                                      (void **)&got) == HCCL_E_PTR);
    CU_CHECK(r, HcommThreadResGetInfo(cpu, THREAD_RES_TYPE_STREAM, 4, (void **)&got) ==
                    HCCL_E_PARA);
    CU_CHECK(r, HcommThreadResGetInfo(cpu, THREAD_RES_TYPE_INVALID, sizeof(ThreadResTypeStream),
                                      (void **)&got) == HCCL_E_NOT_SUPPORT);
    CU_CHECK(r, HcommThreadResGetInfo(main_thread, THREAD_RES_TYPE_STREAM,
                                      sizeof(ThreadResTypeStream),
                                      (void **)&got) == HCCL_E_NOT_SUPPORT);
    CU_CHECK(r, HcommThreadResGetInfo(cpu ^ 0x5a5a0000ull, THREAD_RES_TYPE_STREAM,
                                      sizeof(ThreadResTypeStream),
                                      (void **)&got) == HCCL_E_NOT_FOUND);
    /* Export both ways: same slot and generation, destination engine, exported bit. */
    CU_CHECK(r,
             HcclThreadExportToCommEngine(r->comm, 1, &cpu, COMM_ENGINE_AICPU_TS, &onaicpu) == 0);
    CU_CHECK(
        r, HcclThreadExportToCommEngine(r->comm, 1, &main_thread, COMM_ENGINE_CPU_TS, &oncpu) == 0);
    struct emu_handle a, b;
    CU_CHECK(r, emu_handle_decode(onaicpu, EMU_HANDLE_THREAD, &a) && a.exported &&
                    a.engine == COMM_ENGINE_AICPU_TS && a.index == h.index && a.gen == h.gen);
    emu_handle_decode(main_thread, EMU_HANDLE_THREAD, &h);
    CU_CHECK(r, emu_handle_decode(oncpu, EMU_HANDLE_THREAD, &b) && b.exported &&
                    b.engine == COMM_ENGINE_CPU_TS && b.index == h.index && b.gen == h.gen);
    cu_ctl_unmap(ctl);
    CU_CHECK(r, aclrtDestroyStream(st) == ACL_SUCCESS);
}

static void body_channels(struct cu_rank *r, HcclMemHandle mh)
{
    HcclChannelDesc d[NDEV];
    uint32_t np = 0, peers[NDEV];

    for (int p = 0; p < r->n; p++) {
        if (p == r->rank)
            continue;
        CU_CHECK(r, cu_desc_to(r->comm, (uint32_t)r->rank, (uint32_t)p, COMM_PROTOCOL_UB_CTP, 3,
                               &d[np]) == 0);
        d[np].memHandles = &mh;
        d[np].memHandleNum = 1;
        peers[np++] = (uint32_t)p;
    }
    ChannelHandle ch[NDEV], again[NDEV];
    CU_CHECK(r, HcclChannelAcquire(r->comm, COMM_ENGINE_AICPU_TS, d, np, ch) == 0);
    CU_CHECK(r, HcclChannelAcquire(r->comm, COMM_ENGINE_AICPU_TS, d, np, again) == 0 &&
                    memcmp(ch, again, np * sizeof(ch[0])) == 0);
    CU_CHECK(r, HcclChannelQuery(r->comm, COMM_ENGINE_AICPU_TS, d, np, again) == 0 &&
                    memcmp(ch, again, np * sizeof(ch[0])) == 0);
    d[0].channelProtocol = COMM_PROTOCOL_UB_MEM;
    CU_CHECK(r, HcclChannelQuery(r->comm, COMM_ENGINE_AICPU_TS, d, 1, again) == 0 && again[0] == 0);
    for (uint32_t i = 0; i < np; i++)
        sh.chans[r->rank][peers[i]] = ch[i];
}

/* After every rank made its channels: check ours against the peer's tables. */
static void check_channels(struct cu_rank *r)
{
    const struct emu_devctl *me = cu_ctl_map(job, r->rank);

    for (int p = 0; p < r->n; p++) {
        if (p == r->rank)
            continue;
        ChannelHandle ch = sh.chans[r->rank][p];
        void *buf;
        uint64_t size;
        uint32_t nm;
        CommMem *mems;
        char **tags, want[64];
        CU_CHECK(r, HcclChannelGetHcclBuffer(r->comm, ch, &buf, &size) == 0 && buf == sh.bufs[p] &&
                        size == (uint64_t)BUF_MB << 20);
        snprintf(want, sizeof(want), "user_mem_%d", p);
        CU_CHECK(r, HcclChannelGetRemoteMems(r->comm, ch, &nm, &mems, &tags) == 0 && nm == 2 &&
                        strcmp(tags[0], "HcclBuffer") == 0 && strcmp(tags[1], want) == 0 &&
                        mems[1].addr == sh.mems[p] && mems[1].size == 4096 &&
                        mems[0].addr == sh.bufs[p]);
        struct emu_handle h;
        CU_CHECK(r, emu_handle_decode(ch, EMU_HANDLE_CHANNEL, &h) && h.dev == (uint32_t)r->rank &&
                        h.engine == COMM_ENGINE_AICPU_TS);
        const struct emu_channel_ctl *c = &me->channels[h.index];
        const struct emu_devctl *peer = cu_ctl_map(job, p);
        const struct emu_channel_ctl *pc = &peer->channels[c->remote_channel];
        CU_CHECK(r, c->gen == h.gen && c->local_rank == (uint32_t)r->rank &&
                        c->remote_rank == (uint32_t)p && c->notify_num == 3 &&
                        c->engine == COMM_ENGINE_AICPU_TS && c->protocol == COMM_PROTOCOL_UB_CTP);
        CU_CHECK(r, pc->remote_channel == h.index && pc->remote_rank == (uint32_t)r->rank &&
                        pc->remote_notify_base == c->local_notify_base &&
                        c->remote_notify_base == pc->local_notify_base &&
                        pc->comm_id == c->comm_id);
        CU_CHECK(r, c->mem_num == 2 && c->mems[0].addr == (uint64_t)(uintptr_t)sh.bufs[p] &&
                        strcmp(c->mems[0].tag, "HcclBuffer") == 0 &&
                        c->mems[1].addr == (uint64_t)(uintptr_t)sh.mems[p]);
        CU_CHECK(r, c->peer < EMU_MAX_PEERS && me->peers[c->peer].used &&
                        me->peers[c->peer].dev == (uint32_t)p &&
                        strcmp(me->peers[c->peer].job_dir, job) == 0);
        cu_ctl_unmap(peer);
    }
    cu_ctl_unmap(me);
}

static void body_contexts(struct cu_rank *r)
{
    void *dev, *host, *again;
    uint64_t size;
    uint8_t src[16], back[32];

    CU_CHECK(r, HcclEngineCtxGet(r->comm, "op", COMM_ENGINE_AICPU_TS, &dev, &size) ==
                    HCCL_E_NOT_FOUND);
    CU_CHECK(r, HcclEngineCtxCreate(r->comm, "op", COMM_ENGINE_AICPU_TS, 32, &dev) == 0);
    memset(src, 0xA5, sizeof(src));
    CU_CHECK(r, HcclEngineCtxCopy(r->comm, COMM_ENGINE_AICPU_TS, "op", src, 16, 8) == 0);
    CU_CHECK(r, aclrtMemcpy(back, 32, dev, 32, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    CU_CHECK(r, back[7] == 0 && back[8] == 0xA5 && back[23] == 0xA5 && back[24] == 0);
    CU_CHECK(r, HcclEngineCtxGet(r->comm, "op", COMM_ENGINE_AICPU_TS, &again, &size) == 0 &&
                    again == dev && size == 32);
    CU_CHECK(r, HcclEngineCtxCreate(r->comm, NULL, COMM_ENGINE_CPU_TS, 64, &host) == 0);
    CU_CHECK(r, ((uint8_t *)host)[63] == 0);
    ((uint8_t *)host)[0] = 7; /* host contexts are plain host memory */
    CU_CHECK(r, HcclEngineCtxGet(r->comm, "", COMM_ENGINE_CPU_TS, &again, &size) == 0 &&
                    again == host && size == 64);
    CU_CHECK(r, HcclEngineCtxDestroy(r->comm, "op", COMM_ENGINE_AICPU_TS) == 0);
    /* The host context stays for HcclCommDestroy to free. */
}

static void body_resources(struct cu_rank *r)
{
    uint64_t size;
    ThreadHandle th[2];
    HcclMemHandle mh;
    char tag[32];
    HcclResult err = HCCL_E_INTERNAL;

    CU_CHECK(r, HcclGetHcclBuffer(r->comm, &sh.bufs[r->rank], &size) == 0 &&
                    size == (uint64_t)BUF_MB << 20);
    CU_CHECK(r, HcclThreadAcquire(r->comm, COMM_ENGINE_AICPU_TS, 2, 3, th) == 0);
    check_threads(r, th, 2);
    body_stream_threads(r, th[0]);
    CU_CHECK(r, aclrtMalloc(&sh.mems[r->rank], 4096, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
    snprintf(tag, sizeof(tag), "user_mem_%d", r->rank);
    CommMem m = {COMM_MEM_TYPE_DEVICE, sh.mems[r->rank], 4096};
    CU_CHECK(r, HcclCommMemReg(r->comm, tag, &m, &mh) == 0);
    cu_barrier_wait(); /* every rank's buffer and memory are known */
    body_channels(r, mh);
    cu_barrier_wait();
    check_channels(r);
    body_contexts(r);
    CU_CHECK(r, HcclGetCommAsyncError(r->comm, &err) == 0 && err == HCCL_SUCCESS);
    cu_barrier_wait(); /* nobody destroys while a peer still reads its tables */
}

static void after_destroy_free_user_mem(int n)
{
    for (int i = 0; i < n; i++) {
        assert_int_equal(aclrtSetDevice(i), ACL_SUCCESS);
        assert_int_equal(aclrtFree(sh.mems[i]), ACL_SUCCESS);
        assert_int_equal(aclrtResetDevice(i), ACL_SUCCESS);
    }
}

static void resources_are_seen_from_both_ends_of_each_channel(void **state)
{
    struct cu_rank r[NDEV];
    uint64_t base[NDEV];
    HcclRootInfo ri;
    (void)state;

    notify_baseline(base);
    memset(&sh, 0, sizeof(sh));
    memset(r, 0, sizeof(r));
    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    cu_run_ranks(r, 4, &ri, body_resources, NULL);
    check_all_ranks(r, 4);
    after_destroy_free_user_mem(4);
    check_devices_clean(base);
}

/* Built-in collectives on a stream the communicator wraps already keep that thread's
 * notifies where they are, so handles of them stay good: HCCL's kernels hold some, and its
 * hccl_test tools, whose HcclBarrier is hcemu's, hung when a built-in grew the thread to its
 * 17 "done" notifies. Three calls, so the windows of calls are that thread's 2. */
static void body_builtin_on_wrapped_stream(struct cu_rank *r)
{
    aclrtStream st;
    ThreadHandle cpu;
    struct emu_handle h;
    int32_t v[16], *buf = NULL;

    CU_CHECK(r, aclrtCreateStream(&st) == ACL_SUCCESS);
    memset(&h, 0, sizeof(h));
    CU_CHECK(r, HcclThreadAcquireWithStream(r->comm, COMM_ENGINE_CPU_TS, st, 2, &cpu) == 0 &&
                    emu_handle_decode(cpu, EMU_HANDLE_THREAD, &h));
    const struct emu_devctl *ctl = cu_ctl_map(job, r->rank);
    uint32_t base = ctl->streams[h.index].notify_base;
    for (int i = 0; i < 16; i++)
        v[i] = r->rank + 1;
    CU_CHECK(r, aclrtMalloc((void **)&buf, sizeof(v), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS &&
                    aclrtMemcpy(buf, sizeof(v), v, sizeof(v), ACL_MEMCPY_HOST_TO_DEVICE) ==
                        ACL_SUCCESS);
    for (int i = 0; i < 3; i++)
        CU_CHECK(r, HcclAllReduce(buf, buf, 16, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, r->comm,
                                  st) == HCCL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(st) == ACL_SUCCESS &&
                    aclrtMemcpy(v, sizeof(v), buf, sizeof(v), ACL_MEMCPY_DEVICE_TO_HOST) ==
                        ACL_SUCCESS);
    int32_t sum = r->n * (r->n + 1) / 2;
    CU_CHECK(r, v[0] == r->n * r->n * sum && v[15] == v[0]);
    CU_CHECK(r, ctl->streams[h.index].notify_num == 2 && ctl->streams[h.index].notify_base == base);
    cu_ctl_unmap(ctl);
    aclrtFree(buf);
    cu_barrier_wait(); /* nobody destroys while a peer's last call may still read its buffer */
    CU_CHECK(r, aclrtDestroyStream(st) == ACL_SUCCESS);
}

static void builtin_collectives_keep_a_wrapped_streams_notifies(void **state)
{
    struct cu_rank r[NDEV];
    HcclRootInfo ri;
    (void)state;

    memset(r, 0, sizeof(r));
    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    cu_run_ranks(r, 4, &ri, body_builtin_on_wrapped_stream, NULL);
    check_all_ranks(r, 4);
}

static void eight_ranks_build_a_full_mesh(void **state)
{
    struct cu_rank r[NDEV];
    HcclRootInfo ri;
    (void)state;

    memset(&sh, 0, sizeof(sh));
    memset(r, 0, sizeof(r));
    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    cu_run_ranks(r, 8, &ri, body_resources, NULL);
    check_all_ranks(r, 8);
    after_destroy_free_user_mem(8);
    check_devices_clean(NULL);
}

static void destroy_and_recreate_in_a_loop_leaves_nothing(void **state)
{
    struct cu_rank r[NDEV];
    uint64_t base[NDEV];
    HcclRootInfo ri;
    (void)state;

    for (int it = 0; it < 20; it++) {
        memset(&sh, 0, sizeof(sh));
        memset(r, 0, sizeof(r));
        assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
        cu_run_ranks(r, 2, &ri, body_resources, NULL);
        check_all_ranks(r, 2);
        after_destroy_free_user_mem(2);
        if (it == 0)
            notify_baseline(base);
        else
            check_devices_clean(base);
    }
    for (int d = 0; d < 2; d++) {
        const struct emu_devctl *ctl = cu_ctl_map(job, d);
        uint32_t allocs = cu_allocs(ctl);
        cu_ctl_unmap(ctl);
        assert_int_equal(allocs, 0); /* buffers, contexts and user memory all returned */
    }
}

/* ---- failures that involve several ranks ----------------------------------------------- */

struct partial {
    HcclRootInfo *ri;
    int rank, n;
    HcclResult rc;
};

static void *partial_main(void *arg)
{
    struct partial *p = arg;
    HcclComm c;

    aclrtSetDevice(p->rank);
    p->rc = HcclCommInitRootInfo((uint32_t)p->n, p->ri, (uint32_t)p->rank, &c);
    if (p->rc == HCCL_SUCCESS)
        HcclCommDestroy(c);
    aclrtResetDevice(p->rank);
    return NULL;
}

static void init_times_out_naming_the_missing_rank(void **state)
{
    struct partial p[2];
    pthread_t t[2];
    HcclRootInfo ri;
    struct cu_capture cap;
    (void)state;

    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    setenv("HCCL_CONNECT_TIMEOUT", "1", 1);
    cu_capture_begin(&cap);
    for (int i = 0; i < 2; i++) {
        p[i] = (struct partial){.ri = &ri, .rank = i, .n = 3};
        pthread_create(&t[i], NULL, partial_main, &p[i]);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    cu_capture_end(&cap);
    setenv("HCCL_CONNECT_TIMEOUT", "20", 1);
    assert_int_equal(p[0].rc, HCCL_E_TIMEOUT);
    assert_int_equal(p[1].rc, HCCL_E_TIMEOUT);
    if (cap.errors != 2 || strstr(cap.text, "rank 2 of 3 did not join") == NULL)
        fail_msg("expected two lines naming rank 2:\n%s", cap.text);
    assert_int_equal(cu_count_files(job, "hcemu-comm-"), 0);
}

enum pair_case { PEER_NEVER_ACQUIRES, NOTIFY_MISMATCH, PEER_DESTROYS };

static void body_pair(struct cu_rank *r)
{
    enum pair_case k = *(enum pair_case *)r->arg;
    HcclChannelDesc d;
    ChannelHandle ch;
    HcclResult rc;

    cu_desc_to(r->comm, (uint32_t)r->rank, (uint32_t)!r->rank, COMM_PROTOCOL_UB_CTP,
               2 + (uint32_t)(k == NOTIFY_MISMATCH ? r->rank : 0), &d);
    if (k == NOTIFY_MISMATCH) {
        rc = HcclChannelAcquire(r->comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch);
        CU_CHECK(r, rc == HCCL_E_PARA);
    } else if (r->rank == 0) {
        rc = HcclChannelAcquire(r->comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch);
        CU_CHECK(r, rc == (k == PEER_DESTROYS ? HCCL_E_REMOTE : HCCL_E_TIMEOUT));
        if (k == PEER_NEVER_ACQUIRES)
            cu_barrier_wait();
    } else if (k == PEER_NEVER_ACQUIRES) {
        cu_barrier_wait(); /* alive, but never acquiring */
    }
}

static void run_pair(enum pair_case k, const char *timeout, const char *needle)
{
    struct cu_rank r[2];
    HcclRootInfo ri;
    struct cu_capture cap;

    memset(r, 0, sizeof(r));
    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    setenv("HCCL_CONNECT_TIMEOUT", timeout, 1);
    cu_capture_begin(&cap);
    cu_run_ranks(r, 2, &ri, body_pair, &k);
    cu_capture_end(&cap);
    setenv("HCCL_CONNECT_TIMEOUT", "20", 1);
    check_all_ranks(r, 2);
    if (strstr(cap.text, needle) == NULL)
        fail_msg("expected \"%s\" in:\n%s", needle, cap.text);
    check_devices_clean(NULL);
}

static void channel_times_out_when_the_peer_never_acquires(void **state)
{
    (void)state;
    run_pair(PEER_NEVER_ACQUIRES, "1", "rank 0: rank 1 did not acquire the matching channel");
}

/* Rank 1 acquires a channel to rank 2; rank 2 acquires channels to ranks 1 and 3 in one call;
 * rank 3 never acquires. Rank 2 did post its side for rank 1 but cannot connect it while it
 * waits for rank 3: rank 1's timeout must say so and name rank 3, not blame rank 2 - whether
 * rank 2 is still waiting when rank 1 reports, or has given up already. */
static void body_chain(struct cu_rank *r)
{
    HcclChannelDesc d[2];
    ChannelHandle ch[2];

    if (r->rank == 1) {
        CU_CHECK(r, cu_desc_to(r->comm, 1, 2, COMM_PROTOCOL_UB_CTP, 1, &d[0]) == 0);
        CU_CHECK(r, HcclChannelAcquire(r->comm, COMM_ENGINE_AICPU_TS, d, 1, ch) ==
                        HCCL_E_TIMEOUT);
    } else if (r->rank == 2) {
        CU_CHECK(r, cu_desc_to(r->comm, 2, 1, COMM_PROTOCOL_UB_CTP, 1, &d[0]) == 0);
        CU_CHECK(r, cu_desc_to(r->comm, 2, 3, COMM_PROTOCOL_UB_CTP, 1, &d[1]) == 0);
        CU_CHECK(r, HcclChannelAcquire(r->comm, COMM_ENGINE_AICPU_TS, d, 2, ch) ==
                        HCCL_E_TIMEOUT);
    }
    cu_barrier_wait(); /* ranks 0 and 3 stay alive without acquiring */
}

static void channel_timeout_names_the_rank_at_the_end_of_the_chain(void **state)
{
    struct cu_rank r[4];
    HcclRootInfo ri;
    struct cu_capture cap;
    (void)state;

    memset(r, 0, sizeof(r));
    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    setenv("HCCL_CONNECT_TIMEOUT", "1", 1);
    cu_capture_begin(&cap);
    cu_run_ranks(r, 4, &ri, body_chain, NULL);
    cu_capture_end(&cap);
    setenv("HCCL_CONNECT_TIMEOUT", "20", 1);
    check_all_ranks(r, 4);
    if (strstr(cap.text, "rank 1: rank 2 acquired the matching channel to rank 1") == NULL ||
        strstr(cap.text, "waiting for rank 3, which did not acquire the matching channel to "
                         "rank 2") == NULL ||
        strstr(cap.text, "rank 2: rank 3 did not acquire the matching channel to rank 2") ==
            NULL ||
        strstr(cap.text, "rank 2 did not acquire") != NULL)
        fail_msg("expected rank 1 to name rank 3 behind rank 2 (%d lines):\n%s", cap.lines,
                 cap.text);
    check_devices_clean(NULL);
}

static void channel_sides_must_agree_on_notify_num(void **state)
{
    (void)state;
    run_pair(NOTIFY_MISMATCH, "20", "notifyNum is 2 here but 3 on rank 1");
}

/* Each rank acquires channels to both ring neighbours in one call and destroys its
 * communicator at once: once one side's acquire returned, the other side must complete
 * without it (the leaver already published everything the channel needs). */
static void body_ring_then_leave(struct cu_rank *r)
{
    HcclChannelDesc d[2];
    ChannelHandle ch[2];
    uint32_t left = (uint32_t)(r->rank + r->n - 1) % (uint32_t)r->n;
    uint32_t right = (uint32_t)(r->rank + 1) % (uint32_t)r->n;

    CU_CHECK(r, cu_desc_to(r->comm, (uint32_t)r->rank, left, COMM_PROTOCOL_UB_CTP, 1, &d[0]) == 0);
    CU_CHECK(r, cu_desc_to(r->comm, (uint32_t)r->rank, right, COMM_PROTOCOL_UB_CTP, 1, &d[1]) ==
                    0);
    CU_CHECK(r, HcclChannelAcquire(r->comm, COMM_ENGINE_AICPU_TS, d, 2, ch) == 0);
}

static void ring_neighbour_acquire_then_destroy_never_fails(void **state)
{
    struct cu_rank r[NDEV];
    HcclRootInfo ri;
    (void)state;

    for (int round = 0; round < 20; round++) {
        memset(r, 0, sizeof(r));
        assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
        cu_run_ranks(r, 8, &ri, body_ring_then_leave, NULL);
        check_all_ranks(r, 8);
    }
    check_devices_clean(NULL);
}

static void channel_fails_fast_when_the_peer_destroys(void **state)
{
    (void)state;
    run_pair(PEER_DESTROYS, "20", "rank 1 left the communicator");
}

struct blocked {
    HcclComm comm;
    HcclResult rc;
};

static void *blocked_acquire(void *arg)
{
    struct blocked *b = arg;
    HcclChannelDesc d;
    ChannelHandle ch;

    aclrtSetDevice(0);
    cu_desc_to(b->comm, 0, 1, COMM_PROTOCOL_UB_CTP, 1, &d);
    b->rc = HcclChannelAcquire(b->comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch);
    aclrtResetDevice(0);
    return NULL;
}

static void destroy_answers_again_while_a_call_blocks(void **state)
{
    int32_t devs[2] = {0, 1};
    HcclComm comms[2];
    struct blocked b = {0};
    pthread_t t;
    struct cu_capture cap;
    (void)state;

    setenv("HCCL_CONNECT_TIMEOUT", "2", 1);
    assert_int_equal(HcclCommInitAll(2, devs, comms), HCCL_SUCCESS);
    b.comm = comms[0];
    cu_capture_begin(&cap);
    pthread_create(&t, NULL, blocked_acquire, &b);
    usleep(300000);
    HcclResult rc = HcclCommDestroy(comms[0]);
    pthread_join(t, NULL);
    cu_capture_end(&cap);
    setenv("HCCL_CONNECT_TIMEOUT", "20", 1);
    assert_int_equal(rc, HCCL_E_AGAIN);
    assert_int_equal(b.rc, HCCL_E_TIMEOUT);
    assert_non_null(strstr(cap.text, "another call is using communicator"));
    assert_int_equal(HcclCommDestroy(comms[0]), HCCL_SUCCESS);
    assert_int_equal(HcclCommDestroy(comms[1]), HCCL_SUCCESS);
    check_devices_clean(NULL);
}

/* ---- rank table ------------------------------------------------------------------------ */

static const char table4[] =
    "{\"version\": \"1.0\", \"server_count\": \"2\", \"status\": \"completed\",\n"
    " \"server_list\": [\n"
    "  {\"server_id\": \"10.0.0.1\", \"device\": [\n"
    "    {\"device_id\": \"0\", \"device_ip\": \"192.168.1.10\", \"rank_id\": \"0\"},\n"
    "    {\"device_id\": \"1\", \"device_ip\": \"192.168.1.11\", \"rank_id\": \"1\"}]},\n"
    "  {\"server_id\": \"10.0.0.2\", \"device\": [\n"
    "    {\"device_id\": 0, \"device_ip\": \"192.168.2.10\", \"rank_id\": 2},\n"
    "    {\"device_id\": 1, \"rank_id\": 3}]}]}\n";

static void body_cluster(struct cu_rank *r)
{
    uint32_t *layers, nl, *sizes, ns, *insts, ni, *ranks, nr, num;
    CommTopo topo;
    CommLink *l;
    uint32_t n;

    CU_CHECK(r, HcclRankGraphGetLayers(r->comm, &layers, &nl) == 0 && nl == 2 && layers[1] == 1);
    CU_CHECK(r, HcclRankGraphGetInstSizeListByLayer(r->comm, 0, &sizes, &ns) == 0 && ns == 2 &&
                    sizes[0] == 2 && sizes[1] == 2);
    CU_CHECK(r, HcclRankGraphGetTopoInstsByLayer(r->comm, 0, &insts, &ni) == 0 && ni == 2 &&
                    insts[0] == 0 && insts[1] == 1);
    CU_CHECK(r, HcclRankGraphGetRanksByTopoInst(r->comm, 0, 1, &ranks, &nr) == 0 && nr == 2 &&
                    ranks[0] == 2 && ranks[1] == 3);
    CU_CHECK(r, HcclRankGraphGetRankSizeByLayer(r->comm, 1, &nr) == 0 && nr == 4);
    CU_CHECK(r,
             HcclRankGraphGetTopoTypeByLayer(r->comm, 0, &topo) == 0 && topo == COMM_TOPO_CUSTOM);
    CU_CHECK(r, HcclRankGraphGetTopoType(r->comm, 0, 1, &topo) == 0 && topo == COMM_TOPO_1DMESH);
    CU_CHECK(r, HcclRankGraphGetTopoType(r->comm, 1, 0, &topo) == 0 && topo == COMM_TOPO_CLOS);
    /* Across servers: UBoE and RoCE at layer 1, nothing at layer 0. */
    uint32_t other = (uint32_t)(r->rank + 2) % 4;
    CU_CHECK(r, HcclRankGraphGetLinks(r->comm, 0, (uint32_t)r->rank, other, &l, &n) == 0 && n == 0);
    CU_CHECK(r, HcclRankGraphGetLinks(r->comm, 1, (uint32_t)r->rank, other, &l, &n) == 0 &&
                    n == 2 && l[0].linkAttr.linkProtocol == COMM_PROTOCOL_UBOE &&
                    l[0].srcEndpointDesc.commAddr.type == COMM_ADDR_TYPE_IP_V4 &&
                    l[1].linkAttr.linkProtocol == COMM_PROTOCOL_ROCE);
    if (r->rank == 0)
        CU_CHECK(r, l[0].srcEndpointDesc.commAddr.addr.s_addr == inet_addr("192.168.1.10") &&
                        l[0].dstEndpointDesc.loc.device.serverIdx == 1 &&
                        l[0].dstEndpointDesc.loc.device.devPhyId == 0);
    /* Layer 1 (CLOS) links the two ranks of one server too; layer 0 over UB_CTP. */
    uint32_t mate = (uint32_t)r->rank ^ 1u;
    CU_CHECK(r, HcclRankGraphGetLinks(r->comm, 1, (uint32_t)r->rank, mate, &l, &n) == 0 &&
                    n == 2 && l[0].linkAttr.linkProtocol == COMM_PROTOCOL_UBOE);
    CU_CHECK(r, HcclRankGraphGetLinks(r->comm, 0, (uint32_t)r->rank, mate, &l, &n) == 0 && n >= 1);
    /* Endpoints of my server's instance, and their attributes. */
    uint32_t server = (uint32_t)r->rank / 2;
    EndpointDesc eps[8];
    EndpointLoc loc;
    CU_CHECK(r, HcclRankGraphGetEndpointNum(r->comm, 0, server, &num) == 0 && num == 2);
    CU_CHECK(r, HcclRankGraphGetEndpointDesc(r->comm, 0, server, &num, eps) == 0 && num == 2);
    CU_CHECK(r, HcclRankGraphGetEndpointInfo(r->comm, server * 2 + 1, &eps[1],
                                             ENDPOINT_ATTR_LOCATION, sizeof(loc), &loc) == 0 &&
                    loc.device.serverIdx == server && loc.device.devPhyId == 1);
    /* A channel across servers over UBoE, as the topology offers it. */
    HcclChannelDesc d;
    ChannelHandle ch;
    CU_CHECK(r, cu_desc_to(r->comm, (uint32_t)r->rank, other, COMM_PROTOCOL_UBOE, 1, &d) == 0);
    CU_CHECK(r, HcclChannelAcquire(r->comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch) == 0);
    cu_barrier_wait();
}

static void *cluster_main(void *arg)
{
    struct cu_rank *r = arg;

    aclrtSetDevice(r->rank);
    r->init_rc = HcclCommInitClusterInfo((const char *)r->root, (uint32_t)r->rank, &r->comm);
    if (r->init_rc == HCCL_SUCCESS) {
        body_cluster(r);
        r->destroy_rc = HcclCommDestroy(r->comm);
    }
    aclrtResetDevice(r->rank);
    return NULL;
}

static void cluster_info_file_builds_two_servers(void **state)
{
    struct cu_rank r[4];
    pthread_t t[4];
    char path[CU_PATH];
    (void)state;

    cu_write(job, "ranktable.json", table4, path, sizeof(path));
    cu_barrier_init(4);
    for (int i = 0; i < 4; i++) {
        r[i] = (struct cu_rank){.rank = i, .n = 4, .root = (const HcclRootInfo *)path};
        pthread_create(&t[i], NULL, cluster_main, &r[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    check_all_ranks(r, 4);
    unlink(path);
    check_devices_clean(NULL);
}

/* ---- the same table joined again after aclFinalize / aclInit --------------------------- */

static const char table2[] =
    "{\"version\": \"1.0\", \"server_count\": \"1\", \"status\": \"completed\",\n"
    " \"server_list\": [{\"server_id\": \"10.0.0.1\", \"device\": [\n"
    "    {\"device_id\": \"0\", \"rank_id\": \"0\"}, {\"device_id\": \"1\", \"rank_id\": \"1\"}]}]}\n";

static void *join_table_main(void *arg)
{
    struct cu_rank *r = arg;

    aclrtSetDevice(r->rank);
    r->init_rc = HcclCommInitClusterInfo((const char *)r->root, (uint32_t)r->rank, &r->comm);
    uint32_t n = 0;
    if (r->init_rc == HCCL_SUCCESS)
        CU_CHECK(r, HcclGetRankSize(r->comm, &n) == HCCL_SUCCESS && n == 2);
    if (r->init_rc == HCCL_SUCCESS && !r->keep)
        r->destroy_rc = HcclCommDestroy(r->comm);
    return NULL;
}

static void join_table(struct cu_rank *r, const char *path, bool keep)
{
    pthread_t t[2];

    for (int i = 0; i < 2; i++) {
        r[i] = (struct cu_rank){.rank = i, .n = 2, .root = (const HcclRootInfo *)path,
                                .keep = keep};
        pthread_create(&t[i], NULL, join_table_main, &r[i]);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
}

/* Communicators left open at aclFinalize stay members of the table's rendezvous file (in the
 * per-user folder, which outlives the job folder). The next aclInit of this process joining
 * the same table bytes must get a new file, not "rank 0 has already joined", and the old
 * members' later destruction must not remove the new one. */
static void table_joined_again_after_finalize_with_comms_left_open(void **state)
{
    struct cu_rank old[2], now[2];
    char dir[CU_PATH + 16], path[CU_PATH + 32], rdv[CU_PATH + 48];
    (void)state;

    /* Each start makes its own job folder under `dir`; the ranks meet in dir's rdv folder.
     * `dir` is inside the group's folder, which cu_job_end removes whatever happens here
     * (the last member leaving at aclFinalize removed it: make it again). */
    aclFinalize();
    snprintf(dir, sizeof(dir), "%s/rejoin", job);
    (void)mkdir(job, 0700);
    assert_int_equal(mkdir(dir, 0700), 0);
    cu_write(dir, "ranktable2.json", table2, path, sizeof(path));
    snprintf(rdv, sizeof(rdv), "%s/hcemu-%u-rdv", dir, (unsigned)geteuid());
    unsetenv("HCEMU_JOB_PATH");
    setenv("HCEMU_JOB_DIR", dir, 1);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    join_table(old, path, true);
    assert_int_equal(old[0].init_rc, HCCL_SUCCESS);
    assert_int_equal(old[1].init_rc, HCCL_SUCCESS);
    assert_int_equal(cu_count_files(rdv, "hcemu-comm-"), 1);
    aclFinalize();
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    join_table(now, path, true);
    check_all_ranks(now, 2);
    /* The earlier start's members leave; the file of the new ones stays until they do. */
    for (int i = 0; i < 2; i++)
        (void)HcclCommDestroy(old[i].comm);
    assert_int_equal(cu_count_files(rdv, "hcemu-comm-"), 1);
    for (int i = 0; i < 2; i++)
        assert_int_equal(HcclCommDestroy(now[i].comm), HCCL_SUCCESS);
    assert_int_equal(cu_count_files(rdv, "hcemu-comm-"), 0);
    aclFinalize();
    unsetenv("HCEMU_JOB_DIR");
    setenv("HCEMU_JOB_PATH", job, 1);
    cu_rmtree(dir);
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(init_of_1_2_4_8_ranks_as_threads),
        cmocka_unit_test(init_all_makes_one_member_per_device),
        cmocka_unit_test(resources_are_seen_from_both_ends_of_each_channel),
        cmocka_unit_test(eight_ranks_build_a_full_mesh),
        cmocka_unit_test(builtin_collectives_keep_a_wrapped_streams_notifies),
        cmocka_unit_test(destroy_and_recreate_in_a_loop_leaves_nothing),
        cmocka_unit_test(init_times_out_naming_the_missing_rank),
        cmocka_unit_test(channel_times_out_when_the_peer_never_acquires),
        cmocka_unit_test(channel_timeout_names_the_rank_at_the_end_of_the_chain),
        cmocka_unit_test(thread_labels_are_unique_on_a_device),
        cmocka_unit_test(channel_sides_must_agree_on_notify_num),
        cmocka_unit_test(channel_fails_fast_when_the_peer_destroys),
        cmocka_unit_test(ring_neighbour_acquire_then_destroy_never_fails),
        cmocka_unit_test(destroy_answers_again_while_a_call_blocks),
        cmocka_unit_test(cluster_info_file_builds_two_servers),
        cmocka_unit_test(table_joined_again_after_finalize_with_comms_left_open),
    };
    cu_job_begin(job, sizeof(job), "8", "4");
    return cu_job_end(job,
                      cmocka_run_group_tests_name("comm", tests, cu_acl_setup, cu_acl_teardown));
}
