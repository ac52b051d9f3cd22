/* reduce_loops.h - the portable reduction loops, one per (type, op), written so the compiler
 * vectorises them at -O2: fixed 256-byte blocks (an inner trip count the cheap cost model
 * accepts without an epilogue), no branches (selects only) and no carried dependences.
 *
 * A template, included once per kernel set: the includer defines EMU_RL_PREFIX (name prefix)
 * and EMU_RL_ATTR (a target attribute, or nothing) and gets `EMU_RL_PREFIX##fill_loops()`,
 * which fills a whole table; x86 sets then replace the entries they hand-code. */
#if !defined(EMU_RL_PREFIX) || !defined(EMU_RL_ATTR)
#error "define EMU_RL_PREFIX and EMU_RL_ATTR before including reduce_loops.h"
#endif

#include "reduce_priv.h"

#define EMU_RL_CAT2(a, b) a##b
#define EMU_RL_CAT(a, b) EMU_RL_CAT2(a, b)
#define EMU_RL_NAME(x) EMU_RL_CAT(EMU_RL_PREFIX, x)

/* Integer ops do their arithmetic in unsigned M (uint32_t or uint64_t) so overflow wraps
 * without undefined behaviour; the conversion back to T is modular on every compiler we use. */
#define EMU_RL_ISUM(T, M, a, b) ((T)((M)(a) + (M)(b)))
#define EMU_RL_IPROD(T, M, a, b) ((T)((M)(a) * (M)(b)))
#define EMU_RL_IMAX(T, M, a, b) ((a) > (b) ? (a) : (b))
#define EMU_RL_IMIN(T, M, a, b) ((a) < (b) ? (a) : (b))
#define EMU_RL_FSUM(T, M, a, b) ((a) + (b))
#define EMU_RL_FPROD(T, M, a, b) ((a) * (b))
#define EMU_RL_FMAX(T, M, a, b) _Generic((a), float: emu_fmax_f32, double: emu_fmax_f64)(a, b)
#define EMU_RL_FMIN(T, M, a, b) _Generic((a), float: emu_fmin_f32, double: emu_fmin_f64)(a, b)

#define EMU_RL_ID(x) (x)

/* U: stored element type, C: compute type, LD/ST: conversions between them. */
#define EMU_RL_KERNEL(name, U, C, M, LD, ST, OP)                                               \
    EMU_RL_ATTR static void EMU_RL_NAME(name)(void *dv, const void *av, const void *bv,       \
                                              uint64_t n)                                      \
    {                                                                                          \
        enum { B = 256 / sizeof(U) };                                                          \
        U *d = dv;                                                                             \
        const U *a = av, *b = bv;                                                              \
        uint64_t i = 0;                                                                        \
        for (; i + B <= n; i += B) {                                                           \
            U *db = d + i;                                                                     \
            const U *ab = a + i, *bb = b + i;                                                  \
            EMU_IVDEP                                                                          \
            for (unsigned j = 0; j < B; j++) {                                                 \
                C x = LD(ab[j]);                                                               \
                C y = LD(bb[j]);                                                               \
                db[j] = ST(OP(C, M, x, y));                                                    \
            }                                                                                  \
        }                                                                                      \
        for (; i < n; i++) {                                                                   \
            C x = LD(a[i]);                                                                    \
            C y = LD(b[i]);                                                                    \
            d[i] = ST(OP(C, M, x, y));                                                         \
        }                                                                                      \
    }

#define EMU_RL_INT_ROW(tag, U, T, M)                                                           \
    EMU_RL_KERNEL(tag##_sum, U, T, M, EMU_RL_ID, EMU_RL_ID, EMU_RL_ISUM)                       \
    EMU_RL_KERNEL(tag##_prod, U, T, M, EMU_RL_ID, EMU_RL_ID, EMU_RL_IPROD)                     \
    EMU_RL_KERNEL(tag##_max, U, T, M, EMU_RL_ID, EMU_RL_ID, EMU_RL_IMAX)                       \
    EMU_RL_KERNEL(tag##_min, U, T, M, EMU_RL_ID, EMU_RL_ID, EMU_RL_IMIN)

#define EMU_RL_FLT_ROW(tag, U, C, LD, ST)                                                      \
    EMU_RL_KERNEL(tag##_sum, U, C, C, LD, ST, EMU_RL_FSUM)                                     \
    EMU_RL_KERNEL(tag##_prod, U, C, C, LD, ST, EMU_RL_FPROD)                                   \
    EMU_RL_KERNEL(tag##_max, U, C, C, LD, ST, EMU_RL_FMAX)                                     \
    EMU_RL_KERNEL(tag##_min, U, C, C, LD, ST, EMU_RL_FMIN)

EMU_RL_INT_ROW(i8, emu_rd_i8, int8_t, uint32_t)
EMU_RL_INT_ROW(i16, emu_rd_i16, int16_t, uint32_t)
EMU_RL_INT_ROW(i32, emu_rd_i32, int32_t, uint32_t)
EMU_RL_INT_ROW(i64, emu_rd_i64, int64_t, uint64_t)
EMU_RL_INT_ROW(u8, emu_rd_u8, uint8_t, uint32_t)
EMU_RL_INT_ROW(u16, emu_rd_u16, uint16_t, uint32_t)
EMU_RL_INT_ROW(u32, emu_rd_u32, uint32_t, uint32_t)
EMU_RL_INT_ROW(u64, emu_rd_u64, uint64_t, uint64_t)
EMU_RL_FLT_ROW(f32, emu_rd_f32, float, EMU_RL_ID, EMU_RL_ID)
EMU_RL_FLT_ROW(f64, emu_rd_f64, double, EMU_RL_ID, EMU_RL_ID)
EMU_RL_FLT_ROW(f16, emu_rd_u16, float, emu_f16_to_f32, emu_f32_to_f16)
EMU_RL_FLT_ROW(bf16, emu_rd_u16, float, emu_bf16_to_f32, emu_f32_to_bf16)

#define EMU_RL_SET(dt, tag)                                                                    \
    do {                                                                                       \
        k->fn[dt][EMU_REDUCE_OP_SUM] = EMU_RL_NAME(tag##_sum);                                 \
        k->fn[dt][EMU_REDUCE_OP_PROD] = EMU_RL_NAME(tag##_prod);                               \
        k->fn[dt][EMU_REDUCE_OP_MAX] = EMU_RL_NAME(tag##_max);                                 \
        k->fn[dt][EMU_REDUCE_OP_MIN] = EMU_RL_NAME(tag##_min);                                 \
    } while (0)

static void EMU_RL_NAME(fill_loops)(struct emu_reduce_kernels *k)
{
    EMU_RL_SET(EMU_DTYPE_INT8, i8);
    EMU_RL_SET(EMU_DTYPE_INT16, i16);
    EMU_RL_SET(EMU_DTYPE_INT32, i32);
    EMU_RL_SET(EMU_DTYPE_FP16, f16);
    EMU_RL_SET(EMU_DTYPE_FP32, f32);
    EMU_RL_SET(EMU_DTYPE_INT64, i64);
    EMU_RL_SET(EMU_DTYPE_UINT64, u64);
    EMU_RL_SET(EMU_DTYPE_UINT8, u8);
    EMU_RL_SET(EMU_DTYPE_UINT16, u16);
    EMU_RL_SET(EMU_DTYPE_UINT32, u32);
    EMU_RL_SET(EMU_DTYPE_FP64, f64);
    EMU_RL_SET(EMU_DTYPE_BFP16, bf16);
}
