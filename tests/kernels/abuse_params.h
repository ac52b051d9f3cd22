/* abuse_params.h - the argument block of the abuse_kernel test kernel (abuse_kernel.c) and
 * test_api_abuse_kernel.c: the handles and addresses the host gathered through the real
 * control plane, plus where the kernel stores one result per case. */
#ifndef HCEMU_TESTS_ABUSE_PARAMS_H
#define HCEMU_TESTS_ABUSE_PARAMS_H

#include <stdint.h>

#define ABUSE_MAX_CASES 1024
#define ABUSE_DATA 256 /* bytes of the healthy transfer at the end */

struct abuse_args {
    uint64_t thread;         /* this rank's AICPU_TS thread, 2 notifies */
    uint64_t thread2;        /* a second AICPU_TS thread of this rank, 2 notifies */
    uint64_t peer_thread;    /* rank 1's AICPU_TS thread (another device) */
    uint64_t stale_thread;   /* AICPU_TS thread of a destroyed communicator */
    uint64_t cpu_thread;     /* CPU_TS thread (wraps the host stream) */
    uint64_t exported_cpu;   /* cpu_thread exported to AICPU_TS: destination only */
    uint64_t exported_main;  /* thread exported to CPU_TS */
    uint64_t channel;        /* UB_CTP channel to rank 1, 2 notifies */
    uint64_t peer_channel;   /* rank 1's end of it (another device) */
    uint64_t stale_channel;  /* channel of the destroyed communicator */
    uint64_t local_buf;      /* 4096 bytes of this device (aclrtMalloc) */
    uint64_t local_size;
    uint64_t local_hccl;     /* this rank's HCCL buffer */
    uint64_t peer_hccl;      /* rank 1's HCCL buffer through `channel` */
    uint64_t peer_size;
    uint64_t host_ptr;       /* a host-process address */
    uint64_t results;        /* device: int32_t[ABUSE_MAX_CASES] */
    uint64_t expected;       /* device: int32_t[ABUSE_MAX_CASES], what each case must return */
    uint64_t ncases;         /* device: uint32_t, written last */
    char comm_name[128];
};

/* What a case accepts (expected[] values): an exact HcclResult, or these. */
#define ABUSE_ANY_ERROR (-1)

#endif
