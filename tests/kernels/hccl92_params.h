/* hccl92_params.h - what test_hccl92 and its kernel hccl92_probe share: the packed argument
 * block and the index of each result in the output array. */
#ifndef HCEMU_TESTS_HCCL92_PARAMS_H
#define HCEMU_TESTS_HCCL92_PARAMS_H

#include <stdint.h>

struct __attribute__((packed)) hccl92_args {
    char comm[128];
    uint64_t out;
};

enum {
    H92_STATUS,
    H92_STATUS_VALUE,
    H92_STATUS_UNKNOWN,
    H92_GROUP,
    H92_GROUP_VALUE,
    H92_DEVICE_OP,
    H92_START_TASK,
    H92_DFX,
    H92_REG_OP,
    H92_PEER_PTR,
    H92_PEER_PTR_NULL,
    H92_DL_OPEN,
    H92_DL_STATUS,
    H92_DL_STATUS_VALUE,
    H92_DL_END_TASK,
    H92_DL_HAS_WRITE,
    H92_COUNT
};

#endif
