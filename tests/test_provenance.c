/* test_provenance.c - provenance (include/hcemu_provenance.h, HCEMU_PROVENANCE, hccl_test -c 2)
 * as a user meets it:
 *   - the API's refusals, and its reading of outputs built on host memory: a block in the
 *     wrong slot, a never-written block and a block summed twice, for every data type;
 *   - the kernels of tests/kernels/prov_bugs.c run by test_prov_host, as rank threads and as
 *     processes: the report names the planted wrong block and the block reduced twice, and the
 *     kernel source line that last wrote each; the correct kernels report nothing;
 *   - every hccl_test tool with -c 2: clean runs succeed for every data type, and under
 *     HCEMU_FAULT=transfer-corrupt the check fails and names the corrupted range and its last
 *     writer, at 2 and 8 ranks.
 * Every program runs under `timeout` in this test's private job parent. */
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include <hcemu_provenance.h>

#include "rt_support.h"

#ifndef PROV_HOST
#error "build with -DPROV_HOST=<test_prov_host> -DPROV_BIN_DIR=<tools> -DPROV_KERNEL_SRC=<file>"
#endif

#define OUT_MAX (1u << 20)

static char parent[RT_PATH];

struct out {
    char *text; /* stdout and stderr */
    int status; /* exit code, 128 when killed */
};

/* Runs `env... cmd` (a shell command line) with a deadline; output into *o (free o->text). */
static void run(struct out *o, const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    size_t len = 0, got;

    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof(cmd) - 32);
    strcat(cmd, " 2>&1");
    o->text = calloc(1, OUT_MAX + 1);
    assert_non_null(o->text);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    while (len < OUT_MAX && (got = fread(o->text + len, 1, OUT_MAX - len, f)) > 0)
        len += got;
    int st = pclose(f);
    o->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Whether some line of the output matches the extended regular expression. */
static bool has(const struct out *o, const char *re, ...)
{
    char pat[1024];
    va_list ap;
    regex_t rx;

    va_start(ap, re);
    vsnprintf(pat, sizeof(pat), re, ap);
    va_end(ap);
    assert_int_equal(regcomp(&rx, pat, REG_EXTENDED | REG_NEWLINE | REG_NOSUB), 0);
    bool hit = regexec(&rx, o->text, 0, NULL, 0) == 0;
    regfree(&rx);
    if (!hit)
        fprintf(stderr, "no line matches: %s\n--- output:\n%.6000s\n", pat, o->text);
    return hit;
}

/* The line after the one of prov_bugs.c that contains `marker`: the planted call. */
static int bug_line(const char *marker)
{
    char line[512];
    int n = 0;
    FILE *f = fopen(PROV_KERNEL_SRC, "r");

    assert_non_null(f);
    while (fgets(line, sizeof(line), f) != NULL) {
        n++;
        if (strstr(line, marker) != NULL) {
            fclose(f);
            return n + 1;
        }
    }
    fclose(f);
    fail_msg("no \"%s\" in %s", marker, PROV_KERNEL_SRC);
    return 0;
}

static int setup(void **state)
{
    (void)state;
    return rt_job_parent_make(parent, sizeof(parent));
}

static int teardown(void **state)
{
    (void)state;
    return rt_job_parent_finish(parent);
}

/* ---- the API on host memory ------------------------------------------------------------- */

static void api_refuses_bad_arguments(void **state)
{
    (void)state;
    uint32_t buf[64];
    uint64_t wrong = 7;
    hcemuProvSpec ok = {HCCL_DATA_TYPE_FP32, HCCL_REDUCE_RESERVED, 4, 1};
    hcemuProvSpec bad = ok;
    hcemuProvRange r = {.outElem = 60, .count = 8, .kind = hcemuProvCopy};

    assert_int_equal(hcemuProvenanceFill(buf, 64, NULL, 0, 0), HCCL_E_PTR);
    assert_int_equal(hcemuProvenanceFill(NULL, 64, &ok, 0, 0), HCCL_E_PTR);
    assert_int_equal(hcemuProvenanceFill(buf, 0, &ok, 0, 0), HCCL_E_PARA);
    assert_int_equal(hcemuProvenanceFill(buf, 64, &ok, 4, 0), HCCL_E_PARA);
    bad.rank = 4;
    assert_int_equal(hcemuProvenanceFill(buf, 64, &bad, 0, 0), HCCL_E_PARA);
    bad = ok, bad.nRanks = 0;
    assert_int_equal(hcemuProvenanceFill(buf, 64, &bad, 0, 0), HCCL_E_PARA);
    bad = ok, bad.dataType = HCCL_DATA_TYPE_INT128;
    assert_int_equal(hcemuProvenanceFill(buf, 16, &bad, 0, 0), HCCL_E_NOT_SUPPORT);
    assert_int_equal(hcemuProvenancePoison(buf, 64, HCCL_DATA_TYPE_FP8E4M3), HCCL_E_NOT_SUPPORT);
    assert_int_equal(hcemuProvenanceCheck(buf, 64, &ok, &r, 1, &wrong, NULL, 0), HCCL_E_PARA);
    r.outElem = 0, r.kind = hcemuProvReduce; /* a reduction of data that was only moved */
    assert_int_equal(hcemuProvenanceCheck(buf, 64, &ok, &r, 1, &wrong, NULL, 0), HCCL_E_PARA);
    assert_int_equal(hcemuProvenanceCheck(buf, 64, &ok, NULL, 1, &wrong, NULL, 0), HCCL_E_PTR);
    assert_int_equal(wrong, 7); /* untouched by a refused call */
}

static const HcclDataType all_types[] = {
    HCCL_DATA_TYPE_INT8,  HCCL_DATA_TYPE_UINT8,  HCCL_DATA_TYPE_INT16, HCCL_DATA_TYPE_UINT16,
    HCCL_DATA_TYPE_INT32, HCCL_DATA_TYPE_UINT32, HCCL_DATA_TYPE_INT64, HCCL_DATA_TYPE_UINT64,
    HCCL_DATA_TYPE_FP16,  HCCL_DATA_TYPE_BFP16,  HCCL_DATA_TYPE_FP32,  HCCL_DATA_TYPE_FP64,
};
static const size_t type_sizes[] = {1, 1, 2, 2, 4, 4, 8, 8, 2, 2, 4, 8};

/* An allgather output of n blocks of 64 elements on host memory, built wrong: block 1 holds
 * rank 2's input (rank 0's at two ranks), block 2 was never written. */
static void api_names_moved_blocks_every_type(void **state)
{
    (void)state;
    static uint8_t out[8 * 64 * 8];
    static hcemuProvRange L[8];
    char rep[4096];
    uint64_t wrong;

    for (size_t t = 0; t < sizeof(all_types) / sizeof(all_types[0]); t++)
        for (uint32_t n = 2; n <= 8; n += 6) {
            hcemuProvSpec sp = {all_types[t], HCCL_REDUCE_RESERVED, n, 0};
            size_t esz = type_sizes[t];
            assert_int_equal(hcemuProvenancePoison(out, n * 64, sp.dataType), HCCL_SUCCESS);
            uint32_t from = n > 2 ? 2 : 0;
            for (uint32_t k = 0; k < n; k++) {
                sp.rank = k == 1 ? from : k;
                L[k] = (hcemuProvRange){.outElem = k * 64, .count = 64, .kind = hcemuProvCopy,
                                        .rank = k};
                if (k != 2)
                    assert_int_equal(hcemuProvenanceFill(out + k * 64 * esz, 64, &sp, 0, 0),
                                     HCCL_SUCCESS);
            }
            sp.rank = 0;
            assert_int_equal(hcemuProvenanceCheck(out, n * 64, &sp, L, n, &wrong, rep,
                                                  sizeof(rep)),
                             HCCL_SUCCESS);
            struct out o = {.text = rep};
            assert_int_equal(wrong, n > 2 ? 128 : 64);
            assert_true(has(&o, "^provenance: rank 0's output elements 64\\.\\.127: hold rank %u's "
                                "input element 0\\.\\.63; should hold rank 1's input element "
                                "0\\.\\.63; last writer unknown: the output is host memory$",
                            from));
            if (n > 2)
                assert_true(has(&o, "^provenance: rank 0's output elements 128\\.\\.191: never "
                                    "written \\(still the poison\\); should hold rank 2's"));
        }
}

/* A sum over n ranks with the first half of rank n-1's block added twice, for the types a
 * host adds exactly (fp32, int32, fp64); the device's own reductions of every type are
 * checked through the tools below. */
static void api_names_a_block_summed_twice(void **state)
{
    (void)state;
    static const HcclDataType types[] = {HCCL_DATA_TYPE_FP32, HCCL_DATA_TYPE_INT32,
                                         HCCL_DATA_TYPE_FP64};
    char rep[4096];
    uint64_t wrong;

    for (size_t t = 0; t < 3; t++)
        for (uint32_t n = 2; n <= 8; n += 6) {
            hcemuProvSpec sp = {types[t], HCCL_REDUCE_SUM, n, 0};
            double acc[32] = {0};
            union { float f[32]; int32_t i[32]; double d[32]; } in, out;
            for (uint32_t r = 0; r < n; r++) {
                sp.rank = r;
                assert_int_equal(hcemuProvenanceFill(&in, 32, &sp, 0, 0), HCCL_SUCCESS);
                for (int e = 0; e < 32; e++) {
                    double v = t == 0 ? in.f[e] : t == 1 ? in.i[e] : in.d[e];
                    acc[e] += v * (r == n - 1 && e < 16 ? 2 : 1);
                }
            }
            for (int e = 0; e < 32; e++) {
                if (t == 0)
                    out.f[e] = (float)acc[e];
                else if (t == 1)
                    out.i[e] = (int32_t)acc[e];
                else
                    out.d[e] = acc[e];
            }
            hcemuProvRange L = {.count = 32, .kind = hcemuProvReduce};
            sp.rank = 0;
            assert_int_equal(hcemuProvenanceCheck(&out, 32, &sp, &L, 1, &wrong, rep, sizeof(rep)),
                             HCCL_SUCCESS);
            struct out o = {.text = rep};
            assert_int_equal(wrong, 16);
            assert_true(has(&o, "^provenance: rank 0's output elements 0\\.\\.15: hold a sum of "
                                "ranks %s; should hold the sum of ranks %s at input element "
                                "0\\.\\.15;",
                            n == 2 ? "0,1,1" : "0,1,2,3,4,5,6,7,7", n == 2 ? "0,1" : "0\\.\\.7"));
        }
}

/* A max over 4 ranks (fp32) whose first 16 elements are rank 1's input alone, and a product
 * whose first 8 elements count the factor 2 twice: the values name the rank they belong to. */
static void api_names_max_and_product_values(void **state)
{
    (void)state;
    float in[4][32], out[32];
    char rep[4096];
    uint64_t wrong;
    hcemuProvRange L = {.count = 32, .kind = hcemuProvReduce};
    struct out o = {.text = rep};

    for (int op = HCCL_REDUCE_PROD; op <= HCCL_REDUCE_MAX; op++) {
        hcemuProvSpec sp = {HCCL_DATA_TYPE_FP32, (HcclReduceOp)op, 4, 0};
        for (uint32_t r = 0; r < 4; r++) {
            sp.rank = r;
            assert_int_equal(hcemuProvenanceFill(in[r], 32, &sp, 0, 0), HCCL_SUCCESS);
        }
        for (int e = 0; e < 32; e++) {
            out[e] = op == HCCL_REDUCE_MAX ? in[0][e] : 1;
            for (uint32_t r = op == HCCL_REDUCE_MAX; r < 4; r++)
                out[e] = op == HCCL_REDUCE_MAX ? (in[r][e] > out[e] ? in[r][e] : out[e])
                                               : out[e] * in[r][e];
            if (op == HCCL_REDUCE_MAX && e < 16)
                out[e] = in[1][e];
            else if (op == HCCL_REDUCE_PROD && e < 8)
                out[e] *= 2;
        }
        sp.rank = 0;
        assert_int_equal(hcemuProvenanceCheck(out, 32, &sp, &L, 1, &wrong, rep, sizeof(rep)),
                         HCCL_SUCCESS);
        if (op == HCCL_REDUCE_MAX) {
            /* rank 1 holds the max (4) at elements 2, 6, 10, 14: those are right */
            assert_int_equal(wrong, 12);
            assert_true(has(&o, "^provenance: rank 0's output elements 0\\.\\.1: hold rank 1's "
                                "value \\(2\\); should hold the max of ranks 0\\.\\.3 at input "
                                "element 0\\.\\.1;"));
            assert_true(has(&o, "^provenance: rank 0's output element 15: holds rank 1's value"));
        } else {
            assert_int_equal(wrong, 8);
            assert_true(has(&o, "^provenance: rank 0's output elements 0\\.\\.7: hold a product "
                                "counting each element's factor 2 \\(rank e mod 4's\\) 2 "
                                "time\\(s\\); should hold the "
                                "product of ranks 0\\.\\.3"));
        }
    }
}

/* ---- planted bugs in a kernel ------------------------------------------------------------- */

/* test_prov_host with PROV_CASE=kcase on n ranks, as threads or (procs) under hcemu-run, with
 * HCEMU_PROVENANCE=prov. */
static void run_host_with(struct out *o, const char *kcase, uint32_t n, bool procs, int prov)
{
    if (procs)
        run(o, "HCEMU_PROVENANCE=%d PROV_CASE=%s HCEMU_LOG_LEVEL=error timeout 240 %s/hcemu-run "
               "-n %u -- %s --bytes 1K --iters 2", prov, kcase, PROV_BIN_DIR, n, PROV_HOST);
    else
        run(o, "HCEMU_PROVENANCE=%d PROV_CASE=%s HCEMU_LOG_LEVEL=error timeout 240 %s --ranks %u "
               "--bytes 1K --iters 2", prov, kcase, PROV_HOST, n);
}

static void run_host(struct out *o, const char *kcase, uint32_t n, bool procs)
{
    run_host_with(o, kcase, n, procs, 1);
}

static void wrong_slot(uint32_t n, bool procs)
{
    struct out o;
    int line = bug_line("the planted bug: rank 1's block");

    run_host(&o, "prov_wrong_slot", n, procs);
    assert_int_not_equal(o.status, 0);
    for (uint32_t r = 0; r < n; r++) {
        /* rank 1's block went to slot 2 (slot 0 at two ranks); slot 1 stayed the poison */
        assert_true(has(&o, "provenance: rank %u's output elements %s: hold rank 1's input "
                            "element 0\\.\\.255; should hold rank %u's input element 0\\.\\.255; "
                            "last written by rank %u thread 0, task [0-9]+ of device %u \\(local "
                            "copy\\), at gather \\(prov_bugs\\.c:%d\\)",
                        r, n > 2 ? "512\\.\\.767" : "0\\.\\.255", n > 2 ? 2u : 0u, r, r, line));
        assert_true(has(&o, "provenance: rank %u's output elements 256\\.\\.511: never written "
                            "\\(still the poison\\); should hold rank 1's input element "
                            "0\\.\\.255; no data-plane write into it recorded since the poison",
                        r));
    }
    free(o.text);
}

static void double_reduce(uint32_t n, bool procs)
{
    struct out o;
    int line = bug_line("the planted bug: half of the last block");
    char who[64] = "";

    for (uint32_t r = 0; r < n; r++)
        snprintf(who + strlen(who), sizeof(who) - strlen(who), "%u,", r);
    run_host(&o, "prov_double_reduce", n, procs);
    assert_int_not_equal(o.status, 0);
    for (uint32_t r = 0; r < n; r++)
        assert_true(has(&o, "provenance: rank %u's output elements 0\\.\\.127: hold a sum of ranks "
                            "%s%u; should hold the sum of ranks %s at input element 0\\.\\.127; "
                            "last written by rank %u thread 0, task [0-9]+ of device %u \\(local "
                            "reduce\\), at sum \\(prov_bugs\\.c:%d\\)",
                        r, who, n - 1, n == 2 ? "0,1" : "0\\.\\.7", r, r, line));
    free(o.text);
}

static void wrong_slot_threads(void **state)
{
    (void)state;
    wrong_slot(3, false);
    wrong_slot(8, false);
}

static void wrong_slot_procs(void **state)
{
    (void)state;
    wrong_slot(2, true);
}

static void double_reduce_threads(void **state)
{
    (void)state;
    double_reduce(2, false);
    double_reduce(8, false);
}

static void double_reduce_procs(void **state)
{
    (void)state;
    double_reduce(8, true);
}

/* Without HCEMU_PROVENANCE the executors record nothing: the ranges are still named, their
 * writer is not. */
static void last_writer_needs_the_setting(void **state)
{
    (void)state;
    struct out o;

    run_host_with(&o, "prov_wrong_slot", 2, false, 0);
    assert_int_not_equal(o.status, 0);
    assert_true(has(&o, "provenance: rank 1's output elements 0\\.\\.255: hold rank 1's input "
                        "element 0\\.\\.255; should hold rank 0's input element 0\\.\\.255; "
                        "last writer unknown: run with HCEMU_PROVENANCE=1 to have it named"));
    assert_null(strstr(o.text, "last written by"));
    free(o.text);
}

static void correct_kernels_report_nothing(void **state)
{
    (void)state;
    static const char *const cases[] = {"prov_gather_ok", "prov_reduce_ok"};
    struct out o;

    for (int c = 0; c < 2; c++) {
        run_host(&o, cases[c], 3, false);
        assert_int_equal(o.status, 0);
        for (uint32_t r = 0; r < 3; r++)
            assert_true(has(&o, "^PROV rank %u: 0 wrong \\(status 0\\)$", r));
        assert_null(strstr(o.text, "provenance:"));
        free(o.text);
    }
}

/* ---- the built-in collectives: hccl_test -c 2 ---------------------------------------------- */

static const char *const tools[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                    "reduce",     "alltoall",   "alltoallv",      "scatter",
                                    "send_recv"};

static void tools_clean_every_type(void **state)
{
    (void)state;
    static const char *const types[] = {"int8", "uint8", "int16", "uint16", "int32", "uint32",
                                        "int64", "uint64", "fp16", "bf16", "fp32", "fp64"};
    static const char *const ops[] = {"sum", "prod", "max", "min"};
    struct out o;

    for (size_t t = 0; t < sizeof(tools) / sizeof(tools[0]); t++)
        for (size_t d = 0; d < sizeof(types) / sizeof(types[0]); d++) {
            run(&o, "HCEMU_LOG_LEVEL=error timeout 120 %s/%s_test -t 3 -b 1K -e 1K -n 1 -w 0 "
                    "-c 2 -d %s -o %s", PROV_BIN_DIR, tools[t], types[d], ops[(t + d) % 4]);
            assert_int_equal(o.status, 0);
            assert_true(has(&o, "^1024 .*\\| success$"));
            free(o.text);
        }
}

/* One byte of the first data transfer of the sending rank is flipped: rank 1's transfer n
 * (its first n-1 are the barrier before the timed call); broadcast and scatter send from the
 * root, whose check call comes after the timed one. */
static void corrupt(uint32_t n, bool procs)
{
    struct out o;

    for (size_t t = 0; t < sizeof(tools) / sizeof(tools[0]); t++) {
        bool from_root = strcmp(tools[t], "broadcast") == 0 || strcmp(tools[t], "scatter") == 0;
        uint32_t nth = strcmp(tools[t], "broadcast") == 0 ? 2 * n - 1 : n;
        char launch[512], threads[16] = "";
        snprintf(launch, sizeof(launch), procs ? "%s/hcemu-run -n %u --" : "", PROV_BIN_DIR, n);
        if (!procs)
            snprintf(threads, sizeof(threads), "-t %u", n);
        run(&o, "HCEMU_LOG_LEVEL=error HCCL_BUFFSIZE=1 HCEMU_FAULT=transfer-corrupt:rank=%u,"
                "nth=%u timeout 240 %s %s/%s_test %s -b 4K -e 4K -n 1 -w 0 -c 2",
            from_root ? 0u : 1u, nth, launch, PROV_BIN_DIR, tools[t], threads);
        assert_int_not_equal(o.status, 0);
        assert_true(has(&o, "transfer-corrupt\\): byte [0-9]+ of [0-9]+ flipped"));
        /* As processes, hcemu-run may stop rank 0 before it prints its row: rank 1 fails. */
        assert_true(has(&o, procs ? "4096 .*\\| failed$|rank 1 exited with status 1"
                                  : "4096 .*\\| failed$"));
        assert_true(has(&o, "provenance: rank [0-9]+'s output elements? [0-9.]+: holds? .*; "
                            "should hold .*; last written by rank [0-9]+ thread [0-9]+, task "
                            "[0-9]+ of device [0-9]+ \\(.*\\), at .*\\(coll_kernel\\.c:[0-9]+\\)"));
        free(o.text);
    }
}

static void tools_corrupt_threads(void **state)
{
    (void)state;
    corrupt(2, false);
    corrupt(8, false);
}

static void tools_corrupt_procs(void **state)
{
    (void)state;
    corrupt(2, true);
}

/* HCEMU_PROVENANCE=1 alone makes a tool check with provenance (-c 1, the default, becomes 2). */
static void setting_turns_the_tools_check_into_provenance(void **state)
{
    (void)state;
    struct out o;

    run(&o, "HCEMU_PROVENANCE=1 HCEMU_LOG_LEVEL=error HCCL_BUFFSIZE=1 "
            "HCEMU_FAULT=transfer-corrupt:rank=1,nth=2 timeout 120 %s/all_gather_test -t 2 -b 4K "
            "-e 4K -n 1 -w 0", PROV_BIN_DIR);
    assert_int_not_equal(o.status, 0);
    assert_true(
        has(&o, "provenance: rank [01]'s output elements? [0-9.]+: holds? .*last written by"));
    free(o.text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(api_refuses_bad_arguments),
        cmocka_unit_test(api_names_moved_blocks_every_type),
        cmocka_unit_test(api_names_a_block_summed_twice),
        cmocka_unit_test(api_names_max_and_product_values),
        cmocka_unit_test(wrong_slot_threads),
        cmocka_unit_test(wrong_slot_procs),
        cmocka_unit_test(double_reduce_threads),
        cmocka_unit_test(double_reduce_procs),
        cmocka_unit_test(last_writer_needs_the_setting),
        cmocka_unit_test(correct_kernels_report_nothing),
        cmocka_unit_test(tools_clean_every_type),
        cmocka_unit_test(tools_corrupt_threads),
        cmocka_unit_test(tools_corrupt_procs),
        cmocka_unit_test(setting_turns_the_tools_check_into_provenance),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
