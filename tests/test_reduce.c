/* test_reduce.c - the reduction engine (device/reduce/) against a scalar reference written
 * independently here: wide integer arithmetic truncated to the type, and floats computed in
 * double and rounded by hand. Every type x op x count x alignment runs on every kernel set
 * this CPU has, plus wrap, rounding-tie, NaN/inf and validation cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdbool.h>
#include <limits.h>

#include <cmocka.h>

#include "device/reduce/reduce.h"
#include "device/reduce/reduce_priv.h"

static const char *const isas[] = {"generic", "sse2", "avx2", "avx512"};
#define ISA_COUNT (sizeof(isas) / sizeof(isas[0]))

/* --- reference ------------------------------------------------------------------------- */

static int is_float(int dt)
{
    return dt == EMU_DTYPE_FP16 || dt == EMU_DTYPE_FP32 || dt == EMU_DTYPE_FP64 ||
           dt == EMU_DTYPE_BFP16;
}

static int is_signed_int(int dt)
{
    return dt == EMU_DTYPE_INT8 || dt == EMU_DTYPE_INT16 || dt == EMU_DTYPE_INT32 ||
           dt == EMU_DTYPE_INT64;
}

static double ref_from_f16(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;

    if (e == 0)
        v = ldexp(m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexp(m + 1024, e - 25);
    return (h & 0x8000) ? -v : v;
}

static double ref_from_bf16(uint16_t b)
{
    int e = (b >> 7) & 0xff, m = b & 0x7f;
    double v;

    if (e == 0)
        v = ldexp(m, -133);
    else if (e == 255)
        v = m ? NAN : INFINITY;
    else
        v = ldexp(m + 128, e - 134);
    return (b & 0x8000) ? -v : v;
}

/* Round x to a binary format with `mant` stored mantissa bits, minimum normal exponent
 * `emin` and all-ones exponent pattern `inf`, to nearest even. Scaling by a power of two is
 * exact in double, and nearbyint() rounds to nearest even in the default mode. */
static uint16_t ref_to_small(double x, int mant, int emin, uint32_t inf)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    int e;

    if (isnan(x))
        return (uint16_t)(inf | (1u << (mant - 1)));
    if (isinf(a))
        return (uint16_t)(sign | inf);
    if (a == 0)
        return sign;
    frexp(a, &e);
    e -= 1; /* a in [2^e, 2^(e+1)) */
    if (e < emin)
        e = emin;
    double q = nearbyint(ldexp(a, mant - e));
    /* (e - emin) << mant plus q also carries a rounding overflow into the exponent. */
    uint64_t bits = ((uint64_t)(e - emin) << mant) + (uint64_t)q;
    if (bits >= inf)
        return (uint16_t)(sign | inf);
    return (uint16_t)(sign | bits);
}

static uint16_t ref_to_f16(double x)
{
    return ref_to_small(x, 10, -14, 0x7c00);
}

static uint16_t ref_to_bf16(double x)
{
    return ref_to_small(x, 7, -126, 0x7f80);
}

static double ref_fload(int dt, const unsigned char *p)
{
    uint16_t h;
    float f;
    double d;

    switch (dt) {
    case EMU_DTYPE_FP16:
        memcpy(&h, p, 2);
        return ref_from_f16(h);
    case EMU_DTYPE_BFP16:
        memcpy(&h, p, 2);
        return ref_from_bf16(h);
    case EMU_DTYPE_FP32:
        memcpy(&f, p, 4);
        return f;
    default:
        memcpy(&d, p, 8);
        return d;
    }
}

static void ref_fstore(int dt, unsigned char *p, double v)
{
    uint16_t h;
    float f = (float)v;

    switch (dt) {
    case EMU_DTYPE_FP16:
        h = ref_to_f16(v);
        memcpy(p, &h, 2);
        break;
    case EMU_DTYPE_BFP16:
        h = ref_to_bf16(v);
        memcpy(p, &h, 2);
        break;
    case EMU_DTYPE_FP32:
        memcpy(p, &f, 4);
        break;
    default:
        memcpy(p, &v, 8);
        break;
    }
}

static __int128 ref_iload(int dt, const unsigned char *p)
{
    size_t n = emu_reduce_dtype_size(dt);
    uint64_t u = 0;

    memcpy(&u, p, n); /* little-endian */
    if (is_signed_int(dt) && n < 8 && (u >> (8 * n - 1)) & 1)
        u |= ~(uint64_t)0 << (8 * n);
    return is_signed_int(dt) ? (__int128)(int64_t)u : (__int128)u;
}

static void ref_istore(int dt, unsigned char *p, __int128 v)
{
    uint64_t u = (uint64_t)(unsigned __int128)v; /* two's complement truncation */

    memcpy(p, &u, emu_reduce_dtype_size(dt));
}

static double ref_fop(int op, double d, double s)
{
    switch (op) {
    case EMU_REDUCE_OP_SUM:
        return d + s;
    case EMU_REDUCE_OP_PROD:
        return d * s;
    case EMU_REDUCE_OP_MAX:
    case EMU_REDUCE_OP_MIN:
        if (isnan(d))
            return d;
        if (isnan(s))
            return s;
        if (d == s)
            return s; /* +0 vs -0: the src element */
        return (op == EMU_REDUCE_OP_MAX) == (d > s) ? d : s;
    }
    return NAN;
}

static __int128 ref_iop(int op, __int128 d, __int128 s)
{
    switch (op) {
    case EMU_REDUCE_OP_SUM:
        return d + s;
    case EMU_REDUCE_OP_PROD:
        return (__int128)((unsigned __int128)d * (unsigned __int128)s);
    case EMU_REDUCE_OP_MAX:
        return d > s ? d : s;
    default:
        return d < s ? d : s;
    }
}

/* expected[i] = op(d[i], s[i]); returns whether the result is a NaN (compared loosely). */
static int ref_element(int dt, int op, const unsigned char *d, const unsigned char *s,
                       unsigned char *out)
{
    if (!is_float(dt)) {
        ref_istore(dt, out, ref_iop(op, ref_iload(dt, d), ref_iload(dt, s)));
        return 0;
    }
    double r = ref_fop(op, ref_fload(dt, d), ref_fload(dt, s));
    ref_fstore(dt, out, r);
    return isnan(r);
}

/* --- inputs ----------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static const uint16_t f16_special[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 0x3c00,
                                       0xbc00, 0x7bff, 0x0001, 0x03ff, 0x0400, 0x8001};
static const uint16_t bf16_special[] = {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x3f80,
                                        0xbf80, 0x7f7f, 0x0001, 0x007f, 0x0080, 0x8001};
static const uint32_t f32_special[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000,
                                       0x7fc00000, 0x7f800001, 0x3f800000, 0xbf800000,
                                       0x7f7fffff, 0x00000001, 0x007fffff, 0x00800000};

/* Random bits, or a special value, or a value near 1.0 (so sums round in interesting ways). */
static void fill_element(int dt, unsigned char *p)
{
    uint64_t r = rng(), kind = r % 8;
    size_t n = emu_reduce_dtype_size(dt);

    r = rng();
    if (dt == EMU_DTYPE_FP16 || dt == EMU_DTYPE_BFP16) {
        const uint16_t *sp = dt == EMU_DTYPE_FP16 ? f16_special : bf16_special;
        uint16_t h = (uint16_t)r;
        if (kind == 0)
            h = sp[r % (sizeof(f16_special) / sizeof(f16_special[0]))];
        else if (kind < 4)
            h = dt == EMU_DTYPE_FP16 ? (uint16_t)(0x3800 + (r & 0x0fff)) | (r & 0x8000)
                                     : (uint16_t)(0x3e00 + (r & 0x01ff)) | (r & 0x8000);
        memcpy(p, &h, 2);
    } else if (dt == EMU_DTYPE_FP32) {
        uint32_t u = (uint32_t)r;
        if (kind == 0)
            u = f32_special[r % (sizeof(f32_special) / sizeof(f32_special[0]))];
        else if (kind < 4)
            u = (0x3e000000u + (u & 0x01ffffffu)) | (u & 0x80000000u);
        memcpy(p, &u, 4);
    } else {
        memcpy(p, &r, n);
    }
}

/* --- the sweep -------------------------------------------------------------------------- */

static const uint64_t counts[] = {0, 1, 3, 7, 15, 16, 17, 31, 33, 100, 129, 255, 4097};
/* Byte offset of both buffers from malloc's alignment: none, one element, one byte. */
enum { OFF_NONE, OFF_ELEMENT, OFF_BYTE, OFF_COUNT };
#define GUARD 64

/* Where the result goes: emu_reduce(d, s) into d, or emu_reduce_into() with d and s as the
 * operands into a third buffer or into s; the next two, into d and into a third buffer by the
 * streamed set's kernel (emu_reduce_kernel, `streamed`); the last, into a third buffer by the
 * kernel of the set in use that emu_reduce_kernel() returns. */
enum {
    INTO_D,
    INTO_THIRD,
    INTO_S,
    INTO_D_STREAMED,
    INTO_THIRD_STREAMED,
    INTO_THIRD_KERNEL,
};

static void check_one(const char *isa, int dt, int op, uint64_t count, int off_kind, int alias,
                      int into)
{
    size_t es = emu_reduce_dtype_size(dt);
    size_t off = off_kind == OFF_NONE ? 0 : off_kind == OFF_ELEMENT ? es : 1;
    size_t bytes = (size_t)count * es;
    unsigned char *dbuf = malloc(off + bytes + GUARD);
    unsigned char *sbuf = malloc(off + bytes + 1); /* exact size: ASan sees over-reads */
    unsigned char *want = malloc(bytes + 1);
    unsigned char *orig = malloc(bytes + 1);
    unsigned char *third = malloc(off + bytes + GUARD);
    assert_non_null(third);
    assert_non_null(dbuf);
    assert_non_null(sbuf);
    assert_non_null(want);
    assert_non_null(orig);
    unsigned char *d = dbuf + off, *s = alias ? d : sbuf + off;

    memset(dbuf + off + bytes, 0xa5, GUARD);
    memset(third, 0x5a, off + bytes + GUARD);
    for (uint64_t i = 0; i < count; i++) {
        fill_element(dt, d + i * es);
        if (!alias)
            fill_element(dt, s + i * es);
    }
    memcpy(orig, d, bytes);
    char *nan_expected = calloc(count + 1, 1);
    assert_non_null(nan_expected);
    for (uint64_t i = 0; i < count; i++)
        nan_expected[i] = (char)ref_element(dt, op, orig + i * es, s + i * es, want + i * es);

    bool streamed = into == INTO_D_STREAMED || into == INTO_THIRD_STREAMED;
    bool looked_up = streamed || into == INTO_THIRD_KERNEL;
    into = into == INTO_D_STREAMED ? INTO_D : looked_up ? INTO_THIRD : into;
    unsigned char *res = into == INTO_D ? d : into == INTO_THIRD ? third + off : s;
    unsigned char *sorig = malloc(bytes + 1);
    assert_non_null(sorig);
    memcpy(sorig, s, bytes);
    emu_reduce_kernel_fn fn = looked_up ? emu_reduce_kernel(dt, op, streamed) : NULL;
    if (looked_up) {
        assert_non_null(fn);
        if (count > 0)
            fn(res, d, s, count);
    } else if (into == INTO_D)
        emu_reduce(d, s, count, dt, op);
    else
        emu_reduce_into(res, d, s, count, dt, op);
    if (into == INTO_THIRD) { /* the operands are left alone, nothing past the result moves */
        if (bytes > 0) {
            assert_memory_equal(d, orig, bytes);
            assert_memory_equal(s, sorig, bytes);
        }
        for (size_t i = 0; i < GUARD; i++)
            assert_int_equal(third[off + bytes + i], 0x5a);
    }

    for (uint64_t i = 0; i < count; i++) {
        const unsigned char *got = res + i * es, *exp = want + i * es;
        int ok = nan_expected[i] ? isnan(ref_fload(dt, got)) : memcmp(got, exp, es) == 0;
        if (ok)
            continue;
        uint64_t g = 0, x = 0, a = 0, b = 0;
        memcpy(&g, got, es);
        memcpy(&x, exp, es);
        memcpy(&a, orig + i * es, es);
        memcpy(&b, sorig + i * es, es);
        fail_msg("%s %s %s count %llu off %d alias %d into %d [%llu]: op(%#llx, %#llx) = %#llx, "
                 "want %#llx",
                 isa, emu_reduce_dtype_name(dt), emu_reduce_op_name(op), (unsigned long long)count,
                 off_kind, alias, into, (unsigned long long)i, (unsigned long long)a,
                 alias ? (unsigned long long)a : (unsigned long long)b,
                 (unsigned long long)g, (unsigned long long)x);
    }
    for (size_t i = 0; i < GUARD; i++)
        assert_int_equal(d[bytes + i], 0xa5);
    free(nan_expected);
    free(sorig);
    free(third);
    free(orig);
    free(want);
    free(sbuf);
    free(dbuf);
}

static void select_or_skip(const char *isa)
{
    emu_status st = emu_reduce_select_isa(isa);

    if (st == EMU_ENOTSUP) {
        print_message("kernel set %s not available on this CPU\n", isa);
        skip();
    }
    assert_int_equal(st, EMU_OK);
    assert_string_equal(emu_reduce_isa_name(), isa);
}

static void sweep(const char *isa)
{
    select_or_skip(isa);
    for (int dt = 0; dt < EMU_REDUCE_DTYPE_COUNT; dt++)
        for (int op = 0; op < EMU_REDUCE_OP_COUNT; op++)
            for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
                for (int off = 0; off < OFF_COUNT; off++) {
                    check_one(isa, dt, op, counts[c], off, 0, INTO_D);
                    check_one(isa, dt, op, counts[c], off, 0, INTO_THIRD);
                    if (off != OFF_ELEMENT)
                        continue;
                    check_one(isa, dt, op, counts[c], off, 1, INTO_D);
                    check_one(isa, dt, op, counts[c], off, 0, INTO_S);
                    check_one(isa, dt, op, counts[c], off, 1, INTO_THIRD);
                }
    assert_int_equal(emu_reduce_select_isa("auto"), EMU_OK);
}

/* emu_reduce_kernel(): the kernel for one pair, looked up once by a loop of small pieces (the
 * reduce-spread task), computes what emu_reduce_into() does. The streamed set mixes the best
 * sets by type where nothing was forced (reduce.c, `streamed`): every entry of it against the
 * reference, in place and into a third buffer, and a forced set is the streamed set too. No
 * kernel for a pair that cannot be computed. */
static void looked_up_kernels_match_the_reference(void **state)
{
    (void)state;
    assert_int_equal(emu_reduce_select_isa("auto"), EMU_OK);
    for (int dt = 0; dt < EMU_REDUCE_DTYPE_COUNT; dt++)
        for (int op = 0; op < EMU_REDUCE_OP_COUNT; op++)
            for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
                check_one("auto", dt, op, counts[c], OFF_NONE, 0, INTO_D_STREAMED);
                check_one("auto", dt, op, counts[c], OFF_BYTE, 0, INTO_THIRD_STREAMED);
                check_one("auto", dt, op, counts[c], OFF_NONE, 0, INTO_THIRD_STREAMED);
                check_one("auto", dt, op, counts[c], OFF_BYTE, 0, INTO_THIRD_KERNEL);
            }
    assert_int_equal(emu_reduce_select_isa("generic"), EMU_OK);
    check_one("generic", EMU_DTYPE_FP32, EMU_REDUCE_OP_SUM, 4097, OFF_ELEMENT, 0,
              INTO_THIRD_STREAMED);
    assert_int_equal(emu_reduce_select_isa("auto"), EMU_OK);
    assert_null(emu_reduce_kernel(EMU_REDUCE_DTYPE_COUNT, EMU_REDUCE_OP_SUM, false));
    assert_null(emu_reduce_kernel(EMU_DTYPE_FP32, -1, true));
}

static void generic_kernels_match_the_reference(void **state)
{
    (void)state;
    sweep("generic");
}

static void sse2_kernels_match_the_reference(void **state)
{
    (void)state;
    sweep("sse2");
}

static void avx2_kernels_match_the_reference(void **state)
{
    (void)state;
    sweep("avx2");
}

static void avx512_kernels_match_the_reference(void **state)
{
    (void)state;
    sweep("avx512");
}

/* --- fixed cases, on every kernel set ----------------------------------------------------- */

/* Replicates one (d, s) pair over 41 elements, so both the vector body and the tail see it,
 * reduces on every available set and checks each result against want (NaN: any NaN). */
static void expect_pair(int dt, int op, uint64_t d, uint64_t s, uint64_t want, int want_nan)
{
    enum { N = 41 };
    size_t es = emu_reduce_dtype_size(dt);
    unsigned char db[N * 8], sb[N * 8];

    for (size_t k = 0; k < ISA_COUNT; k++) {
        if (emu_reduce_select_isa(isas[k]) != EMU_OK)
            continue;
        for (int i = 0; i < N; i++) {
            memcpy(db + i * es, &d, es);
            memcpy(sb + i * es, &s, es);
        }
        emu_reduce(db, sb, N, dt, op);
        for (int i = 0; i < N; i++) {
            uint64_t got = 0;
            memcpy(&got, db + i * es, es);
            if (want_nan ? isnan(ref_fload(dt, db + i * es)) : got == want)
                continue;
            fail_msg("%s %s %s(%#llx, %#llx) [%d] = %#llx, want %s%#llx", isas[k],
                     emu_reduce_dtype_name(dt), emu_reduce_op_name(op), (unsigned long long)d,
                     (unsigned long long)s, i, (unsigned long long)got, want_nan ? "NaN " : "",
                     (unsigned long long)want);
        }
    }
    assert_int_equal(emu_reduce_select_isa("auto"), EMU_OK);
}

static void integers_wrap_around(void **state)
{
    (void)state;
    expect_pair(EMU_DTYPE_INT8, EMU_REDUCE_OP_SUM, 127, 1, 0x80, 0); /* -128 */
    expect_pair(EMU_DTYPE_INT8, EMU_REDUCE_OP_SUM, 0x80, 0xff, 0x7f, 0);
    expect_pair(EMU_DTYPE_UINT8, EMU_REDUCE_OP_SUM, 255, 1, 0, 0);
    expect_pair(EMU_DTYPE_INT16, EMU_REDUCE_OP_PROD, 300, 300, 90000 % 65536, 0);
    expect_pair(EMU_DTYPE_UINT16, EMU_REDUCE_OP_PROD, 0xffff, 0xffff, 1, 0);
    expect_pair(EMU_DTYPE_INT32, EMU_REDUCE_OP_SUM, INT32_MAX, 1, 0x80000000u, 0);
    expect_pair(EMU_DTYPE_UINT32, EMU_REDUCE_OP_SUM, UINT32_MAX, 1, 0, 0);
    expect_pair(EMU_DTYPE_INT32, EMU_REDUCE_OP_PROD, 0x10000, 0x10000, 0, 0);
    expect_pair(EMU_DTYPE_INT64, EMU_REDUCE_OP_SUM, (uint64_t)INT64_MIN, UINT64_MAX,
                (uint64_t)INT64_MAX, 0);
    expect_pair(EMU_DTYPE_UINT64, EMU_REDUCE_OP_PROD, 1ull << 32, 1ull << 32, 0, 0);
}

static void signed_and_unsigned_compare_differently(void **state)
{
    (void)state;
    expect_pair(EMU_DTYPE_INT8, EMU_REDUCE_OP_MAX, 0xff, 1, 1, 0);
    expect_pair(EMU_DTYPE_UINT8, EMU_REDUCE_OP_MAX, 0xff, 1, 0xff, 0);
    expect_pair(EMU_DTYPE_INT64, EMU_REDUCE_OP_MIN, UINT64_MAX, 0, UINT64_MAX, 0);
    expect_pair(EMU_DTYPE_UINT64, EMU_REDUCE_OP_MIN, UINT64_MAX, 0, 0, 0);
    expect_pair(EMU_DTYPE_UINT32, EMU_REDUCE_OP_MAX, 0x80000000u, 1, 0x80000000u, 0);
}

static void fp16_rounds_ties_to_even(void **state)
{
    (void)state;
    /* 1 + 2^-11 is halfway between 0x3c00 and 0x3c01: the even one wins. */
    expect_pair(EMU_DTYPE_FP16, EMU_REDUCE_OP_SUM, 0x3c00, 0x1000, 0x3c00, 0);
    expect_pair(EMU_DTYPE_FP16, EMU_REDUCE_OP_SUM, 0x3c01, 0x1000, 0x3c02, 0);
    /* Just above the tie rounds up. */
    expect_pair(EMU_DTYPE_FP16, EMU_REDUCE_OP_SUM, 0x3c00, 0x1001, 0x3c01, 0);
    /* 65504 + 16 = 65520 ties between 65504 (odd) and 65536, which overflows to inf. */
    expect_pair(EMU_DTYPE_FP16, EMU_REDUCE_OP_SUM, 0x7bff, 0x4c00, 0x7c00, 0);
    expect_pair(EMU_DTYPE_FP16, EMU_REDUCE_OP_SUM, 0x7bff, 0x4bff, 0x7bff, 0);
    /* Subnormals are kept and carry into the normals. */
    expect_pair(EMU_DTYPE_FP16, EMU_REDUCE_OP_SUM, 0x0001, 0x0001, 0x0002, 0);
    expect_pair(EMU_DTYPE_FP16, EMU_REDUCE_OP_SUM, 0x03ff, 0x0001, 0x0400, 0);
    /* 2^-14 * 2^-11 = 2^-25 ties between 0 and the smallest subnormal: 0. */
    expect_pair(EMU_DTYPE_FP16, EMU_REDUCE_OP_PROD, 0x0400, 0x1000, 0x0000, 0);
    expect_pair(EMU_DTYPE_FP16, EMU_REDUCE_OP_PROD, 0x0c00, 0x3e00, 0x0e00, 0);
}

static void bf16_rounds_ties_to_even(void **state)
{
    (void)state;
    /* 1 + 2^-8 is halfway between 0x3f80 and 0x3f81. */
    expect_pair(EMU_DTYPE_BFP16, EMU_REDUCE_OP_SUM, 0x3f80, 0x3b80, 0x3f80, 0);
    expect_pair(EMU_DTYPE_BFP16, EMU_REDUCE_OP_SUM, 0x3f81, 0x3b80, 0x3f82, 0);
    expect_pair(EMU_DTYPE_BFP16, EMU_REDUCE_OP_SUM, 0x3f80, 0x3b81, 0x3f81, 0);
    /* The largest finite + half an ulp overflows to inf; subnormals survive. */
    expect_pair(EMU_DTYPE_BFP16, EMU_REDUCE_OP_SUM, 0x7f7f, 0x7b00, 0x7f80, 0);
    expect_pair(EMU_DTYPE_BFP16, EMU_REDUCE_OP_SUM, 0x0001, 0x0001, 0x0002, 0);
    expect_pair(EMU_DTYPE_BFP16, EMU_REDUCE_OP_SUM, 0x807f, 0x8001, 0x8080, 0);
}

static void nan_and_inf_follow_ieee(void **state)
{
    (void)state;
    static const struct {
        int dt;
        uint64_t nan, inf, ninf, one, pzero, nzero;
    } t[] = {
        {EMU_DTYPE_FP16, 0x7e00, 0x7c00, 0xfc00, 0x3c00, 0x0000, 0x8000},
        {EMU_DTYPE_BFP16, 0x7fc0, 0x7f80, 0xff80, 0x3f80, 0x0000, 0x8000},
        {EMU_DTYPE_FP32, 0x7fc00000, 0x7f800000, 0xff800000, 0x3f800000, 0, 0x80000000},
        {EMU_DTYPE_FP64, 0x7ff8000000000000, 0x7ff0000000000000, 0xfff0000000000000,
         0x3ff0000000000000, 0, 0x8000000000000000},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        for (int op = 0; op < EMU_REDUCE_OP_COUNT; op++) {
            expect_pair(t[i].dt, op, t[i].nan, t[i].one, 0, 1);
            expect_pair(t[i].dt, op, t[i].one, t[i].nan, 0, 1);
        }
        expect_pair(t[i].dt, EMU_REDUCE_OP_SUM, t[i].inf, t[i].ninf, 0, 1);
        expect_pair(t[i].dt, EMU_REDUCE_OP_PROD, t[i].inf, t[i].pzero, 0, 1);
        expect_pair(t[i].dt, EMU_REDUCE_OP_SUM, t[i].inf, t[i].one, t[i].inf, 0);
        expect_pair(t[i].dt, EMU_REDUCE_OP_MAX, t[i].ninf, t[i].one, t[i].one, 0);
        expect_pair(t[i].dt, EMU_REDUCE_OP_MIN, t[i].ninf, t[i].one, t[i].ninf, 0);
        /* Signed zeros compare equal: the src element is the result. */
        expect_pair(t[i].dt, EMU_REDUCE_OP_MAX, t[i].pzero, t[i].nzero, t[i].nzero, 0);
        expect_pair(t[i].dt, EMU_REDUCE_OP_MAX, t[i].nzero, t[i].pzero, t[i].pzero, 0);
        expect_pair(t[i].dt, EMU_REDUCE_OP_MIN, t[i].pzero, t[i].nzero, t[i].nzero, 0);
    }
    /* A signalling NaN with a payload only in the low bits must not round into inf. */
    expect_pair(EMU_DTYPE_BFP16, EMU_REDUCE_OP_MAX, 0x7f81, 0x3f80, 0, 1);
    expect_pair(EMU_DTYPE_BFP16, EMU_REDUCE_OP_SUM, 0xff81, 0x3f80, 0, 1);
    expect_pair(EMU_DTYPE_FP16, EMU_REDUCE_OP_MIN, 0x7c01, 0x3c00, 0, 1);
}

/* --- scalar conversions (the twins of the vector code) ---------------------------------- */

static void scalar_fp16_conversions_are_exact_and_round_to_even(void **state)
{
    (void)state;
    for (uint32_t h = 0; h <= 0xffff; h++) {
        double want = ref_from_f16((uint16_t)h);
        float f = emu_f16_to_f32((uint16_t)h);
        if (isnan(want)) {
            assert_true(isnan(f));
            assert_true(isnan(ref_from_f16(emu_f32_to_f16(f))));
            continue;
        }
        assert_true(memcmp(&(double){f}, &want, sizeof(want)) == 0);
        assert_int_equal(emu_f32_to_f16(f), h);
    }
    for (int i = 0; i < 1000000; i++) {
        uint32_t u = (uint32_t)rng();
        float f = emu_f32_from_bits(u);
        if (isnan(f))
            assert_true(isnan(ref_from_f16(emu_f32_to_f16(f))));
        else
            assert_int_equal(emu_f32_to_f16(f), ref_to_f16(f));
    }
}

static void scalar_bf16_rounding_keeps_nans(void **state)
{
    (void)state;
    static const uint32_t nans[] = {0x7fffffff, 0xffffffff, 0x7f800001, 0x7f80ffff, 0xff808000};
    for (size_t i = 0; i < sizeof(nans) / sizeof(nans[0]); i++)
        assert_true(isnan(ref_from_bf16(emu_f32_to_bf16(emu_f32_from_bits(nans[i])))));
    for (int i = 0; i < 1000000; i++) {
        float f = emu_f32_from_bits((uint32_t)rng());
        if (!isnan(f))
            assert_int_equal(emu_f32_to_bf16(f), ref_to_bf16(f));
    }
    assert_int_equal(emu_f32_to_bf16(emu_f32_from_bits(0x3f808000)), 0x3f80);
    assert_int_equal(emu_f32_to_bf16(emu_f32_from_bits(0x3f818000)), 0x3f82);
}

/* --- validation and tables ---------------------------------------------------------------- */

static int in_list(int v, const int *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == v)
            return 1;
    return 0;
}

static void check_follows_the_documented_lists(void **state)
{
    (void)state;
    static const int local[] = {0, 1, 2, 3, 4, 11};         /* INT8..FP32, BFP16 */
    static const int r950[] = {0, 1, 2, 3, 4, 7, 8, 9, 11}; /* + UINT8..UINT32 */
    static const int ops[] = {EMU_REDUCE_OP_SUM, EMU_REDUCE_OP_MAX, EMU_REDUCE_OP_MIN};
    static const int odd[] = {INT_MIN, -1000, -1, 12, 13, 17, 18, 31, 32, 33, 64, 255, 256,
                              1000, INT_MAX};

    for (int dt = -40; dt < 300; dt++) {
        for (int op = -3; op < 260; op++) {
            int okop = in_list(op, ops, 3);
            assert_int_equal(emu_reduce_check(dt, op, EMU_REDUCE_LOCAL),
                             okop && in_list(dt, local, 6) ? EMU_OK : EMU_EINVAL);
            assert_int_equal(emu_reduce_check(dt, op, EMU_REDUCE_REMOTE_A2A3),
                             okop && in_list(dt, local, 6) ? EMU_OK : EMU_EINVAL);
            assert_int_equal(emu_reduce_check(dt, op, EMU_REDUCE_REMOTE_950),
                             okop && in_list(dt, r950, 9) ? EMU_OK : EMU_EINVAL);
        }
    }
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
        assert_int_equal(emu_reduce_check(odd[i], EMU_REDUCE_OP_SUM, EMU_REDUCE_REMOTE_950),
                         EMU_EINVAL);
        assert_int_equal(emu_reduce_check(EMU_DTYPE_FP32, odd[i], EMU_REDUCE_LOCAL),
                         EMU_EINVAL);
    }
    /* PROD is refused everywhere (documented choice), an unknown site too. */
    assert_int_equal(emu_reduce_check(EMU_DTYPE_FP32, EMU_REDUCE_OP_PROD, EMU_REDUCE_LOCAL),
                     EMU_EINVAL);
    assert_int_equal(emu_reduce_check(EMU_DTYPE_FP32, EMU_REDUCE_OP_SUM,
                                      (enum emu_reduce_site)7),
                     EMU_EINVAL);
    assert_int_equal(emu_reduce_check(EMU_DTYPE_FP32, EMU_REDUCE_OP_SUM,
                                      (enum emu_reduce_site)-1),
                     EMU_EINVAL);
}

static void dtype_table_matches_the_spec(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 2, 4, 2, 4, 8, 8, 1, 2, 4, 8, 2, 16, 2, 1, 1, 1, 1};

    for (int dt = 0; dt < 18; dt++)
        assert_int_equal(emu_reduce_dtype_size(dt), sizes[dt]);
    assert_int_equal(emu_reduce_dtype_size(18), 0);
    assert_int_equal(emu_reduce_dtype_size(255), 0);
    assert_int_equal(emu_reduce_dtype_size(-1), 0);
    assert_int_equal(emu_reduce_dtype_size(INT_MIN), 0);
    assert_int_equal(emu_reduce_dtype_size(INT_MAX), 0);
    assert_string_equal(emu_reduce_dtype_name(EMU_DTYPE_BFP16), "BFP16");
    assert_string_equal(emu_reduce_dtype_name(EMU_DTYPE_UINT32), "UINT32");
    assert_string_equal(emu_reduce_dtype_name(255), "RESERVED");
    assert_string_equal(emu_reduce_dtype_name(-7), "INVALID");
    assert_string_equal(emu_reduce_dtype_name(1000), "INVALID");
    assert_string_equal(emu_reduce_op_name(EMU_REDUCE_OP_PROD), "PROD");
    assert_string_equal(emu_reduce_op_name(255), "RESERVED");
    assert_string_equal(emu_reduce_op_name(4), "INVALID");
    assert_string_equal(emu_reduce_op_name(-1), "INVALID");
}

static void reduce_leaves_dst_alone_for_bad_type_or_op(void **state)
{
    (void)state;
    uint32_t d[4] = {1, 2, 3, 4}, s[4] = {5, 6, 7, 8};

    emu_reduce(d, s, 4, EMU_DTYPE_INT128, EMU_REDUCE_OP_SUM);
    emu_reduce(d, s, 4, -1, EMU_REDUCE_OP_SUM);
    emu_reduce(d, s, 4, EMU_DTYPE_INT32, 255);
    emu_reduce(d, s, 4, EMU_DTYPE_INT32, -1);
    assert_int_equal(d[0], 1);
    assert_int_equal(d[3], 4);
    emu_reduce(NULL, NULL, 0, EMU_DTYPE_FP32, EMU_REDUCE_OP_SUM); /* count 0 touches nothing */
}

static void isa_selection_honours_names_and_the_environment(void **state)
{
    (void)state;
    const char *best;

    assert_int_equal(emu_reduce_select_isa("auto"), EMU_OK);
    best = emu_reduce_isa_name();
    assert_int_equal(emu_reduce_select_isa("bogus"), EMU_EINVAL);
    assert_string_equal(emu_reduce_isa_name(), best);
    assert_int_equal(emu_reduce_select_isa(""), EMU_EINVAL);

    setenv("HCEMU_REDUCE_ISA", "generic", 1);
    assert_int_equal(emu_reduce_select_isa(NULL), EMU_OK);
    assert_string_equal(emu_reduce_isa_name(), "generic");
    setenv("HCEMU_REDUCE_ISA", "no-such-isa", 1); /* warns, falls back to the best */
    assert_int_equal(emu_reduce_select_isa(NULL), EMU_OK);
    assert_string_equal(emu_reduce_isa_name(), best);
    unsetenv("HCEMU_REDUCE_ISA");
    assert_int_equal(emu_reduce_select_isa(NULL), EMU_OK);
    assert_string_equal(emu_reduce_isa_name(), best);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dtype_table_matches_the_spec),
        cmocka_unit_test(check_follows_the_documented_lists),
        cmocka_unit_test(reduce_leaves_dst_alone_for_bad_type_or_op),
        cmocka_unit_test(isa_selection_honours_names_and_the_environment),
        cmocka_unit_test(scalar_fp16_conversions_are_exact_and_round_to_even),
        cmocka_unit_test(scalar_bf16_rounding_keeps_nans),
        cmocka_unit_test(integers_wrap_around),
        cmocka_unit_test(signed_and_unsigned_compare_differently),
        cmocka_unit_test(fp16_rounds_ties_to_even),
        cmocka_unit_test(bf16_rounds_ties_to_even),
        cmocka_unit_test(nan_and_inf_follow_ieee),
        cmocka_unit_test(generic_kernels_match_the_reference),
        cmocka_unit_test(sse2_kernels_match_the_reference),
        cmocka_unit_test(avx2_kernels_match_the_reference),
        cmocka_unit_test(avx512_kernels_match_the_reference),
        cmocka_unit_test(looked_up_kernels_match_the_reference),
    };
    return cmocka_run_group_tests_name("reduce", tests, NULL, NULL);
}
