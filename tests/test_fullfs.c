/* test_fullfs.c - a full job-folder file system is an allocation error, never a SIGBUS.
 *
 * Any local user can fill /dev/shm. The child run of this program gets a mount namespace
 * of its own (unshare; as another user than root, inside a user namespace) with a 96 MiB
 * tmpfs over its job folders' parent, then allocates 16 MiB device buffers (populated at
 * allocation) and 4 MiB of pinned host memory until the file system is full: the failing
 * call must return ACL_ERROR_RT_MEMORY_ALLOCATION with one line, the buffers before it must
 * hold their bytes, and the job must end cleanly. A second child allocates a 48 MiB buffer
 * (its pages are had on first use), fills the file system with a file of its own, and then
 * copies into the buffer from the host, with a memset, and with a copy task the executor
 * runs: each fails with the memory error and one line, none is a SIGBUS, and once the file
 * is gone the same copies succeed. A third child does the same to a 2-rank all-reduce whose
 * HCCL buffers were made by a small call before the file system filled up (and whose direct
 * reads' mailboxes had their pages then): the large call, through the HCCL buffers, fails on
 * both ranks, as an error, not a signal. Where no namespace can be had, skipped. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <pthread.h>

#include "rt_support.h"

#define CHILD_SKIP 77
#define BUF_BYTES (16u << 20)
#define MAX_BUFS 16 /* 256 MiB: far more than the 96 MiB tmpfs holds */

static char parent[128];

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? write(fd, text, strlen(text)) : -1;

    if (fd >= 0)
        close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A private mount namespace (as root, or as root of a new user namespace) with a small tmpfs
 * over `dir`; false when this machine allows neither. */
static bool small_tmpfs_over(const char *dir)
{
    char map[64];
    unsigned uid = (unsigned)geteuid(), gid = (unsigned)getegid();

    if (unshare(CLONE_NEWNS) != 0) {
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
            return false;
        snprintf(map, sizeof(map), "0 %u 1", uid);
        if (write_text("/proc/self/setgroups", "deny") != 0 ||
            write_text("/proc/self/uid_map", map) != 0)
            return false;
        snprintf(map, sizeof(map), "0 %u 1", gid);
        if (write_text("/proc/self/gid_map", map) != 0)
            return false;
    }
    return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
           mount("tmpfs", dir, "tmpfs", MS_NOSUID | MS_NODEV, "size=96m,mode=0700") == 0;
}

static int child_fill(void)
{
    void *bufs[MAX_BUFS] = {0};
    void *host = NULL;
    int n = 0;
    aclError e = ACL_SUCCESS;

    RT_CHECK(aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(0) == ACL_SUCCESS);
    RT_CHECK(aclrtMallocHost(&host, BUF_BYTES) == ACL_SUCCESS);
    while (n < MAX_BUFS &&
           (e = aclrtMalloc(&bufs[n], BUF_BYTES, ACL_MEM_MALLOC_HUGE_FIRST)) == ACL_SUCCESS) {
        memset(host, n + 1, BUF_BYTES);
        RT_CHECK(aclrtMemcpy(bufs[n], BUF_BYTES, host, BUF_BYTES, ACL_MEMCPY_HOST_TO_DEVICE) ==
              ACL_SUCCESS);
        n++;
    }
    RT_CHECK(e == ACL_ERROR_RT_MEMORY_ALLOCATION);
    RT_CHECK(n >= 1 && n < MAX_BUFS);
    /* Pinned host memory lives in the job folder too. */
    void *pinned = NULL;
    RT_CHECK(aclrtMallocHost(&pinned, 4u << 20) == ACL_ERROR_RT_MEMORY_ALLOCATION);
    /* What was allocated before the file system filled up holds its bytes. */
    for (int i = 0; i < n; i++) {
        RT_CHECK(aclrtMemcpy(host, BUF_BYTES, bufs[i], BUF_BYTES, ACL_MEMCPY_DEVICE_TO_HOST) ==
              ACL_SUCCESS);
        RT_CHECK(((uint8_t *)host)[0] == (uint8_t)(i + 1) &&
              ((uint8_t *)host)[BUF_BYTES - 1] == (uint8_t)(i + 1));
        RT_CHECK(aclrtFree(bufs[i]) == ACL_SUCCESS);
    }
    /* Freed pages are kept by the device: the next allocation of that size fits again. */
    RT_CHECK(aclrtMalloc(&bufs[0], BUF_BYTES, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    RT_CHECK(aclrtFree(bufs[0]) == ACL_SUCCESS);
    RT_CHECK(aclrtFreeHost(host) == ACL_SUCCESS);
    RT_CHECK(aclrtResetDevice(0) == ACL_SUCCESS && aclFinalize() == ACL_SUCCESS);
    printf("filled after %d buffers\n", n);
    return 0;
}

#define LAZY_BYTES (48u << 20)

/* Fill the file system of `dir` with one file of this process's (its path in `path`). */
static int fill_up(const char *dir, char *path, size_t len)
{
    static char chunk[1u << 20];
    snprintf(path, len, "%s/filler-%d", dir, (int)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    memset(chunk, 0x5a, sizeof(chunk));
    while (write(fd, chunk, sizeof(chunk)) > 0)
        ;
    int full = errno == ENOSPC;
    close(fd);
    return full ? 0 : -1;
}

static int child_lazy(const char *dir)
{
    void *big = NULL, *small = NULL;
    aclrtStream stream = NULL;
    char filler[256];

    uint8_t *host = malloc(LAZY_BYTES);
    RT_CHECK(host != NULL);
    memset(host, 0x3c, LAZY_BYTES);
    RT_CHECK(aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(0) == ACL_SUCCESS);
    RT_CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS);
    RT_CHECK(aclrtMalloc(&small, 1u << 20, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    RT_CHECK(aclrtMemcpy(small, 1u << 20, host, 1u << 20, ACL_MEMCPY_HOST_TO_DEVICE) ==
             ACL_SUCCESS);
    RT_CHECK(aclrtMalloc(&big, LAZY_BYTES, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    RT_CHECK(fill_up(dir, filler, sizeof(filler)) == 0);
    /* The host's own copy and memset. */
    RT_CHECK(aclrtMemcpy(big, LAZY_BYTES, host, LAZY_BYTES, ACL_MEMCPY_HOST_TO_DEVICE) ==
             ACL_ERROR_RT_MEMORY_ALLOCATION);
    RT_CHECK(aclrtMemset(big, LAZY_BYTES, 0, LAZY_BYTES) == ACL_ERROR_RT_MEMORY_ALLOCATION);
    /* A copy the executor runs: the stream fails, the device lives on. */
    uint8_t *far = (uint8_t *)big + LAZY_BYTES - (1u << 20);
    RT_CHECK(aclrtMemcpyAsync(far, 1u << 20, small, 1u << 20, ACL_MEMCPY_DEVICE_TO_DEVICE,
                              stream) == ACL_SUCCESS);
    RT_CHECK(aclrtSynchronizeStream(stream) != ACL_SUCCESS);
    RT_CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
    /* Room again: the same copies work and the bytes are there. */
    RT_CHECK(unlink(filler) == 0);
    RT_CHECK(aclrtCreateStream(&stream) == ACL_SUCCESS);
    RT_CHECK(aclrtMemcpyAsync(far, 1u << 20, small, 1u << 20, ACL_MEMCPY_DEVICE_TO_DEVICE,
                              stream) == ACL_SUCCESS);
    RT_CHECK(aclrtSynchronizeStream(stream) == ACL_SUCCESS);
    memset(host, 0, LAZY_BYTES);
    RT_CHECK(aclrtMemcpy(host, 1u << 20, far, 1u << 20, ACL_MEMCPY_DEVICE_TO_HOST) ==
             ACL_SUCCESS);
    RT_CHECK(rt_all_bytes(host, 1u << 20, 0x3c));
    RT_CHECK(aclrtFree(big) == ACL_SUCCESS && aclrtFree(small) == ACL_SUCCESS);
    RT_CHECK(aclrtDestroyStream(stream) == ACL_SUCCESS);
    RT_CHECK(aclrtResetDevice(0) == ACL_SUCCESS && aclFinalize() == ACL_SUCCESS);
    free(host);
    return 0;
}

#define COLL_COUNT (1u << 20) /* 4 MiB of fp32: through the 8 MiB HCCL buffers */

struct coll_rank {
    HcclComm comm;
    int32_t dev;
    uint32_t count;
    int ok; /* the call and its stream's synchronisation both succeeded */
};

static void *coll_rank_run(void *arg)
{
    struct coll_rank *r = arg;
    void *in = NULL, *out = NULL;
    aclrtStream s = NULL;

    r->ok = 0;
    if (aclrtSetDevice(r->dev) != ACL_SUCCESS || aclrtCreateStream(&s) != ACL_SUCCESS)
        return NULL;
    if (aclrtMalloc(&in, COLL_COUNT * 4u, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS &&
        aclrtMalloc(&out, COLL_COUNT * 4u, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS &&
        aclrtMemset(in, COLL_COUNT * 4u, 0, COLL_COUNT * 4u) == ACL_SUCCESS)
        r->ok = HcclAllReduce(in, out, r->count, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, r->comm,
                              s) == HCCL_SUCCESS &&
                aclrtSynchronizeStream(s) == ACL_SUCCESS;
    aclrtFree(in);
    aclrtFree(out);
    aclrtDestroyStream(s);
    return NULL;
}

/* Both ranks of `comms` run an all-reduce of `count` floats; how many succeeded. */
static int coll_both(HcclComm *comms, uint32_t count)
{
    struct coll_rank r[2];
    pthread_t t[2];

    for (int i = 0; i < 2; i++) {
        r[i] = (struct coll_rank){.comm = comms[i], .dev = i, .count = count};
        pthread_create(&t[i], NULL, coll_rank_run, &r[i]);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return r[0].ok + r[1].ok;
}

static int child_coll(const char *dir)
{
    int32_t devs[2] = {0, 1};
    HcclComm comms[2];
    char filler[256];

    setenv("HCCL_BUFFSIZE", "8", 1); /* MiB */
    /* Through the HCCL buffers, whose pages the large call touches first: read directly, the
     * call would touch no page the small one had not (HCEMU_DIRECT_KB, coll_direct.c). */
    setenv("HCEMU_DIRECT_KB", "0", 1);
    RT_CHECK(aclInit(NULL) == ACL_SUCCESS);
    RT_CHECK(HcclCommInitAll(2, devs, comms) == HCCL_SUCCESS);
    RT_CHECK(coll_both(comms, 256) == 2); /* makes the HCCL buffers; touches few pages */
    RT_CHECK(fill_up(dir, filler, sizeof(filler)) == 0);
    RT_CHECK(coll_both(comms, COLL_COUNT) < 2);
    RT_CHECK(unlink(filler) == 0);
    RT_CHECK(HcclCommDestroy(comms[0]) == HCCL_SUCCESS);
    RT_CHECK(HcclCommDestroy(comms[1]) == HCCL_SUCCESS);
    RT_CHECK(aclFinalize() == ACL_SUCCESS);
    return 0;
}

/* Run `scenario`; skip when the machine gives no mount namespace, fail on any signal. */
static void run_child(const char *scenario, struct rt_child *c)
{
    assert_int_equal(rt_child_run(scenario, parent, NULL, 0, 120000, c), 0);
    assert_false(c->timed_out);
    if (WIFEXITED(c->status) && WEXITSTATUS(c->status) == CHILD_SKIP) {
        print_message("skipped: %s", c->err);
        skip();
    }
    if (WIFSIGNALED(c->status))
        fail_msg("the child died of signal %d (SIGBUS is %d): %s", WTERMSIG(c->status), SIGBUS,
                 c->err);
    if (!WIFEXITED(c->status) || WEXITSTATUS(c->status) != 0)
        fail_msg("child: %s", c->err);
}

static void pages_had_on_first_use_fail_a_copy_never_with_sigbus(void **state)
{
    struct rt_child c;
    (void)state;

    run_child("lazy", &c);
    assert_non_null(strstr(c.err, "aclrtMemcpy: no room for the pages of 50331648 bytes"));
    assert_non_null(strstr(c.err, "aclrtMemset: no room for the pages of 50331648 bytes"));
    assert_non_null(strstr(c.err, "no room for the pages this task touches"));
}

static void a_collective_into_pages_that_cannot_be_had_fails_as_an_error(void **state)
{
    struct rt_child c;
    (void)state;

    run_child("coll", &c);
    assert_non_null(strstr(c.err, "the file system of the job folder is full"));
}

static void a_full_job_folder_file_system_is_an_allocation_error(void **state)
{
    struct rt_child c;
    (void)state;

    run_child("fill", &c);
    /* One line says what happened, for the device buffer and for the pinned memory. */
    assert_non_null(strstr(c.err, "no room for their pages"));
    assert_non_null(strstr(c.err, "aclrtMallocHost: cannot allocate 4194304 bytes"));
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0) {
        /* Every child runs over the small tmpfs, in a mount namespace of its own. */
        const char *dir = getenv("HCEMU_JOB_DIR");
        if (dir == NULL || !small_tmpfs_over(dir)) {
            fprintf(stderr, "no mount namespace: %s\n", strerror(errno));
            return CHILD_SKIP;
        }
        return strcmp(argv[2], "fill") == 0   ? child_fill()
               : strcmp(argv[2], "lazy") == 0 ? child_lazy(dir)
               : strcmp(argv[2], "coll") == 0 ? child_coll(dir)
                                              : 2;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_full_job_folder_file_system_is_an_allocation_error),
        cmocka_unit_test(pages_had_on_first_use_fail_a_copy_never_with_sigbus),
        cmocka_unit_test(a_collective_into_pages_that_cannot_be_had_fails_as_an_error),
    };
    if (rt_job_parent_make(parent, sizeof(parent)) != 0)
        return 1;
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rt_job_parent_remove(parent);
    return failed;
}
