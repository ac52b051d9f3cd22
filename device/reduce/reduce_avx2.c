/* reduce_avx2.c - the AVX2 + F16C kernel set. fp32, fp16 (through F16C) and bf16 (through
 * integer shifts) are hand-vectorised and unrolled; integers and fp64 are the loops of
 * reduce_loops.h compiled for AVX2. Entry point: emu_reduce_avx2_fill(); only called when the
 * CPU has avx2, f16c and fma. */
#include "reduce_priv.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,f16c,fma")))

#define EMU_RL_PREFIX avx2_
#define EMU_RL_ATTR AVX2
#include "reduce_loops.h"

/* The four ops on 8 fp32 lanes. VMAXPS/VMINPS(d, s) return s when either is NaN or both are
 * zero; the blend makes a NaN in d win too (emu_fmax_f32 is the scalar twin). */
AVX2 static inline __m256 f32_sum(__m256 d, __m256 s)
{
    return _mm256_add_ps(d, s);
}

AVX2 static inline __m256 f32_prod(__m256 d, __m256 s)
{
    return _mm256_mul_ps(d, s);
}

AVX2 static inline __m256 f32_max(__m256 d, __m256 s)
{
    return _mm256_blendv_ps(_mm256_max_ps(d, s), d, _mm256_cmp_ps(d, d, _CMP_UNORD_Q));
}

AVX2 static inline __m256 f32_min(__m256 d, __m256 s)
{
    return _mm256_blendv_ps(_mm256_min_ps(d, s), d, _mm256_cmp_ps(d, d, _CMP_UNORD_Q));
}

AVX2 static inline __m256 ld_ps(const void *p)
{
    return _mm256_loadu_ps(p);
}

AVX2 static inline void st_ps(void *p, __m256 v)
{
    _mm256_storeu_ps(p, v);
}

AVX2 static inline __m128i ld_128(const void *p)
{
    return _mm_loadu_si128(p);
}

AVX2 static inline void st_128(void *p, __m128i v)
{
    _mm_storeu_si128(p, v);
}

AVX2 static inline __m256i ld_256(const void *p)
{
    return _mm256_loadu_si256(p);
}

AVX2 static inline void st_256(void *p, __m256i v)
{
    _mm256_storeu_si256(p, v);
}

/* fp32 -> bf16 with round to nearest even (add 0x7fff + kept lsb); NaN gets the quiet bit
 * instead, so it cannot round into inf. The bf16 ends up in the high half of each lane,
 * sign-extended so PACKSSDW packs it without saturating. Scalar twin: emu_f32_to_bf16. */
AVX2 static inline __m256i bf16_round(__m256 r)
{
    __m256i u = _mm256_castps_si256(r);
    __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    __m256i rounded = _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), lsb);
    __m256i quiet = _mm256_or_si256(u, _mm256_set1_epi32(0x00400000));
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(r, r, _CMP_UNORD_Q));
    return _mm256_srai_epi32(_mm256_blendv_epi8(rounded, quiet, nan), 16);
}

/* fp16: 8 lanes widened to fp32 by F16C, rounded back to nearest even. bf16: 16 lanes; the
 * unpacks put each bf16 in the high half of a 32-bit lane (that is its fp32 value), and the
 * pack undoes their in-lane shuffle. */
#define HALF_OPS(op)                                                                           \
    AVX2 static inline __m128i f16_##op(__m128i d, __m128i s)                                  \
    {                                                                                          \
        __m256 r = f32_##op(_mm256_cvtph_ps(d), _mm256_cvtph_ps(s));                           \
        return _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT);                                  \
    }                                                                                          \
    AVX2 static inline __m256i bf16_##op(__m256i d, __m256i s)                                 \
    {                                                                                          \
        __m256i z = _mm256_setzero_si256();                                                    \
        __m256 lo = f32_##op(_mm256_castsi256_ps(_mm256_unpacklo_epi16(z, d)),                 \
                             _mm256_castsi256_ps(_mm256_unpacklo_epi16(z, s)));                \
        __m256 hi = f32_##op(_mm256_castsi256_ps(_mm256_unpackhi_epi16(z, d)),                 \
                             _mm256_castsi256_ps(_mm256_unpackhi_epi16(z, s)));                \
        return _mm256_packs_epi32(bf16_round(lo), bf16_round(hi));                             \
    }

#define KERNELS(op)                                                                            \
    HALF_OPS(op)                                                                               \
    EMU_REDUCE_BODY(AVX2, f32_##op##_body, 4, 8, __m256, ld_ps, st_ps, f32_##op)               \
    EMU_REDUCE_BODY(AVX2, f16_##op##_body, 2, 8, __m128i, ld_128, st_128, f16_##op)            \
    EMU_REDUCE_BODY(AVX2, bf16_##op##_body, 2, 16, __m256i, ld_256, st_256, bf16_##op)         \
    EMU_REDUCE_WITH_TAIL(AVX2, f32_##op##_kernel, f32_##op##_body, 4, 8)                       \
    EMU_REDUCE_WITH_TAIL(AVX2, f16_##op##_kernel, f16_##op##_body, 2, 8)                       \
    EMU_REDUCE_WITH_TAIL(AVX2, bf16_##op##_kernel, bf16_##op##_body, 2, 16)

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

void emu_reduce_avx2_fill(struct emu_reduce_kernels *k)
{
    k->name = "avx2";
    avx2_fill_loops(k);
    SET_ROW(EMU_DTYPE_FP32, f32);
    SET_ROW(EMU_DTYPE_FP16, f16);
    SET_ROW(EMU_DTYPE_BFP16, bf16);
}

#else
typedef int emu_reduce_avx2_is_x86_only;
#endif
