/* test_comm_util.h - helpers of the communicator tests (test_comm*.c): a private job folder
 * under /dev/shm, stderr capture to count error lines, ranks as threads, a view of a
 * device's control block, rank tables, and child processes with a deadline. */
#ifndef HCEMU_TESTS_TEST_COMM_UTIL_H
#define HCEMU_TESTS_TEST_COMM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <hccl/hccl.h>

#include "common/contract/devctl.h"

#define CU_PATH 512

/* ---- job folder --------------------------------------------------------------------- */

/* mkdtemp /dev/shm/hcemu-commtest-XXXXXX into `out`. */
void cu_tmpdir(char *out, size_t len);
/* rm -rf; then the folder is gone. */
void cu_rmtree(const char *path);
/* Entries directly under `dir` whose name starts with `prefix` (NULL: all). */
int cu_count_files(const char *dir, const char *prefix);
/* hcemu-device processes whose command line mentions `needle`. */
int cu_executors(const char *needle);
/* Wait up to `ms` for cu_executors(needle) to reach 0; returns what is left. */
int cu_wait_executors_gone(const char *needle, int ms);
/* A private job folder for ranks as threads (into job) and the environment the group tests
 * run in: HCEMU_DEVICES=devices, 1 GiB each, HCCL_BUFFSIZE=buffsize MB, 20 s connect timeout,
 * no rank, topology or SoC inherited. */
void cu_job_begin(char *job, size_t len, const char *devices, const char *buffsize);
/* After the group: wait (5 s) for the job's executors, remove the folder; returns rc, or 1
 * when executors are left. */
int cu_job_end(const char *job, int rc);
/* Group set-up and tear-down of those tests: aclInit once, aclFinalize at the end. */
int cu_acl_setup(void **state);
int cu_acl_teardown(void **state);

/* ---- stderr capture ----------------------------------------------------------------- */

struct cu_capture {
    int saved;
    int fd;
    char text[16384];
    int errors; /* lines with "] error: " */
    int lines;
};
void cu_capture_begin(struct cu_capture *c);
void cu_capture_end(struct cu_capture *c);
/* Fails the test unless exactly one error line was logged and it contains every needle. */
void cu_assert_one_error(const struct cu_capture *c, const char *n1, const char *n2);

/* ---- control blocks ----------------------------------------------------------------- */

/* Map dev<N>.ctl of job folder `job` read-only (NULL if absent). */
const struct emu_devctl *cu_ctl_map(const char *job, int dev);
void cu_ctl_unmap(const struct emu_devctl *ctl);
/* Live entries of a device's tables. */
int cu_live_streams(const struct emu_devctl *ctl, uint32_t kind);
int cu_live_channels(const struct emu_devctl *ctl);
int cu_live_comms(const struct emu_devctl *ctl);
uint64_t cu_notifies_used(const struct emu_devctl *ctl);
uint32_t cu_allocs(const struct emu_devctl *ctl);

/* ---- ranks as threads --------------------------------------------------------------- */

struct cu_rank;
typedef void (*cu_rank_fn)(struct cu_rank *r);
struct cu_rank {
    int rank;
    int n;
    const HcclRootInfo *root;
    HcclComm comm;
    HcclResult init_rc;
    HcclResult destroy_rc;
    cu_rank_fn body; /* runs after a successful init, before destroy; may be NULL */
    void *arg;
    bool keep;    /* do not destroy (the test destroys later) */
    int failures; /* checks that failed inside the body */
};
/* Run ranks[0..n) as threads: aclrtSetDevice(rank), HcclCommInitRootInfo, body, destroy. */
void cu_run_ranks(struct cu_rank *ranks, int n, const HcclRootInfo *root, cu_rank_fn body,
                  void *arg);
/* Inside a body: count a failed check, with a message on stderr. */
#define CU_CHECK(r, cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: check failed at %s:%d: %s\n", (r)->rank, __FILE__, __LINE__, \
                    #cond);                                                                        \
            (r)->failures++;                                                                       \
        }                                                                                          \
    } while (0)

/* A barrier for the rank threads of one test. */
void cu_barrier_init(int n);
void cu_barrier_wait(void);

/* A channel descriptor to `peer` built the way the 950 samples do: from the first link of
 * HcclRankGraphGetLinks (layer 0, else layer 1) whose protocol is `protocol` (-1: any).
 * Returns HCCL_SUCCESS or the failing call's code (HCCL_E_NOT_FOUND: no such link). */
HcclResult cu_desc_to(HcclComm comm, uint32_t me, uint32_t peer, int protocol, uint32_t notifies,
                      HcclChannelDesc *d);

/* ---- files and children ------------------------------------------------------------- */

/* Write `text` to dir/name; the path goes to `out`. */
void cu_write(const char *dir, const char *name, const char *text, char *out, size_t len);
/* Run this program again as "--child <scenario> <arg>" with extra "K=V" environment entries
 * (NULL-terminated), without waiting. */
pid_t cu_spawn(const char *self, const char *scenario, const char *arg, char *const *env);
/* Wait for a child up to `ms`; SIGKILL and return -1 on timeout, else its exit status (or
 * 128 + signal). */
int cu_wait(pid_t pid, int ms);

#endif
