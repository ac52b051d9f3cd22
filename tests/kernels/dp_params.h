/* dp_params.h - the little program the data-plane test kernel (dp_exec.c) interprets: one
 * Hcomm* call (or a helper step) per op, its return value stored in rets[i]. Shared by the
 * kernel and the tests/benchmark that build programs on the host. */
#ifndef HCEMU_TESTS_DP_PARAMS_H
#define HCEMU_TESTS_DP_PARAMS_H

#include <stdint.h>

enum dp_fn {
    DPF_COPY = 1,
    DPF_REDUCE,
    DPF_TREC,
    DPF_TWAIT,
    DPF_TWAIT_DEF,
    DPF_ACL_REC,
    DPF_ACL_WAIT,
    DPF_WRITE,
    DPF_WRITE_REDUCE,
    DPF_WRITE_NOTIFY,
    DPF_WRITE_REDUCE_NOTIFY,
    DPF_READ,
    DPF_READ_REDUCE,
    DPF_BATCH,
    DPF_WRITE_NBI_T,
    DPF_WRITE_NBI,
    DPF_READ_NBI_T,
    DPF_READ_NBI,
    DPF_WWN_NBI_T,
    DPF_WWN_NBI,
    DPF_CREC,
    DPF_CWAIT,
    DPF_CWAIT_DEF,
    DPF_CREC_NT,
    DPF_CWAIT_NT,
    DPF_CFENCE_T,
    DPF_CFENCE,
    DPF_FENCE_T,
    DPF_DRAIN,
    DPF_JOIN,
    DPF_SYNC,
    DPF_SET_WAIT,
    DPF_SET_RES,
    DPF_BSTART,
    DPF_BEND,
    DPF_ACQ,
    DPF_REL,
    DPF_C_LOOKUP,
    DPF_C_START,
    DPF_C_END,
    DPF_C_EXEC,
    DPF_C_CLEAR,
    DPF_READ_PUB,             /* hcemu_read_published: src is the mailbox, aux the offset */
    DPF_READ_REDUCE_PUB,      /* hcemu_read_reduce_published: the same, n elements */
    DPF_READ_REDUCE_PUB_INTO, /* hcemu_read_reduce_published_into: own at addrs[0], first if idx */
    DPF_WRITE_PUB,            /* hcemu_write_published: dst is the mailbox, aux the offset */
    DPF_WAIT_COPY,            /* hcemu_wait_copy: wait for notify idx of channel `other`, copy */
    DPF_WAIT_REDUCE,          /* hcemu_wait_reduce: the same, reducing n elements */
    DPF_SPREAD_PUB,           /* hcemu_reduce_spread_published of rank idx of sizes[1] (0: 2), the
                               * other rank's channel `other`: own at addrs[0], mine at dst, the
                               * mailboxes at src sizes[0] bytes apart, aux the offset, n elements */
    /* helpers */
    DPF_LOOP,     /* repeat the next `idx` ops `n` times (no nesting); ret = 0 */
    DPF_PEEK,     /* ret = 32-bit word at device address dst */
    DPF_SLEEP,    /* sleep n microseconds */
    DPF_TAG_NULL, /* as DPF_BSTART with a NULL tag */
};

struct dp_op {
    uint32_t fn;
    uint32_t idx;       /* notify index, or op count for DPF_LOOP */
    uint64_t thread;    /* ThreadHandle */
    uint64_t other;     /* dstThread, ChannelHandle, or notify id */
    uint64_t dst;
    uint64_t src;
    uint64_t n;         /* len, count, or transferDescNum */
    int32_t dtype;
    int32_t rop;
    uint32_t timeout;
    float ftimeout;
    uint64_t aux;       /* device address of batch descriptors */
    uint64_t addrs[2];  /* task cache regions */
    uint64_t sizes[2];
    uint32_t count;     /* task cache region count */
    uint32_t null_ptr;  /* pass NULL for the tag / isHit / descs pointer */
    char tag[32];
};

struct dp_args {
    uint64_t ops;  /* device address of struct dp_op[nops] */
    uint64_t rets; /* device address of int32_t[nops] */
    uint32_t nops;
    uint32_t reserved;
};

#endif
