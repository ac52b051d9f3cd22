/* st_base.h - the scalar types, device kinds and error macro the HCCL algorithm test cases
 * expect to find around the harness headers. Built against an HCCL checkout (scripts/
 * compat-hccl-st) they are HCCL's own, from its hccl_common.h; stand-alone (hcemu's CI
 * tests) the harness declares the few it needs with the same names and values. */
#ifndef HCEMU_HCCL_ST_BASE_H
#define HCEMU_HCCL_ST_BASE_H

#include <cstdint>
#include <vector>

#include <hccl/hccl_types.h>

#if !defined(HCEMU_ST_STANDALONE) && __has_include("hccl_common.h")
#include "hccl_common.h"
#else
typedef signed char s8;
typedef signed short s16;
typedef signed int s32;
typedef signed long long s64;
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

/* HCCL's device kinds (values as HCCL numbers them). */
enum class HcclDevType {
    DEV_TYPE_910 = 0,
    DEV_TYPE_910B = 2,
    DEV_TYPE_910_93 = 4,
    DEV_TYPE_950 = 6,
    DEV_TYPE_COUNT = 9
};

#ifndef CHK_RET
#define CHK_RET(call)                                                                          \
    do {                                                                                       \
        HcclResult chk_ret_ = (call);                                                          \
        if (chk_ret_ != HCCL_SUCCESS)                                                          \
            return chk_ret_;                                                                   \
    } while (0)
#endif
#endif

#endif
