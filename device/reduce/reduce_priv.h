/* reduce_priv.h - what the reduction kernel sets share: the kernel table each set fills, the
 * scalar fp16/bf16 conversions and the float MAX/MIN rule every set must reproduce bit for bit.
 * This file is private to the reduce module (reduce*.c and its test). */
#ifndef HCEMU_DEVICE_REDUCE_PRIV_H
#define HCEMU_DEVICE_REDUCE_PRIV_H

#include <stdint.h>
#include <string.h>

#include "reduce_types.h"

/* A kernel set: one kernel per (data type, op); every entry non-NULL once filled. */
struct emu_reduce_kernels {
    const char *name;
    emu_reduce_kernel_fn fn[EMU_REDUCE_DTYPE_COUNT][EMU_REDUCE_OP_COUNT];
};

/* Fill every entry of `k` with the set's kernels; the x86 ones exist only on x86-64.
 * Called once per set under the selection's pthread_once. */
void emu_reduce_generic_fill(struct emu_reduce_kernels *k);
#if defined(__x86_64__)
void emu_reduce_sse2_fill(struct emu_reduce_kernels *k);
void emu_reduce_avx2_fill(struct emu_reduce_kernels *k);
void emu_reduce_avx512_fill(struct emu_reduce_kernels *k);
#endif

/* Defines kernel `name` from `body`, a function that handles only whole multiples of `lanes`
 * elements of `esize` bytes: the last count % lanes elements go through zero-padded stack
 * buffers, so the tail gets exactly the vector arithmetic (and no read past the end). */
#define EMU_REDUCE_WITH_TAIL(ATTR, name, body, esize, lanes)                                  \
    ATTR static void name(void *dv, const void *av, const void *bv, uint64_t n)               \
    {                                                                                          \
        uint64_t whole = n - n % (lanes);                                                      \
        body(dv, av, bv, whole);                                                               \
        if (whole == n)                                                                        \
            return;                                                                            \
        unsigned char bd[(lanes) * (esize)] = {0}, ba[(lanes) * (esize)] = {0};                \
        unsigned char bb[(lanes) * (esize)] = {0};                                             \
        size_t off = (size_t)whole * (esize), rest = (size_t)(n - whole) * (esize);            \
        memcpy(ba, (const unsigned char *)av + off, rest);                                     \
        memcpy(bb, (const unsigned char *)bv + off, rest);                                     \
        body(bd, ba, bb, (lanes));                                                             \
        memcpy((unsigned char *)dv + off, bd, rest);                                           \
    }

/* Defines `name`, the main loop of a hand-vectorised kernel over n elements (a multiple of
 * `lanes`) of `esize` bytes: four vectors per iteration, then one at a time. LOAD(ptr) and
 * STORE(ptr, v) take byte addresses of any alignment; OP(a_vec, b_vec) is the reduction.
 * All eight loads of an iteration come before its stores, which keeps dst == a or dst == b
 * correct. */
#define EMU_REDUCE_BODY(ATTR, name, esize, lanes, VT, LOAD, STORE, OP)                         \
    ATTR static void name(void *dv, const void *av, const void *bv, uint64_t n)               \
    {                                                                                          \
        unsigned char *d = dv;                                                                 \
        const unsigned char *a = av, *b = bv;                                                  \
        const size_t step = (size_t)(lanes) * (esize);                                         \
        const uint64_t end = n * (esize);                                                      \
        uint64_t i = 0;                                                                        \
        for (; i + 4 * step <= end; i += 4 * step) {                                           \
            VT a0 = LOAD(a + i), a1 = LOAD(a + i + step);                                      \
            VT a2 = LOAD(a + i + 2 * step), a3 = LOAD(a + i + 3 * step);                       \
            VT b0 = LOAD(b + i), b1 = LOAD(b + i + step);                                      \
            VT b2 = LOAD(b + i + 2 * step), b3 = LOAD(b + i + 3 * step);                       \
            STORE(d + i, OP(a0, b0));                                                          \
            STORE(d + i + step, OP(a1, b1));                                                   \
            STORE(d + i + 2 * step, OP(a2, b2));                                               \
            STORE(d + i + 3 * step, OP(a3, b3));                                               \
        }                                                                                      \
        for (; i < end; i += step)                                                             \
            STORE(d + i, OP(LOAD(a + i), LOAD(b + i)));                                        \
    }

/* Lets GCC's vectoriser ignore possible aliasing of dst and the operands: the only aliasing
 * allowed is whole buffers, where iteration i reads and writes element i only, so no
 * dependence is carried between iterations. Clang vectorises these loops with a run-time
 * overlap check instead (its assume_safety pragma warns, and so fails -Werror, where it cannot
 * vectorise). */
#if defined(__GNUC__) && !defined(__clang__)
#define EMU_IVDEP _Pragma("GCC ivdep")
#else
#define EMU_IVDEP
#endif

/* Element types with alignment 1, so kernels accept any address (the vendor call takes plain
 * pointers) and may_alias, since device memory has no declared type. */
typedef int8_t emu_rd_i8 __attribute__((aligned(1), may_alias));
typedef int16_t emu_rd_i16 __attribute__((aligned(1), may_alias));
typedef int32_t emu_rd_i32 __attribute__((aligned(1), may_alias));
typedef int64_t emu_rd_i64 __attribute__((aligned(1), may_alias));
typedef uint8_t emu_rd_u8 __attribute__((aligned(1), may_alias));
typedef uint16_t emu_rd_u16 __attribute__((aligned(1), may_alias));
typedef uint32_t emu_rd_u32 __attribute__((aligned(1), may_alias));
typedef uint64_t emu_rd_u64 __attribute__((aligned(1), may_alias));
typedef float emu_rd_f32 __attribute__((aligned(1), may_alias));
typedef double emu_rd_f64 __attribute__((aligned(1), may_alias));

static inline uint32_t emu_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline float emu_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

/* All-ones when c, else zero: lets the conversions below select with masks, which every
 * vectoriser handles (GCC does not if-convert the ternary form around fp32 adds). */
static inline uint32_t emu_mask32(int c)
{
    return (uint32_t)0 - (uint32_t)(c != 0);
}

static inline uint32_t emu_select32(uint32_t mask, uint32_t a, uint32_t b)
{
    return (a & mask) | (b & ~mask);
}

/* Float MAX/MIN: a NaN in dst wins, a NaN in src falls out of the comparison (d > s is false),
 * and on equality (+0 vs -0) src is returned. This is exactly x86 MAXPS/MINPS(d, s) with the
 * dst-NaN case patched, so the vector kernels match these bit for bit. Written with masks
 * because GCC leaves the ternary form as branches inside the fp16 loops. */
static inline float emu_fmax_f32(float d, float s)
{
    uint32_t r = emu_select32(emu_mask32(d > s), emu_f32_bits(d), emu_f32_bits(s));
    return emu_f32_from_bits(emu_select32(emu_mask32(d != d), emu_f32_bits(d), r));
}

static inline float emu_fmin_f32(float d, float s)
{
    uint32_t r = emu_select32(emu_mask32(d < s), emu_f32_bits(d), emu_f32_bits(s));
    return emu_f32_from_bits(emu_select32(emu_mask32(d != d), emu_f32_bits(d), r));
}

static inline double emu_fmax_f64(double d, double s)
{
    return d != d ? d : (d > s ? d : s);
}

static inline double emu_fmin_f64(double d, double s)
{
    return d != d ? d : (d < s ? d : s);
}

/* binary16 -> fp32, exact and branch-free so loops using it vectorise (after F. Giesen's
 * half_to_float). NaN payloads move along; a signalling NaN stays signalling until the
 * arithmetic quiets it. */
static inline float emu_f16_to_f32(uint16_t h)
{
    uint32_t mag = (uint32_t)(h & 0x7fffu) << 13;
    uint32_t exp = mag & (0x7c00u << 13);
    uint32_t u = mag + ((127u - 15u) << 23);
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;

    /* Inf/NaN: move the exponent the rest of the way to 255. */
    u = emu_select32(emu_mask32(exp == (0x7c00u << 13)), u + ((128u - 16u) << 23), u);
    /* Zero/subnormal: the value is mantissa * 2^-24, exact in fp32. */
    float sub = (float)(int32_t)(h & 0x3ffu) * 0x1p-24f;
    u = emu_select32(emu_mask32(exp == 0), emu_f32_bits(sub), u);
    return emu_f32_from_bits(u | sign);
}

/* fp32 -> binary16, round to nearest even, branch-free (Giesen's float_to_half_fast3_rtne
 * with masks). Overflow gives inf, NaN stays a quiet NaN keeping the payload's top bits. */
static inline uint16_t emu_f32_to_f16(float f)
{
    uint32_t u = emu_f32_bits(f);
    uint32_t sign = u & 0x80000000u;
    uint32_t a = u ^ sign;

    uint32_t special = emu_select32(emu_mask32(a > 0x7f800000u), 0x7e00u | ((a >> 13) & 0x3ffu),
                                    0x7c00u);
    /* Subnormal results: adding 0.5 lines the 10 mantissa bits up at the bottom of the fp32
     * mantissa, and the fp32 adder rounds to nearest even for us. */
    const uint32_t magic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
    uint32_t sub = emu_f32_bits(emu_f32_from_bits(a) + emu_f32_from_bits(magic)) - magic;
    uint32_t norm = (a + ((uint32_t)(15 - 127) << 23) + 0xfffu + ((a >> 13) & 1u)) >> 13;

    uint32_t h = emu_select32(emu_mask32(a < (113u << 23)), sub, norm);
    h = emu_select32(emu_mask32(a >= (143u << 23)), special, h);
    return (uint16_t)(h | (sign >> 16));
}

static inline float emu_bf16_to_f32(uint16_t b)
{
    return emu_f32_from_bits((uint32_t)b << 16);
}

/* fp32 -> bfloat16, round to nearest even by adding 0x7fff plus the kept lsb; a NaN keeps
 * its top bits and gets the quiet bit, so rounding can never turn it into inf or -0. */
static inline uint16_t emu_f32_to_bf16(float f)
{
    uint32_t u = emu_f32_bits(f);
    uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    uint32_t nan = (u >> 16) | 0x40u;

    return (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

#endif
