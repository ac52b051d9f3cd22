/* rt_support.h - helpers shared by the ACL runtime tests (tests/test_runtime_*.c): a private
 * job folder per test program, executor discovery, child programs run with a deadline, and
 * byte patterns.
 *
 * Every wait here has a deadline; nothing in this file can hang a test. */
#ifndef HCEMU_TESTS_RT_SUPPORT_H
#define HCEMU_TESTS_RT_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RT_PATH 512

/* Make a fresh folder under /dev/shm and point HCEMU_JOB_DIR at it, so that this program's
 * job folders and executors are its own even when ctest runs tests in parallel. Returns 0
 * on success; `out` receives the path. */
int rt_job_parent_make(char *out, size_t len);
/* Remove the folder made by rt_job_parent_make() and everything below it. */
void rt_job_parent_remove(const char *parent);
/* Group teardown of a test program with its own parent: wait up to 5 s for its executors to
 * end, then remove the parent. Returns 0 when none was left running. */
int rt_job_parent_finish(const char *parent);
/* Number of job folders under `parent`; the first one's path goes to `out` (may be NULL). */
int rt_job_dirs(const char *parent, char *out, size_t len);

/* Group set-up shared by the runtime tests: a private job parent (rt_job_parent_make),
 * aclInit, then aclrtSetDevice on devices ndev-1 .. 0, so device 0 is current (ndev may be
 * 0). Returns 0 on success. */
int rt_group_open(char *parent, size_t len, int ndev);
/* Undo rt_group_open: reset the devices, aclFinalize, and check that nothing outlived it (no
 * job folder, no executor) before removing the parent. Returns 0 when all of that held. */
int rt_group_close(const char *parent, int ndev);

/* Executors whose job folder lies under `prefix` (their "--job" argument starts with it),
 * found through /proc. With dev >= 0 only that device's. Fills up to `max` pids; returns the
 * count (zombies are not counted: they run nothing). */
int rt_executors(const char *prefix, int dev, pid_t *pids, int max);
/* Wait up to `ms` for rt_executors(prefix, -1, ...) to reach zero; returns the count left. */
int rt_wait_executors_gone(const char *prefix, int ms);
/* The executor pid recorded in the control block of device `dev` of job folder `job`
 * (devctl.h's exec_pid), or -1. */
pid_t rt_exec_pid(const char *job, int dev);

/* A child run of this same test program: argv[1] = "--child", argv[2] = scenario, with
 * HCEMU_JOB_DIR = job_parent and extra environment `env` (NULL or "K=V"). The child prints
 * "READY" on stdout once set up. If `sig` != 0 the parent sends it after READY. Waits at most
 * `timeout_ms` in total (then kills the child with SIGKILL and reports a timeout). */
struct rt_child {
    int status;      /* waitpid status */
    int timed_out;   /* the deadline expired */
    int saw_ready;   /* the child printed READY */
    char err[8192];  /* the child's stderr (truncated) */
};
/* In a child scenario: on a false condition, say which on stderr and return 1. */
#define RT_CHECK(cond)                                                                       \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "check failed at line %d: %s\n", __LINE__, #cond);             \
            return 1;                                                                      \
        }                                                                                  \
    } while (0)
int rt_child_run(const char *scenario, const char *job_parent, const char *env, int sig,
                 int timeout_ms, struct rt_child *out);

/* Deterministic byte patterns: fill, and compare (returns the first bad index or -1). */
void rt_fill(void *p, size_t n, uint32_t seed);
long rt_check(const void *p, size_t n, uint32_t seed);
/* Whether every byte of [p, p+n) equals v. */
int rt_all_bytes(const void *p, size_t n, uint8_t v);

/* Monotonic milliseconds. */
uint64_t rt_now_ms(void);

#endif
