/* test_exchange_info.c - HcclCommAddExchangeInfo / HcclCommGetExchangeInfo /
 * HcclCommResetExchangeInfo: bytes each rank adds reach the peers it creates channels to,
 * once, for 2 and 8 ranks as threads, as processes (this program re-executed with --child,
 * the way hcemu-run starts ranks) and as processes of two "hosts" (job folders that meet over
 * TCP on loopback); Reset withdraws them; bad arguments get hcomm's
 * codes (HCCL_E_PTR for NULL pointers, HCCL_E_PARA for lengths) with one error line. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hccl_res_expt.h>

#include "test_comm_util.h"

#define MAXR 8
#define INFO_MAX 2048u /* hcomm's limit */

static char job[CU_PATH];
static char self[CU_PATH];

/* What `rank` adds: its own length and bytes, so a mix-up of senders shows. */
static uint32_t info_len(uint32_t rank)
{
    return 40u + rank * 97u;
}

static void info_fill(uint32_t rank, uint8_t *out)
{
    for (uint32_t i = 0; i < info_len(rank); i++)
        out[i] = (uint8_t)(rank * 31u + i * 7u + 1u);
}

/* One round on a live comm: every rank adds its bytes (rank 1 then withdraws them with
 * Reset), builds channels to every peer, and reads what each peer sent. Returns the number
 * of failed checks (printed). */
static int exchange_round(HcclComm comm, uint32_t rank, uint32_t n)
{
    uint8_t mine[INFO_MAX], got[INFO_MAX + 1], want[INFO_MAX];
    HcclChannelDesc d[MAXR];
    ChannelHandle ch[MAXR];
    uint32_t np = 0, actual = 0;
    int bad = 0;
#define XCHECK(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %u: check failed at line %d: %s\n", rank, __LINE__, #cond);      \
            bad++;                                                                                 \
        }                                                                                          \
    } while (0)

    /* Nothing arrived yet: length 0, success. */
    XCHECK(HcclCommGetExchangeInfo(comm, (rank + 1) % n, 4, got, &actual) == 0 && actual == 0);
    info_fill(rank, mine);
    XCHECK(HcclCommAddExchangeInfo(comm, mine, 3) == 0); /* replaced by the next add */
    XCHECK(HcclCommAddExchangeInfo(comm, mine, info_len(rank)) == 0);
    if (rank == 1)
        XCHECK(HcclCommResetExchangeInfo(comm) == 0);
    for (uint32_t p = 0; p < n; p++)
        if (p != rank)
            XCHECK(cu_desc_to(comm, rank, p, COMM_PROTOCOL_UB_CTP, 1, &d[np++]) == 0);
    XCHECK(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, d, np, ch) == 0);
    for (uint32_t p = 0; p < n; p++) {
        if (p == rank)
            continue;
        if (p == 1) { /* rank 1 reset: nothing came from it */
            XCHECK(HcclCommGetExchangeInfo(comm, p, 4, got, &actual) == 0 && actual == 0);
            continue;
        }
        /* A wrong length is refused, with the real one, and keeps the bytes. */
        actual = 0;
        XCHECK(HcclCommGetExchangeInfo(comm, p, info_len(p) + 1, got, &actual) == HCCL_E_PARA &&
               actual == info_len(p));
        memset(got, 0, sizeof(got));
        XCHECK(HcclCommGetExchangeInfo(comm, p, info_len(p), got, &actual) == 0 &&
               actual == info_len(p));
        info_fill(p, want);
        XCHECK(memcmp(got, want, info_len(p)) == 0);
        /* Read once. */
        XCHECK(HcclCommGetExchangeInfo(comm, p, info_len(p), got, &actual) == 0 && actual == 0);
    }
    /* Sent bytes are used up: acquiring the same channels again brings nothing. */
    XCHECK(HcclChannelAcquire(comm, COMM_ENGINE_AICPU_TS, d, np, ch) == 0);
    XCHECK(HcclCommGetExchangeInfo(comm, (rank + 1) % n, 4, got, &actual) == 0 && actual == 0);
    /* A rank outside the communicator never sent anything (as hcomm: no error). */
    XCHECK(HcclCommGetExchangeInfo(comm, n + 5, 4, got, &actual) == 0 && actual == 0);
    return bad;
#undef XCHECK
}

/* ---- ranks as threads ------------------------------------------------------------------ */

static void body_threads(struct cu_rank *r)
{
    r->failures += exchange_round(r->comm, (uint32_t)r->rank, (uint32_t)r->n);
    cu_barrier_wait(); /* nobody destroys while a peer still acquires */
}

static void run_threads(int n)
{
    struct cu_rank r[MAXR];
    HcclRootInfo ri;

    memset(r, 0, sizeof(r));
    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    cu_run_ranks(r, n, &ri, body_threads, NULL);
    for (int i = 0; i < n; i++) {
        assert_int_equal(r[i].init_rc, HCCL_SUCCESS);
        assert_int_equal(r[i].failures, 0);
    }
}

static void two_and_eight_rank_threads_exchange_bytes(void **state)
{
    (void)state;
    run_threads(2);
    run_threads(8);
}

/* ---- ranks as processes ---------------------------------------------------------------- */

static int child_rank(const char *barrier)
{
    const char *rs = getenv("HCEMU_RANK"), *ns = getenv("HCEMU_RANK_SIZE");
    const char *ls = getenv("HCEMU_LOCAL_RANK");
    uint32_t rank = rs != NULL ? (uint32_t)atoi(rs) : 0, n = ns != NULL ? (uint32_t)atoi(ns) : 0;
    int32_t dev = ls != NULL ? atoi(ls) : (int32_t)rank;
    HcclRootInfo ri;
    HcclComm comm;

    if (n < 2 || aclInit(NULL) != 0 || aclrtSetDevice(dev) != 0 || HcclGetRootInfo(&ri) != 0 ||
        HcclCommInitRootInfo(n, &ri, rank, &comm) != 0)
        return 3;
    int bad = exchange_round(comm, rank, n);
    /* A barrier of files, so no rank's devices go while a peer still maps them. */
    char path[CU_PATH * 2];
    snprintf(path, sizeof(path), "%s/done.%u", barrier, rank);
    close(open(path, O_CREAT | O_WRONLY, 0600));
    for (int t = 0; t < 3000 && cu_count_files(barrier, "done.") < (int)n; t++)
        usleep(10000);
    if (HcclCommDestroy(comm) != 0 || aclrtResetDevice(dev) != 0 || aclFinalize() != 0)
        bad++;
    return bad == 0 ? 0 : 4;
}

/* A free loopback port: the kernel picks one for a throw-away socket. */
static int free_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = -1;

    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

/* n ranks as processes the way hcemu-run starts them; hosts = 2 splits them over two job
 * folders that meet through the root's TCP listener (the rows, exchange info included, are
 * copied between the folders), as one hcemu-run per host does. */
static void run_processes(int n, int hosts)
{
    static char env[MAXR][8][CU_PATH * 2];
    char sub[CU_PATH + 16], dir[2][CU_PATH + 32];
    pid_t pid[MAXR];
    int port = hosts > 1 ? free_port() : 0;

    assert_true(port >= 0);
    snprintf(sub, sizeof(sub), "%s/procs%d_%d", job, n, hosts);
    assert_int_equal(mkdir(sub, 0700), 0);
    for (int h = 0; h < hosts; h++) {
        snprintf(dir[h], sizeof(dir[h]), "%s/host%d", sub, h);
        assert_int_equal(mkdir(dir[h], 0700), 0);
    }
    for (int r = 0; r < n; r++) {
        int h = r * hosts / n, first = h * n / hosts;
        snprintf(env[r][0], sizeof(env[r][0]), "HCEMU_RANK=%d", r);
        snprintf(env[r][1], sizeof(env[r][1]), "HCEMU_RANK_SIZE=%d", n);
        snprintf(env[r][2], sizeof(env[r][2]), "HCEMU_LOCAL_RANK=%d", r - first);
        snprintf(env[r][3], sizeof(env[r][3]), "HCEMU_JOB_PATH=%s", dir[h]);
        snprintf(env[r][4], sizeof(env[r][4]), "HCEMU_JOB_ID=%s", sub);
        snprintf(env[r][5], sizeof(env[r][5]), "HCEMU_ROOT=127.0.0.1:%d", port);
        snprintf(env[r][6], sizeof(env[r][6]), "HCEMU_INSECURE_LOOPBACK=1");
        char *e[] = {env[r][0], env[r][1], env[r][2], env[r][3], env[r][4],
                     hosts > 1 ? env[r][5] : NULL, env[r][6], NULL};
        pid[r] = cu_spawn(self, "rank", sub, e);
    }
    for (int r = 0; r < n; r++) {
        int st = cu_wait(pid[r], 120000);
        if (st != 0)
            fail_msg("rank %d of %d (%d hosts) exited with %d", r, n, hosts, st);
    }
    assert_int_equal(cu_wait_executors_gone(sub, 5000), 0);
    for (int h = 0; h < hosts; h++)
        assert_int_equal(cu_count_files(dir[h], "hcemu-comm-"), 0);
    cu_rmtree(sub);
}

static void two_and_eight_rank_processes_exchange_bytes(void **state)
{
    (void)state;
    run_processes(2, 1);
    run_processes(8, 1);
}

static void ranks_of_two_hosts_exchange_bytes(void **state)
{
    (void)state;
    run_processes(2, 2);
    run_processes(8, 2);
}

/* ---- bad arguments --------------------------------------------------------------------- */

static void expect_one_error(HcclResult rc, HcclResult want, const struct cu_capture *cap)
{
    assert_int_equal(rc, want);
    assert_int_equal(cap->errors, 1);
}

#define BAD(call, want)                                                                            \
    do {                                                                                           \
        struct cu_capture cap_;                                                                    \
        cu_capture_begin(&cap_);                                                                   \
        HcclResult rc_ = (call);                                                                   \
        cu_capture_end(&cap_);                                                                     \
        expect_one_error(rc_, (want), &cap_);                                                      \
    } while (0)

static void body_bad(struct cu_rank *r)
{
    static uint8_t big[INFO_MAX + 1];
    uint8_t buf[8] = {0};
    uint32_t actual = 7;

    if (r->rank == 0) {
        BAD(HcclCommAddExchangeInfo(NULL, buf, 4), HCCL_E_PTR);
        BAD(HcclCommAddExchangeInfo(r->comm, NULL, 4), HCCL_E_PTR);
        BAD(HcclCommAddExchangeInfo(r->comm, buf, 0), HCCL_E_PARA);
        BAD(HcclCommAddExchangeInfo(r->comm, big, INFO_MAX + 1), HCCL_E_PARA);
        BAD(HcclCommGetExchangeInfo(NULL, 1, 4, buf, &actual), HCCL_E_PTR);
        BAD(HcclCommGetExchangeInfo(r->comm, 1, 4, NULL, &actual), HCCL_E_PTR);
        BAD(HcclCommGetExchangeInfo(r->comm, 1, 4, buf, NULL), HCCL_E_PTR);
        BAD(HcclCommResetExchangeInfo(NULL), HCCL_E_PTR);
        /* The longest length is accepted; out of range ranks have sent nothing. */
        CU_CHECK(r, HcclCommAddExchangeInfo(r->comm, big, INFO_MAX) == 0);
        CU_CHECK(r, HcclCommGetExchangeInfo(r->comm, UINT32_MAX, 4, buf, &actual) == 0 &&
                        actual == 0);
        CU_CHECK(r, HcclCommResetExchangeInfo(r->comm) == 0);
    }
    cu_barrier_wait();
}

static void bad_arguments_get_hcomm_codes(void **state)
{
    struct cu_rank r[2];
    HcclRootInfo ri;
    (void)state;

    memset(r, 0, sizeof(r));
    assert_int_equal(HcclGetRootInfo(&ri), HCCL_SUCCESS);
    cu_run_ranks(r, 2, &ri, body_bad, NULL);
    assert_int_equal(r[0].failures, 0);
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--child") == 0)
        return strcmp(argv[2], "rank") == 0 && argc >= 4 ? child_rank(argv[3]) : 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_and_eight_rank_threads_exchange_bytes),
        cmocka_unit_test(bad_arguments_get_hcomm_codes),
        cmocka_unit_test(two_and_eight_rank_processes_exchange_bytes),
        cmocka_unit_test(ranks_of_two_hosts_exchange_bytes),
    };
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (len <= 0)
        return 1;
    self[len] = '\0';
    cu_job_begin(job, sizeof(job), "8", "2");
    return cu_job_end(job, cmocka_run_group_tests_name("exchange_info", tests, cu_acl_setup,
                                                       cu_acl_teardown));
}
