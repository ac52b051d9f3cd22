/* reduce_sse2.c - the SSE2 kernel set, the x86-64 baseline: fp32 and bf16 hand-vectorised and
 * unrolled; fp16 (no F16C here), integers and fp64 are the loops of reduce_loops.h, which the
 * compiler vectorises for SSE2. Entry point: emu_reduce_sse2_fill(). */
#include "reduce_priv.h"

#if defined(__x86_64__)
#include <emmintrin.h>

#define SSE2 __attribute__((target("sse2")))

#define EMU_RL_PREFIX sse2_
#define EMU_RL_ATTR SSE2
#include "reduce_loops.h"

/* The four ops on 4 fp32 lanes. MAXPS/MINPS(d, s) return s when either is NaN or both are
 * zero; the select makes a NaN in d win too (emu_fmax_f32 is the scalar twin). */
SSE2 static inline __m128 f32_sum(__m128 d, __m128 s)
{
    return _mm_add_ps(d, s);
}

SSE2 static inline __m128 f32_prod(__m128 d, __m128 s)
{
    return _mm_mul_ps(d, s);
}

SSE2 static inline __m128 select_ps(__m128 mask, __m128 a, __m128 b)
{
    return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b));
}

SSE2 static inline __m128 f32_max(__m128 d, __m128 s)
{
    return select_ps(_mm_cmpunord_ps(d, d), d, _mm_max_ps(d, s));
}

SSE2 static inline __m128 f32_min(__m128 d, __m128 s)
{
    return select_ps(_mm_cmpunord_ps(d, d), d, _mm_min_ps(d, s));
}

SSE2 static inline __m128 ld_ps(const void *p)
{
    return _mm_loadu_ps(p);
}

SSE2 static inline void st_ps(void *p, __m128 v)
{
    _mm_storeu_ps(p, v);
}

SSE2 static inline __m128i ld_128(const void *p)
{
    return _mm_loadu_si128(p);
}

SSE2 static inline void st_128(void *p, __m128i v)
{
    _mm_storeu_si128(p, v);
}

/* fp32 -> bf16, round to nearest even, NaN made quiet instead of rounded; result in the high
 * half of each lane, sign-extended for PACKSSDW. Scalar twin: emu_f32_to_bf16. */
SSE2 static inline __m128i bf16_round(__m128 r)
{
    __m128i u = _mm_castps_si128(r);
    __m128i lsb = _mm_and_si128(_mm_srli_epi32(u, 16), _mm_set1_epi32(1));
    __m128i rounded = _mm_add_epi32(_mm_add_epi32(u, _mm_set1_epi32(0x7fff)), lsb);
    __m128i quiet = _mm_or_si128(u, _mm_set1_epi32(0x00400000));
    __m128i nan = _mm_castps_si128(_mm_cmpunord_ps(r, r));
    __m128i v = _mm_or_si128(_mm_and_si128(nan, quiet), _mm_andnot_si128(nan, rounded));
    return _mm_srai_epi32(v, 16);
}

/* bf16: 8 lanes; the unpacks put each bf16 in the high half of a 32-bit lane (its fp32
 * value) and the pack restores the order. */
#define KERNELS(op)                                                                            \
    SSE2 static inline __m128i bf16_##op(__m128i d, __m128i s)                                 \
    {                                                                                          \
        __m128i z = _mm_setzero_si128();                                                       \
        __m128 lo = f32_##op(_mm_castsi128_ps(_mm_unpacklo_epi16(z, d)),                       \
                             _mm_castsi128_ps(_mm_unpacklo_epi16(z, s)));                      \
        __m128 hi = f32_##op(_mm_castsi128_ps(_mm_unpackhi_epi16(z, d)),                       \
                             _mm_castsi128_ps(_mm_unpackhi_epi16(z, s)));                      \
        return _mm_packs_epi32(bf16_round(lo), bf16_round(hi));                                \
    }                                                                                          \
    EMU_REDUCE_BODY(SSE2, f32_##op##_body, 4, 4, __m128, ld_ps, st_ps, f32_##op)               \
    EMU_REDUCE_BODY(SSE2, bf16_##op##_body, 2, 8, __m128i, ld_128, st_128, bf16_##op)          \
    EMU_REDUCE_WITH_TAIL(SSE2, f32_##op##_kernel, f32_##op##_body, 4, 4)                       \
    EMU_REDUCE_WITH_TAIL(SSE2, bf16_##op##_kernel, bf16_##op##_body, 2, 8)

KERNELS(sum)
KERNELS(prod)
KERNELS(max)
KERNELS(min)

#define SET_ROW(dt, tag)                                                                       \
    do {                                                                                       \
        k->fn[dt][EMU_REDUCE_OP_SUM] = tag##_sum_kernel;                                       \
        k->fn[dt][EMU_REDUCE_OP_PROD] = tag##_prod_kernel;                                     \
        k->fn[dt][EMU_REDUCE_OP_MAX] = tag##_max_kernel;                                       \
        k->fn[dt][EMU_REDUCE_OP_MIN] = tag##_min_kernel;                                       \
    } while (0)

void emu_reduce_sse2_fill(struct emu_reduce_kernels *k)
{
    k->name = "sse2";
    sse2_fill_loops(k);
    SET_ROW(EMU_DTYPE_FP32, f32);
    SET_ROW(EMU_DTYPE_BFP16, bf16);
}

#else
typedef int emu_reduce_sse2_is_x86_only;
#endif
