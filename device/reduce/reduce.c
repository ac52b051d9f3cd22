/* reduce.c - the reduction engine's front: data-type tables, the per-call-site validation
 * (emu_reduce_check) and the one-time choice of a kernel set that emu_reduce() dispatches to.
 * The kernels themselves live in reduce_generic.c and reduce_{sse2,avx2,avx512}.c. */
#include "reduce.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "common/contract/settings.h"
#include "reduce_priv.h"

/* Indexed by data type value; bounds-checked before every read (the vendor library is not). */
static const struct {
    const char *name;
    uint8_t size;
} dtypes[] = {
    [EMU_DTYPE_INT8] = {"INT8", 1},       [EMU_DTYPE_INT16] = {"INT16", 2},
    [EMU_DTYPE_INT32] = {"INT32", 4},     [EMU_DTYPE_FP16] = {"FP16", 2},
    [EMU_DTYPE_FP32] = {"FP32", 4},       [EMU_DTYPE_INT64] = {"INT64", 8},
    [EMU_DTYPE_UINT64] = {"UINT64", 8},   [EMU_DTYPE_UINT8] = {"UINT8", 1},
    [EMU_DTYPE_UINT16] = {"UINT16", 2},   [EMU_DTYPE_UINT32] = {"UINT32", 4},
    [EMU_DTYPE_FP64] = {"FP64", 8},       [EMU_DTYPE_BFP16] = {"BFP16", 2},
    [EMU_DTYPE_INT128] = {"INT128", 16},  [13] = {"UNASSIGNED13", 2},
    [EMU_DTYPE_HIF8] = {"HIF8", 1},       [EMU_DTYPE_FP8E4M3] = {"FP8E4M3", 1},
    [EMU_DTYPE_FP8E5M2] = {"FP8E5M2", 1}, [EMU_DTYPE_FP8E8M0] = {"FP8E8M0", 1},
};
#define DTYPE_TABLE_LEN ((int)(sizeof(dtypes) / sizeof(dtypes[0])))

static const char *const op_names[EMU_REDUCE_OP_COUNT] = {"SUM", "PROD", "MAX", "MIN"};

size_t emu_reduce_dtype_size(int data_type)
{
    if (data_type < 0 || data_type >= DTYPE_TABLE_LEN)
        return 0;
    return dtypes[data_type].size;
}

const char *emu_reduce_dtype_name(int data_type)
{
    if (data_type == EMU_DTYPE_RESERVED)
        return "RESERVED";
    if (data_type < 0 || data_type >= DTYPE_TABLE_LEN)
        return "INVALID";
    return dtypes[data_type].name;
}

const char *emu_reduce_op_name(int reduce_op)
{
    if (reduce_op == EMU_REDUCE_OP_RESERVED)
        return "RESERVED";
    if (reduce_op < 0 || reduce_op >= EMU_REDUCE_OP_COUNT)
        return "INVALID";
    return op_names[reduce_op];
}

/* Bit i set = data type i accepted at the site (docs/DATA_PLANE.md §3, §4). */
#define DT_BIT(t) (1u << (t))
#define DT_SIGNED_AND_FLOAT                                                                    \
    (DT_BIT(EMU_DTYPE_INT8) | DT_BIT(EMU_DTYPE_INT16) | DT_BIT(EMU_DTYPE_INT32) |              \
     DT_BIT(EMU_DTYPE_FP16) | DT_BIT(EMU_DTYPE_FP32) | DT_BIT(EMU_DTYPE_BFP16))
#define DT_UNSIGNED_950                                                                        \
    (DT_BIT(EMU_DTYPE_UINT8) | DT_BIT(EMU_DTYPE_UINT16) | DT_BIT(EMU_DTYPE_UINT32))

static int site_types(enum emu_reduce_site site, uint32_t *mask)
{
    switch (site) {
    case EMU_REDUCE_LOCAL:
    case EMU_REDUCE_REMOTE_A2A3:
        *mask = DT_SIGNED_AND_FLOAT;
        return 1;
    case EMU_REDUCE_REMOTE_950:
        *mask = DT_SIGNED_AND_FLOAT | DT_UNSIGNED_950;
        return 1;
    default:
        return 0;
    }
}

emu_status emu_reduce_check(int data_type, int reduce_op, enum emu_reduce_site site)
{
    uint32_t allowed;

    if (!site_types(site, &allowed))
        return EMU_EINVAL;
    /* The range check comes first so no table is ever read with a raw vendor value. */
    if (data_type < 0 || data_type >= 32 || !(allowed & DT_BIT(data_type)))
        return EMU_EINVAL;
    /* PROD is refused on purpose: see the contract in reduce.h. */
    if (reduce_op != EMU_REDUCE_OP_SUM && reduce_op != EMU_REDUCE_OP_MAX &&
        reduce_op != EMU_REDUCE_OP_MIN)
        return EMU_EINVAL;
    return EMU_OK;
}

/* Kernel sets, best last. Filled once under `fill_once`, read-only afterwards. */
enum isa { ISA_GENERIC, ISA_SSE2, ISA_AVX2, ISA_AVX512, ISA_COUNT };
static const char *const isa_names[ISA_COUNT] = {"generic", "sse2", "avx2", "avx512"};
static struct emu_reduce_kernels sets[ISA_COUNT];
static pthread_once_t fill_once = PTHREAD_ONCE_INIT;

/* The set in use. Written by fill_sets() (under fill_once) and emu_reduce_select_isa(). */
static _Atomic(const struct emu_reduce_kernels *) active;

/* The set for operands that stream from memory (emu_reduce_kernel), written with `active`.
 * Where the best set is AVX-512 and nobody forced it, fp32 takes the AVX2 kernels there: in
 * the reduce-spread task past the cache, which reads its operands from memory on every core at
 * once, they were 7-9 % faster (2 ranks, 64 MiB allreduce: 6.7-7.0 ms against 7.3-7.5; 128
 * MiB 14.1-14.6 against 15.3-15.9; alternating runs with HCEMU_REDUCE_ISA=avx2). fp16 and
 * bf16, whose conversions are the work, keep AVX-512 (`bench_reduce` at 64 MiB: 6.2 and 5.8
 * GB/s against 5.3 and 4.7). The bytes are the same with either set. */
static _Atomic(const struct emu_reduce_kernels *) streamed;
static struct emu_reduce_kernels streamed_mix;

#if defined(__x86_64__)
/* CPUID.1:ECX.F16C, read directly: clang's __builtin_cpu_supports does not know "f16c". The
 * OS-saves-YMM check is covered by the "avx2" test next to it. */
static int has_f16c(void)
{
    unsigned a, b, c, d;

    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
}
#endif

static int isa_available(enum isa isa)
{
    switch (isa) {
    case ISA_GENERIC:
        return 1;
#if defined(__x86_64__)
    case ISA_SSE2:
        return 1; /* part of x86-64 */
    case ISA_AVX2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && has_f16c();
    case ISA_AVX512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl");
#endif
    default:
        return 0;
    }
}

static enum isa best_isa(void)
{
    enum isa best = ISA_GENERIC;

    for (int i = 0; i < ISA_COUNT; i++)
        if (isa_available((enum isa)i))
            best = (enum isa)i;
    return best;
}

/* Resolves a name ("auto" or a set) to an available set.
 * Returns EMU_OK, EMU_EINVAL (unknown name) or EMU_ENOTSUP (not on this CPU/build). */
static emu_status resolve_isa(const char *name, enum isa *out)
{
    if (strcmp(name, "auto") == 0) {
        *out = best_isa();
        return EMU_OK;
    }
    for (int i = 0; i < ISA_COUNT; i++) {
        if (strcmp(name, isa_names[i]) != 0)
            continue;
        if (!isa_available((enum isa)i))
            return EMU_ENOTSUP;
        *out = (enum isa)i;
        return EMU_OK;
    }
    return EMU_EINVAL;
}

/* The set HCEMU_REDUCE_ISA asks for, or the best one when it is unset or unusable;
 * `*named` says whether the setting chose it (a usable name other than "auto"). */
static enum isa isa_from_env(bool *named)
{
    const char *want = emu_settings_str(EMU_SET_REDUCE_ISA);
    enum isa isa = best_isa();

    *named = false;
    if (want[0] == '\0')
        return isa;
    emu_status st = resolve_isa(want, &isa);
    if (st != EMU_OK) {
        isa = best_isa();
        EMU_LOG_WARN("HCEMU_REDUCE_ISA=%s: %s; using %s (choices: auto generic sse2 avx2 "
                     "avx512)",
                     want, st == EMU_ENOTSUP ? "not supported by this CPU" : "unknown name",
                     isa_names[isa]);
        return isa;
    }
    *named = strcmp(want, "auto") != 0;
    return isa;
}

/* The streamed set that goes with `isa`; `named` when HCEMU_REDUCE_ISA or a caller chose it,
 * which the streamed set then follows too. */
static const struct emu_reduce_kernels *streamed_for(enum isa isa, bool named)
{
    if (named || isa != ISA_AVX512 || !isa_available(ISA_AVX2))
        return &sets[isa];
    streamed_mix = sets[ISA_AVX512];
    memcpy(streamed_mix.fn[EMU_DTYPE_FP32], sets[ISA_AVX2].fn[EMU_DTYPE_FP32],
           sizeof(streamed_mix.fn[EMU_DTYPE_FP32]));
    return &streamed_mix;
}

/* Puts `isa` in use, and its streamed set beside it. */
static void use_isa(enum isa isa, bool named)
{
    emu_store_release(&streamed, streamed_for(isa, named));
    /* Pairs with the acquire in kernels(): both tables are complete before either is seen,
     * and `streamed` is set whenever `active` is. */
    emu_store_release(&active, &sets[isa]);
}

static void fill_sets(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
#endif
    emu_reduce_generic_fill(&sets[ISA_GENERIC]);
#if defined(__x86_64__)
    emu_reduce_sse2_fill(&sets[ISA_SSE2]);
    emu_reduce_avx2_fill(&sets[ISA_AVX2]);
    emu_reduce_avx512_fill(&sets[ISA_AVX512]);
#endif
    bool named;
    enum isa isa = isa_from_env(&named);
    EMU_LOG_DEBUG("reduce: using the %s kernels", isa_names[isa]);
    use_isa(isa, named); /* pthread_once orders it for waiters as well */
}

static const struct emu_reduce_kernels *kernels(void)
{
    /* Pairs with the release in fill_sets() / emu_reduce_select_isa(): the table a pointer
     * names is completely filled before the pointer is seen. */
    const struct emu_reduce_kernels *k = emu_load_acquire(&active);

    if (k != NULL)
        return k;
    pthread_once(&fill_once, fill_sets);
    return emu_load_acquire(&active);
}

emu_status emu_reduce_select_isa(const char *name)
{
    enum isa isa;
    bool named;

    pthread_once(&fill_once, fill_sets);
    if (name == NULL) {
        isa = isa_from_env(&named);
    } else {
        emu_status st = resolve_isa(name, &isa);
        if (st != EMU_OK)
            return st;
        named = strcmp(name, "auto") != 0;
    }
    use_isa(isa, named);
    return EMU_OK;
}

const char *emu_reduce_isa_name(void)
{
    return kernels()->name;
}

/* Whether emu_reduce*() can compute the pair; logs the refusal (dst left unchanged; NULL:
 * a kernel was asked for). */
static bool computable(const void *dst, int data_type, int reduce_op)
{
    if (data_type >= 0 && data_type < EMU_REDUCE_DTYPE_COUNT && reduce_op >= 0 &&
        reduce_op < EMU_REDUCE_OP_COUNT)
        return true;
    if (dst == NULL)
        EMU_LOG_ERR("reduce: data type %d (%s) / op %d (%s) cannot be computed; no kernel",
                    data_type, emu_reduce_dtype_name(data_type), reduce_op,
                    emu_reduce_op_name(reduce_op));
    else
        EMU_LOG_ERR("reduce: data type %d (%s) / op %d (%s) cannot be computed; dst %p left "
                    "unchanged",
                    data_type, emu_reduce_dtype_name(data_type), reduce_op,
                    emu_reduce_op_name(reduce_op), dst);
    return false;
}

void emu_reduce(void *dst, const void *src, uint64_t count, int data_type, int reduce_op)
{
    if (computable(dst, data_type, reduce_op) && count > 0)
        kernels()->fn[data_type][reduce_op](dst, dst, src, count);
}

void emu_reduce_into(void *dst, const void *a, const void *b, uint64_t count, int data_type,
                     int reduce_op)
{
    if (computable(dst, data_type, reduce_op) && count > 0)
        kernels()->fn[data_type][reduce_op](dst, a, b, count);
}

/* The streamed set, selected with `active` (kernels() makes sure of that). */
static const struct emu_reduce_kernels *streamed_kernels(void)
{
    (void)kernels();
    return emu_load_acquire(&streamed);
}

emu_reduce_kernel_fn emu_reduce_kernel(int data_type, int reduce_op, bool streamed)
{
    if (!computable(NULL, data_type, reduce_op))
        return NULL;
    return (streamed ? streamed_kernels() : kernels())->fn[data_type][reduce_op];
}
