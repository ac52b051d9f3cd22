/* prov_pattern.c - the provenance patterns (see prov_pattern.h). */
#include "prov_pattern.h"

#include <math.h>
#include <string.h>

/* Bytes per element, whether floating point, and the whole numbers a sum may reach exactly:
 * the significand of a float, the bits below the sign of a signed integer, all but the top
 * bit of an unsigned one (so the poison, the largest value, is never a sum). */
static bool type_info(HcclDataType t, uint32_t *size, bool *fp, uint32_t *exact_bits)
{
    static const struct { HcclDataType t; uint32_t size, fp, bits; } rows[] = {
        {HCCL_DATA_TYPE_INT8, 1, 0, 6},    {HCCL_DATA_TYPE_UINT8, 1, 0, 7},
        {HCCL_DATA_TYPE_INT16, 2, 0, 14},  {HCCL_DATA_TYPE_UINT16, 2, 0, 15},
        {HCCL_DATA_TYPE_INT32, 4, 0, 30},  {HCCL_DATA_TYPE_UINT32, 4, 0, 31},
        {HCCL_DATA_TYPE_INT64, 8, 0, 52},  {HCCL_DATA_TYPE_UINT64, 8, 0, 52},
        {HCCL_DATA_TYPE_FP16, 2, 1, 11},   {HCCL_DATA_TYPE_BFP16, 2, 1, 8},
        {HCCL_DATA_TYPE_FP32, 4, 1, 24},   {HCCL_DATA_TYPE_FP64, 8, 1, 52},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        if (rows[i].t == t) {
            *size = rows[i].size;
            *fp = rows[i].fp != 0;
            *exact_bits = rows[i].bits; /* 64-bit integers: decoded through a double */
            return true;
        }
    return false;
}

static uint32_t bits_for(uint32_t n)
{
    uint32_t b = 1;
    while (b < 31 && (1u << b) < n)
        b++;
    return b;
}

bool emu_prov_pat_init(struct emu_prov_pat *p, HcclDataType type, HcclReduceOp op,
                       uint32_t nranks)
{
    uint32_t exact;

    memset(p, 0, sizeof(*p));
    if (nranks == 0 || nranks > EMU_PROV_MAX_RANKS || !type_info(type, &p->size, &p->fp, &exact))
        return false;
    p->type = type;
    p->op = op;
    p->nranks = nranks;
    switch (op) {
    case HCCL_REDUCE_RESERVED: p->fill = EMU_PROV_MOVE; break;
    case HCCL_REDUCE_SUM: p->fill = EMU_PROV_SUM; break;
    case HCCL_REDUCE_PROD: p->fill = EMU_PROV_PROD; break;
    case HCCL_REDUCE_MAX:
    case HCCL_REDUCE_MIN: p->fill = EMU_PROV_MAXMIN; break;
    default: return false;
    }
    if (p->fill == EMU_PROV_MAXMIN && exact < 31 && nranks + 1 > (1u << exact))
        return false;
    uint32_t w = p->size * 8;
    p->bb = w >= 32 ? 2 : 1;
    p->rb = bits_for(nranks);
    if (p->rb > w - 1 - p->bb)
        p->rb = w - 1 - p->bb;
    p->eb = w - 1 - p->bb - p->rb;
    p->digits = exact / 2 < nranks ? exact / 2 : nranks;
    return true;
}

/* ---- numbers in the element type ---------------------------------------------------------- */

static uint16_t half_of(double v)
{
    uint16_t s = signbit(v) ? 0x8000 : 0;
    int e;

    v = fabs(v);
    if (v == 0)
        return s;
    double m = frexp(v, &e); /* v = m * 2^e, m in [0.5, 1) */
    int ex = e - 1 + 15;
    if (ex <= 0)
        return (uint16_t)(s | (uint16_t)lround(ldexp(v, 24)));
    if (ex >= 31)
        return (uint16_t)(s | 0x7c00);
    return (uint16_t)(s | (ex << 10) | (uint16_t)lround((m * 2 - 1) * 1024));
}

static double from_half(uint16_t h)
{
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return s ? -v : v;
}

void emu_prov_pat_encode(const struct emu_prov_pat *p, double v, uint8_t *out)
{
    int64_t i = (int64_t)v;
    float f = (float)v;
    uint32_t w;
    uint16_t h;

    switch (p->type) {
    case HCCL_DATA_TYPE_FP16: h = half_of(v); memcpy(out, &h, 2); return;
    case HCCL_DATA_TYPE_BFP16:
        memcpy(&w, &f, 4);
        h = (uint16_t)(w >> 16); /* exact: the patterns' numbers fit 8 bits */
        memcpy(out, &h, 2);
        return;
    case HCCL_DATA_TYPE_FP32: memcpy(out, &f, 4); return;
    case HCCL_DATA_TYPE_FP64: memcpy(out, &v, 8); return;
    default: memcpy(out, &i, p->size); return; /* little-endian: the low bytes */
    }
}

bool emu_prov_pat_number(const struct emu_prov_pat *p, const uint8_t *v, double *out)
{
    union { int8_t i8; uint8_t u8; int16_t i16; uint16_t u16; int32_t i32; uint32_t u32;
            int64_t i64; uint64_t u64; float f; double d; } u;
    uint32_t w;
    float f;

    memcpy(&u, v, p->size);
    switch (p->type) {
    case HCCL_DATA_TYPE_INT8: *out = u.i8; break;
    case HCCL_DATA_TYPE_UINT8: *out = u.u8; break;
    case HCCL_DATA_TYPE_INT16: *out = u.i16; break;
    case HCCL_DATA_TYPE_UINT16: *out = u.u16; break;
    case HCCL_DATA_TYPE_INT32: *out = u.i32; break;
    case HCCL_DATA_TYPE_UINT32: *out = u.u32; break;
    case HCCL_DATA_TYPE_INT64: *out = (double)u.i64; break;
    case HCCL_DATA_TYPE_UINT64: *out = (double)u.u64; break;
    case HCCL_DATA_TYPE_FP16: *out = from_half(u.u16); break;
    case HCCL_DATA_TYPE_BFP16:
        w = (uint32_t)u.u16 << 16;
        memcpy(&f, &w, 4);
        *out = f;
        break;
    case HCCL_DATA_TYPE_FP32: *out = u.f; break;
    default: *out = u.d; break;
    }
    return isfinite(*out) && *out == floor(*out);
}

/* ---- patterns ----------------------------------------------------------------------------- */

uint32_t emu_prov_pat_digit_rank(const struct emu_prov_pat *p, uint64_t e, uint32_t k)
{
    if (k >= p->digits)
        return UINT32_MAX;
    uint32_t start = p->digits < p->nranks ? (uint32_t)((e * p->digits) % p->nranks) : 0;
    return (start + k) % p->nranks;
}

static double sum_weight(const struct emu_prov_pat *p, uint32_t r, uint64_t e)
{
    uint32_t start = p->digits < p->nranks ? (uint32_t)((e * p->digits) % p->nranks) : 0;
    uint32_t k = (r + p->nranks - start) % p->nranks;
    return k < p->digits ? ldexp(1, (int)(2 * k)) : 0;
}

static double number_of(const struct emu_prov_pat *p, uint32_t r, uint64_t e)
{
    switch (p->fill) {
    case EMU_PROV_SUM: return sum_weight(p, r, e);
    case EMU_PROV_PROD: return e % p->nranks == r ? 2 : 1;
    default: return (double)((r + e) % p->nranks + 1);
    }
}

void emu_prov_pat_value(const struct emu_prov_pat *p, uint32_t r, uint32_t b, uint64_t e,
                        uint8_t *out)
{
    if (p->fill != EMU_PROV_MOVE) {
        emu_prov_pat_encode(p, number_of(p, r, e), out);
        return;
    }
    uint64_t emask = p->eb >= 64 ? ~0ull : (1ull << p->eb) - 1;
    uint64_t code = ((uint64_t)r & ((1ull << p->rb) - 1)) |
                    (((uint64_t)b & ((1ull << p->bb) - 1)) << p->rb) |
                    ((e & emask) << (p->rb + p->bb));
    memcpy(out, &code, p->size); /* little-endian: the low bytes, top bit clear */
}

bool emu_prov_pat_poison(const struct emu_prov_pat *p, const uint8_t *v)
{
    for (uint32_t i = 0; i < p->size; i++)
        if (v[i] != 0xff)
            return false;
    return true;
}

/* The value x = low (mod 2^bits) nearest to `hint`. */
static uint64_t nearest(uint64_t low, uint32_t bits, uint64_t hint)
{
    if (bits >= 64)
        return low;
    uint64_t m = 1ull << bits, base = hint - hint % m + low, best = base;
    uint64_t dist = base > hint ? base - hint : hint - base;
    if (base >= m && hint - (base - m) < dist && base - m <= hint)
        best = base - m;
    else if (base < hint && base + m - hint < dist)
        best = base + m;
    return best;
}

bool emu_prov_pat_decode_move(const struct emu_prov_pat *p, const uint8_t *v, uint32_t hint_rank,
                              uint64_t hint_elem, uint32_t *rank, uint32_t *buf, uint64_t *elem)
{
    uint64_t code = 0;

    memcpy(&code, v, p->size);
    if (code >> (p->size * 8 - 1))
        return false;
    uint64_t r = nearest(code & ((1ull << p->rb) - 1), p->rb, hint_rank);
    if (r >= p->nranks)
        return false;
    *rank = (uint32_t)r;
    *buf = (uint32_t)((code >> p->rb) & ((1ull << p->bb) - 1));
    *elem = nearest(code >> (p->rb + p->bb), p->eb, hint_elem);
    return true;
}

double emu_prov_pat_reduced(const struct emu_prov_pat *p, uint64_t e, const uint64_t *mask)
{
    double acc = p->fill == EMU_PROV_SUM ? 0 : p->fill == EMU_PROV_PROD ? 1 : NAN;

    for (uint32_t r = 0; r < p->nranks; r++) {
        if (!((mask[r / 64] >> (r % 64)) & 1))
            continue;
        double v = number_of(p, r, e);
        if (p->fill == EMU_PROV_SUM)
            acc += v;
        else if (p->fill == EMU_PROV_PROD)
            acc *= v;
        else if (isnan(acc) || (p->op == HCCL_REDUCE_MAX ? v > acc : v < acc))
            acc = v;
    }
    return acc;
}
