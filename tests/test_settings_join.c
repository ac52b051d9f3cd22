/* test_settings_join.c - the settings hand-over between real processes: a host starts device
 * 0's executor with HCEMU_HANG_MS=4321 and the control block shows that value and that host;
 * a second host joining the same job folder with HCEMU_HANG_MS=99 gets exactly one warning
 * naming the variable, both values and the first host, and keeps working. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <acl/acl.h>

#include "common/contract/devctl.h"
#include "rt_support.h"

#define WAIT_MS 20000

/* Read one byte from `fd` within WAIT_MS; returns 1 when it came. */
static int wait_byte(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char c;

    return poll(&p, 1, WAIT_MS) == 1 && read(fd, &c, 1) == 1;
}

/* A host process: open device 0 with HCEMU_HANG_MS=hang, say so on `up`, stay until `go`
 * says to leave (or closes). Exit status 0 when every call succeeded. */
static void host_main(const char *hang, int up, int go)
{
    int rc = 0;

    setenv("HCEMU_HANG_MS", hang, 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS)
        rc = 1;
    if (write(up, "u", 1) != 1)
        rc = 1;
    if (go >= 0)
        wait_byte(go);
    if (aclrtResetDevice(0) != ACL_SUCCESS || aclFinalize() != ACL_SUCCESS)
        rc = 1;
    _exit(rc);
}

static pid_t start_host(const char *hang, int up, int go, int err_fd)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (err_fd >= 0)
            dup2(err_fd, STDERR_FILENO);
        host_main(hang, up, go);
    }
    return pid;
}

static int exit_code(pid_t pid)
{
    int status = 0;

    for (int i = 0; i < WAIT_MS / 10; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -2;
}

static void read_block(const char *job, struct emu_settings_block *b)
{
    char path[RT_PATH * 2];

    snprintf(path, sizeof(path), "%s/dev0.ctl", job);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, b, sizeof(*b), (off_t)offsetof(struct emu_devctl, settings)),
                     (ssize_t)sizeof(*b));
    close(fd);
}

static void a_joining_host_with_other_settings_is_warned_once(void **state)
{
    char parent[RT_PATH], job[RT_PATH + 8], text[8192];
    int up[2], go[2], err[2];
    struct emu_settings_block b;
    (void)state;

    assert_int_equal(rt_job_parent_make(parent, sizeof(parent)), 0);
    snprintf(job, sizeof(job), "%s/job", parent);
    assert_int_equal(mkdir(job, 0700), 0);
    setenv("HCEMU_JOB_PATH", job, 1); /* both hosts share it, as under hcemu-run */
    setenv("HCEMU_DEVICES", "1", 1);
    setenv("HCEMU_DEVICE_MEM_GB", "1", 1);
    unsetenv("HCEMU_LOG_LEVEL");
    /* Close-on-exec: the executors must not hold the test's pipes open. */
    assert_int_equal(pipe2(up, O_CLOEXEC), 0);
    assert_int_equal(pipe2(go, O_CLOEXEC), 0);
    assert_int_equal(pipe2(err, O_CLOEXEC), 0);

    pid_t first = start_host("4321", up[1], go[0], -1);
    assert_true(wait_byte(up[0]));
    read_block(job, &b);
    assert_int_equal(b.magic, EMU_SETTINGS_MAGIC);
    assert_int_equal(b.writer_pid, first);
    assert_int_equal(b.v[EMU_SET_HANG_MS].u, 4321);
    assert_string_equal(b.v[EMU_SET_LOG_LEVEL].s, "warn");

    pid_t second = start_host("99", up[1], -1, err[1]);
    close(err[1]);
    assert_true(wait_byte(up[0]));
    assert_int_equal(exit_code(second), 0);
    ssize_t n = read(err[0], text, sizeof(text) - 1);
    text[n > 0 ? n : 0] = '\0';
    close(err[0]);

    assert_int_equal(write(go[1], "g", 1), 1);
    assert_int_equal(exit_code(first), 0);
    int gone = rt_wait_executors_gone(parent, WAIT_MS);
    for (int i = 0; i < 2; i++) {
        close(up[i]);
        close(go[i]);
    }
    rt_job_parent_remove(parent);
    assert_int_equal(gone, 0);
    char want[160];
    snprintf(want, sizeof(want),
             "device 0 was started by process %d with HCEMU_HANG_MS=4321; "
             "this process has 99",
             (int)first);
    const char *hit = strstr(text, want);
    if (hit == NULL || strstr(hit + strlen(want), "was started by") != NULL)
        fail_msg("expected one line \"%s\" in:\n%s", want, text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_joining_host_with_other_settings_is_warned_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
