/* test_run.c - hcemu-run: usage, rank environment, output prefixing, failure propagation
 * (exit status, signal, Ctrl-C, timeout), schedules, and that a job leaves no folder and no
 * process behind, with plain rank programs and with ranks that own emulated devices.
 *
 * Every job runs with HCEMU_JOB_DIR set to a private folder, so "nothing left behind" means
 * that folder is empty and no hcemu-device names it on its command line. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#define RUN_DEADLINE_S 90 /* a job that takes longer is killed and the test fails */

static char job_dir[256];

struct run {
    int status; /* exit code, or 128 + signal */
    char *out;  /* stdout and stderr of hcemu-run, merged */
    size_t len;
    double secs;
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t count_substr(const char *s, const char *sub)
{
    size_t n = 0;

    for (const char *p = s; (p = strstr(p, sub)) != NULL; p += strlen(sub))
        n++;
    return n;
}

static void append(struct run *r, const char *buf, size_t n)
{
    r->out = realloc(r->out, r->len + n + 1);
    assert_non_null(r->out);
    memcpy(r->out + r->len, buf, n);
    r->len += n;
    r->out[r->len] = '\0';
}

/* Runs argv to completion. When sig != 0 it is sent to hcemu-run once `ready` lines
 * "ready" have appeared (or after delay_ms when ready is 0). */
static struct run run_argv(char *const argv[], int sig, size_t ready, int delay_ms)
{
    struct run r = {.out = calloc(1, 1)};
    int fds[2];
    double t0 = now_s();
    bool signalled = false;

    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    for (;;) {
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        char buf[4096];
        if (sig != 0 && !signalled &&
            (ready > 0 ? count_substr(r.out, "] ready\n") >= ready
                       : now_s() - t0 >= delay_ms / 1000.0)) {
            kill(pid, sig);
            signalled = true;
        }
        if (now_s() - t0 > RUN_DEADLINE_S) {
            kill(pid, SIGKILL);
            fail_msg("%s did not finish within %d s; output:\n%s", argv[0], RUN_DEADLINE_S, r.out);
        }
        if (poll(&p, 1, 50) <= 0)
            continue;
        ssize_t n = read(fds[0], buf, sizeof(buf));
        if (n <= 0)
            break;
        append(&r, buf, (size_t)n);
    }
    close(fds[0]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    r.status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
    r.secs = now_s() - t0;
    return r;
}

/* hcemu-run with the given arguments (NULL-terminated). */
static struct run hcemu_run(int sig, size_t ready, const char *first, ...)
{
    char *argv[32] = {HCEMU_RUN_BIN};
    int n = 1;
    va_list ap;

    va_start(ap, first);
    for (const char *a = first; a != NULL && n < 31; a = va_arg(ap, const char *))
        argv[n++] = (char *)a;
    va_end(ap);
    argv[n] = NULL;
    return run_argv(argv, sig, ready, 1500);
}

/* ---- nothing left behind ------------------------------------------------------------------ */

static int job_dir_entries(void)
{
    DIR *d = opendir(job_dir);
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Processes whose command line mentions our job folder (executors get --job <folder>/...). */
static int processes_using_job_dir(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        char path[300], cmd[4096];
        if (atoi(e->d_name) <= 0)
            continue;
        snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            continue;
        ssize_t len = read(fd, cmd, sizeof(cmd) - 1);
        close(fd);
        for (ssize_t i = 0; i < len; i++)
            if (cmd[i] == '\0')
                cmd[i] = ' ';
        cmd[len > 0 ? len : 0] = '\0';
        if (strstr(cmd, job_dir) != NULL) {
            print_message("left behind: pid %s: %s\n", e->d_name, cmd);
            n++;
        }
    }
    closedir(d);
    return n;
}

static void assert_nothing_left(void)
{
    assert_int_equal(job_dir_entries(), 0);
    assert_int_equal(processes_using_job_dir(), 0);
}

static void free_run(struct run *r)
{
    free(r->out);
}

/* ---- tests ------------------------------------------------------------------------------- */

static void usage_errors_exit_2(void **state)
{
    (void)state;
    const char *bad[][4] = {
        {NULL},
        {"-n", "0", RUN_RANK_BIN, NULL},
        {"-n", "x", RUN_RANK_BIN, NULL},
        {"-n", "65", RUN_RANK_BIN, NULL},
        {"-n", "2", NULL},
        {"--timeout", "0", RUN_RANK_BIN},
        {"--schedules", "0", RUN_RANK_BIN},
        {"--bogus", NULL},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct run r = hcemu_run(0, 0, bad[i][0], bad[i][1], bad[i][2], NULL);
        assert_int_equal(r.status, 2);
        assert_true(strstr(r.out, "usage") != NULL || strstr(r.out, "hcemu-run:") != NULL);
        free_run(&r);
    }
    assert_nothing_left();
}

static void output_lines_are_prefixed_and_never_mixed(void **state)
{
    (void)state;
    struct run r = hcemu_run(0, 0, "-n", "4", "--", RUN_RANK_BIN, "lines", "300", NULL);
    int next[4][2] = {{0}};

    assert_int_equal(r.status, 0);
    for (char *line = strtok(r.out, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        unsigned pr, rr;
        char which[4];
        int i;
        if (sscanf(line, "[rank %u] rank %u %3s %d", &pr, &rr, which, &i) != 4)
            fail_msg("unexpected line: %s", line);
        assert_int_equal(pr, rr);
        assert_true(pr < 4);
        int k = strcmp(which, "err") == 0;
        assert_int_equal(i, next[pr][k]); /* each stream's lines arrive whole and in order */
        next[pr][k]++;
    }
    for (int p = 0; p < 4; p++)
        for (int k = 0; k < 2; k++)
            assert_int_equal(next[p][k], 300);
    free_run(&r);
    assert_nothing_left();
}

static void ranks_share_one_job_folder_and_id(void **state)
{
    (void)state;
    struct run r = hcemu_run(0, 0, "-n", "3", RUN_RANK_BIN, "env", NULL);
    char path[3][256], id[3][128];

    assert_int_equal(r.status, 0);
    for (unsigned k = 0; k < 3; k++) {
        char key[32];
        snprintf(key, sizeof(key), "[rank %u] env ok ", k);
        const char *l = strstr(r.out, key);
        assert_non_null(l);
        assert_int_equal(sscanf(l + strlen(key), "%255s %127s", path[k], id[k]), 2);
        assert_string_equal(path[k], path[0]);
        assert_string_equal(id[k], id[0]);
    }
    assert_non_null(strstr(path[0], job_dir));
    assert_non_null(strstr(path[0], "/hcemu-"));
    assert_int_equal(access(path[0], F_OK), -1); /* removed at the end */
    free_run(&r);
    assert_nothing_left();
}

static void failing_rank_stops_the_job_with_its_status(void **state)
{
    (void)state;
    struct run r = hcemu_run(0, 0, "-n", "4", RUN_RANK_BIN, "fail", "2", "7", NULL);

    assert_int_equal(r.status, 7);
    assert_non_null(strstr(r.out, "rank 2 exited with status 7"));
    assert_true(r.secs < 15); /* the others were stopped, not waited for */
    free_run(&r);
    assert_nothing_left();
}

static void crashing_rank_exits_128_plus_its_signal(void **state)
{
    (void)state;
    struct run r = hcemu_run(0, 0, "-n", "3", RUN_RANK_BIN, "crash", "1", NULL);

    assert_int_equal(r.status, 128 + SIGSEGV);
    assert_non_null(strstr(r.out, "rank 1 was killed by signal"));
    free_run(&r);
    assert_nothing_left();
}

static void ctrl_c_stops_every_rank_and_exits_130(void **state)
{
    (void)state;
    struct run r = hcemu_run(SIGINT, 3, "-n", "3", RUN_RANK_BIN, "hang", NULL);

    assert_int_equal(r.status, 130);
    assert_null(strstr(r.out, "never stopped"));
    free_run(&r);
    assert_nothing_left();
}

static void timeout_kills_the_job_and_exits_124(void **state)
{
    (void)state;
    struct run r = hcemu_run(0, 0, "--timeout", "1", "-n", "2", RUN_RANK_BIN, "hang", NULL);

    assert_int_equal(r.status, 124);
    assert_true(r.secs < 10);
    free_run(&r);
    assert_nothing_left();
}

static void missing_program_exits_127(void **state)
{
    (void)state;
    struct run r = hcemu_run(0, 0, "-n", "2", "/nonexistent/program", NULL);

    assert_int_equal(r.status, 127);
    assert_non_null(strstr(r.out, "cannot run /nonexistent/program"));
    free_run(&r);
    assert_nothing_left();
}

static void orphaned_descendants_are_reaped_or_killed(void **state)
{
    (void)state;
    char dir[300];
    snprintf(dir, sizeof(dir), "%s-orphans", job_dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    struct run r = hcemu_run(0, 0, "-n", "2", RUN_RANK_BIN, "orphan", dir, NULL);

    assert_int_equal(r.status, 0);
    for (int k = 0; k < 2; k++) {
        char path[400];
        int pid = 0;
        snprintf(path, sizeof(path), "%s/orphan.%d", dir, k);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        assert_int_equal(fscanf(f, "%d", &pid), 1);
        fclose(f);
        unlink(path);
        /* Killed and reaped by hcemu-run: not even a zombie remains. */
        assert_int_equal(kill(pid, 0), -1);
        assert_int_equal(errno, ESRCH);
    }
    rmdir(dir);
    free_run(&r);
    assert_nothing_left();
}

static void schedules_name_the_first_failing_seed(void **state)
{
    (void)state;
    struct run r = hcemu_run(0, 0, "--schedules", "3", "-n", "2", RUN_RANK_BIN, "seed", "2", NULL);

    assert_int_equal(r.status, 4);
    assert_non_null(strstr(r.out, "HCEMU_SEED=2 fails"));
    free_run(&r);
    r = hcemu_run(0, 0, "--schedules", "2", "-n", "2", RUN_RANK_BIN, "seed", "5", NULL);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "all 2 schedules"));
    free_run(&r);
    assert_nothing_left();
}

/* The same three failures with ranks that own emulated devices (executor processes). */
static void failing_rank_with_devices_leaves_no_executor(void **state)
{
    (void)state;
    struct run r = hcemu_run(0, 0, "-n", "3", RUN_RANK_BIN, "device", "fail", "1", NULL);

    assert_int_equal(r.status, 3);
    free_run(&r);
    assert_nothing_left();
}

static void crashing_rank_with_devices_leaves_no_executor(void **state)
{
    (void)state;
    struct run r = hcemu_run(0, 0, "-n", "3", RUN_RANK_BIN, "device", "crash", "0", NULL);

    assert_int_equal(r.status, 128 + SIGSEGV);
    free_run(&r);
    assert_nothing_left();
}

static void ctrl_c_with_devices_leaves_no_executor(void **state)
{
    (void)state;
    struct run r = hcemu_run(SIGINT, 3, "-n", "3", RUN_RANK_BIN, "device", "hang", "0", NULL);

    assert_int_equal(r.status, 130);
    free_run(&r);
    assert_nothing_left();
}

/* Ctrl-C in the middle of real collective work (an AllGather called over and over). */
static void ctrl_c_during_an_allgather_leaves_nothing(void **state)
{
    (void)state;
    char *argv[] = {HCEMU_RUN_BIN, "-n",      "4", EXAMPLE_ALLGATHER_BIN, "--bytes", "64K",
                    "--iters",     "1000000", NULL};
    struct run r = run_argv(argv, SIGINT, 0, 2000);

    assert_int_equal(r.status, 130);
    free_run(&r);
    assert_nothing_left();
}

static int setup(void **state)
{
    (void)state;
    snprintf(job_dir, sizeof(job_dir), "/dev/shm/hcemu-test-run-XXXXXX");
    if (mkdtemp(job_dir) == NULL) {
        snprintf(job_dir, sizeof(job_dir), "/tmp/hcemu-test-run-XXXXXX");
        if (mkdtemp(job_dir) == NULL)
            return -1;
    }
    setenv("HCEMU_JOB_DIR", job_dir, 1);
    unsetenv("HCEMU_DEVICES");
    unsetenv("HCEMU_RANK");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rmdir(job_dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(usage_errors_exit_2),
        cmocka_unit_test(output_lines_are_prefixed_and_never_mixed),
        cmocka_unit_test(ranks_share_one_job_folder_and_id),
        cmocka_unit_test(failing_rank_stops_the_job_with_its_status),
        cmocka_unit_test(crashing_rank_exits_128_plus_its_signal),
        cmocka_unit_test(ctrl_c_stops_every_rank_and_exits_130),
        cmocka_unit_test(timeout_kills_the_job_and_exits_124),
        cmocka_unit_test(missing_program_exits_127),
        cmocka_unit_test(orphaned_descendants_are_reaped_or_killed),
        cmocka_unit_test(schedules_name_the_first_failing_seed),
        cmocka_unit_test(failing_rank_with_devices_leaves_no_executor),
        cmocka_unit_test(crashing_rank_with_devices_leaves_no_executor),
        cmocka_unit_test(ctrl_c_with_devices_leaves_no_executor),
        cmocka_unit_test(ctrl_c_during_an_allgather_leaves_nothing),
    };
    return cmocka_run_group_tests_name("run", tests, setup, teardown);
}
