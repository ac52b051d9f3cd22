/* dp_fixture.h - test fixture of the data-plane tests and benchmark: emulated devices, and
 * threads/channels made by writing the device control blocks directly (the contract the
 * control plane fulfils), so the data plane can be tested on its own. */
#ifndef HCEMU_TESTS_DP_FIXTURE_H
#define HCEMU_TESTS_DP_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "dp_params.h"

#define DPF_MAX_DEV 4

struct dpf {
    char job[256];
    char log[300];
    int ndev;
    int log_fd;
    int saved_stderr;
    struct emu_devctl *ctl[DPF_MAX_DEV];
    aclrtStream stream[DPF_MAX_DEV];
    aclrtBinHandle bin;
    aclrtFuncHandle fn;
    uint32_t dev_slots[DPF_MAX_DEV][64]; /* device-thread slots made by the fixture */
    uint32_t n_dev_slots[DPF_MAX_DEV];
};

struct dpf_run {
    int dev;
    aclrtStream stream;
    void *block; /* device: dp_args, ops, rets */
    uint32_t nops;
};

/* Start `ndev` devices (own job folder, stderr captured to a log file unless `keep_stderr`),
 * a stream on each and load the dp_exec kernel from `kernels_json`. 0 on success. */
int dpf_setup(struct dpf *f, int ndev, const char *kernels_json, int keep_stderr);
void dpf_teardown(struct dpf *f);
/* An AICPU_TS thread of device `dev` with `notify_num` notifies. */
uint64_t dpf_thread(struct dpf *f, int dev, uint32_t notify_num, uint32_t rank, uint32_t index);
/* Wrap stream `s` of `dev` as a CPU_TS thread with `notify_num` notifies. */
uint64_t dpf_cpu_thread(struct dpf *f, int dev, aclrtStream s, uint32_t notify_num, uint32_t rank);
/* The handle naming thread h for engine `engine` (HcclThreadExportToCommEngine). */
uint64_t dpf_export(uint64_t h, uint32_t engine);
/* Release a fixture thread (handle goes stale). */
void dpf_thread_release(struct dpf *f, uint64_t h);
/* A channel between devices a and b; each side reaches the other's `buf` (tag HcclBuffer). */
void dpf_channel_pair(struct dpf *f, int a, int b, uint32_t notify_num, void *buf_a,
                      uint64_t size_a, void *buf_b, uint64_t size_b, uint64_t *ha, uint64_t *hb);
/* Register a communicator name on a device (for HcommAcquireComm). */
void dpf_comm(struct dpf *f, int dev, const char *name);
void *dpf_malloc(struct dpf *f, int dev, size_t n);
void dpf_free(void *p);
void dpf_put(void *dev_dst, const void *host_src, size_t n);
void dpf_get(void *host_dst, const void *dev_src, size_t n);
/* Queue the program on `stream` (NULL: the device's fixture stream). */
int dpf_launch(struct dpf *f, int dev, aclrtStream stream, const struct dp_op *ops, uint32_t n,
               struct dpf_run *r);
/* Synchronise the run's stream; rets (may be NULL) gets the return values. Returns the
 * aclError of aclrtSynchronizeStream. */
int dpf_finish(struct dpf_run *r, int32_t *rets);
/* Launch on `dev` and finish. */
int dpf_run(struct dpf *f, int dev, const struct dp_op *ops, uint32_t n, int32_t *rets);
/* Log capture: a mark, and the number of lines since the mark containing `needle`. */
long dpf_log_mark(struct dpf *f);
int dpf_log_count(struct dpf *f, long mark, const char *needle);
/* The count of `needle` once it reaches `n`, or after `timeout_s`: for a line an executor
 * writes after the host's synchronisation returned (a failed stream reports its error at
 * once, while the kernel that fed it may still be ending). */
int dpf_log_wait(struct dpf *f, long mark, const char *needle, int n, unsigned timeout_s);
/* Print the log since mark to the real stderr (for failure diagnosis). */
void dpf_log_dump(struct dpf *f, long mark);

#endif
