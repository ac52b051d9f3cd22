/* test_fullfs.c - a full job-folder file system is an allocation error, never a SIGBUS.
 *
 * Any local user can fill /dev/shm. The child run of this program gets a mount namespace
 * of its own (unshare; as another user than root, inside a user namespace) with a 96 MiB
 * tmpfs over its job folders' parent, then allocates 16 MiB device buffers (populated at
 * allocation) and 4 MiB of pinned host memory until the file system is full: the failing
 * call must return ACL_ERROR_RT_MEMORY_ALLOCATION with one line, the buffers before it must
 * hold their bytes, and the job must end cleanly. Where no namespace can be had, skipped. */
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
    const char *dir = getenv("HCEMU_JOB_DIR");

    if (dir == NULL || !small_tmpfs_over(dir)) {
        fprintf(stderr, "no mount namespace: %s\n", strerror(errno));
        return CHILD_SKIP;
    }
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

static void a_full_job_folder_file_system_is_an_allocation_error(void **state)
{
    struct rt_child c;
    (void)state;

    assert_int_equal(rt_child_run("fill", parent, NULL, 0, 120000, &c), 0);
    assert_false(c.timed_out);
    if (WIFEXITED(c.status) && WEXITSTATUS(c.status) == CHILD_SKIP) {
        print_message("skipped: %s", c.err);
        skip();
    }
    if (WIFSIGNALED(c.status))
        fail_msg("the child died of signal %d (SIGBUS is %d): %s", WTERMSIG(c.status), SIGBUS,
                 c.err);
    if (!WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0)
        fail_msg("child: %s", c.err);
    /* One line says what happened, for the device buffer and for the pinned memory. */
    assert_non_null(strstr(c.err, "no room for their pages"));
    assert_non_null(strstr(c.err, "aclrtMallocHost: cannot allocate 4194304 bytes"));
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return strcmp(argv[2], "fill") == 0 ? child_fill() : 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_full_job_folder_file_system_is_an_allocation_error),
    };
    if (rt_job_parent_make(parent, sizeof(parent)) != 0)
        return 1;
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rt_job_parent_remove(parent);
    return failed;
}
