/* test_comm_proc.c - ranks as separate processes (this program re-executed with --child):
 * 1, 2, 4 and 8 ranks sharing a job folder the way hcemu-run starts them (HCEMU_RANK,
 * HCEMU_RANK_SIZE, HCEMU_JOB_PATH, HCEMU_JOB_ID; every rank calls HcclGetRootInfo itself),
 * ranks with their own job folders exchanging the root info through a file, a rank that
 * never comes, a peer killed during channel setup, a destroy/re-create loop, the product
 * rules of an A2 SoC, and an HCEMU_TOPOLOGY file. Every child exits 0 when its checks pass.
 * Afterwards no file and no executor of the test may remain. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
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

#include "common/contract/handle.h"
#include "test_comm_util.h"

/* Paths here are short temporary folders; GCC cannot know that. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define MAXR 8

static char tmp[256];
static char self[CU_PATH];

/* ---- children -------------------------------------------------------------------------- */

#define CHILD_CHECK(cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "child check failed at line %d: %s\n", __LINE__, #cond);               \
            exit(3);                                                                               \
        }                                                                                          \
    } while (0)

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v != NULL ? atoi(v) : -1;
}

/* A barrier of processes: every rank drops a file and waits for all of them. */
static void file_barrier(const char *dir, const char *tag, int rank, int n)
{
    char path[CU_PATH + 64], prefix[64];

    snprintf(path, sizeof(path), "%s/%s.%d", dir, tag, rank);
    close(open(path, O_CREAT | O_WRONLY, 0600));
    snprintf(prefix, sizeof(prefix), "%s.", tag);
    for (int t = 0; t < 3000 && cu_count_files(dir, prefix) < n; t++)
        usleep(10000);
    CHILD_CHECK(cu_count_files(dir, prefix) >= n);
}

/* Mesh channels to every peer, then check both ends in the peers' control blocks. */
static void mesh_and_check(HcclComm comm, int rank, int n, const char *job)
{
    HcclChannelDesc d[MAXR];
    ChannelHandle ch[MAXR];
    uint32_t np = 0;
    ThreadHandle th[2];
    void *buf;
    uint64_t size;

    CHILD_CHECK(HcclGetHcclBuffer(comm, &buf, &size) == 0 && size == 2u << 20);
    CHILD_CHECK(HcclThreadAcquire(comm, COMM_ENGINE_AICPU_TS, 2, 2, th) == 0);
    for (int p = 0; p < n; p++)
        if (p != rank)
            CHILD_CHECK(cu_desc_to(comm, (uint32_t)rank, (uint32_t)p, COMM_PROTOCOL_UB_CTP, 2,
                                   &d[np++]) == 0);
    if (np > 0)
        CHILD_CHECK(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, d, np, ch) == 0);
    const struct emu_devctl *me = cu_ctl_map(job, rank);
    CHILD_CHECK(me != NULL);
    for (uint32_t i = 0; i < np; i++) {
        struct emu_handle h;
        CHILD_CHECK(emu_handle_decode(ch[i], EMU_HANDLE_CHANNEL, &h));
        const struct emu_channel_ctl *c = &me->channels[h.index];
        const struct emu_peer_ref *pr = &me->peers[c->peer];
        /* The peer's job folder and device come from the rendezvous, as the executor
         * needs them to map the peer's memory. */
        const struct emu_devctl *peer = cu_ctl_map(pr->job_dir, (int)pr->dev);
        CHILD_CHECK(peer != NULL && pr->dev == d[i].remoteRank);
        const struct emu_channel_ctl *pc = &peer->channels[c->remote_channel];
        CHILD_CHECK(pc->remote_channel == h.index && pc->remote_rank == (uint32_t)rank);
        CHILD_CHECK(pc->remote_notify_base == c->local_notify_base &&
                    c->remote_notify_base == pc->local_notify_base);
        void *pbuf;
        CHILD_CHECK(HcclChannelGetHcclBuffer(comm, ch[i], &pbuf, &size) == 0);
        CHILD_CHECK(c->mems[0].addr == (uint64_t)(uintptr_t)pbuf &&
                    pc->mems[0].addr == (uint64_t)(uintptr_t)buf);
        cu_ctl_unmap(peer);
    }
    cu_ctl_unmap(me);
}

static int child_rank(const char *arg)
{
    int rank = env_int("HCEMU_RANK"), n = env_int("HCEMU_RANK_SIZE");
    int loops = arg[0] ? atoi(arg) : 1;
    HcclRootInfo ri;
    HcclComm comm;
    char barrier_tag[32];

    CHILD_CHECK(aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(rank) == ACL_SUCCESS);
    for (int it = 0; it < loops; it++) {
        CHILD_CHECK(HcclGetRootInfo(&ri) == HCCL_SUCCESS); /* every rank derives the same */
        CHILD_CHECK(HcclCommInitRootInfo((uint32_t)n, &ri, (uint32_t)rank, &comm) == 0);
        mesh_and_check(comm, rank, n, getenv("HCEMU_JOB_PATH"));
        snprintf(barrier_tag, sizeof(barrier_tag), "done%d", it);
        file_barrier(getenv("HCEMU_JOB_PATH"), barrier_tag, rank, n);
        CHILD_CHECK(HcclCommDestroy(comm) == 0);
    }
    CHILD_CHECK(aclrtResetDevice(rank) == 0 && aclFinalize() == 0);
    return 0;
}

/* Job folders have random names: mine is the one whose owners file starts with my pid. */
static int find_my_job_folder(const char *parent, char *out, size_t len)
{
    char prefix[32], mine[32], line[64];
    DIR *d = opendir(parent);
    struct dirent *e;
    int found = 0;

    snprintf(prefix, sizeof(prefix), "hcemu-%u-", (unsigned)geteuid());
    snprintf(mine, sizeof(mine), "%d ", (int)getpid());
    while (d != NULL && !found && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0)
            continue;
        snprintf(out, len, "%s/%s/owners", parent, e->d_name);
        FILE *f = fopen(out, "r");
        found = f != NULL && fgets(line, sizeof(line), f) != NULL &&
                strncmp(line, mine, strlen(mine)) == 0;
        if (f != NULL)
            fclose(f);
        snprintf(out, len, "%s/%s", parent, e->d_name);
    }
    if (d != NULL)
        closedir(d);
    return found;
}

/* Own job folders: the root info travels through a file, as users do with MPI or files. */
static int child_own_job(const char *arg)
{
    int rank = env_int("TEST_RANK"), n = env_int("TEST_SIZE");
    char path[CU_PATH * 2], part[CU_PATH + 40];
    HcclRootInfo ri;
    HcclComm comm;

    CHILD_CHECK(aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(rank) == ACL_SUCCESS);
    snprintf(path, sizeof(path), "%s/root.bin", arg);
    if (rank == 0) {
        CHILD_CHECK(HcclGetRootInfo(&ri) == 0);
        snprintf(part, sizeof(part), "%s.part", path);
        FILE *f = fopen(part, "wb");
        CHILD_CHECK(f != NULL && fwrite(&ri, sizeof(ri), 1, f) == 1);
        fclose(f);
        CHILD_CHECK(rename(part, path) == 0);
    } else {
        FILE *f = NULL;
        for (int t = 0; t < 1000 && (f = fopen(path, "rb")) == NULL; t++)
            usleep(10000);
        CHILD_CHECK(f != NULL && fread(&ri, sizeof(ri), 1, f) == 1);
        fclose(f);
    }
    CHILD_CHECK(HcclCommInitRootInfo((uint32_t)n, &ri, (uint32_t)rank, &comm) == 0);
    /* My own control block lives in my own job folder. */
    char job[CU_PATH * 2];
    CHILD_CHECK(find_my_job_folder(arg, job, sizeof(job)));
    mesh_and_check(comm, rank, n, job);
    file_barrier(arg, "owndone", rank, n);
    CHILD_CHECK(HcclCommDestroy(comm) == 0);
    CHILD_CHECK(aclrtResetDevice(rank) == 0 && aclFinalize() == 0);
    return 0;
}

/* Ranks 0 and 1 of 3: init must fail with a timeout. */
static int child_missing(const char *arg)
{
    int rank = env_int("HCEMU_RANK");
    HcclRootInfo ri;
    HcclComm comm;
    (void)arg;

    CHILD_CHECK(aclInit(NULL) == 0 && aclrtSetDevice(rank) == 0);
    CHILD_CHECK(HcclGetRootInfo(&ri) == 0);
    CHILD_CHECK(HcclCommInitRootInfo(3, &ri, (uint32_t)rank, &comm) == HCCL_E_TIMEOUT);
    aclFinalize();
    return 0;
}

/* Rank 0 acquires a channel to rank 1, which is killed meanwhile: REMOTE, not a hang. */
static int child_victim(const char *arg)
{
    int rank = env_int("HCEMU_RANK");
    HcclRootInfo ri;
    HcclComm comm;
    HcclChannelDesc d;
    ChannelHandle ch;

    CHILD_CHECK(aclInit(NULL) == 0 && aclrtSetDevice(rank) == 0);
    CHILD_CHECK(HcclGetRootInfo(&ri) == 0);
    CHILD_CHECK(HcclCommInitRootInfo(2, &ri, (uint32_t)rank, &comm) == 0);
    if (rank == 1) {
        char path[CU_PATH * 2];
        snprintf(path, sizeof(path), "%s/victim.ready", arg);
        close(open(path, O_CREAT | O_WRONLY, 0600));
        pause(); /* killed by the parent */
    }
    CHILD_CHECK(cu_desc_to(comm, 0, 1, COMM_PROTOCOL_UB_CTP, 1, &d) == 0);
    CHILD_CHECK(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch) == HCCL_E_REMOTE);
    CHILD_CHECK(HcclCommDestroy(comm) == 0);
    aclFinalize();
    return 0;
}

/* Atlas A2: HCCS inside the server, and the 950-only calls refused. */
static int child_a2(const char *arg)
{
    int32_t devs[2] = {0, 1};
    HcclComm c[2];
    CommLink *l;
    uint32_t n;
    HcclChannelDesc d;
    ChannelHandle ch;
    HcclMemHandle h;
    void *ctx, *info;
    (void)arg;

    CHILD_CHECK(aclInit(NULL) == 0 && aclrtSetDevice(0) == 0);
    CHILD_CHECK(HcclCommInitAll(2, devs, c) == 0);
    CHILD_CHECK(HcclRankGraphGetLinks(c[0], 0, 0, 1, &l, &n) == 0 && n == 1 &&
                l[0].linkAttr.linkProtocol == COMM_PROTOCOL_HCCS);
    CommTopo topo;
    CHILD_CHECK(HcclRankGraphGetTopoTypeByLayer(c[0], 0, &topo) == 0 && topo == COMM_TOPO_1DMESH);
    HcclChannelDescInit(&d, 1);
    d.remoteRank = 1;
    d.channelProtocol = COMM_PROTOCOL_UB_CTP;
    CHILD_CHECK(HcclChannelAcquire(c[0], COMM_ENGINE_AICPU_TS, &d, 1, &ch) == HCCL_E_NOT_SUPPORT);
    CHILD_CHECK(HcclChannelAcquire(c[0], COMM_ENGINE_CCU, &d, 1, &ch) == HCCL_E_NOT_SUPPORT);
    CHILD_CHECK(HcclChannelAcquireWithConfig(c[0], COMM_ENGINE_AICPU_TS, &d, 1, NULL, &ch) ==
                HCCL_E_NOT_SUPPORT);
    CHILD_CHECK(HcclChannelQuery(c[0], COMM_ENGINE_AICPU_TS, &d, 1, &ch) == HCCL_E_NOT_SUPPORT);
    CommMem m = {COMM_MEM_TYPE_DEVICE, (void *)&d, 8};
    CHILD_CHECK(HcclCommMemReg(c[0], "m", &m, &h) == HCCL_E_NOT_SUPPORT);
    CHILD_CHECK(HcclThreadResGetInfo(c[0], 0, THREAD_RES_TYPE_STREAM, 8, &info) ==
                HCCL_E_NOT_SUPPORT);
    CHILD_CHECK(HcclEngineCtxCreate(c[0], "t", COMM_ENGINE_CCU, 8, &ctx) == HCCL_E_NOT_SUPPORT);
    CHILD_CHECK(HcclEngineCtxCreate(c[0], "t", COMM_ENGINE_AICPU_TS, 8, &ctx) == 0);
    CHILD_CHECK(HcclCommDestroy(c[0]) == 0 && HcclCommDestroy(c[1]) == 0);
    aclFinalize();
    return 0;
}

/* HCEMU_TOPOLOGY: two servers of two devices. arg "bad": a broken file refuses init. */
static int child_topology(const char *arg)
{
    int32_t devs[4] = {0, 1, 2, 3};
    HcclComm c[4];
    uint32_t *layers, nl, *sizes, ns;
    CommLink *l;
    uint32_t n;

    CHILD_CHECK(aclInit(NULL) == 0);
    if (strcmp(arg, "bad") == 0) {
        CHILD_CHECK(HcclCommInitAll(2, devs, c) == HCCL_E_OPEN_FILE_FAILURE);
        aclFinalize();
        return 0;
    }
    CHILD_CHECK(HcclCommInitAll(4, devs, c) == 0);
    CHILD_CHECK(HcclRankGraphGetLayers(c[1], &layers, &nl) == 0 && nl == 2);
    CHILD_CHECK(HcclRankGraphGetInstSizeListByLayer(c[1], 0, &sizes, &ns) == 0 && ns == 2 &&
                sizes[0] == 2 && sizes[1] == 2);
    CHILD_CHECK(HcclRankGraphGetLinks(c[1], 1, 1, 3, &l, &n) == 0 && n == 1 &&
                l[0].linkAttr.linkProtocol == COMM_PROTOCOL_UBOE);
    CHILD_CHECK(HcclRankGraphGetLinks(c[1], 0, 1, 0, &l, &n) == 0 && n == 1 &&
                l[0].linkAttr.linkProtocol == COMM_PROTOCOL_UB_CTP);
    for (int i = 0; i < 4; i++)
        CHILD_CHECK(HcclCommDestroy(c[i]) == 0);
    aclFinalize();
    return 0;
}

/* aclFinalize before HcclCommDestroy: calls are refused, destroy still frees the host side. */
static int child_late_destroy(const char *arg)
{
    int32_t dev = 0;
    HcclComm c;
    void *buf, *ctx;
    uint64_t size;
    uint32_t rank;
    ThreadHandle th;
    (void)arg;

    CHILD_CHECK(aclInit(NULL) == 0 && aclrtSetDevice(0) == 0);
    CHILD_CHECK(HcclCommInitAll(1, &dev, &c) == 0);
    CHILD_CHECK(HcclGetHcclBuffer(c, &buf, &size) == 0);
    CHILD_CHECK(HcclThreadAcquire(c, COMM_ENGINE_AICPU_TS, 1, 2, &th) == 0);
    CHILD_CHECK(HcclEngineCtxCreate(c, "t", COMM_ENGINE_AICPU_TS, 64, &ctx) == 0);
    CHILD_CHECK(HcclEngineCtxCreate(c, "t", COMM_ENGINE_CPU_TS, 64, &ctx) == 0);
    CHILD_CHECK(aclFinalize() == 0);
    CHILD_CHECK(HcclGetRankId(c, &rank) == HCCL_E_RUNTIME);
    CHILD_CHECK(HcclCommDestroy(c) == 0);
    return 0;
}

static int run_child(const char *scenario, const char *arg)
{
    if (strcmp(scenario, "late_destroy") == 0)
        return child_late_destroy(arg);
    if (strcmp(scenario, "rank") == 0)
        return child_rank(arg);
    if (strcmp(scenario, "own_job") == 0)
        return child_own_job(arg);
    if (strcmp(scenario, "missing") == 0)
        return child_missing(arg);
    if (strcmp(scenario, "victim") == 0)
        return child_victim(arg);
    if (strcmp(scenario, "a2") == 0)
        return child_a2(arg);
    if (strcmp(scenario, "topology") == 0)
        return child_topology(arg);
    return 2;
}

/* ---- the parent ------------------------------------------------------------------------ */

/* A fresh shared job folder per test, checked empty of hcemu files and executors after. */
static void job_begin(char *job, size_t len, const char *name)
{
    snprintf(job, len, "%s/%s", tmp, name);
    assert_int_equal(mkdir(job, 0700), 0);
}

static void job_end(const char *job)
{
    assert_int_equal(cu_wait_executors_gone(job, 5000), 0);
    assert_int_equal(cu_count_files(job, "hcemu-comm-"), 0);
    cu_rmtree(job);
}

/* Start n ranks of `scenario` the way hcemu-run does. */
static void run_ranks(const char *scenario, const char *arg, int n, int launched, const char *job,
                      const char *extra, int timeout_ms)
{
    pid_t pid[MAXR];
    static char env[MAXR][6][CU_PATH * 3];

    for (int r = 0; r < launched; r++) {
        snprintf(env[r][0], sizeof(env[r][0]), "HCEMU_RANK=%d", r);
        snprintf(env[r][1], sizeof(env[r][1]), "HCEMU_RANK_SIZE=%d", n);
        snprintf(env[r][2], sizeof(env[r][2]), "HCEMU_JOB_PATH=%s", job);
        snprintf(env[r][3], sizeof(env[r][3]), "HCEMU_JOB_ID=%s", job);
        snprintf(env[r][4], sizeof(env[r][4]), "%s", extra ? extra : "TEST_NOTHING=1");
        char *e[] = {env[r][0], env[r][1], env[r][2], env[r][3], env[r][4], NULL};
        pid[r] = cu_spawn(self, scenario, arg, e);
    }
    for (int r = 0; r < launched; r++) {
        int st = cu_wait(pid[r], timeout_ms);
        if (st != 0)
            fail_msg("%s rank %d of %d exited with %d", scenario, r, n, st);
    }
}

static void init_of_1_2_4_8_ranks_as_processes(void **state)
{
    static const int sizes[] = {1, 2, 4, 8};
    char job[CU_PATH * 2];
    (void)state;

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        char name[32];
        snprintf(name, sizeof(name), "ranks%d", sizes[k]);
        job_begin(job, sizeof(job), name);
        run_ranks("rank", "", sizes[k], sizes[k], job, NULL, 60000);
        job_end(job);
    }
}

static void processes_with_their_own_job_folders_meet_through_the_root_info(void **state)
{
    char job[CU_PATH * 2], env[4][2][CU_PATH];
    pid_t pid[4];
    (void)state;

    job_begin(job, sizeof(job), "own");
    for (int r = 0; r < 4; r++) {
        snprintf(env[r][0], sizeof(env[r][0]), "TEST_RANK=%d", r);
        snprintf(env[r][1], sizeof(env[r][1]), "HCEMU_JOB_DIR=%s", job);
        char size[] = "TEST_SIZE=4";
        char *e[] = {env[r][0], env[r][1], size, NULL};
        pid[r] = cu_spawn(self, "own_job", job, e);
    }
    for (int r = 0; r < 4; r++)
        assert_int_equal(cu_wait(pid[r], 60000), 0);
    unlink(strcat(job, "/root.bin"));
    *strrchr(job, '/') = '\0';
    assert_int_equal(cu_wait_executors_gone(job, 5000), 0);
    /* Each process removed its own job folder; only our barrier files remain. */
    assert_int_equal(cu_count_files(job, "hcemu-"), 0);
    cu_rmtree(job);
}

static void a_rank_that_never_comes_ends_init_with_a_timeout(void **state)
{
    char job[CU_PATH * 2];
    (void)state;

    job_begin(job, sizeof(job), "missing");
    run_ranks("missing", "", 3, 2, job, "HCCL_CONNECT_TIMEOUT=1", 30000);
    job_end(job);
}

static void a_killed_peer_ends_channel_setup_at_once(void **state)
{
    char job[CU_PATH * 2], ready[CU_PATH * 2];
    char env[2][5][CU_PATH * 2];
    pid_t pid[2];
    (void)state;

    job_begin(job, sizeof(job), "victim");
    for (int r = 0; r < 2; r++) {
        snprintf(env[r][0], sizeof(env[r][0]), "HCEMU_RANK=%d", r);
        snprintf(env[r][1], sizeof(env[r][1]), "HCEMU_RANK_SIZE=2");
        snprintf(env[r][2], sizeof(env[r][2]), "HCEMU_JOB_PATH=%s", job);
        snprintf(env[r][3], sizeof(env[r][3]), "HCEMU_JOB_ID=victim");
        snprintf(env[r][4], sizeof(env[r][4]), "HCCL_CONNECT_TIMEOUT=60");
        char *e[] = {env[r][0], env[r][1], env[r][2], env[r][3], env[r][4], NULL};
        pid[r] = cu_spawn(self, "victim", job, e);
    }
    snprintf(ready, sizeof(ready), "%s/victim.ready", job);
    for (int t = 0; t < 2000 && access(ready, F_OK) != 0; t++)
        usleep(10000);
    usleep(300000); /* rank 0 is now waiting for rank 1's half of the channel */
    kill(pid[1], SIGKILL);
    assert_int_equal(cu_wait(pid[1], 5000), 128 + SIGKILL);
    assert_int_equal(cu_wait(pid[0], 10000), 0); /* well before the 60 s timeout */
    unlink(ready);
    /* The killed rank never left, so its rendezvous file stays until the folder goes. */
    assert_int_equal(cu_wait_executors_gone(job, 5000), 0);
    cu_rmtree(job);
}

static void destroy_and_recreate_in_a_loop_as_processes(void **state)
{
    char job[CU_PATH * 2];
    (void)state;

    job_begin(job, sizeof(job), "loop");
    run_ranks("rank", "10", 2, 2, job, NULL, 120000);
    job_end(job);
}

static void an_a2_soc_lacks_the_950_features(void **state)
{
    char job[CU_PATH * 2], e1[CU_PATH * 2];
    (void)state;

    job_begin(job, sizeof(job), "a2");
    snprintf(e1, sizeof(e1), "HCEMU_JOB_PATH=%s", job);
    char soc[] = "HCEMU_SOC=Ascend910B1";
    char *e[] = {e1, soc, NULL};
    assert_int_equal(cu_wait(cu_spawn(self, "a2", "", e), 60000), 0);
    job_end(job);
}

static void a_topology_file_splits_devices_into_servers(void **state)
{
    char job[CU_PATH * 2], path[CU_PATH], e1[CU_PATH * 2], e2[CU_PATH * 2];
    (void)state;

    job_begin(job, sizeof(job), "topo");
    cu_write(tmp, "topo.json",
             "{\"servers\": [{\"name\": \"a\", \"devices\": [0, 1]},"
             " {\"name\": \"b\", \"devices\": [2, 3]}],"
             " \"intra_protocol\": \"ub_ctp\", \"inter_protocols\": [\"UBOE\"]}",
             path, sizeof(path));
    snprintf(e1, sizeof(e1), "HCEMU_JOB_PATH=%s", job);
    snprintf(e2, sizeof(e2), "HCEMU_TOPOLOGY=%s", path);
    char *e[] = {e1, e2, NULL};
    assert_int_equal(cu_wait(cu_spawn(self, "topology", "", e), 60000), 0);
    cu_write(tmp, "topo.json", "{\"servers\": [{\"devices\": [0, 0]}]}", path, sizeof(path));
    assert_int_equal(cu_wait(cu_spawn(self, "topology", "bad", e), 60000), 0);
    unlink(path);
    job_end(job);
}

static void destroy_after_acl_finalize_frees_the_host_side(void **state)
{
    char job[CU_PATH * 2], e1[CU_PATH * 2];
    (void)state;

    job_begin(job, sizeof(job), "late");
    snprintf(e1, sizeof(e1), "HCEMU_JOB_PATH=%s", job);
    char *e[] = {e1, NULL};
    assert_int_equal(cu_wait(cu_spawn(self, "late_destroy", "", e), 60000), 0);
    cu_rmtree(job); /* the device files stay: with HCEMU_JOB_PATH the launcher removes them */
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--child") == 0)
        return run_child(argv[2], argc >= 4 ? argv[3] : "");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(init_of_1_2_4_8_ranks_as_processes),
        cmocka_unit_test(processes_with_their_own_job_folders_meet_through_the_root_info),
        cmocka_unit_test(a_rank_that_never_comes_ends_init_with_a_timeout),
        cmocka_unit_test(a_killed_peer_ends_channel_setup_at_once),
        cmocka_unit_test(destroy_and_recreate_in_a_loop_as_processes),
        cmocka_unit_test(an_a2_soc_lacks_the_950_features),
        cmocka_unit_test(a_topology_file_splits_devices_into_servers),
        cmocka_unit_test(destroy_after_acl_finalize_frees_the_host_side),
    };
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 1;
    self[n] = '\0';
    cu_tmpdir(tmp, sizeof(tmp));
    setenv("HCEMU_DEVICES", "8", 1);
    setenv("HCEMU_DEVICE_MEM_GB", "1", 1);
    setenv("HCCL_BUFFSIZE", "2", 1);
    setenv("HCCL_CONNECT_TIMEOUT", "30", 1);
    unsetenv("HCEMU_JOB_PATH");
    unsetenv("HCEMU_RANK");
    unsetenv("HCEMU_TOPOLOGY");
    unsetenv("HCEMU_SOC");
    int rc = cmocka_run_group_tests_name("comm_proc", tests, NULL, NULL);
    int left = cu_wait_executors_gone(tmp, 5000);
    cu_rmtree(tmp);
    return left != 0 ? 1 : rc;
}
