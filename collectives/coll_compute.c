/* coll_compute.c - the kernel entry hcemu_coll_compute(): the reductions the data plane
 * refuses (PROD for every type; SUM/MAX/MIN on the unsigned and 64-bit types), computed in C
 * on the AICPU between two exchange launches of the same stream. Sources are the received
 * parts in the HCCL buffer and the rank's own input, reduced in rank order so every rank that
 * computes an element gets the same bits. Semantics follow the data plane's: integers wrap,
 * fp16/bf16 compute in fp32 with round-to-nearest-even, MAX/MIN propagate NaN. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <hccl/hccl_types.h>

#include "coll_abi.h"

#define CHUNK 1024u /* elements per pass, so the accumulator stays in L1 */

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    float f;

    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    } else { /* zero or subnormal: man * 2^-24 */
        f = (float)man * 0x1p-24f;
        return sign ? -f : f;
    }
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static uint16_t float_to_half(float f)
{
    uint32_t x;

    memcpy(&x, &f, sizeof(x));
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) /* NaN: keep it quiet */
        return (uint16_t)(sign | 0x7e00);
    if (ax >= 0x477ff000u) /* rounds to >= 65520: inf */
        return (uint16_t)(sign | 0x7c00);
    if (ax < 0x38800000u) { /* below the smallest normal: round in the subnormal grid */
        float a;
        memcpy(&a, &ax, sizeof(a));
        float v = a * 0x1p24f; /* exact: a power-of-two scaling */
        uint32_t i = (uint32_t)v;
        float frac = v - (float)i;
        if (frac > 0.5f || (frac == 0.5f && (i & 1u)))
            i++;
        return (uint16_t)(sign | i);
    }
    uint32_t r = ax + 0x0fffu + ((ax >> 13) & 1u); /* round to nearest even */
    return (uint16_t)(sign | ((r - 0x38000000u) >> 13));
}

static float bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;

    memcpy(&f, &bits, sizeof(f));
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t x;

    memcpy(&x, &f, sizeof(x));
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40);
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* Integer ops; PROD and SUM wrap, so they run in the unsigned type of the same width. */
#define INT_REDUCE(T, U)                                                                           \
    static void reduce_##T(T *acc, const T *s, uint64_t n, uint32_t op)                            \
    {                                                                                              \
        for (uint64_t i = 0; i < n; i++) {                                                         \
            T a = acc[i], b = s[i];                                                                \
            switch (op) {                                                                          \
            case HCCL_REDUCE_SUM: acc[i] = (T)((U)a + (U)b); break;                                \
            case HCCL_REDUCE_PROD: acc[i] = (T)((U)a * (U)b); break;                               \
            case HCCL_REDUCE_MAX: acc[i] = a > b ? a : b; break;                                   \
            default: acc[i] = a < b ? a : b; break;                                                \
            }                                                                                      \
        }                                                                                          \
    }
INT_REDUCE(int8_t, uint8_t)
INT_REDUCE(int16_t, uint16_t)
INT_REDUCE(int32_t, uint32_t)
INT_REDUCE(int64_t, uint64_t)
/* unsigned int promotes to int for 8/16 bits: unsigned arithmetic wraps on the cast back */
INT_REDUCE(uint8_t, uint32_t)
INT_REDUCE(uint16_t, uint32_t)
INT_REDUCE(uint32_t, uint32_t)
INT_REDUCE(uint64_t, uint64_t)

#define FLOAT_OP(a, b, op)                                                                         \
    ((op) == HCCL_REDUCE_SUM    ? (a) + (b)                                                        \
     : (op) == HCCL_REDUCE_PROD ? (a) * (b)                                                        \
     : isnan(a) || isnan(b)     ? (a) + (b)                                                        \
     : (op) == HCCL_REDUCE_MAX  ? ((a) > (b) ? (a) : (b))                                          \
                                : ((a) < (b) ? (a) : (b)))

static void reduce_float(float *acc, const float *s, uint64_t n, uint32_t op)
{
    for (uint64_t i = 0; i < n; i++)
        acc[i] = FLOAT_OP(acc[i], s[i], op);
}

static void reduce_double(double *acc, const double *s, uint64_t n, uint32_t op)
{
    for (uint64_t i = 0; i < n; i++)
        acc[i] = FLOAT_OP(acc[i], s[i], op);
}

/* fp16 and bf16: each step rounds back to 16 bits, as the data plane's reduce does. */
static void reduce_half(uint16_t *acc, const uint16_t *s, uint64_t n, uint32_t op, int bf)
{
    for (uint64_t i = 0; i < n; i++) {
        float a = bf ? bf16_to_float(acc[i]) : half_to_float(acc[i]);
        float b = bf ? bf16_to_float(s[i]) : half_to_float(s[i]);
        float r = FLOAT_OP(a, b, op);
        acc[i] = bf ? float_to_bf16(r) : float_to_half(r);
    }
}

static int reduce_into(void *acc, const void *s, uint64_t n, uint32_t dtype, uint32_t op)
{
    switch (dtype) {
    case HCCL_DATA_TYPE_INT8: reduce_int8_t(acc, s, n, op); break;
    case HCCL_DATA_TYPE_INT16: reduce_int16_t(acc, s, n, op); break;
    case HCCL_DATA_TYPE_INT32: reduce_int32_t(acc, s, n, op); break;
    case HCCL_DATA_TYPE_INT64: reduce_int64_t(acc, s, n, op); break;
    case HCCL_DATA_TYPE_UINT8: reduce_uint8_t(acc, s, n, op); break;
    case HCCL_DATA_TYPE_UINT16: reduce_uint16_t(acc, s, n, op); break;
    case HCCL_DATA_TYPE_UINT32: reduce_uint32_t(acc, s, n, op); break;
    case HCCL_DATA_TYPE_UINT64: reduce_uint64_t(acc, s, n, op); break;
    case HCCL_DATA_TYPE_FP32: reduce_float(acc, s, n, op); break;
    case HCCL_DATA_TYPE_FP64: reduce_double(acc, s, n, op); break;
    case HCCL_DATA_TYPE_FP16: reduce_half(acc, s, n, op, 0); break;
    case HCCL_DATA_TYPE_BFP16: reduce_half(acc, s, n, op, 1); break;
    default: return 1;
    }
    return 0;
}

uint32_t hcemu_coll_compute(void *args)
{
    const struct hcoll_compute_args *a = args;
    uint32_t esz = hcoll_dtype_size(a->dtype);
    uint64_t acc[CHUNK]; /* 8 KiB: CHUNK elements of the widest type */

    if (esz == 0 || a->nsrc == 0 || a->nsrc > HCOLL_MAX_RANKS || a->op > HCCL_REDUCE_MIN)
        return 1;
    /* dst may be one of the sources (in place): each chunk is read in full before it is
     * written, and no source overlaps dst other than at the same offset. */
    for (uint64_t done = 0; done < a->count; done += CHUNK) {
        uint64_t n = a->count - done < CHUNK ? a->count - done : CHUNK;
        memcpy(acc, (const uint8_t *)a->src[0] + done * esz, n * esz);
        for (uint32_t q = 1; q < a->nsrc; q++)
            if (reduce_into(acc, (const uint8_t *)a->src[q] + done * esz, n, a->dtype, a->op) != 0)
                return 1;
        memcpy((uint8_t *)a->dst + done * esz, acc, n * esz);
    }
    return 0;
}
