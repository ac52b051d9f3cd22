/* test_hccl_test.c - the hccl_test-compatible tools (tools/hccl_test) as a user runs them:
 * the sizes a sweep visits (-b/-e with K/M suffixes, -i, -f winning over -i, the default step
 * (max-min)/10), the exact output (minbytes line, header, row layout, NULL without a check),
 * -c 1 verdicts for every reduce op, -r root, -p/-t rank threads, -B 1's bus bandwidth and
 * refused options. Each case runs a tool (rank threads) and reads its stdout. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <setjmp.h>
#include <cmocka.h>

#ifndef HT_BIN_DIR
#error "build with -DHT_BIN_DIR=<folder of the tools>"
#endif

#define MAX_LINES 64
#define HEADER "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:"

struct out {
    char line[MAX_LINES][256];
    int n;
    int status; /* exit code */
};

/* Runs `tool args` with the tools' usual quiet environment; stdout lines into *o. */
static void run(struct out *o, const char *tool, const char *args)
{
    char cmd[1024];
    FILE *f;

    snprintf(cmd, sizeof(cmd), "HCEMU_LOG_LEVEL=error %s/%s %s 2>/dev/null", HT_BIN_DIR, tool,
             args);
    memset(o, 0, sizeof(*o));
    f = popen(cmd, "r");
    assert_non_null(f);
    while (o->n < MAX_LINES && fgets(o->line[o->n], sizeof(o->line[0]), f) != NULL) {
        o->line[o->n][strcspn(o->line[o->n], "\n")] = '\0';
        o->n++;
    }
    int st = pclose(f);
    o->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Row i (after the two heading lines): its data size, and its verdict in *res. */
static unsigned long long row(const struct out *o, int i, const char **res)
{
    const char *l = o->line[2 + i];
    const char *bar = strrchr(l, '|');

    *res = bar != NULL ? bar + 2 : "";
    return strtoull(l, NULL, 10);
}

static void expect_sizes(const struct out *o, const unsigned long long *sizes, int n,
                         const char *verdict)
{
    const char *res;

    assert_int_equal(o->status, 0);
    assert_int_equal(o->n, 2 + n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(row(o, i, &res), sizes[i]);
        assert_string_equal(res, verdict);
    }
}

/* The layout hccl_test prints: "%-17llu | %-14.2f | %-20.5f | %s". */
static void expect_layout(const char *l, unsigned long long bytes, const char *verdict)
{
    char head[32];
    double us = 0, bw = 0;

    snprintf(head, sizeof(head), "%-17llu | ", bytes);
    assert_memory_equal(l, head, strlen(head));
    assert_int_equal(sscanf(l + 20, "%lf", &us), 1);
    assert_memory_equal(l + 34, " | ", 3);
    assert_int_equal(sscanf(l + 37, "%lf", &bw), 1);
    assert_memory_equal(l + 57, " | ", 3);
    assert_string_equal(l + 60, verdict);
    assert_true(us > 0);
    /* two decimals for the time, five for the bandwidth */
    assert_true(l[20 + strcspn(l + 20, ".") + 3] == ' ');
    assert_true(l[37 + strcspn(l + 37, ".") + 6] == ' ');
}

static void step_bytes_and_layout(void **state)
{
    static const unsigned long long sizes[] = {1024, 1536, 2048};
    struct out o;

    (void)state;
    run(&o, "all_reduce_test", "-t 2 -b 1K -e 2K -i 512 -n 1 -w 0 -c 0");
    assert_string_equal(o.line[0],
                        "the minbytes is 1024, maxbytes is 2048, iters is 1, warmup_iters is 0");
    assert_string_equal(o.line[1], HEADER);
    expect_sizes(&o, sizes, 3, "NULL");
    for (int i = 0; i < 3; i++)
        expect_layout(o.line[2 + i], sizes[i], "NULL");
}

static void factor_wins_over_step(void **state)
{
    static const unsigned long long sizes[] = {1024, 4096, 16384, 65536, 262144, 1048576};
    struct out o;

    (void)state;
    run(&o, "all_gather_test", "-p 2 -b 1k -e 1M -f 4 -i 512 -n 1 -w 0 -c 1");
    expect_sizes(&o, sizes, 6, "success");
}

static void default_step_is_a_tenth(void **state)
{
    unsigned long long sizes[11];
    struct out o;

    (void)state;
    for (int i = 0; i < 11; i++)
        sizes[i] = 1000 + 100 * (unsigned long long)i;
    run(&o, "reduce_scatter_test", "-t 2 -b 1000 -e 2000 -n 1 -w 0 -d int32 -o min");
    expect_sizes(&o, sizes, 11, "success");
}

/* -c 1: every input element 2; sum 2N, prod 2^N, max and min 2 (every type, each op on
 * three of them; the reducing tools). */
static void check_every_type_and_op(void **state)
{
    static const char *const ops[] = {"sum", "prod", "max", "min"};
    static const char *const types[] = {"int8",   "int16", "int32", "int64", "uint8", "uint16",
                                        "uint32", "uint64", "fp16", "bfp16", "fp32",  "fp64"};
    static const char *const tools[] = {"all_reduce_test", "reduce_test", "reduce_scatter_test"};
    static const unsigned long long sizes[] = {96, 6144};
    char args[256];
    struct out o;

    (void)state;
    for (int t = 0; t < 12; t++) {
        snprintf(args, sizeof(args), "-t 3 -b 96 -e 6K -f 64 -n 1 -w 1 -c 1 -r 1 -d %s -o %s",
                 types[t], ops[t % 4]);
        run(&o, tools[t % 3], args);
        expect_sizes(&o, sizes, 2, "success");
    }
}

static void root_option(void **state)
{
    static const unsigned long long sizes[] = {96};
    static const char *const tools[] = {"broadcast_test", "reduce_test", "scatter_test"};
    struct out o;

    (void)state;
    for (int i = 0; i < 3; i++) {
        run(&o, tools[i], "-t 3 -r 2 -b 96 -e 96 -n 2 -w 1 -d int16 -o max");
        expect_sizes(&o, sizes, 1, "success");
    }
}

/* -B 1: one more column, busbw = algbw * 2(n-1)/n for allreduce. */
static void busbw_column(void **state)
{
    double alg = 0, bus = 0;
    unsigned long long bytes = 0;
    char res[16] = "";
    struct out o;

    (void)state;
    run(&o, "all_reduce_test", "-t 4 -b 1M -e 1M -n 2 -w 1 -B 1");
    assert_int_equal(o.status, 0);
    assert_int_equal(o.n, 3);
    assert_string_equal(o.line[1], "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | "
                                   "bus_bandwidth(GB/s): | check_result:");
    assert_int_equal(sscanf(o.line[2], "%llu | %*f | %lf | %lf | %15s", &bytes, &alg, &bus, res),
                     4);
    assert_int_equal(bytes, 1048576);
    assert_string_equal(res, "success");
    assert_true(bus > alg * 1.5 * 0.999 && bus < alg * 1.5 * 1.001 + 1e-5);
}

static void bad_options_are_refused(void **state)
{
    static const char *const bad[] = {"-t 3 -r 3", "-o avg", "-d fp8", "-f x", "-c 3",
                                      "-b 1Q", "-n 0", "-t 0", "-e"};
    struct out o;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        run(&o, "all_reduce_test", bad[i]);
        assert_int_equal(o.status, 2);
        assert_int_equal(o.n, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(step_bytes_and_layout), cmocka_unit_test(factor_wins_over_step),
        cmocka_unit_test(default_step_is_a_tenth), cmocka_unit_test(check_every_type_and_op),
        cmocka_unit_test(root_option),           cmocka_unit_test(busbw_column),
        cmocka_unit_test(bad_options_are_refused),
    };
    return cmocka_run_group_tests_name("hccl_test", tests, NULL, NULL);
}
