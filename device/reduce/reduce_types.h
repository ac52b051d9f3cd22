/* reduce_types.h - the data types and reduce operations the reduction engine knows, shared by
 * its public face (reduce.h) and its kernel sets (reduce_priv.h) so that neither includes the
 * other. */
#ifndef HCEMU_DEVICE_REDUCE_TYPES_H
#define HCEMU_DEVICE_REDUCE_TYPES_H

#include <stdint.h>

/* One kernel: dst[i] = op(a[i], b[i]) for i < count, `a` in the role of the destination
 * operand of emu_reduce() (its NaN wins a MAX/MIN, `b` wins a tie). Any of the three may be
 * the same buffer as another; partial overlaps are not allowed. A kernel set has one per
 * (data type, op) (reduce_priv.h); emu_reduce_kernel() hands one out (reduce.h). */
typedef void (*emu_reduce_kernel_fn)(void *dst, const void *a, const void *b, uint64_t count);

/* HcommDataType / HcclDataType values (docs/DATA_PLANE.md §3); the numbers are the
 * vendor's, so a value from a kernel is used as is. */
enum emu_dtype {
    EMU_DTYPE_INT8 = 0,
    EMU_DTYPE_INT16 = 1,
    EMU_DTYPE_INT32 = 2,
    EMU_DTYPE_FP16 = 3,
    EMU_DTYPE_FP32 = 4,
    EMU_DTYPE_INT64 = 5,
    EMU_DTYPE_UINT64 = 6,
    EMU_DTYPE_UINT8 = 7,
    EMU_DTYPE_UINT16 = 8,
    EMU_DTYPE_UINT32 = 9,
    EMU_DTYPE_FP64 = 10,
    EMU_DTYPE_BFP16 = 11,
    EMU_DTYPE_INT128 = 12,
    EMU_DTYPE_HIF8 = 14,
    EMU_DTYPE_FP8E4M3 = 15,
    EMU_DTYPE_FP8E5M2 = 16,
    EMU_DTYPE_FP8E8M0 = 17,
    EMU_DTYPE_RESERVED = 255,
};
/* emu_reduce() computes the types below this bound (INT8 ... BFP16, all twelve). */
#define EMU_REDUCE_DTYPE_COUNT 12

/* HcommReduceOp values (docs/DATA_PLANE.md §3). */
enum emu_reduce_op {
    EMU_REDUCE_OP_SUM = 0,
    EMU_REDUCE_OP_PROD = 1,
    EMU_REDUCE_OP_MAX = 2,
    EMU_REDUCE_OP_MIN = 3,
    EMU_REDUCE_OP_RESERVED = 255,
};
#define EMU_REDUCE_OP_COUNT 4

#endif
