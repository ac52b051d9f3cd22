/* test_dataplane.c - the HCOMM data plane on two emulated devices, driven by the dp_exec test
 * kernel (tests/kernels/dp_exec.c) with threads and channels made by the fixture.
 *
 * Run with argument "a3" (and HCEMU_SOC=Ascend910_93) for the A2/A3 product checks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/contract/handle.h"
#include "hccl/hccl_types.h"
#include "hcomm/hcomm_primitives.h"
#include "kernels/dp_fixture.h"

#define BUF (1u << 20)
#define NT 3

static struct dpf F;
static uint64_t T[2][NT];      /* AICPU_TS threads, 4 notifies each */
static uint64_t CPU[2];        /* CPU_TS threads (fixture streams), 2 notifies */
static uint64_t CPU_ON_AI[2];  /* CPU_TS thread exported to AICPU_TS */
static uint64_t T0_ON_CPU[2];  /* T[d][0] exported to CPU_TS */
static uint64_t CH[2];         /* channel dev0 <-> dev1, 3 notifies; CH[d] is d's end */
static uint8_t *HB[2];         /* "HCCL buffers" reachable through the channel */
static uint8_t *UB[2];         /* user buffers */
static int a3;

/* --- program building ------------------------------------------------------------------ */

struct prog {
    struct dp_op ops[600];
    uint32_t n;
};

static struct dp_op *add(struct prog *p, uint32_t fn, uint64_t thread)
{
    struct dp_op *o = &p->ops[p->n++];
    memset(o, 0, sizeof(*o));
    o->fn = fn;
    o->thread = thread;
    return o;
}

static uint64_t A(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

static void copy_op(struct prog *p, uint64_t t, void *dst, const void *src, uint64_t len)
{
    struct dp_op *o = add(p, DPF_COPY, t);
    o->dst = A(dst), o->src = A(src), o->n = len;
}

static void rec_op(struct prog *p, uint64_t t, uint64_t dst, uint32_t idx)
{
    add(p, DPF_TREC, t)->other = dst, p->ops[p->n - 1].idx = idx;
}

static void wait_op(struct prog *p, uint64_t t, uint32_t idx, uint32_t timeout)
{
    struct dp_op *o = add(p, DPF_TWAIT, t);
    o->idx = idx, o->timeout = timeout;
}

static void chan_op(struct prog *p, uint32_t fn, uint64_t t, uint64_t ch, void *dst,
                    const void *src, uint64_t n, int dtype, int rop, uint32_t idx)
{
    struct dp_op *o = add(p, fn, t);
    o->other = ch, o->dst = A(dst), o->src = A(src), o->n = n, o->dtype = dtype, o->rop = rop;
    o->idx = idx, o->timeout = 10;
}

/* Launch programs on both devices (either may be NULL), each finished by joins of every
 * thread and a record of the host's CPU_TS notify 0, which the host stream waits for. */
static int run2(struct prog *p0, struct prog *p1, int32_t *r0, int32_t *r1)
{
    struct prog *ps[2] = {p0, p1};
    struct dpf_run runs[2];
    int rc = 0;

    for (int d = 0; d < 2; d++) {
        if (ps[d] == NULL)
            continue;
        for (int k = 0; k < NT; k++)
            add(ps[d], DPF_JOIN, T[d][k])->timeout = 20;
        rec_op(ps[d], T[d][0], CPU_ON_AI[d], 0);
        assert_int_equal(dpf_launch(&F, d, NULL, ps[d]->ops, ps[d]->n, &runs[d]), 0);
        assert_int_equal(HcommThreadNotifyWaitOnThread(CPU[d], 0, 30), 0);
    }
    for (int d = 0; d < 2; d++) {
        if (ps[d] != NULL) {
            int r = dpf_finish(&runs[d], d == 0 ? r0 : r1);
            if (rc == 0)
                rc = r;
            ps[d]->n -= NT + 1; /* drop the joins and the record again */
        }
    }
    return rc;
}

static void expect_ok(const struct prog *p, const int32_t *r)
{
    for (uint32_t i = 0; i < p->n; i++) {
        if (r[i] != 0)
            fail_msg("op %u (fn %u) returned %d", i, p->ops[i].fn, r[i]);
    }
}

static void fill(uint8_t *dev, size_t n, uint32_t seed)
{
    uint8_t *h = malloc(n);
    for (size_t i = 0; i < n; i++)
        h[i] = (uint8_t)(seed + i * 131 + (i >> 8));
    dpf_put(dev, h, n);
    free(h);
}

static void zero(uint8_t *dev, size_t n)
{
    uint8_t *h = calloc(1, n);
    dpf_put(dev, h, n);
    free(h);
}

static void expect_same(const uint8_t *a_dev, const uint8_t *b_dev, size_t n)
{
    uint8_t *a = malloc(n + 1), *b = malloc(n + 1);
    dpf_get(a, a_dev, n);
    dpf_get(b, b_dev, n);
    assert_memory_equal(a, b, n);
    free(a);
    free(b);
}

static uint8_t peek(const uint8_t *dev)
{
    uint8_t v;
    dpf_get(&v, dev, 1);
    return v;
}

/* --- setup ----------------------------------------------------------------------------- */

static int setup(void **state)
{
    (void)state;
    if (dpf_setup(&F, 2, DP_KERNELS_JSON, getenv("DP_KEEP_STDERR") != NULL) != 0)
        return -1;
    for (int d = 0; d < 2; d++) {
        for (int k = 0; k < NT; k++)
            T[d][k] = dpf_thread(&F, d, 4, (uint32_t)d, (uint32_t)k);
        CPU[d] = dpf_cpu_thread(&F, d, NULL, 2, (uint32_t)d);
        CPU_ON_AI[d] = dpf_export(CPU[d], 3);
        T0_ON_CPU[d] = dpf_export(T[d][0], 1);
        HB[d] = dpf_malloc(&F, d, BUF);
        UB[d] = dpf_malloc(&F, d, BUF);
    }
    dpf_channel_pair(&F, 0, 1, 3, HB[0], BUF, HB[1], BUF, &CH[0], &CH[1]);
    dpf_comm(&F, 0, "commA");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    dpf_teardown(&F);
    return 0;
}

/* --- local operations ------------------------------------------------------------------ */

static const uint64_t lens[] = {0, 1, 3, 4097};

static void local_copy_moves_exact_bytes(void **state)
{
    (void)state;
    for (size_t i = 0; i < 4; i++) {
        struct prog p = {.n = 0};
        int32_t r[16];
        fill(UB[0], 8192, 7 + (uint32_t)i);
        zero(UB[0] + 8192, 8192);
        copy_op(&p, T[0][i % NT], UB[0] + 8192, UB[0], lens[i]);
        assert_int_equal(run2(&p, NULL, r, NULL), 0);
        expect_ok(&p, r);
        expect_same(UB[0] + 8192, UB[0], lens[i]);
        assert_int_equal(peek(UB[0] + 8192 + lens[i]), 0); /* nothing beyond len */
    }
}

/* Element i of the test vectors as a small integer, exact in every type. */
static int64_t val(int dtype, uint64_t i, int which)
{
    int64_t v = (int64_t)((i * (which ? 13u : 7u) + (which ? 5u : 0u)) % 101u);
    bool unsig = dtype == HCOMM_DATA_TYPE_UINT8 || dtype == HCOMM_DATA_TYPE_UINT16 ||
                 dtype == HCOMM_DATA_TYPE_UINT32;
    return unsig ? v : v - 50;
}

static uint16_t to_fp16(float f)
{
    /* Exact small integers only (|v| <= 200): normal numbers with <= 11 significant bits. */
    if (f == 0.0f)
        return 0;
    uint32_t b;
    memcpy(&b, &f, 4);
    uint32_t sign = (b >> 16) & 0x8000u, e = ((b >> 23) & 0xFFu) - 127u + 15u;
    return (uint16_t)(sign | (e << 10) | ((b >> 13) & 0x3FFu));
}

static size_t esize(int t)
{
    static const size_t s[] = {1, 2, 4, 2, 4, 8, 8, 1, 2, 4, 8, 2};
    return s[t];
}

static void put_val(uint8_t *h, int t, uint64_t i, int64_t v)
{
    float f = (float)v;
    uint32_t fb;
    memcpy(&fb, &f, 4);
    switch (t) {
    case HCOMM_DATA_TYPE_INT8: case HCOMM_DATA_TYPE_UINT8: h[i] = (uint8_t)v; break;
    case HCOMM_DATA_TYPE_INT16: case HCOMM_DATA_TYPE_UINT16:
        ((uint16_t *)h)[i] = (uint16_t)v; break;
    case HCOMM_DATA_TYPE_INT32: case HCOMM_DATA_TYPE_UINT32:
        ((uint32_t *)h)[i] = (uint32_t)v; break;
    case HCOMM_DATA_TYPE_FP32: ((float *)h)[i] = f; break;
    case HCOMM_DATA_TYPE_FP16: ((uint16_t *)h)[i] = to_fp16(f); break;
    case HCOMM_DATA_TYPE_BFP16: ((uint16_t *)h)[i] = (uint16_t)(fb >> 16); break;
    default: fail();
    }
}

static int64_t ref(int rop, int64_t a, int64_t b)
{
    return rop == HCOMM_REDUCE_SUM ? a + b : rop == HCOMM_REDUCE_MAX ? (a > b ? a : b)
                                                                      : (a < b ? a : b);
}

/* Build dst/src vectors on the host, expected result too. */
static void vectors(int t, int rop, uint64_t count, uint8_t *dst, uint8_t *src, uint8_t *want)
{
    for (uint64_t i = 0; i < count; i++) {
        int64_t a = val(t, i, 0), b = val(t, i, 1);
        put_val(dst, t, i, a);
        put_val(src, t, i, b);
        put_val(want, t, i, ref(rop, a, b));
    }
}

static const int local_types[] = {0, 1, 2, 3, 4, 11};
static const int remote_types[] = {0, 1, 2, 3, 4, 11, 7, 8, 9};
static const int ops3[] = {HCOMM_REDUCE_SUM, HCOMM_REDUCE_MAX, HCOMM_REDUCE_MIN};

/* One reduce through `fn` with dst on device dd (buffer dbuf) and src on sd (sbuf). */
static void reduce_case(uint32_t fn, int t, int rop, uint64_t count, uint8_t *dbuf, uint8_t *sbuf)
{
    size_t bytes = count * esize(t);
    uint8_t *d = calloc(1, bytes + 1), *s = calloc(1, bytes + 1), *w = calloc(1, bytes + 1);
    uint8_t *got = calloc(1, bytes + 1);
    struct prog p0 = {.n = 0}, p1 = {.n = 0};
    int32_t r0[16], r1[16];

    vectors(t, rop, count, d, s, w);
    dpf_put(dbuf, d, bytes);
    dpf_put(sbuf, s, bytes);
    if (fn == DPF_REDUCE) {
        struct dp_op *o = add(&p0, DPF_REDUCE, T[0][1]);
        o->dst = A(dbuf), o->src = A(sbuf), o->n = count, o->dtype = t, o->rop = rop;
        assert_int_equal(run2(&p0, NULL, r0, NULL), 0);
    } else {
        chan_op(&p0, fn, T[0][1], CH[0], dbuf, sbuf, count, t, rop, 2);
        if (fn == DPF_WRITE_REDUCE_NOTIFY) {
            struct dp_op *o = add(&p1, DPF_CWAIT, T[1][0]);
            o->other = CH[1], o->idx = 2, o->timeout = 10;
        }
        assert_int_equal(run2(&p0, p1.n ? &p1 : NULL, r0, r1), 0);
        if (p1.n)
            expect_ok(&p1, r1);
    }
    expect_ok(&p0, r0);
    dpf_get(got, dbuf, bytes);
    if (memcmp(got, w, bytes) != 0)
        fail_msg("fn %u type %d op %d count %llu: wrong result", fn, t, rop,
                 (unsigned long long)count);
    free(d), free(s), free(w), free(got);
}

static void local_reduce_matches_reference_for_every_type_and_op(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(local_types) / sizeof(int); i++)
        for (size_t k = 0; k < 3; k++)
            reduce_case(DPF_REDUCE, local_types[i], ops3[k], 37, UB[0], UB[0] + 65536);
    reduce_case(DPF_REDUCE, HCOMM_DATA_TYPE_FP32, HCOMM_REDUCE_SUM, 4097, UB[0], UB[0] + 65536);
}

static void remote_reduces_match_reference_for_every_type_and_op(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(remote_types) / sizeof(int); i++) {
        for (size_t k = 0; k < 3; k++) {
            int t = remote_types[i], rop = ops3[k];
            reduce_case(DPF_WRITE_REDUCE, t, rop, 37, HB[1], UB[0]);
            reduce_case(DPF_READ_REDUCE, t, rop, 37, UB[0], HB[1] + 4096);
            reduce_case(DPF_WRITE_REDUCE_NOTIFY, t, rop, 37, HB[1] + 8192, UB[0] + 8192);
        }
    }
}

static void thread_notifies_order_work_across_threads(void **state)
{
    struct prog p = {.n = 0};
    int32_t r[600];
    float one = 1.0f, z = 0.0f, got;

    (void)state;
    dpf_put(UB[0], &one, 4);
    dpf_put(UB[0] + 64, &z, 4);
    /* acc += 1 alternately on threads 1 and 2, handing over with notifies: 200 rounds. */
    struct dp_op *loop = add(&p, DPF_LOOP, 0);
    loop->n = 100, loop->idx = 6;
    struct dp_op *o = add(&p, DPF_REDUCE, T[0][1]);
    o->dst = A(UB[0] + 64), o->src = A(UB[0]), o->n = 1, o->dtype = HCOMM_DATA_TYPE_FP32;
    rec_op(&p, T[0][1], T[0][2], 1);
    wait_op(&p, T[0][1], 2, 10);
    wait_op(&p, T[0][2], 1, 10);
    o = add(&p, DPF_REDUCE, T[0][2]);
    o->dst = A(UB[0] + 64), o->src = A(UB[0]), o->n = 1, o->dtype = HCOMM_DATA_TYPE_FP32;
    rec_op(&p, T[0][2], T[0][1], 2);
    assert_int_equal(run2(&p, NULL, r, NULL), 0);
    expect_ok(&p, r);
    dpf_get(&got, UB[0] + 64, 4);
    assert_true(got == 200.0f);
}

/* --- channels -------------------------------------------------------------------------- */

static void write_and_read_move_exact_bytes(void **state)
{
    (void)state;
    for (size_t i = 0; i < 4; i++) {
        struct prog p = {.n = 0};
        int32_t r[16];
        fill(UB[0], 8192, 3 + (uint32_t)i);
        zero(HB[1], 16384);
        zero(UB[0] + 65536, 8192);
        chan_op(&p, DPF_WRITE, T[0][0], CH[0], HB[1], UB[0], lens[i], 0, 0, 0);
        chan_op(&p, DPF_READ, T[0][0], CH[0], UB[0] + 65536, HB[1], lens[i], 0, 0, 0);
        assert_int_equal(run2(&p, NULL, r, NULL), 0);
        expect_ok(&p, r);
        expect_same(HB[1], UB[0], lens[i]);
        expect_same(UB[0] + 65536, UB[0], lens[i]);
        assert_int_equal(peek(HB[1] + lens[i]), 0);
    }
}

/* Adds device 1's hcemu_read_reduce_published_into of 64 FP32 elements into dst, with `own`
 * and device 0's bytes 96 past the address in device 1's mailbox (HB[1] + 256). */
static void into_op(struct prog *p, void *dst, uint64_t own, int rop, uint32_t own_first)
{
    chan_op(p, DPF_READ_REDUCE_PUB_INTO, T[1][0], CH[1], dst, HB[1] + 256, 64,
            HCOMM_DATA_TYPE_FP32, rop, own_first);
    p->ops[p->n - 1].aux = 96;
    p->ops[p->n - 1].addrs[0] = own;
}

/* hcemu's own reads of a published buffer (device/dp/api_hcemu.c): device 1 reads device 0's
 * user buffer, which no channel lists, at an offset past the address found in its mailbox
 * when the task runs (written here before the launch; the collectives write it with a
 * notify), and read-reduces it, into the destination or with a buffer of its own into a
 * third. The calls that cannot be right are refused when queued: a mailbox out of this
 * device's memory or not 8-byte aligned, a destination past its allocation, a type the
 * reduction does not take, an own operand past its allocation or overlapping the destination
 * without being it (HCCL_E_PARA), or NULL (HCCL_E_PTR). */
static void read_published_reads_where_the_mailbox_points(void **state)
{
    struct prog p = {.n = 0};
    int32_t r[16];
    uint64_t src = A(UB[0] + 4000);
    float a[64], b[64], got[64];

    (void)state;
    fill(UB[0] + 4096, 5000, 41);
    zero(UB[1], 8192);
    dpf_put(HB[1] + 256, &src, sizeof(src));
    chan_op(&p, DPF_READ_PUB, T[1][0], CH[1], UB[1], HB[1] + 256, 5000, 0, 0, 0);
    p.ops[p.n - 1].aux = 96;
    assert_int_equal(run2(NULL, &p, NULL, r), 0);
    expect_ok(&p, r);
    expect_same(UB[1], UB[0] + 4096, 5000);
    assert_int_equal(peek(UB[1] + 5000), 0);

    for (int i = 0; i < 64; i++)
        a[i] = (float)i, b[i] = 0.5f * (float)i;
    dpf_put(UB[0] + 4096, a, sizeof(a));
    dpf_put(UB[1], b, sizeof(b));
    p.n = 0;
    chan_op(&p, DPF_READ_REDUCE_PUB, T[1][0], CH[1], UB[1], HB[1] + 256, 64,
            HCOMM_DATA_TYPE_FP32, HCOMM_REDUCE_SUM, 0);
    p.ops[p.n - 1].aux = 96;
    assert_int_equal(run2(NULL, &p, NULL, r), 0);
    expect_ok(&p, r);
    dpf_get(got, UB[1], sizeof(got));
    for (int i = 0; i < 64; i++)
        assert_true(got[i] == 1.5f * (float)i);

    /* Into a third buffer, own first and own second: MAX of +0 and -0 is the second. */
    float zp[64], zm[64], keep[64];
    for (int i = 0; i < 64; i++)
        zp[i] = 0.0f, zm[i] = -0.0f;
    dpf_put(UB[0] + 4096, zm, sizeof(zm));
    dpf_put(UB[1] + 1024, zp, sizeof(zp));
    for (uint32_t first = 0; first < 2; first++) {
        p.n = 0;
        into_op(&p, UB[1] + 2048, A(UB[1] + 1024), HCOMM_REDUCE_MAX, first);
        assert_int_equal(run2(NULL, &p, NULL, r), 0);
        expect_ok(&p, r);
        dpf_get(got, UB[1] + 2048, sizeof(got));
        for (int i = 0; i < 64; i++)
            assert_true(signbit(got[i]) == (first ? signbit(zm[i]) : signbit(zp[i])));
        dpf_get(keep, UB[1] + 1024, sizeof(keep));
        assert_memory_equal(keep, zp, sizeof(zp));
    }
    /* In place: own is the destination, which ends as own + the peer's. */
    dpf_put(UB[0] + 4096, a, sizeof(a));
    dpf_put(UB[1] + 1024, b, sizeof(b));
    p.n = 0;
    into_op(&p, UB[1] + 1024, A(UB[1] + 1024), HCOMM_REDUCE_SUM, 0);
    assert_int_equal(run2(NULL, &p, NULL, r), 0);
    expect_ok(&p, r);
    dpf_get(got, UB[1] + 1024, sizeof(got));
    for (int i = 0; i < 64; i++)
        assert_true(got[i] == 1.5f * (float)i);

    p.n = 0;
    into_op(&p, UB[1], 0, HCOMM_REDUCE_SUM, 1);
    into_op(&p, UB[1], A(UB[1] + BUF - 8), HCOMM_REDUCE_SUM, 1);
    into_op(&p, UB[1], A(UB[1] + 4), HCOMM_REDUCE_SUM, 1);
    assert_int_equal(run2(NULL, &p, NULL, r), 0);
    assert_int_equal(r[0], HCCL_E_PTR);
    assert_int_equal(r[1], HCCL_E_PARA);
    assert_int_equal(r[2], HCCL_E_PARA);

    p.n = 0;
    chan_op(&p, DPF_READ_PUB, T[1][0], CH[1], UB[1], HB[0], 8, 0, 0, 0);
    chan_op(&p, DPF_READ_PUB, T[1][0], CH[1], UB[1], HB[1] + 4, 8, 0, 0, 0);
    chan_op(&p, DPF_READ_PUB, T[1][0], CH[1], UB[1] + BUF - 4, HB[1] + 256, 8, 0, 0, 0);
    chan_op(&p, DPF_READ_REDUCE_PUB, T[1][0], CH[1], UB[1], HB[1] + 256, 8,
            HCOMM_DATA_TYPE_FP32, 99, 0);
    assert_int_equal(run2(NULL, &p, NULL, r), 0);
    for (uint32_t i = 0; i < 4; i++)
        assert_int_equal(r[i], HCCL_E_PARA);
}

/* hcemu's own write to a published buffer: device 1 writes into device 0's user buffer at an
 * offset past the address in its own mailbox, read when the task runs, and nothing past it.
 * Refused when queued: a mailbox out of this device's memory or not 8-byte aligned, a source
 * past its allocation (HCCL_E_PARA), a NULL source (HCCL_E_PTR). A published address that is
 * not the peer's memory fails the task, with the address in its note. */
static void write_published_writes_where_the_mailbox_points(void **state)
{
    struct prog p = {.n = 0};
    int32_t r[16];
    uint64_t dst = A(UB[0] + 4000);

    (void)state;
    fill(UB[1], 5000, 43);
    zero(UB[0] + 4000, 8192);
    dpf_put(HB[1] + 256, &dst, sizeof(dst));
    chan_op(&p, DPF_WRITE_PUB, T[1][0], CH[1], HB[1] + 256, UB[1], 5000, 0, 0, 0);
    p.ops[p.n - 1].aux = 96;
    assert_int_equal(run2(NULL, &p, NULL, r), 0);
    expect_ok(&p, r);
    expect_same(UB[0] + 4096, UB[1], 5000);
    assert_int_equal(peek(UB[0] + 4092), 0);
    assert_int_equal(peek(UB[0] + 4096 + 5000), 0);

    p.n = 0;
    chan_op(&p, DPF_WRITE_PUB, T[1][0], CH[1], HB[0], UB[1], 8, 0, 0, 0);
    chan_op(&p, DPF_WRITE_PUB, T[1][0], CH[1], HB[1] + 4, UB[1], 8, 0, 0, 0);
    chan_op(&p, DPF_WRITE_PUB, T[1][0], CH[1], HB[1] + 256, UB[1] + BUF - 4, 8, 0, 0, 0);
    chan_op(&p, DPF_WRITE_PUB, T[1][0], CH[1], HB[1] + 256, NULL, 8, 0, 0, 0);
    assert_int_equal(run2(NULL, &p, NULL, r), 0);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(r[i], HCCL_E_PARA);
    assert_int_equal(r[3], HCCL_E_PTR);
}

/* Adds device 1's hcemu_reduce_spread_published as rank 1 of 2: own and mine in its user
 * buffer, rank 0's part and output `off` past the two addresses at HB[1] + 512. */
static struct dp_op *spread_op(struct prog *p, void *mine, void *own, uint64_t count, int rop,
                               uint64_t off)
{
    chan_op(p, DPF_SPREAD_PUB, T[1][0], CH[1], mine, HB[1] + 512, count, HCOMM_DATA_TYPE_FP32, rop,
            1);
    struct dp_op *o = &p->ops[p->n - 1];
    o->addrs[0] = A(own), o->aux = off, o->sizes[0] = 16;
    return o;
}

/* Puts rank 0's part (device 0, 96 bytes past where the row's first address points) and rank
 * 1's at `own`, `bytes` of FP32 each, then runs device 1's reduce-spread into `mine`. */
static void spread_run(void *mine, void *own, const void *part0, const void *part1, size_t bytes,
                       int rop)
{
    struct prog p = {.n = 0};
    int32_t r[16];

    dpf_put(UB[0] + 4096, part0, bytes);
    dpf_put(own, part1, bytes);
    spread_op(&p, mine, own, bytes / sizeof(float), rop, 96);
    assert_int_equal(run2(NULL, &p, NULL, r), 0);
    expect_ok(&p, r);
}

/* Both outputs of a reduce-spread of i and 0.25 i (1000 FP32 elements): 1.25 i. */
static void expect_spread_sums(const void *mine, const void *peer_out)
{
    static float got[1000];
    const void *at[2] = {mine, peer_out};

    for (int k = 0; k < 2; k++) {
        dpf_get(got, at[k], sizeof(got));
        for (int i = 0; i < 1000; i++)
            assert_true(got[i] == 1.25f * (float)i);
    }
}

/* hcemu's reduce-spread (device/dp/api_hcemu.c), as rank 1 of 2 on device 1: its part and
 * rank 0's, which device 0's user buffer holds where device 1's mailbox row points, reduced
 * in rank order into both outputs, the peer's too, and nothing past them; 1000 elements, so
 * three whole KiB and a tail. MAX of -0 (rank 0's) and +0 (rank 1's) is +0, the second, in
 * both outputs. In place (my part is my output, the peer's part its output), each KiB is
 * read before it is written. Refused when queued (HCCL_E_PARA): fewer than 2 ranks, a rank
 * past them, mailboxes closer than 16 bytes, a mailbox row outside this device's memory, an
 * output past its allocation, a type the reduction does not take; a NULL part HCCL_E_PTR.
 * A published address that is not another device's memory fails the task when it runs. */
static void reduce_spread_writes_every_output(void **state)
{
    struct prog p = {.n = 0};
    int32_t r[16];
    uint64_t box[2] = {A(UB[0] + 4000), A(UB[0] + 12000)};
    static float a[1000], b[1000], got[64];

    (void)state;
    for (int i = 0; i < 1000; i++)
        a[i] = (float)i, b[i] = 0.25f * (float)i;
    zero(UB[0] + 12000, 8192);
    zero(UB[1] + 8192, 8192);
    dpf_put(HB[1] + 512, box, sizeof(box));
    spread_run(UB[1] + 8192, UB[1] + 1024, a, b, sizeof(a), HCOMM_REDUCE_SUM);
    expect_spread_sums(UB[1] + 8192, UB[0] + 12096);
    assert_int_equal(peek(UB[0] + 12092), 0);
    assert_int_equal(peek(UB[0] + 12096 + sizeof(a)), 0);
    assert_int_equal(peek(UB[1] + 8192 + sizeof(a)), 0);

    float zp[64], zm[64];
    for (int i = 0; i < 64; i++)
        zp[i] = 0.0f, zm[i] = -0.0f;
    spread_run(UB[1] + 8192, UB[1] + 1024, zm, zp, sizeof(zm), HCOMM_REDUCE_MAX);
    for (int k = 0; k < 2; k++) {
        dpf_get(got, k == 0 ? UB[1] + 8192 : UB[0] + 12096, sizeof(got));
        for (int i = 0; i < 64; i++)
            assert_true(!signbit(got[i]));
    }

    box[1] = box[0]; /* in place on both ranks */
    dpf_put(HB[1] + 512, box, sizeof(box));
    spread_run(UB[1] + 1024, UB[1] + 1024, a, b, sizeof(a), HCOMM_REDUCE_SUM);
    expect_spread_sums(UB[1] + 1024, UB[0] + 4096);

    p.n = 0;
    spread_op(&p, UB[1], UB[1] + 1024, 8, HCOMM_REDUCE_SUM, 0)->sizes[1] = 1;
    spread_op(&p, UB[1], UB[1] + 1024, 8, HCOMM_REDUCE_SUM, 0)->idx = 2;
    spread_op(&p, UB[1], UB[1] + 1024, 8, HCOMM_REDUCE_SUM, 0)->sizes[0] = 8;
    spread_op(&p, UB[1], UB[1] + 1024, 8, HCOMM_REDUCE_SUM, 0)->src = A(HB[0]);
    spread_op(&p, UB[1] + BUF - 4, UB[1] + 1024, 8, HCOMM_REDUCE_SUM, 0);
    spread_op(&p, UB[1], UB[1] + 1024, 8, 99, 0);
    spread_op(&p, UB[1], NULL, 8, HCOMM_REDUCE_SUM, 0);
    assert_int_equal(run2(NULL, &p, NULL, r), 0);
    for (uint32_t i = 0; i < 6; i++)
        if (r[i] != HCCL_E_PARA)
            fail_msg("refusal %u returned %d", i, r[i]);
    assert_int_equal(r[6], HCCL_E_PTR);

    /* A published output in this device's own memory fails the task, which names it. */
    long mark = dpf_log_mark(&F);
    box[1] = A(UB[1] + 4000);
    dpf_put(HB[1] + 512, box, sizeof(box));
    p.n = 0;
    spread_op(&p, UB[1] + 8192, UB[1] + 1024, 64, HCOMM_REDUCE_SUM, 96);
    assert_int_not_equal(run2(NULL, &p, NULL, r), 0);
    assert_int_equal(dpf_log_wait(&F, mark, "rank 0's output at", 1, 20), 1);
}

/* hcemu's own wait-then-move calls (device/dp/api_hcemu.c): device 1's copy or reduction of
 * what device 0 wrote into its HCCL buffer runs only once device 0's notify came, as one
 * task; a wait with several tasks behind it on both sides goes through the job-wide run
 * queue's runners as well as the devices' own workers. A notify index past the channel's, a
 * destination past its allocation and an unknown reduction are refused when queued. */
static void wait_copy_and_wait_reduce_move_after_the_notify(void **state)
{
    float a[64], b[64], got[64];

    (void)state;
    for (int i = 0; i < 64; i++)
        a[i] = (float)i, b[i] = 0.25f * (float)i;
    for (int rep = 0; rep < 20; rep++) {
        struct prog p0 = {.n = 0}, p1 = {.n = 0};
        int32_t r0[16], r1[16];
        fill(UB[0], 4097, 7 + (uint32_t)rep);
        zero(UB[1], 8192);
        dpf_put(UB[0] + 8192, a, sizeof(a));
        dpf_put(UB[1] + 8192, b, sizeof(b));
        chan_op(&p1, DPF_WAIT_COPY, T[1][0], CH[1], UB[1], HB[1], 4097, 0, 0, 1);
        chan_op(&p1, DPF_WAIT_REDUCE, T[1][0], CH[1], UB[1] + 8192, HB[1] + 8192, 64,
                HCOMM_DATA_TYPE_FP32, HCOMM_REDUCE_SUM, 2);
        chan_op(&p1, DPF_CREC, T[1][0], CH[1], NULL, NULL, 0, 0, 0, 0); /* DONE */
        chan_op(&p0, DPF_WRITE_NOTIFY, T[0][0], CH[0], HB[1], UB[0], 4097, 0, 0, 1);
        chan_op(&p0, DPF_WRITE_NOTIFY, T[0][0], CH[0], HB[1] + 8192, UB[0] + 8192, 256, 0, 0, 2);
        chan_op(&p0, DPF_CWAIT, T[0][0], CH[0], NULL, NULL, 0, 0, 0, 0);
        assert_int_equal(run2(&p0, &p1, r0, r1), 0);
        expect_ok(&p0, r0);
        expect_ok(&p1, r1);
        expect_same(UB[1], UB[0], 4097);
        assert_int_equal(peek(UB[1] + 4097), 0);
        dpf_get(got, UB[1] + 8192, sizeof(got));
        for (int i = 0; i < 64; i++)
            assert_true(got[i] == 1.25f * (float)i);
    }

    struct prog p = {.n = 0};
    int32_t r[16];
    chan_op(&p, DPF_WAIT_COPY, T[1][0], CH[1], UB[1], HB[1], 8, 0, 0, 99);
    chan_op(&p, DPF_WAIT_COPY, T[1][0], CH[1], UB[1] + BUF - 4, HB[1], 8, 0, 0, 1);
    chan_op(&p, DPF_WAIT_REDUCE, T[1][0], CH[1], UB[1], HB[1], 8, HCOMM_DATA_TYPE_FP32, 99, 1);
    assert_int_equal(run2(NULL, &p, NULL, r), 0);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(r[i], HCCL_E_PARA);
}

/* The P2P pattern of docs/FLOW.md §6, push variant and read variant. */
static void write_with_notify_makes_data_visible_before_the_notify(void **state)
{
    (void)state;
    for (int rep = 0; rep < 20; rep++) {
        struct prog p0 = {.n = 0}, p1 = {.n = 0};
        int32_t r0[16], r1[16];
        fill(UB[0], 4097, 11 + (uint32_t)rep);
        zero(UB[1], 8192);
        chan_op(&p0, DPF_WRITE_NOTIFY, T[0][0], CH[0], HB[1], UB[0], 4097, 0, 0, 1);
        struct dp_op *o = add(&p1, DPF_CWAIT_DEF, T[1][0]);
        o->other = CH[1], o->idx = 1;
        copy_op(&p1, T[1][0], UB[1], HB[1], 4097);
        chan_op(&p1, DPF_CREC, T[1][0], CH[1], NULL, NULL, 0, 0, 0, 0); /* DONE */
        chan_op(&p0, DPF_CWAIT, T[0][0], CH[0], NULL, NULL, 0, 0, 0, 0);
        assert_int_equal(run2(&p0, &p1, r0, r1), 0);
        expect_ok(&p0, r0);
        expect_ok(&p1, r1);
        expect_same(UB[1], UB[0], 4097);
    }
}

static void read_after_ready_notify_gets_the_peer_data(void **state)
{
    struct prog p0 = {.n = 0}, p1 = {.n = 0};
    int32_t r0[16], r1[16];

    (void)state;
    fill(UB[0], 4097, 5);
    zero(UB[1], 8192);
    copy_op(&p0, T[0][0], HB[0], UB[0], 4097);                       /* stage */
    chan_op(&p0, DPF_CREC, T[0][0], CH[0], NULL, NULL, 0, 0, 0, 0);  /* READY */
    chan_op(&p0, DPF_CWAIT, T[0][0], CH[0], NULL, NULL, 0, 0, 0, 1); /* DONE */
    chan_op(&p1, DPF_CWAIT, T[1][0], CH[1], NULL, NULL, 0, 0, 0, 0);
    chan_op(&p1, DPF_READ, T[1][0], CH[1], UB[1], HB[0], 4097, 0, 0, 0);
    chan_op(&p1, DPF_CREC, T[1][0], CH[1], NULL, NULL, 0, 0, 0, 1);
    struct dp_op *o = add(&p1, DPF_CFENCE_T, T[1][0]);
    o->other = CH[1];
    o = add(&p1, DPF_DRAIN, T[1][0]);
    o->other = CH[1];
    assert_int_equal(run2(&p0, &p1, r0, r1), 0);
    expect_ok(&p0, r0);
    expect_ok(&p1, r1);
    expect_same(UB[1], UB[0], 4097);
}

static void channel_ping_pong_keeps_order_across_devices(void **state)
{
    struct prog p0 = {.n = 0}, p1 = {.n = 0};
    int32_t r0[32], r1[32];
    float one = 1.0f, z = 0.0f, got;

    (void)state;
    dpf_put(UB[0], &one, 4);
    dpf_put(UB[1], &one, 4);
    dpf_put(HB[0], &z, 4);
    /* One counter in HB[0]: rank 0 adds 1 locally, then hands over to rank 1, which adds 1
     * remotely (write-reduce) and hands back; 100 rounds give exactly 200 only in order. */
    struct dp_op *l = add(&p0, DPF_LOOP, 0);
    l->n = 100, l->idx = 3;
    struct dp_op *o = add(&p0, DPF_REDUCE, T[0][0]);
    o->dst = A(HB[0]), o->src = A(UB[0]), o->n = 1, o->dtype = HCOMM_DATA_TYPE_FP32;
    chan_op(&p0, DPF_CREC, T[0][0], CH[0], NULL, NULL, 0, 0, 0, 0);
    chan_op(&p0, DPF_CWAIT, T[0][0], CH[0], NULL, NULL, 0, 0, 0, 1);
    l = add(&p1, DPF_LOOP, 0);
    l->n = 100, l->idx = 3;
    chan_op(&p1, DPF_CWAIT, T[1][0], CH[1], NULL, NULL, 0, 0, 0, 0);
    chan_op(&p1, DPF_WRITE_REDUCE, T[1][0], CH[1], HB[0], UB[1], 1, HCOMM_DATA_TYPE_FP32, 0, 0);
    chan_op(&p1, DPF_CREC, T[1][0], CH[1], NULL, NULL, 0, 0, 0, 1);
    assert_int_equal(run2(&p0, &p1, r0, r1), 0);
    expect_ok(&p0, r0);
    expect_ok(&p1, r1);
    dpf_get(&got, HB[0], 4);
    assert_true(got == 200.0f);
}

static void batch_transfer_runs_entries_in_order_and_validates_all_first(void **state)
{
    HcommBatchTransferDesc d[4];
    struct prog p0 = {.n = 0}, p1 = {.n = 0};
    int32_t r0[16], r1[16];
    uint8_t *descs = dpf_malloc(&F, 0, 2 * sizeof(d));

    (void)state;
    fill(UB[0], 8192, 9);
    zero(HB[1], 8192);
    zero(UB[0] + 16384, 8192);
    memset(d, 0, sizeof(d));
    d[0].transType = HCOMM_TRANSFER_TYPE_WRITE;
    d[0].transferInfo.write.len = 4097, d[0].transferInfo.write.dst = HB[1];
    d[0].transferInfo.write.src = UB[0];
    d[1].transType = HCOMM_TRANSFER_TYPE_READ;
    d[1].transferInfo.read.len = 4097, d[1].transferInfo.read.dst = UB[0] + 16384;
    d[1].transferInfo.read.src = HB[1];
    d[2].transType = HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY;
    d[2].transferInfo.writeWithNotify.len = 3;
    d[2].transferInfo.writeWithNotify.dst = HB[1] + 5000;
    d[2].transferInfo.writeWithNotify.src = UB[0];
    d[2].transferInfo.writeWithNotify.notifyIdx = 1;
    d[3].transType = HCOMM_TRANSFER_TYPE_NOTIFY_RECORD;
    d[3].transferInfo.notifyRecord.notifyIdx = 2;
    dpf_put(descs, d, sizeof(d));
    struct dp_op *o = add(&p0, DPF_BATCH, T[0][0]);
    o->other = CH[0], o->aux = A(descs), o->n = 4;
    chan_op(&p1, DPF_CWAIT, T[1][0], CH[1], NULL, NULL, 0, 0, 0, 1);
    chan_op(&p1, DPF_CWAIT, T[1][0], CH[1], NULL, NULL, 0, 0, 0, 2);
    assert_int_equal(run2(&p0, &p1, r0, r1), 0);
    expect_ok(&p0, r0);
    expect_ok(&p1, r1);
    expect_same(HB[1], UB[0], 4097);
    expect_same(UB[0] + 16384, UB[0], 4097);
    expect_same(HB[1] + 5000, UB[0], 3);

    /* Entry 1 is bad: entry 0 must not run either. */
    zero(HB[1], 8192);
    d[1].transferInfo.read.src = HB[1] + BUF; /* outside the peer buffer */
    dpf_put(descs, d, sizeof(d));
    long mark = dpf_log_mark(&F);
    p0.n = 0;
    o = add(&p0, DPF_BATCH, T[0][0]);
    o->other = CH[0], o->aux = A(descs), o->n = 4;
    o = add(&p0, DPF_BATCH, T[0][0]);
    o->other = CH[0], o->null_ptr = 1, o->n = 4;
    o = add(&p0, DPF_BATCH, T[0][0]);
    o->other = CH[0], o->aux = A(descs), o->n = 0;
    assert_int_equal(run2(&p0, NULL, r0, NULL), 0);
    assert_int_equal(r0[0], HCCL_E_PARA);
    assert_int_equal(r0[1], HCCL_E_PTR);
    assert_int_equal(r0[2], HCCL_E_PARA);
    assert_int_equal(dpf_log_count(&F, mark, "refused"), 3);
    assert_int_equal(peek(HB[1]), 0);
    d[1].transType = (HcommTransferType)42;
    dpf_put(descs, d, sizeof(d));
    p0.n = 0;
    o = add(&p0, DPF_BATCH, T[0][0]);
    o->other = CH[0], o->aux = A(descs), o->n = 4;
    d[1].transType = HCOMM_TRANSFER_TYPE_NOTIFY_RECORD;
    d[1].transferInfo.notifyRecord.notifyIdx = 0xFFFFFFFFu;
    dpf_put(descs + sizeof(d), d, 2 * sizeof(d[0]));
    o = add(&p0, DPF_BATCH, T[0][0]);
    o->other = CH[0], o->aux = A(descs + sizeof(d)), o->n = 2;
    assert_int_equal(run2(&p0, NULL, r0, NULL), 0);
    assert_int_equal(r0[0], HCCL_E_NOT_SUPPORT);
    assert_int_equal(r0[1], HCCL_E_PARA);
    dpf_free(descs);
}

/* --- batch mode, timeouts, notifies ---------------------------------------------------- */

static void batch_mode_holds_tasks_until_end(void **state)
{
    struct prog p = {.n = 0};
    int32_t r[300];

    (void)state;
    fill(UB[0], 64, 0x40);
    zero(UB[0] + 4096, 64);
    add(&p, DPF_BSTART, 0)->tag[0] = 'x';
    copy_op(&p, T[0][1], UB[0] + 4096, UB[0], 64);
    add(&p, DPF_SLEEP, 0)->n = 20000;
    add(&p, DPF_PEEK, 0)->dst = A(UB[0] + 4096); /* still 0: not handed over */
    add(&p, DPF_BSTART, 0);                      /* nested: refused */
    add(&p, DPF_BEND, 0);                        /* wrong tag "": refused */
    add(&p, DPF_BEND, 0)->tag[0] = 'x';
    add(&p, DPF_JOIN, T[0][1])->timeout = 10;
    add(&p, DPF_PEEK, 0)->dst = A(UB[0] + 4096);
    add(&p, DPF_BEND, 0)->tag[0] = 'x'; /* not in batch mode: refused */
    long mark = dpf_log_mark(&F);
    assert_int_equal(run2(&p, NULL, r, NULL), 0);
    assert_int_equal(r[3], 0);
    assert_int_equal(r[4], HCCL_E_PARA);
    assert_int_equal(r[5], HCCL_E_PARA);
    assert_int_equal(r[6], 0);
    assert_int_equal(r[7], 0);
    assert_int_not_equal(r[8], 0);
    assert_int_equal(r[9], HCCL_E_PARA);
    assert_int_equal(dpf_log_count(&F, mark, "refused"), 3);

    /* 128 pending on one queue are released without End. */
    p.n = 0;
    zero(UB[0] + 4096, 64);
    add(&p, DPF_TAG_NULL, 0);
    struct dp_op *l = add(&p, DPF_LOOP, 0);
    l->n = 128, l->idx = 1;
    copy_op(&p, T[0][1], UB[0] + 4096, UB[0], 64);
    add(&p, DPF_SLEEP, 0)->n = 50000;
    add(&p, DPF_PEEK, 0)->dst = A(UB[0] + 4096);
    add(&p, DPF_BEND, 0)->null_ptr = 1;
    assert_int_equal(run2(&p, NULL, r, NULL), 0);
    assert_int_not_equal(r[4], 0);
    assert_int_equal(r[5], 0);
}

static void kernel_returning_in_batch_mode_flushes_with_a_warning(void **state)
{
    struct prog p = {.n = 0};
    int32_t r[8];
    struct dpf_run run;

    (void)state;
    fill(UB[0], 64, 0x55);
    zero(UB[0] + 4096, 64);
    long mark = dpf_log_mark(&F);
    add(&p, DPF_BSTART, 0);
    copy_op(&p, T[0][0], UB[0] + 4096, UB[0], 64);
    rec_op(&p, T[0][0], CPU_ON_AI[0], 0);
    assert_int_equal(dpf_launch(&F, 0, NULL, p.ops, p.n, &run), 0);
    assert_int_equal(HcommThreadNotifyWaitOnThread(CPU[0], 0, 10), 0);
    assert_int_equal(dpf_finish(&run, r), 0);
    expect_same(UB[0] + 4096, UB[0], 64);
    assert_int_equal(dpf_log_count(&F, mark, "returned in batch mode"), 1);
}

static void absorbed_record_is_lost_and_logged(void **state)
{
    struct prog p = {.n = 0};
    int32_t r[16];

    (void)state;
    long mark = dpf_log_mark(&F);
    rec_op(&p, T[0][1], T[0][2], 3);
    rec_op(&p, T[0][1], T[0][2], 3);
    add(&p, DPF_JOIN, T[0][1])->timeout = 10;
    wait_op(&p, T[0][2], 3, 10);
    wait_op(&p, T[0][2], 3, 1); /* the second record was absorbed: this one times out */
    struct dpf_run run;
    assert_int_equal(dpf_launch(&F, 0, NULL, p.ops, p.n, &run), 0);
    assert_int_equal(dpf_finish(&run, r), 0);
    expect_ok(&p, r);
    p.n = 0;
    add(&p, DPF_JOIN, T[0][2])->timeout = 20; /* fails: the thread failed */
    /* Join from a kernel of another stream: the failed wait was fed by a kernel of stream 0,
     * whose next synchronisation reports it (and may return before this kernel does). */
    aclrtStream other;
    assert_int_equal(aclrtSetDevice(0), 0);
    assert_int_equal(aclrtCreateStream(&other), 0);
    assert_int_equal(dpf_launch(&F, 0, other, p.ops, p.n, &run), 0);
    assert_int_equal(dpf_finish(&run, r), 0);
    assert_int_equal(r[0], HCCL_E_INTERNAL);
    assert_int_not_equal(aclrtSynchronizeStream(F.stream[0]), 0);
    assert_int_equal(aclrtSynchronizeStream(F.stream[0]), 0);
    assert_int_equal(aclrtDestroyStream(other), 0);
    assert_int_equal(dpf_log_count(&F, mark, "absorbed"), 1);
    assert_int_equal(dpf_log_count(&F, mark, "thread notify wait failed"), 1);
}

static void wait_timeout_fails_the_host_stream_that_waits_for_the_kernel(void **state)
{
    struct prog p = {.n = 0};
    int32_t r[16];
    struct dpf_run run;
    long mark = dpf_log_mark(&F);

    (void)state;
    struct dp_op *o = add(&p, DPF_SET_WAIT, 0);
    o->ftimeout = 1.9f; /* truncated to 1 s */
    add(&p, DPF_TWAIT_DEF, T[1][1])->idx = 0;
    rec_op(&p, T[1][1], CPU_ON_AI[1], 0); /* discarded when the wait times out */
    o = add(&p, DPF_SET_WAIT, 0);
    o->ftimeout = 1836.0f;
    uint64_t t0 = (uint64_t)time(NULL);
    assert_int_equal(dpf_launch(&F, 1, NULL, p.ops, p.n, &run), 0);
    assert_int_equal(HcommThreadNotifyWaitOnThread(CPU[1], 0, 60), 0);
    assert_int_not_equal(dpf_finish(&run, r), 0);
    expect_ok(&p, r);
    assert_true((uint64_t)time(NULL) - t0 < 20);
    /* The failure names the notify and the timeout (written when the deadline passes). */
    assert_int_equal(dpf_log_count(&F, mark, "notify slot"), 1);
    assert_int_equal(dpf_log_count(&F, mark, "was not recorded within 1 s (timeOut)"), 1);
    /* The host wait itself times out too (1 s) when nobody records. */
    assert_int_equal(HcommThreadNotifyWaitOnThread(CPU[1], 1, 1), 0);
    assert_int_not_equal(aclrtSynchronizeStream(F.stream[1]), 0);
    assert_int_equal(aclrtSynchronizeStream(F.stream[1]), 0); /* error cleared */
}

/* device/dp/lost_record.h: a thread that fails with a record still queued fails the wait for
 * that record at once, with its error (here a failed task), instead of leaving the waiter to
 * its own 60 s timeout; the host stream that waits for the kernel fails with it. */
static void wait_on_a_failed_threads_record_fails_with_its_error(void **state)
{
    struct prog p = {.n = 0};
    int32_t r[16];
    long mark = dpf_log_mark(&F);

    (void)state;
    wait_op(&p, T[0][1], 1, 1);      /* nobody records it: fails after 1 s */
    rec_op(&p, T[0][1], T[0][0], 2); /* discarded with it: this record never comes */
    wait_op(&p, T[0][0], 2, 60);
    assert_int_not_equal(run2(&p, NULL, r, NULL), 0);
    expect_ok(&p, r);
    /* The main thread's wait names thread 1; the host stream's wait may fail the same way
     * (naming thread 0) or be discarded first by the kernel's failure: either is right. The
     * host stream learns of thread 1's failure at once, so its synchronisation may return
     * before the main thread's wait has read the mark and written its line. */
    assert_int_equal(dpf_log_wait(&F, mark, "will never be recorded: rank 0 thread 1 ", 1, 20), 1);
    assert_int_equal(dpf_log_count(&F, mark, "within 60 s"), 0);
    assert_int_equal(dpf_log_count(&F, mark, "within 1 s"), 1);
}

/* docs/FLOW.md §2-4: host start record -> kernel waits -> works -> records host done. */
static void host_kernel_handshake_follows_the_flow(void **state)
{
    struct prog p = {.n = 0};
    int32_t r[16];
    struct dpf_run run;

    (void)state;
    fill(UB[0], 4097, 77);
    zero(UB[0] + 8192, 4097);
    assert_int_equal(HcommThreadNotifyRecordOnThread(CPU[0], T0_ON_CPU[0], 3), 0);
    add(&p, DPF_BSTART, 0);
    wait_op(&p, T[0][0], 3, 10);
    copy_op(&p, T[0][0], UB[0] + 8192, UB[0], 4097);
    rec_op(&p, T[0][0], CPU_ON_AI[0], 0);
    add(&p, DPF_BEND, 0);
    assert_int_equal(dpf_launch(&F, 0, NULL, p.ops, p.n, &run), 0);
    assert_int_equal(HcommThreadNotifyWaitOnThreadWithDefaultTimeout(CPU[0], 0), 0);
    assert_int_equal(dpf_finish(&run, r), 0);
    expect_ok(&p, r);
    expect_same(UB[0] + 8192, UB[0], 4097);
}

/* --- misc device calls ----------------------------------------------------------------- */

static void comm_lock_rejects_second_acquire(void **state)
{
    struct prog p = {.n = 0};
    int32_t r[16];

    (void)state;
    strcpy(add(&p, DPF_ACQ, 0)->tag, "commA");
    strcpy(add(&p, DPF_ACQ, 0)->tag, "commA");
    strcpy(add(&p, DPF_REL, 0)->tag, "commA");
    strcpy(add(&p, DPF_ACQ, 0)->tag, "commA");
    strcpy(add(&p, DPF_REL, 0)->tag, "commA");
    strcpy(add(&p, DPF_ACQ, 0)->tag, "nope");
    add(&p, DPF_ACQ, 0)->null_ptr = 1;
    strcpy(add(&p, DPF_REL, 0)->tag, "nope");
    assert_int_equal(dpf_run(&F, 0, p.ops, p.n, r), 0);
    assert_int_equal(r[0], 0);
    assert_int_equal(r[1], HCCL_E_UNAVAIL);
    assert_int_equal(r[2], 0);
    assert_int_equal(r[3], 0);
    assert_int_equal(r[4], 0);
    assert_int_equal(r[5], HCCL_E_PTR);
    assert_int_equal(r[6], HCCL_E_PTR);
    assert_int_equal(r[7], 0);
}

static void task_cache_replays_with_new_addresses(void **state)
{
    struct prog p = {.n = 0};
    int32_t r[16];

    (void)state;
    fill(UB[0], 256, 1);
    fill(UB[0] + 1024, 256, 2);
    zero(UB[0] + 4096, 256);
    strcpy(add(&p, DPF_C_LOOKUP, 0)->tag, "op1");
    struct dp_op *o = add(&p, DPF_C_START, 0);
    strcpy(o->tag, "op1"), o->addrs[0] = A(UB[0]), o->sizes[0] = 256, o->count = 1;
    copy_op(&p, T[0][0], UB[0] + 4096, UB[0], 256);
    strcpy(add(&p, DPF_C_END, 0)->tag, "op1");
    assert_int_equal(run2(&p, NULL, r, NULL), 0);
    expect_ok(&p, r);
    expect_same(UB[0] + 4096, UB[0], 256);

    p.n = 0;
    strcpy(add(&p, DPF_C_LOOKUP, 0)->tag, "op1");
    o = add(&p, DPF_C_EXEC, 0);
    strcpy(o->tag, "op1"), o->addrs[0] = A(UB[0] + 1024), o->sizes[0] = 256, o->count = 1;
    strcpy(add(&p, DPF_C_LOOKUP, 0)->tag, "op1");
    o = add(&p, DPF_C_EXEC, 0); /* size mismatch */
    strcpy(o->tag, "op1"), o->addrs[0] = A(UB[0] + 1024), o->sizes[0] = 128, o->count = 1;
    strcpy(add(&p, DPF_C_END, 0)->tag, "op1"); /* no recording open */
    strcpy(add(&p, DPF_C_CLEAR, 0)->tag, "op1");
    strcpy(add(&p, DPF_C_LOOKUP, 0)->tag, "op1");
    assert_int_equal(run2(&p, NULL, r, NULL), 0);
    assert_int_equal(r[0], 1000);
    assert_int_equal(r[1], 0);
    assert_int_equal(r[2], 1000);
    assert_int_equal(r[3], HCCL_E_PARA);
    assert_int_equal(r[4], HCCL_E_PARA);
    assert_int_equal(r[5], 0);
    assert_int_equal(r[6], 0); /* miss after clear */
    expect_same(UB[0] + 4096, UB[0] + 1024, 256);
}

static void host_only_and_roce_calls_are_not_supported_in_a_kernel(void **state)
{
    static const uint32_t fns[] = {DPF_WRITE_NBI_T, DPF_WRITE_NBI, DPF_READ_NBI_T, DPF_READ_NBI,
                                   DPF_WWN_NBI_T, DPF_WWN_NBI, DPF_CREC_NT, DPF_CWAIT_NT,
                                   DPF_CFENCE, DPF_FENCE_T, DPF_ACL_REC, DPF_ACL_WAIT};
    struct prog p = {.n = 0};
    int32_t r[16];

    (void)state;
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
        chan_op(&p, fns[i], T[0][0], CH[0], HB[1], UB[0], 16, 0, 0, 0);
    long mark = dpf_log_mark(&F);
    assert_int_equal(dpf_run(&F, 0, p.ops, p.n, r), 0);
    for (uint32_t i = 0; i < p.n; i++)
        assert_int_equal(r[i], HCCL_E_NOT_SUPPORT);
    assert_int_equal(dpf_log_count(&F, mark, "not supported on Atlas 350"), (int)p.n);
}

static void timeout_setters_validate_their_argument(void **state)
{
    static const float bad[] = {-1.0f, 5e9f};
    struct prog p = {.n = 0};
    int32_t r[16];

    (void)state;
    add(&p, DPF_SET_WAIT, 0)->ftimeout = NAN;
    for (int i = 0; i < 2; i++)
        add(&p, DPF_SET_RES, 0)->ftimeout = bad[i];
    add(&p, DPF_SET_RES, 0)->ftimeout = 0.0f;
    add(&p, DPF_SET_WAIT, 0)->ftimeout = 1836.5f;
    add(&p, DPF_SYNC, T[0][0]);
    long mark = dpf_log_mark(&F);
    assert_int_equal(dpf_run(&F, 0, p.ops, p.n, r), 0);
    int want[] = {HCCL_E_PARA, HCCL_E_PARA, HCCL_E_PARA, 0, 0, 0};
    for (int i = 0; i < 6; i++)
        assert_int_equal(r[i], want[i]);
    assert_int_equal(dpf_log_count(&F, mark, "refused"), 3);
}

/* The executor remembers the thread handles a kernel's calls checked (dp_check.c, per OS
 * thread). A handle used by kernels and then released is refused by the next kernels all the
 * same, as a thread and as a notify destination, while the thread acquired in its slot after
 * it (a new generation) is accepted. Several kernels each way, so the executor's workers have
 * the handle remembered whichever of them runs a kernel. */
static void a_remembered_thread_handle_is_refused_once_released(void **state)
{
    uint64_t old = dpf_thread(&F, 0, 4, 0, 9);
    int32_t r[8];

    (void)state;
    for (int i = 0; i < 4; i++) {
        struct prog p = {.n = 0};
        copy_op(&p, old, UB[0], UB[0] + 64, 4);
        rec_op(&p, T[0][0], old, 0);
        wait_op(&p, old, 0, 60);
        assert_int_equal(dpf_run(&F, 0, p.ops, p.n, r), 0);
        for (int k = 0; k < 3; k++)
            assert_int_equal(r[k], 0);
    }
    dpf_thread_release(&F, old);
    uint64_t fresh = dpf_thread(&F, 0, 4, 0, 9);
    assert_int_not_equal(fresh, old);
    assert_int_equal(fresh & EMU_HANDLE_INDEX_MASK, old & EMU_HANDLE_INDEX_MASK); /* same slot */
    long mark = dpf_log_mark(&F);
    for (int i = 0; i < 4; i++) {
        struct prog p = {.n = 0};
        copy_op(&p, old, UB[0], UB[0] + 64, 4);
        rec_op(&p, T[0][0], old, 0);
        copy_op(&p, fresh, UB[0], UB[0] + 64, 4);
        assert_int_equal(dpf_run(&F, 0, p.ops, p.n, r), 0);
        assert_int_equal(r[0], HCCL_E_PARA);
        assert_int_equal(r[1], HCCL_E_PARA);
        assert_int_equal(r[2], 0);
    }
    assert_int_equal(dpf_log_count(&F, mark, "is stale"), 8);
    dpf_thread_release(&F, fresh);
}

/* --- validation: each refusal returns the documented code and logs exactly one line -------- */

static void every_bad_argument_is_refused_with_one_line(void **state)
{
    struct prog p = {.n = 0};
    int32_t r[64];
    int want[64];
    uint32_t n = 0;
    uint64_t stale = dpf_thread(&F, 0, 1, 0, 9);

    (void)state;
    dpf_thread_release(&F, stale);
#define BAD(code) want[n++] = (code)
    copy_op(&p, 0, UB[0], UB[0] + 64, 4), BAD(HCCL_E_PTR);          /* thread 0 */
    copy_op(&p, stale, UB[0], UB[0] + 64, 4), BAD(HCCL_E_PARA);     /* stale */
    copy_op(&p, T[1][0], UB[0], UB[0] + 64, 4), BAD(HCCL_E_PARA);   /* foreign device */
    copy_op(&p, T0_ON_CPU[0], UB[0], UB[0] + 64, 4), BAD(HCCL_E_PARA); /* wrong engine */
    copy_op(&p, CH[0], UB[0], UB[0] + 64, 4), BAD(HCCL_E_PARA);     /* wrong kind */
    copy_op(&p, CPU_ON_AI[0], UB[0], UB[0] + 64, 4), BAD(HCCL_E_PARA); /* exported */
    copy_op(&p, T[0][0], NULL, UB[0], 4), BAD(HCCL_E_PTR);
    copy_op(&p, T[0][0], UB[0], NULL, 4), BAD(HCCL_E_PTR);
    copy_op(&p, T[0][0], UB[0] + BUF - 2, UB[0], 4), BAD(HCCL_E_PARA); /* past the end */
    copy_op(&p, T[0][0], UB[0], HB[1], 4), BAD(HCCL_E_PARA);       /* peer memory */
    copy_op(&p, T[0][0], UB[0], UB[0] + 2, 4), BAD(HCCL_E_PARA);   /* overlap */
    copy_op(&p, T[0][0], UB[0], (void *)0x1000, 4), BAD(HCCL_E_PARA); /* host address */
    struct dp_op *o = add(&p, DPF_REDUCE, T[0][0]);
    o->dst = A(UB[0]), o->src = A(UB[0] + 64), o->n = UINT64_MAX / 2, o->dtype = 4;
    BAD(HCCL_E_PARA); /* count overflow */
    o = add(&p, DPF_REDUCE, T[0][0]);
    o->dst = A(UB[0]), o->src = A(UB[0] + 64), o->n = 4, o->dtype = HCOMM_DATA_TYPE_INT64;
    BAD(HCCL_E_PARA); /* type not allowed locally */
    o = add(&p, DPF_REDUCE, T[0][0]);
    o->dst = A(UB[0]), o->src = A(UB[0] + 64), o->n = 4, o->dtype = 4, o->rop = 1;
    BAD(HCCL_E_PARA); /* PROD */
    o = add(&p, DPF_REDUCE, T[0][0]);
    o->dst = A(UB[0]), o->src = A(UB[0] + 64), o->n = 4, o->dtype = 99;
    BAD(HCCL_E_PARA);
    rec_op(&p, T[0][0], T[0][1], 4), BAD(HCCL_E_PARA);             /* notify index */
    rec_op(&p, T[0][0], 0, 0), BAD(HCCL_E_PTR);
    rec_op(&p, T[0][0], T0_ON_CPU[0], 0), BAD(HCCL_E_PARA);       /* engine 1 handle */
    wait_op(&p, T[0][0], 4, 1), BAD(HCCL_E_PARA);
    add(&p, DPF_TWAIT_DEF, T[0][0])->idx = 7, BAD(HCCL_E_PARA);
    chan_op(&p, DPF_WRITE, T[0][0], 0, HB[1], UB[0], 4, 0, 0, 0), BAD(HCCL_E_PTR);
    chan_op(&p, DPF_WRITE, T[0][0], T[0][1], HB[1], UB[0], 4, 0, 0, 0), BAD(HCCL_E_PARA);
    chan_op(&p, DPF_WRITE, T[0][0], CH[1], HB[1], UB[0], 4, 0, 0, 0), BAD(HCCL_E_PARA);
    chan_op(&p, DPF_WRITE, T[0][0], CH[0], HB[1] + BUF - 1, UB[0], 4, 0, 0, 0),
        BAD(HCCL_E_PARA); /* outside the peer buffer */
    chan_op(&p, DPF_WRITE, T[0][0], CH[0], UB[1], UB[0], 4, 0, 0, 0),
        BAD(HCCL_E_PARA); /* peer memory not exchanged */
    chan_op(&p, DPF_WRITE, T[0][0], CH[0], HB[1], HB[1], 4, 0, 0, 0),
        BAD(HCCL_E_PARA); /* local side is peer memory */
    chan_op(&p, DPF_READ, T[0][0], CH[0], UB[0], UB[0], 4, 0, 0, 0),
        BAD(HCCL_E_PARA); /* remote side is local memory */
    chan_op(&p, DPF_WRITE_NOTIFY, T[0][0], CH[0], HB[1], UB[0], 4, 0, 0, 3), BAD(HCCL_E_PARA);
    chan_op(&p, DPF_CREC, T[0][0], CH[0], NULL, NULL, 0, 0, 0, 3), BAD(HCCL_E_PARA);
    chan_op(&p, DPF_CWAIT, T[0][0], CH[0], NULL, NULL, 0, 0, 0, 9), BAD(HCCL_E_PARA);
    chan_op(&p, DPF_WRITE_REDUCE, T[0][0], CH[0], HB[1], UB[0], 4, HCOMM_DATA_TYPE_FP64, 0, 0),
        BAD(HCCL_E_PARA);
    chan_op(&p, DPF_READ_REDUCE, T[0][0], CH[0], UB[0], HB[1], 4, HCOMM_DATA_TYPE_UINT8, 1, 0),
        BAD(HCCL_E_PARA);
    chan_op(&p, DPF_CFENCE_T, T[0][0], 0, NULL, NULL, 0, 0, 0, 0), BAD(HCCL_E_PTR);
    add(&p, DPF_JOIN, 0), BAD(HCCL_E_PTR);
    strcpy(add(&p, DPF_C_START, 0)->tag, "never-looked-up"), BAD(HCCL_E_PARA);
    add(&p, DPF_C_LOOKUP, 0)->null_ptr = 1, BAD(HCCL_E_PTR);
#undef BAD
    long mark = dpf_log_mark(&F);
    assert_int_equal(dpf_run(&F, 0, p.ops, p.n, r), 0);
    for (uint32_t i = 0; i < n; i++)
        if (r[i] != want[i])
            fail_msg("op %u (fn %u): got %d, want %d", i, p.ops[i].fn, r[i], want[i]);
    int lines = dpf_log_count(&F, mark, "refused");
    if (lines != (int)n) {
        dpf_log_dump(&F, mark);
        fail_msg("%d refusal lines for %u refusals", lines, n);
    }
}

/* --- host (CPU_TS) side ---------------------------------------------------------------- */

static void host_calls_validate_and_refuse_device_only_ones(void **state)
{
    (void)state;
    long mark = dpf_log_mark(&F);
    assert_int_equal(HcommThreadNotifyRecordOnThread(0, T0_ON_CPU[0], 0), HCCL_E_PTR);
    assert_int_equal(HcommThreadNotifyRecordOnThread(T[0][0], T0_ON_CPU[0], 0), HCCL_E_PARA);
    assert_int_equal(HcommThreadNotifyRecordOnThread(CPU[0], T[0][0], 0), HCCL_E_PARA);
    assert_int_equal(HcommThreadNotifyRecordOnThread(CPU[0], T0_ON_CPU[0], 4), HCCL_E_PARA);
    assert_int_equal(HcommThreadNotifyWaitOnThread(CPU[0], 2, 1), HCCL_E_PARA);
    assert_int_equal(HcommThreadNotifyWaitOnThread(CPU_ON_AI[0], 0, 1), HCCL_E_PARA);
    assert_int_equal(HcommSetNotifyWaitTimeOut(-3.0f), HCCL_E_PARA);
    assert_int_equal(HcommThreadResAcquireTimeOut(5.0f), HCCL_E_NOT_SUPPORT);
    assert_int_equal(HcommLocalCopyOnThread(CPU[0], UB[0], UB[0] + 64, 4), HCCL_E_NOT_SUPPORT);
    assert_int_equal(HcommWriteNbi(CH[0], HB[1], UB[0], 4), HCCL_E_NOT_SUPPORT);
    assert_int_equal(HcommBatchModeEnd("x"), HCCL_E_PARA);
    assert_int_equal(dpf_log_count(&F, mark, "refused"), 11);
    assert_int_equal(HcommSetNotifyWaitTimeOut(5.0f), 0);
    assert_int_equal(HcommBatchModeStart("x"), 0);
    assert_int_equal(HcommBatchModeEnd("x"), 0);
    /* CPU_TS -> CPU_TS record on the host stream, then its wait: completes. */
    assert_int_equal(HcommThreadNotifyRecordOnThread(CPU[0], CPU[0], 1), 0);
    assert_int_equal(HcommThreadNotifyWaitOnThreadWithDefaultTimeout(CPU[0], 1), 0);
    assert_int_equal(aclrtSynchronizeStream(F.stream[0]), 0);
}

/* --- A2/A3 (HCEMU_SOC=Ascend910_93) ---------------------------------------------------- */

static void a3_lacks_the_a5_features_and_has_runtime_notifies(void **state)
{
    struct prog p = {.n = 0};
    int32_t r[16];
    aclrtNotify n = NULL;
    uint32_t id;

    (void)state;
    assert_int_equal(aclrtSetDevice(0), 0);
    assert_int_equal(aclrtCreateNotify(&n, 0), 0);
    assert_int_equal(aclrtGetNotifyId(n, &id), 0);
    fill(UB[0], 64, 3);
    zero(UB[0] + 4096, 64);
    chan_op(&p, DPF_WRITE_NOTIFY, T[0][0], CH[0], HB[1], UB[0], 4, 0, 0, 0);
    chan_op(&p, DPF_WRITE_REDUCE_NOTIFY, T[0][0], CH[0], HB[1], UB[0], 1, 4, 0, 0);
    chan_op(&p, DPF_CFENCE_T, T[0][0], CH[0], NULL, NULL, 0, 0, 0, 0);
    strcpy(add(&p, DPF_C_LOOKUP, 0)->tag, "t");
    add(&p, DPF_JOIN, T[0][0]);
    add(&p, DPF_SYNC, T[0][0]);
    add(&p, DPF_ACL_REC, T[0][0])->other = id;
    struct dp_op *o = add(&p, DPF_ACL_WAIT, T[0][0]);
    o->other = id, o->timeout = 10;
    copy_op(&p, T[0][0], UB[0] + 4096, UB[0], 64);
    int want[] = {5, 5, 5, 5, 5, 0, 0, 0, 0};
    assert_int_equal(run2(&p, NULL, r, NULL), 0);
    for (int i = 0; i < 9; i++)
        assert_int_equal(r[i], want[i]);
    expect_same(UB[0] + 4096, UB[0], 64);
    assert_int_equal(aclrtDestroyNotify(n), 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest a5[] = {
        cmocka_unit_test(local_copy_moves_exact_bytes),
        cmocka_unit_test(local_reduce_matches_reference_for_every_type_and_op),
        cmocka_unit_test(remote_reduces_match_reference_for_every_type_and_op),
        cmocka_unit_test(thread_notifies_order_work_across_threads),
        cmocka_unit_test(write_and_read_move_exact_bytes),
        cmocka_unit_test(read_published_reads_where_the_mailbox_points),
        cmocka_unit_test(write_published_writes_where_the_mailbox_points),
        cmocka_unit_test(reduce_spread_writes_every_output),
        cmocka_unit_test(wait_copy_and_wait_reduce_move_after_the_notify),
        cmocka_unit_test(write_with_notify_makes_data_visible_before_the_notify),
        cmocka_unit_test(read_after_ready_notify_gets_the_peer_data),
        cmocka_unit_test(channel_ping_pong_keeps_order_across_devices),
        cmocka_unit_test(batch_transfer_runs_entries_in_order_and_validates_all_first),
        cmocka_unit_test(batch_mode_holds_tasks_until_end),
        cmocka_unit_test(kernel_returning_in_batch_mode_flushes_with_a_warning),
        cmocka_unit_test(host_kernel_handshake_follows_the_flow),
        cmocka_unit_test(comm_lock_rejects_second_acquire),
        cmocka_unit_test(task_cache_replays_with_new_addresses),
        cmocka_unit_test(host_only_and_roce_calls_are_not_supported_in_a_kernel),
        cmocka_unit_test(timeout_setters_validate_their_argument),
        cmocka_unit_test(a_remembered_thread_handle_is_refused_once_released),
        cmocka_unit_test(every_bad_argument_is_refused_with_one_line),
        cmocka_unit_test(host_calls_validate_and_refuse_device_only_ones),
        cmocka_unit_test(absorbed_record_is_lost_and_logged),
        cmocka_unit_test(wait_timeout_fails_the_host_stream_that_waits_for_the_kernel),
        cmocka_unit_test(wait_on_a_failed_threads_record_fails_with_its_error),
    };
    const struct CMUnitTest a3t[] = {
        cmocka_unit_test(a3_lacks_the_a5_features_and_has_runtime_notifies),
    };

    a3 = argc > 1 && strcmp(argv[1], "a3") == 0;
    if (a3)
        return cmocka_run_group_tests_name("dataplane_a3", a3t, setup, teardown);
    return cmocka_run_group_tests_name("dataplane", a5, setup, teardown);
}
