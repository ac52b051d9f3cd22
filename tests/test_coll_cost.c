/* test_coll_cost.c - the built-in collectives' default algorithm (host/coll/coll_cost.c): the
 * card's rule kept exactly for the modelled clock, the wall-clock cost model's choice on
 * fixed machine figures, the reduction round size, and the machine figures' text and cache
 * (common/platform/machine.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/platform/machine.h"
#include "host/coll/coll_cost.h"

#define KiB(x) ((uint64_t)(x) << 10)
#define MiB(x) ((uint64_t)(x) << 20)

/* The 2-core virtual machine docs/PERFORMANCE.md describes, and a big server. */
static const struct emu_machine vm = {.copy_gbps = 34.8, .handoff_us = 0.86, .cores = 2};
static const struct emu_machine server = {.copy_gbps = 20, .handoff_us = 1.0, .cores = 64};

/* The default HCCL buffer's slots (host/coll/coll_launch.c): eager 1 MiB at 2 ranks, 64 KiB
 * up to 64; rounds of 4 MiB, reductions in rounds of 512 KiB (1 MiB streaming threshold). */
static struct emu_coll_shape shape(enum emu_coll_kind kind, uint32_t n, uint64_t bytes)
{
    bool red = kind == EMU_COLL_ALLREDUCE || kind == EMU_COLL_REDUCE_SCATTER;

    return (struct emu_coll_shape){.kind = kind, .n = n, .bytes = bytes,
                                   .eager = n == 2 ? MiB(1) : KiB(64),
                                   .chunk = red ? emu_coll_reduce_chunk(MiB(4), MiB(1)) : MiB(4)};
}

static enum emu_coll_algo wall(enum emu_coll_kind kind, uint32_t n, uint64_t bytes,
                               const struct emu_machine *m)
{
    struct emu_coll_shape s = shape(kind, n, bytes);

    return emu_coll_default_pick(&s, false, m);
}

/* An expected choice: the call, whether pairs from 16 KiB read directly (HCEMU_DIRECT_KB's
 * default), and the algorithm. */
struct pick {
    enum emu_coll_kind kind;
    uint32_t n;
    uint64_t bytes;
    bool direct;
    enum emu_coll_algo want;
};

static void expect_picks(const struct pick *p, size_t count, const struct emu_machine *m)
{
    for (size_t i = 0; i < count; i++) {
        struct emu_coll_shape s = shape(p[i].kind, p[i].n, p[i].bytes);
        s.direct = p[i].direct ? KiB(16) : 0;
        enum emu_coll_algo got = emu_coll_default_pick(&s, false, m);
        if (got != p[i].want)
            fail_msg("row %zu (%u ranks, %llu bytes): algorithm %d, expected %d", i, p[i].n,
                     (unsigned long long)p[i].bytes, (int)got, (int)p[i].want);
    }
}

/* HCEMU_TIME=model: the card's thresholds, exactly (test_model_time asserts the modelled
 * figures they give). */
static void model_time_keeps_the_cards_rule(void **state)
{
    (void)state;
    struct emu_coll_shape s = shape(EMU_COLL_ALLREDUCE, 8, KiB(256));

    assert_int_equal(emu_coll_default_pick(&s, false, NULL), EMU_ALGO_MESH);
    s.bytes = KiB(256) + 4;
    assert_int_equal(emu_coll_default_pick(&s, false, NULL), EMU_ALGO_RHD);
    s.n = 6;
    assert_int_equal(emu_coll_default_pick(&s, false, NULL), EMU_ALGO_TWOSHOT);
    s.n = 2, s.bytes = MiB(16) - 4;
    assert_int_equal(emu_coll_default_pick(&s, false, NULL), EMU_ALGO_MESH);
    s.bytes = MiB(16);
    assert_int_equal(emu_coll_default_pick(&s, false, NULL), EMU_ALGO_TWOSHOT);
    s = shape(EMU_COLL_ALLGATHER, 8, MiB(64));
    assert_int_equal(emu_coll_default_pick(&s, false, NULL), EMU_ALGO_MESH);
    assert_int_equal(emu_coll_default_pick(&s, true, NULL), EMU_ALGO_HIER);
    s.bytes = MiB(2);
    assert_int_equal(emu_coll_default_pick(&s, true, NULL), EMU_ALGO_MESH);
    s = shape(EMU_COLL_BROADCAST, 4, MiB(1));
    assert_int_equal(emu_coll_default_pick(&s, false, NULL), EMU_ALGO_TWOSHOT);
    s = shape(EMU_COLL_REDUCE_SCATTER, 8, MiB(64));
    assert_int_equal(emu_coll_default_pick(&s, false, NULL), EMU_ALGO_MESH);
    /* Several equal servers keep the card's hier on the wall clock too. */
    s = shape(EMU_COLL_ALLREDUCE, 8, MiB(1));
    assert_int_equal(emu_coll_default_pick(&s, true, &vm), EMU_ALGO_HIER);
}

/* Every size and rank count: with no figures the choice is the card's. */
static void no_figures_is_the_card_everywhere(void **state)
{
    (void)state;
    for (int k = EMU_COLL_ALLREDUCE; k <= EMU_COLL_BROADCAST; k++)
        for (uint32_t n = 2; n <= 16; n++)
            for (uint64_t b = KiB(1); b <= MiB(256); b *= 2) {
                struct emu_coll_shape s = shape((enum emu_coll_kind)k, n, b);
                assert_int_equal(emu_coll_default_pick(&s, false, NULL),
                                 emu_coll_card_pick((enum emu_coll_kind)k, n, b, false));
            }
}

/* The wall-clock choices on the 2-core machine: what docs/COLLECTIVES.md's table shows. */
static void two_core_machine_choices(void **state)
{
    static const struct pick picks[] = {
        /* Small calls: one-shot mesh at 2 ranks; at 4 and 8 recursive doubling of the whole
         * vector, log2(n) eager steps against mesh's n - 1 exchanges a rank and
         * halving-doubling's 2 log2(n) steps (8 ranks, 1 KiB: 32.5-40.8 us against 42.4-53.1
         * and mesh's 53.4-58.8; 4 ranks: 10.6-16.0 against mesh's 14.5-17.9, alternating
         * runs); halving-doubling from where the whole vector costs more to move than the
         * steps it saves. */
        {EMU_COLL_ALLREDUCE, 2, KiB(1), false, EMU_ALGO_MESH},
        {EMU_COLL_ALLREDUCE, 4, KiB(1), false, EMU_ALGO_RD},
        {EMU_COLL_ALLREDUCE, 8, KiB(1), false, EMU_ALGO_RD},
        {EMU_COLL_ALLREDUCE, 8, KiB(16), false, EMU_ALGO_RHD},
        /* 2 ranks, large: two-shot halves each rank's reduction for one more launch (the
         * card waits to 16 MiB): from 256 KiB with direct reads (31.5 against mesh's 45.2 us;
         * at 128 KiB mesh's 18.7 against 20.6, medians of three runs). */
        {EMU_COLL_ALLREDUCE, 2, KiB(64), true, EMU_ALGO_MESH},
        {EMU_COLL_ALLREDUCE, 2, KiB(128), true, EMU_ALGO_MESH},
        {EMU_COLL_ALLREDUCE, 2, KiB(256), true, EMU_ALGO_TWOSHOT},
        {EMU_COLL_ALLREDUCE, 2, MiB(4), true, EMU_ALGO_TWOSHOT},
        /* 4 and 8 ranks at 256 KiB: two-shot, whose copies are fewer (halving-doubling ran
         * even with it there); never one-shot, which moves n^2 x the bytes through two cores
         * (the card's mesh there took 5.7x OpenMPI's time). */
        {EMU_COLL_ALLREDUCE, 4, KiB(256), true, EMU_ALGO_TWOSHOT},
        {EMU_COLL_ALLREDUCE, 8, KiB(256), true, EMU_ALGO_TWOSHOT},
        {EMU_COLL_ALLREDUCE, 8, MiB(64), true, EMU_ALGO_TWOSHOT},
        /* A launch with direct pairs pays for its peers' sleeping processes (SOLO_US): at 4
         * ranks and 128 KiB halving-doubling beats two such launches (76.0 against
         * two-shot's 91.9 us, medians of three runs), as recursive doubling beats mesh's
         * direct reads for the allgather. Recursive doubling's pushed steps (coll_steps.h,
         * hcoll_pushed) up to blocks of 512 KiB, then mesh's direct reads (4 ranks, 128 KiB:
         * 25 against mesh's 39-44 us; 8 ranks, 8 MiB: mesh 2.39-2.63 ms against 3.28-3.50
         * pushed; 16 MiB: mesh 3.97-4.07 against 6.17-6.38 with 2 MiB steps). */
        {EMU_COLL_ALLREDUCE, 4, KiB(128), true, EMU_ALGO_RHD},
        {EMU_COLL_ALLREDUCE, 4, KiB(512), true, EMU_ALGO_TWOSHOT},
        {EMU_COLL_ALLGATHER, 4, KiB(128), true, EMU_ALGO_RHD},
        {EMU_COLL_ALLGATHER, 4, MiB(16), true, EMU_ALGO_MESH},
        {EMU_COLL_ALLGATHER, 8, KiB(256), true, EMU_ALGO_RHD},
        {EMU_COLL_ALLGATHER, 8, MiB(1), true, EMU_ALGO_RHD},
        {EMU_COLL_ALLGATHER, 8, MiB(4), true, EMU_ALGO_RHD},
        {EMU_COLL_ALLGATHER, 4, MiB(4), true, EMU_ALGO_MESH},
        {EMU_COLL_ALLGATHER, 8, MiB(8), true, EMU_ALGO_MESH},
        {EMU_COLL_ALLGATHER, 8, MiB(16), true, EMU_ALGO_MESH},
        /* 8-rank allgather: recursive doubling, 3 eager steps, beats 7 eager pairs. */
        {EMU_COLL_ALLGATHER, 8, KiB(1), false, EMU_ALGO_RHD},
        {EMU_COLL_ALLGATHER, 2, MiB(64), false, EMU_ALGO_MESH},
        {EMU_COLL_BROADCAST, 8, MiB(64), false, EMU_ALGO_TWOSHOT},
    };

    (void)state;
    expect_picks(picks, sizeof(picks) / sizeof(picks[0]), &vm);
    /* Not a power of two: never halving-doubling or doubling. */
    for (uint64_t b = KiB(1); b <= MiB(256); b *= 4) {
        assert_int_not_equal(wall(EMU_COLL_ALLREDUCE, 6, b, &vm), EMU_ALGO_RHD);
        assert_int_not_equal(wall(EMU_COLL_ALLREDUCE, 6, b, &vm), EMU_ALGO_RD);
    }
}

/* Another machine, other choices. With a core per rank nobody sleeps, and two-shot's
 * halved reduction wins from 128 KiB; two shared cores keep mesh at 2 ranks and
 * halving-doubling at 4 there (above). */
static void the_machine_changes_the_choice(void **state)
{
    static const struct pick server_picks[] = {
        {EMU_COLL_ALLREDUCE, 8, KiB(1), false, EMU_ALGO_RD},
        {EMU_COLL_ALLREDUCE, 2, KiB(128), true, EMU_ALGO_TWOSHOT},
        {EMU_COLL_ALLREDUCE, 4, KiB(128), true, EMU_ALGO_TWOSHOT},
    };
    static const struct pick vm_picks[] = {
        {EMU_COLL_ALLREDUCE, 2, KiB(128), true, EMU_ALGO_MESH},
        {EMU_COLL_ALLREDUCE, 4, KiB(128), true, EMU_ALGO_RHD},
        {EMU_COLL_ALLREDUCE, 4, KiB(32), false, EMU_ALGO_RHD},
    };

    (void)state;
    expect_picks(server_picks, sizeof(server_picks) / sizeof(server_picks[0]), &server);
    expect_picks(vm_picks, sizeof(vm_picks) / sizeof(vm_picks[0]), &vm);
}

/* Direct reads (coll_direct.c) copy a gathered block once instead of twice (eager) or
 * staging it first, and reduce a peer's block from its buffer instead of copying it into a
 * slot first: the mesh allgather and the reduce-scatters get cheaper from the threshold on,
 * and only there. */
static void direct_reads_price_one_copy_a_block(void **state)
{
    (void)state;
    struct emu_coll_shape s = shape(EMU_COLL_ALLGATHER, 8, MiB(16)), d = s; /* not pushed */
    d.direct = KiB(16);
    assert_true(emu_coll_wall_cost(&d, EMU_ALGO_MESH, &vm) <
                emu_coll_wall_cost(&s, EMU_ALGO_MESH, &vm));
    assert_true(emu_coll_wall_cost(&d, EMU_ALGO_RHD, &vm) ==
                emu_coll_wall_cost(&s, EMU_ALGO_RHD, &vm));
    assert_int_equal(emu_coll_wall_pick(&d, &vm), EMU_ALGO_MESH);
    s.bytes = d.bytes = KiB(64); /* 8 KiB blocks: below the threshold, eager as before */
    assert_true(emu_coll_wall_cost(&d, EMU_ALGO_MESH, &vm) ==
                emu_coll_wall_cost(&s, EMU_ALGO_MESH, &vm));
    /* The one-shot allreduce never reads directly (peers would read what is being reduced
     * into); two-shot's reduce-scatter and gather do, and so does a reduce-scatter. */
    s = shape(EMU_COLL_ALLREDUCE, 4, MiB(4)), d = s;
    d.direct = KiB(16);
    assert_true(emu_coll_wall_cost(&d, EMU_ALGO_MESH, &vm) ==
                emu_coll_wall_cost(&s, EMU_ALGO_MESH, &vm));
    assert_true(emu_coll_wall_cost(&d, EMU_ALGO_TWOSHOT, &vm) <
                emu_coll_wall_cost(&s, EMU_ALGO_TWOSHOT, &vm));
    s = shape(EMU_COLL_REDUCE_SCATTER, 4, MiB(4)), d = s;
    d.direct = KiB(16);
    assert_true(emu_coll_wall_cost(&d, EMU_ALGO_MESH, &vm) <
                emu_coll_wall_cost(&s, EMU_ALGO_MESH, &vm));
    s = shape(EMU_COLL_BROADCAST, 4, MiB(4)), d = s;
    d.direct = KiB(16);
    assert_true(emu_coll_wall_cost(&d, EMU_ALGO_MESH, &vm) <
                emu_coll_wall_cost(&s, EMU_ALGO_MESH, &vm));
}

static void costs_refuse_what_does_not_apply(void **state)
{
    (void)state;
    struct emu_coll_shape s = shape(EMU_COLL_ALLREDUCE, 6, MiB(1));

    assert_true(emu_coll_wall_cost(&s, EMU_ALGO_RHD, &vm) < 0);
    assert_true(emu_coll_wall_cost(&s, EMU_ALGO_HIER, &vm) < 0);
    assert_true(emu_coll_wall_cost(&s, EMU_ALGO_RING, &vm) > 0);
    s = shape(EMU_COLL_REDUCE_SCATTER, 4, MiB(1));
    assert_true(emu_coll_wall_cost(&s, EMU_ALGO_RING, &vm) > 0);
    s.in_place = true;
    assert_true(emu_coll_wall_cost(&s, EMU_ALGO_RING, &vm) < 0);
    s = shape(EMU_COLL_ALLGATHER, 4, MiB(1));
    assert_true(emu_coll_wall_cost(&s, EMU_ALGO_TWOSHOT, &vm) < 0);
    /* More bytes never cost less. */
    for (uint64_t b = KiB(1); b < MiB(256); b *= 2) {
        struct emu_coll_shape lo = shape(EMU_COLL_ALLREDUCE, 8, b), hi = lo;
        hi.bytes = 2 * b;
        assert_true(emu_coll_wall_cost(&hi, EMU_ALGO_MESH, &vm) >=
                    emu_coll_wall_cost(&lo, EMU_ALGO_MESH, &vm));
    }
}

static void reduce_rounds_stay_below_streaming(void **state)
{
    (void)state;
    assert_int_equal(emu_coll_reduce_chunk(MiB(4), MiB(1)), KiB(512));
    assert_int_equal(emu_coll_reduce_chunk(KiB(256), MiB(1)), KiB(256));
    assert_int_equal(emu_coll_reduce_chunk(MiB(4), SIZE_MAX), MiB(4)); /* streaming off */
    assert_int_equal(emu_coll_reduce_chunk(MiB(4), 100), MiB(4)); /* below one alignment */
}

static void machine_text(void **state)
{
    (void)state;
    struct emu_machine m = {0}, back = {0};
    char text[128];

    assert_true(emu_machine_parse("copy=12.5,handoff=4.25,cores=2", &m));
    assert_true(m.copy_gbps == 12.5 && m.handoff_us == 4.25 && m.cores == 2);
    emu_machine_format(&m, text, sizeof(text));
    assert_true(emu_machine_parse(text, &back));
    assert_true(back.copy_gbps == 12.5 && back.handoff_us == 4.25 && back.cores == 2);
    assert_int_equal(back.cache_mib, 0); /* not given: unknown */
    assert_true(emu_machine_parse("copy=1,handoff=2,cores=3,cache=32", &m));
    assert_int_equal(m.cache_mib, 32);
    emu_machine_format(&m, text, sizeof(text));
    assert_string_equal(text, "copy=1.000,handoff=2.000,cores=3,cache=32");
    static const char *const bad[] = {"", "copy=1,handoff=1", "copy=1,handoff=1,cores=0",
                                      "copy=1,handoff=1,cores=2,",
                                      "copy=1,handoff=1,cores=2,cache=",
                                      "copy=1,handoff=1,cores=2,cache=x",
                                      "copy=1,handoff=1,cores=2,cache=2000000",
                                      "copy=1,handoff=1,cores=2,cache=8,more=1",
                                      "copy=-1,handoff=1,cores=2", "copy=nan,handoff=1,cores=2",
                                      "copy=1,handoff=1,cores=2x", "handoff=1,copy=1,cores=2",
                                      "copy=1,handoff=1e9,cores=2"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        m.cores = 77;
        assert_false(emu_machine_parse(bad[i], &m));
        assert_int_equal(m.cores, 77);
    }
}

/* The measured cache figure is never more than the CPU reports (a probe that finds streaming
 * no faster keeps the report), and an unknown cache stays unknown without a probe. */
static void cache_probe_never_exceeds_the_report(void **state)
{
    (void)state;
    assert_int_equal(emu_cache_probe_mib(0), 0);
    assert_true(emu_cache_probe_mib(8) <= 8);
    uint32_t got = emu_cache_probe_mib(32);
    assert_true(got >= 21 && got <= 32); /* the smallest footprint probed is 16 MiB */
}

/* emu_machine_get in a child (it runs once per process) with XDG_CACHE_HOME=dir: the child's
 * exit status is the source. */
static int source_in_child(const char *dir, const char *setting)
{
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        struct emu_machine m;
        enum emu_machine_source src;
        setenv("XDG_CACHE_HOME", dir, 1);
        if (setting != NULL)
            setenv("HCEMU_MACHINE", setting, 1);
        else
            unsetenv("HCEMU_MACHINE");
        emu_machine_get(&m, &src);
        _exit(m.cores >= 1 ? (int)src : 99);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void machine_cache(void **state)
{
    (void)state;
    char dir[] = "/tmp/hcemu-test-cost-XXXXXX", file[256], text[256];
    struct stat st;

    assert_non_null(mkdtemp(dir));
    snprintf(file, sizeof(file), "%s/hcemu/machine", dir);
    /* First: measured, then cached (0600 in a 0700 folder); next: read back. */
    assert_int_equal(source_in_child(dir, NULL), EMU_MACHINE_MEASURED);
    assert_int_equal(stat(file, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(source_in_child(dir, NULL), EMU_MACHINE_CACHE);
    /* The setting wins. */
    assert_int_equal(source_in_child(dir, "copy=1,handoff=1,cores=1"), EMU_MACHINE_SETTING);
    assert_int_equal(source_in_child(dir, "card"), EMU_MACHINE_CARD);
    /* Another machine's file, or a damaged one, is measured over. */
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("hcemu-machine 1 another-machine:2\ncopy=1.000,handoff=1.000,cores=2\n", f);
    fclose(f);
    assert_int_equal(source_in_child(dir, NULL), EMU_MACHINE_MEASURED);
    f = fopen(file, "r");
    assert_non_null(f);
    assert_non_null(fgets(text, sizeof(text), f));
    fclose(f);
    assert_null(strstr(text, "another-machine"));
    f = fopen(file, "w");
    fputs("garbage", f);
    fclose(f);
    assert_int_equal(source_in_child(dir, NULL), EMU_MACHINE_MEASURED);
    /* A folder others may write is no cache: measured alone. */
    char sub[300];
    snprintf(sub, sizeof(sub), "%s/hcemu", dir);
    assert_int_equal(chmod(sub, 0777), 0);
    assert_int_equal(source_in_child(dir, NULL), EMU_MACHINE_ALONE);
    assert_int_equal(chmod(sub, 0700), 0);
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Processes starting together on a fresh cache all hold one measurement: the lock makes one
 * of them measure and the others read what it wrote (ranks must choose alike). */
static void processes_starting_together_agree(void **state)
{
    (void)state;
    enum { N = 8 };
    char dir[] = "/tmp/hcemu-test-cost-XXXXXX", got[N][128], cmd[400];
    int fds[N][2];
    pid_t pids[N];

    assert_non_null(mkdtemp(dir));
    for (int i = 0; i < N; i++) {
        assert_int_equal(pipe(fds[i]), 0);
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            struct emu_machine m;
            char text[128];
            setenv("XDG_CACHE_HOME", dir, 1);
            unsetenv("HCEMU_MACHINE");
            emu_machine_get(&m, NULL);
            emu_machine_format(&m, text, sizeof(text));
            _exit(write(fds[i][1], text, strlen(text) + 1) > 0 ? 0 : 1);
        }
        close(fds[i][1]);
    }
    for (int i = 0; i < N; i++) {
        int status;
        ssize_t n = read(fds[i][0], got[i], sizeof(got[i]) - 1);
        assert_true(n > 0);
        got[i][n] = '\0';
        close(fds[i][0]);
        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_string_equal(got[i], got[0]);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(model_time_keeps_the_cards_rule),
        cmocka_unit_test(no_figures_is_the_card_everywhere),
        cmocka_unit_test(two_core_machine_choices),
        cmocka_unit_test(the_machine_changes_the_choice),
        cmocka_unit_test(direct_reads_price_one_copy_a_block),
        cmocka_unit_test(costs_refuse_what_does_not_apply),
        cmocka_unit_test(reduce_rounds_stay_below_streaming),
        cmocka_unit_test(machine_text),
        cmocka_unit_test(cache_probe_never_exceeds_the_report),
        cmocka_unit_test(machine_cache),
        cmocka_unit_test(processes_starting_together_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
