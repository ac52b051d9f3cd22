/* st_pattern.cc - what the harness writes into INPUT memory and how it reads elements back.
 *
 * Data movement (gather, scatter, all-to-all, broadcast, send/receive) gets bytes that differ
 * per (rank, buffer, element), so a block from the wrong rank or offset shows, and the bytes
 * found can be searched for among the inputs to name where they came from. Reductions get
 * small whole numbers chosen so that the result is exact in the element type whatever order
 * the algorithm combines them in: sums stay within the type's exact range for the rank
 * count, products are +-1 except one factor 2, max/min use any small numbers. */
#include <cmath>
#include <cstdio>
#include <cstring>

#include "st_internal.h"

namespace HcclSim {

size_t st_type_size(HcclDataType t)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_UINT8: case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3: case HCCL_DATA_TYPE_FP8E5M2: case HCCL_DATA_TYPE_FP8E8M0:
        return 1;
    case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_UINT16: case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16:
        return 2;
    case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_UINT32: case HCCL_DATA_TYPE_FP32:
        return 4;
    case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT64: case HCCL_DATA_TYPE_FP64:
        return 8;
    case HCCL_DATA_TYPE_INT128:
        return 16;
    default:
        return 0;
    }
}

const char *st_type_name(HcclDataType t)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8: return "int8";
    case HCCL_DATA_TYPE_INT16: return "int16";
    case HCCL_DATA_TYPE_INT32: return "int32";
    case HCCL_DATA_TYPE_FP16: return "fp16";
    case HCCL_DATA_TYPE_FP32: return "fp32";
    case HCCL_DATA_TYPE_INT64: return "int64";
    case HCCL_DATA_TYPE_UINT64: return "uint64";
    case HCCL_DATA_TYPE_UINT8: return "uint8";
    case HCCL_DATA_TYPE_UINT16: return "uint16";
    case HCCL_DATA_TYPE_UINT32: return "uint32";
    case HCCL_DATA_TYPE_FP64: return "fp64";
    case HCCL_DATA_TYPE_BFP16: return "bf16";
    case HCCL_DATA_TYPE_INT128: return "int128";
    case HCCL_DATA_TYPE_HIF8: return "hif8";
    case HCCL_DATA_TYPE_FP8E4M3: return "fp8e4m3";
    case HCCL_DATA_TYPE_FP8E5M2: return "fp8e5m2";
    case HCCL_DATA_TYPE_FP8E8M0: return "fp8e8m0";
    default: return "unknown type";
    }
}

const char *st_red_name(HcclReduceOp r)
{
    switch (r) {
    case HCCL_REDUCE_SUM: return "sum";
    case HCCL_REDUCE_PROD: return "prod";
    case HCCL_REDUCE_MAX: return "max";
    case HCCL_REDUCE_MIN: return "min";
    default: return "unknown reduction";
    }
}

static bool is_signed(HcclDataType t)
{
    return t != HCCL_DATA_TYPE_UINT8 && t != HCCL_DATA_TYPE_UINT16 &&
           t != HCCL_DATA_TYPE_UINT32 && t != HCCL_DATA_TYPE_UINT64;
}

bool st_numeric(HcclDataType t)
{
    size_t n = st_type_size(t);
    return n != 0 && n != 16 && t != HCCL_DATA_TYPE_HIF8 && t != HCCL_DATA_TYPE_FP8E4M3 &&
           t != HCCL_DATA_TYPE_FP8E5M2 && t != HCCL_DATA_TYPE_FP8E8M0;
}

StFill st_fill_for(HcclReduceOp r)
{
    switch (r) {
    case HCCL_REDUCE_SUM: return StFill::SUM;
    case HCCL_REDUCE_PROD: return StFill::PROD;
    default: return StFill::MAXMIN;
    }
}

/* The largest magnitude a sum may reach and stay exact (and in range) in the type. */
static double sum_limit(HcclDataType t)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8: return 127;
    case HCCL_DATA_TYPE_UINT8: return 255;
    case HCCL_DATA_TYPE_INT16: return 32767;
    case HCCL_DATA_TYPE_UINT16: return 65535;
    case HCCL_DATA_TYPE_FP16: return 2048;
    case HCCL_DATA_TYPE_BFP16: return 256;
    default: return 1 << 24;
    }
}

double st_pattern_value(HcclDataType t, StFill f, uint32_t nranks, uint32_t rank,
                        uint32_t index, uint64_t i)
{
    uint64_t mix = rank * 7ull + i * 3ull + index * 5ull;
    bool sig = is_signed(t);
    if (f == StFill::PROD) {
        if (i % nranks == rank)
            return 2;
        return sig && (rank * 3ull + i) % 5 == 0 ? -1 : 1;
    }
    if (f == StFill::MAXMIN)
        return sig ? (double)(mix % 61) - 30 : (double)(mix % 61);
    double lim = std::floor(sum_limit(t) / (nranks ? nranks : 1));
    if (lim > 1000)
        lim = 1000;
    if (!sig)
        return (double)(mix % ((uint64_t)lim + 1));
    return (double)(mix % (2 * (uint64_t)lim + 1)) - lim;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    x ^= x >> 33;
    return x;
}

void st_pattern(HcclDataType t, StFill f, uint32_t nranks, uint32_t rank, uint32_t index,
                uint64_t i, uint8_t *out)
{
    if (f != StFill::MOVE && st_numeric(t)) {
        st_encode(t, st_pattern_value(t, f, nranks, rank, index, i), out);
        return;
    }
    size_t n = st_type_size(t);
    uint64_t seed = ((uint64_t)rank << 48) ^ ((uint64_t)index << 40) ^ i;
    for (size_t k = 0; k < n; k += 8) {
        uint64_t x = mix64(seed + k * 0x9e3779b97f4a7c15ull);
        memcpy(out + k, &x, n - k < 8 ? n - k : 8);
    }
}

/* st_pattern_value for a run of elements without a division per element: the residues it
 * takes step by a constant, so they are carried from one element to the next. */
static void numeric_values(HcclDataType t, StFill f, uint32_t nranks, uint32_t rank,
                           uint32_t index, uint64_t first, uint64_t n, double *out)
{
    bool sig = is_signed(t);
    if (f == StFill::PROD) {
        uint64_t a = first % nranks, b = (rank * 3ull + first) % 5;
        for (uint64_t k = 0; k < n; k++) {
            out[k] = a == rank ? 2 : (sig && b == 0 ? -1 : 1);
            a = a + 1 == nranks ? 0 : a + 1;
            b = b == 4 ? 0 : b + 1;
        }
        return;
    }
    uint64_t mod = 61;
    double off = sig ? 30 : 0;
    if (f == StFill::SUM) {
        double lim = std::floor(sum_limit(t) / nranks);
        if (lim > 1000)
            lim = 1000;
        mod = sig ? 2 * (uint64_t)lim + 1 : (uint64_t)lim + 1;
        off = sig ? lim : 0;
    }
    uint64_t m = (rank * 7ull + first * 3ull + index * 5ull) % mod, step = 3 % mod;
    for (uint64_t k = 0; k < n; k++) {
        out[k] = (double)m - off;
        m += step;
        if (m >= mod)
            m -= mod;
    }
}

void st_pattern_block(HcclDataType t, StFill f, uint32_t nranks, uint32_t rank, uint32_t index,
                      uint64_t first, uint64_t n, uint8_t *out)
{
    size_t es = st_type_size(t);
    if (f != StFill::MOVE && st_numeric(t)) {
        double v[1024];
        for (uint64_t at = 0; at < n; at += 1024) {
            uint64_t len = n - at < 1024 ? n - at : 1024;
            numeric_values(t, f, nranks ? nranks : 1, rank, index, first + at, len, v);
            st_encode_block(t, v, len, out + at * es);
        }
        return;
    }
    uint64_t seed = ((uint64_t)rank << 48) ^ ((uint64_t)index << 40);
    switch (es) { /* the size known in each loop: one store per element */
    case 1: for (uint64_t k = 0; k < n; k++) out[k] = (uint8_t)mix64(seed ^ (first + k)); break;
    case 2:
        for (uint64_t k = 0; k < n; k++) {
            uint64_t x = mix64(seed ^ (first + k));
            memcpy(out + 2 * k, &x, 2);
        }
        break;
    case 4:
        for (uint64_t k = 0; k < n; k++) {
            uint64_t x = mix64(seed ^ (first + k));
            memcpy(out + 4 * k, &x, 4);
        }
        break;
    case 8:
        for (uint64_t k = 0; k < n; k++) {
            uint64_t x = mix64(seed ^ (first + k));
            memcpy(out + 8 * k, &x, 8);
        }
        break;
    default:
        for (uint64_t k = 0; k < n; k++)
            st_pattern(t, f, nranks, rank, index, first + k, out + k * es);
    }
}

void st_pattern_values(HcclDataType t, StFill f, uint32_t nranks, uint32_t rank, uint32_t index,
                       uint64_t first, uint64_t n, double *out)
{
    if (f != StFill::MOVE && st_numeric(t)) {
        numeric_values(t, f, nranks ? nranks : 1, rank, index, first, n, out);
        return;
    }
    uint8_t b[16];
    for (uint64_t k = 0; k < n; k++) {
        st_pattern(t, f, nranks, rank, index, first + k, b);
        out[k] = st_decode(t, b);
    }
}

static float half_to_float(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    float v;
    if (e == 0)
        v = std::ldexp((float)m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = std::ldexp((float)(m + 1024), e - 25);
    return s ? -v : v;
}

/* Exact for the whole numbers the patterns use (and any value a half holds). */
static uint16_t float_to_half(double v)
{
    uint16_t s = std::signbit(v) ? 0x8000 : 0;
    v = std::fabs(v);
    if (v == 0)
        return s;
    int e;
    double m = std::frexp(v, &e); /* v = m * 2^e, m in [0.5, 1) */
    int ex = e - 1 + 15;
    if (ex <= 0)
        return (uint16_t)(s | (uint16_t)std::lround(std::ldexp(v, 24)));
    if (ex >= 31)
        return (uint16_t)(s | 0x7c00);
    return (uint16_t)(s | (ex << 10) | (uint16_t)std::lround((m * 2 - 1) * 1024));
}

double st_decode(HcclDataType t, const uint8_t *p)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8: return (int8_t)p[0];
    case HCCL_DATA_TYPE_UINT8: return p[0];
    case HCCL_DATA_TYPE_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case HCCL_DATA_TYPE_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case HCCL_DATA_TYPE_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case HCCL_DATA_TYPE_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case HCCL_DATA_TYPE_INT64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case HCCL_DATA_TYPE_UINT64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    case HCCL_DATA_TYPE_FP32: { float v; memcpy(&v, p, 4); return v; }
    case HCCL_DATA_TYPE_FP64: { double v; memcpy(&v, p, 8); return v; }
    case HCCL_DATA_TYPE_FP16: { uint16_t v; memcpy(&v, p, 2); return half_to_float(v); }
    case HCCL_DATA_TYPE_BFP16: {
        uint16_t v;
        memcpy(&v, p, 2);
        uint32_t w = (uint32_t)v << 16;
        float f;
        memcpy(&f, &w, 4);
        return f;
    }
    default: return NAN;
    }
}

void st_encode(HcclDataType t, double v, uint8_t *out)
{
    int64_t iv = (int64_t)v;
    switch (t) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_UINT8: out[0] = (uint8_t)iv; break;
    case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_UINT16: {
        uint16_t x = (uint16_t)iv;
        memcpy(out, &x, 2);
        break;
    }
    case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_UINT32: {
        uint32_t x = (uint32_t)iv;
        memcpy(out, &x, 4);
        break;
    }
    case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT64: memcpy(out, &iv, 8); break;
    case HCCL_DATA_TYPE_FP32: { float f = (float)v; memcpy(out, &f, 4); break; }
    case HCCL_DATA_TYPE_FP64: memcpy(out, &v, 8); break;
    case HCCL_DATA_TYPE_FP16: { uint16_t h = float_to_half(v); memcpy(out, &h, 2); break; }
    case HCCL_DATA_TYPE_BFP16: {
        float f = (float)v;
        uint32_t w;
        memcpy(&w, &f, 4);
        uint16_t h = (uint16_t)(w >> 16); /* exact: the patterns' numbers fit 8 bits */
        memcpy(out, &h, 2);
        break;
    }
    default: memset(out, 0, st_type_size(t)); break;
    }
}

template <class T> static void store_ints(const double *v, uint64_t n, uint8_t *out)
{
    for (uint64_t k = 0; k < n; k++) {
        T x = (T)(int64_t)v[k];
        memcpy(out + k * sizeof(T), &x, sizeof(T));
    }
}

void st_encode_block(HcclDataType t, const double *v, uint64_t n, uint8_t *out)
{
    switch (t) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_UINT8: store_ints<uint8_t>(v, n, out); break;
    case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_UINT16: store_ints<uint16_t>(v, n, out); break;
    case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_UINT32: store_ints<uint32_t>(v, n, out); break;
    case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT64: store_ints<uint64_t>(v, n, out); break;
    case HCCL_DATA_TYPE_FP32:
        for (uint64_t k = 0; k < n; k++) {
            float f = (float)v[k];
            memcpy(out + 4 * k, &f, 4);
        }
        break;
    case HCCL_DATA_TYPE_FP64: memcpy(out, v, n * 8); break;
    default:
        for (uint64_t k = 0; k < n; k++)
            st_encode(t, v[k], out + k * st_type_size(t));
    }
}

std::string st_hex(const uint8_t *p, size_t n)
{
    std::string s = "0x";
    char b[4];
    for (size_t k = n; k-- > 0;) { /* little-endian: most significant byte first */
        snprintf(b, sizeof b, "%02x", p[k]);
        s += b;
    }
    return s;
}

} // namespace HcclSim
