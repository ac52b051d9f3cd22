/* reduce_avx512.c - the AVX-512 (F, BW, VL) kernel set: fp32, fp16 (VCVTPH2PS/VCVTPS2PH on
 * 16 lanes) and bf16 (integer shifts on 32 lanes) hand-vectorised and unrolled; integers and
 * fp64 are the loops of reduce_loops.h compiled for AVX-512. Entry point:
 * emu_reduce_avx512_fill(); only called when the CPU has avx512f, avx512bw and avx512vl. */
#include "reduce_priv.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))

#define EMU_RL_PREFIX avx512_
#define EMU_RL_ATTR AVX512
#include "reduce_loops.h"

/* The four ops on 16 fp32 lanes. VMAXPS/VMINPS(d, s) return s when either is NaN or both
 * are zero; the masked move makes a NaN in d win too (emu_fmax_f32 is the scalar twin). */
AVX512 static inline __m512 f32_sum(__m512 d, __m512 s)
{
    return _mm512_add_ps(d, s);
}

AVX512 static inline __m512 f32_prod(__m512 d, __m512 s)
{
    return _mm512_mul_ps(d, s);
}

AVX512 static inline __m512 f32_max(__m512 d, __m512 s)
{
    return _mm512_mask_mov_ps(_mm512_max_ps(d, s), _mm512_cmp_ps_mask(d, d, _CMP_UNORD_Q), d);
}

AVX512 static inline __m512 f32_min(__m512 d, __m512 s)
{
    return _mm512_mask_mov_ps(_mm512_min_ps(d, s), _mm512_cmp_ps_mask(d, d, _CMP_UNORD_Q), d);
}

AVX512 static inline __m512 ld_ps(const void *p)
{
    return _mm512_loadu_ps(p);
}

AVX512 static inline void st_ps(void *p, __m512 v)
{
    _mm512_storeu_ps(p, v);
}

AVX512 static inline __m256i ld_256(const void *p)
{
    return _mm256_loadu_si256(p);
}

AVX512 static inline void st_256(void *p, __m256i v)
{
    _mm256_storeu_si256(p, v);
}

AVX512 static inline __m512i ld_512(const void *p)
{
    return _mm512_loadu_si512(p);
}

AVX512 static inline void st_512(void *p, __m512i v)
{
    _mm512_storeu_si512(p, v);
}

/* fp32 -> bf16, round to nearest even, NaN made quiet instead of rounded; result in the high
 * half of each lane, sign-extended for VPACKSSDW. Scalar twin: emu_f32_to_bf16. */
AVX512 static inline __m512i bf16_round(__m512 r)
{
    __m512i u = _mm512_castps_si512(r);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    __m512i rounded = _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), lsb);
    __m512i quiet = _mm512_or_si512(u, _mm512_set1_epi32(0x00400000));
    __mmask16 nan = _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q);
    return _mm512_srai_epi32(_mm512_mask_blend_epi32(nan, rounded, quiet), 16);
}

/* fp16: 16 lanes widened to fp32 and rounded back to nearest even. bf16: 32 lanes; the
 * unpacks put each bf16 in the high half of a 32-bit lane and the pack restores the order. */
#define KERNELS(op)                                                                            \
    AVX512 static inline __m256i f16_##op(__m256i d, __m256i s)                                \
    {                                                                                          \
        __m512 r = f32_##op(_mm512_cvtph_ps(d), _mm512_cvtph_ps(s));                           \
        return _mm512_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT);                                  \
    }                                                                                          \
    AVX512 static inline __m512i bf16_##op(__m512i d, __m512i s)                               \
    {                                                                                          \
        __m512i z = _mm512_setzero_si512();                                                    \
        __m512 lo = f32_##op(_mm512_castsi512_ps(_mm512_unpacklo_epi16(z, d)),                 \
                             _mm512_castsi512_ps(_mm512_unpacklo_epi16(z, s)));                \
        __m512 hi = f32_##op(_mm512_castsi512_ps(_mm512_unpackhi_epi16(z, d)),                 \
                             _mm512_castsi512_ps(_mm512_unpackhi_epi16(z, s)));                \
        return _mm512_packs_epi32(bf16_round(lo), bf16_round(hi));                             \
    }                                                                                          \
    EMU_REDUCE_BODY(AVX512, f32_##op##_body, 4, 16, __m512, ld_ps, st_ps, f32_##op)            \
    EMU_REDUCE_BODY(AVX512, f16_##op##_body, 2, 16, __m256i, ld_256, st_256, f16_##op)         \
    EMU_REDUCE_BODY(AVX512, bf16_##op##_body, 2, 32, __m512i, ld_512, st_512, bf16_##op)       \
    EMU_REDUCE_WITH_TAIL(AVX512, f32_##op##_kernel, f32_##op##_body, 4, 16)                    \
    EMU_REDUCE_WITH_TAIL(AVX512, f16_##op##_kernel, f16_##op##_body, 2, 16)                    \
    EMU_REDUCE_WITH_TAIL(AVX512, bf16_##op##_kernel, bf16_##op##_body, 2, 32)

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

void emu_reduce_avx512_fill(struct emu_reduce_kernels *k)
{
    k->name = "avx512";
    avx512_fill_loops(k);
    SET_ROW(EMU_DTYPE_FP32, f32);
    SET_ROW(EMU_DTYPE_FP16, f16);
    SET_ROW(EMU_DTYPE_BFP16, bf16);
}

#else
typedef int emu_reduce_avx512_is_x86_only;
#endif
