/* test_diag_seed.c - seeded schedules make the timeline reproducible (issue 7, item 5).
 *
 * With HCEMU_SEED=n and HCEMU_TRACE the trace uses virtual time, ids derived from (device,
 * stream, index in the stream) and a canonical event order, so two runs of a race-free
 * program with the same seed write byte-identical files: checked on the allreduce example
 * with ranks as threads and as processes under hcemu-run. Another seed still gives a valid
 * trace (tracks, flows, sorted, slices of a track do not overlap), and the default mode
 * (no seed) still runs and writes its wall-clock trace. */
#include <errno.h>
#include <ftw.h>
#include <json-c/json.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#define RUN_TIMEOUT_S 90
#define OUT_MAX (1u << 20)
#define RANKS 3

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int remove_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void trace_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "/tmp/hcemu-test-diag-seed-%d-%s.json", getpid(), name);
}

/* Run argv (NULL-terminated) with the "K=V" settings env (NULL-terminated) in a private job
 * folder; return the exit status (-1 when killed) and fail on a sanitizer report. */
static int run(const char *const *argv, const char *const *env)
{
    int fds[2];
    char jobdir[96], *out = calloc(1, OUT_MAX + 1);
    size_t len = 0;
    double t0 = now_s();

    assert_non_null(out);
    snprintf(jobdir, sizeof(jobdir), "/dev/shm/hcemu-test-diag-seed-%d-jobs", getpid());
    assert_true(mkdir(jobdir, 0700) == 0 || errno == EEXIST);
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        setenv("HCEMU_DEVICES", "3", 1);
        setenv("HCEMU_JOB_DIR", jobdir, 1);
        unsetenv("HCEMU_SEED");
        unsetenv("HCEMU_TRACE");
        for (size_t i = 0; env[i] != NULL; i++)
            putenv((char *)env[i]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(fds[1]);
    for (;;) {
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        if (now_s() - t0 > RUN_TIMEOUT_S) {
            kill(pid, SIGKILL);
            break;
        }
        if (poll(&p, 1, 1000) <= 0)
            continue;
        ssize_t n = read(fds[0], out + len, OUT_MAX - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    nftw(jobdir, remove_cb, 16, FTW_DEPTH | FTW_PHYS);
    if (strstr(out, "AddressSanitizer") != NULL || strstr(out, "runtime error:") != NULL ||
        strstr(out, ": PASS") == NULL) {
        print_error("%s did not pass cleanly:\n%s\n", argv[0], out);
        free(out);
        fail();
    }
    free(out);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;

    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    b = malloc((size_t)n);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void expect_same_bytes(const char *a, const char *b)
{
    size_t na, nb;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    size_t i = 0;

    while (i < na && i < nb && x[i] == y[i])
        i++;
    if (na != nb || i != na) {
        size_t from = i > 120 ? i - 120 : 0;
        print_error("%s (%zu bytes) and %s (%zu bytes) differ at byte %zu:\n%.240s\n---\n%.240s\n",
                    a, na, b, nb, i, x + from, y + from);
        free(x);
        free(y);
        fail();
    }
    free(x);
    free(y);
}

/* Run the allreduce example with HCEMU_SEED=seed (NULL: unset) and HCEMU_TRACE=path, ranks
 * as threads of one process or as processes under hcemu-run. */
static void run_allreduce(bool procs, const char *seed, const char *path)
{
    char trace_env[160], seed_env[64];
    const char *threads_argv[] = {EX_ALLREDUCE, "--ranks", "3", "--bytes", "64K", NULL};
    const char *procs_argv[] = {HCEMU_RUN, "-n", "3", "--", EX_ALLREDUCE, "--bytes", "64K",
                                NULL};
    const char *env[3] = {NULL, NULL, NULL};
    size_t n = 0;

    snprintf(trace_env, sizeof(trace_env), "HCEMU_TRACE=%s", path);
    env[n++] = trace_env;
    if (seed != NULL) {
        snprintf(seed_env, sizeof(seed_env), "HCEMU_SEED=%s", seed);
        env[n++] = seed_env;
    }
    unlink(path);
    assert_int_equal(run(procs ? procs_argv : threads_argv, env), 0);
}

/* --- trace checks ------------------------------------------------------------------------ */

struct trace_stats {
    int rank_tracks[RANKS];  /* thread_name tracks per rank */
    int rank_procs[RANKS];   /* process_name "rank R (device R)" */
    int slices, flow_s, flow_f, matched;
    bool sorted, no_overlap;
    double min_ts;
};

static const char *str_of(json_object *o, const char *key)
{
    json_object *v;

    return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static double num_of(json_object *o, const char *key, double dflt)
{
    json_object *v;

    return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : dflt;
}

static void scan_trace(const char *path, struct trace_stats *st)
{
    json_object *root = json_object_from_file(path);
    static long long s_ids[8192];
    int n_s = 0;
    double prev_pid = -1, prev_tid = -1, prev_ts = -2, slice_end = -1;

    memset(st, 0, sizeof(*st));
    st->sorted = st->no_overlap = true;
    st->min_ts = 1e300;
    assert_non_null(root);
    assert_true(json_object_is_type(root, json_type_array));
    size_t n = json_object_array_length(root);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(root, i), *args, *id;
        const char *ph = str_of(e, "ph"), *name = str_of(e, "name");
        double pid = num_of(e, "pid", -1), tid = num_of(e, "tid", -1), ts = num_of(e, "ts", -1);
        assert_non_null(ph);
        /* Canonical order: (pid, tid, ts), metadata (no ts) first in its track. */
        if (pid < prev_pid || (pid == prev_pid && tid < prev_tid) ||
            (pid == prev_pid && tid == prev_tid && ts < prev_ts))
            st->sorted = false;
        if (pid != prev_pid || tid != prev_tid)
            slice_end = -1;
        prev_pid = pid, prev_tid = tid, prev_ts = ts;
        if (strcmp(ph, "M") == 0 && name != NULL && json_object_object_get_ex(e, "args", &args)) {
            const char *tn = str_of(args, "name");
            for (int r = 0; r < RANKS && tn != NULL; r++) {
                char want[32];
                snprintf(want, sizeof(want), "rank %d ", r);
                if (strcmp(name, "thread_name") == 0 && strncmp(tn, want, strlen(want)) == 0)
                    st->rank_tracks[r]++;
                snprintf(want, sizeof(want), "rank %d (device %d)", r, r);
                if (strcmp(name, "process_name") == 0 && strcmp(tn, want) == 0)
                    st->rank_procs[r]++;
            }
        } else if (strcmp(ph, "X") == 0) {
            st->slices++;
            if (ts < st->min_ts)
                st->min_ts = ts;
            if (ts + 1e-6 < slice_end)
                st->no_overlap = false;
            slice_end = ts + num_of(e, "dur", 0);
        } else if (strcmp(ph, "s") == 0 && json_object_object_get_ex(e, "id", &id)) {
            if (n_s < 8192)
                s_ids[n_s++] = json_object_get_int64(id);
            st->flow_s++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(root, i), *id;
        if (strcmp(str_of(e, "ph"), "f") != 0 || !json_object_object_get_ex(e, "id", &id))
            continue;
        st->flow_f++;
        for (int k = 0; k < n_s; k++)
            if (s_ids[k] == json_object_get_int64(id)) {
                st->matched++;
                break;
            }
    }
    json_object_put(root);
}

/* Every rank has its process name, a host stream and a thread track; every flow end has
 * its start. */
static void expect_tracks_and_flows(const struct trace_stats *st)
{
    for (int r = 0; r < RANKS; r++) {
        assert_true(st->rank_procs[r] >= 1);
        assert_true(st->rank_tracks[r] >= 2);
    }
    assert_true(st->slices >= 30);
    assert_true(st->flow_f >= 6);
    assert_int_equal(st->matched, st->flow_f);
}

/* --- tests ------------------------------------------------------------------------------- */

static void same_seed_same_trace_ranks_as_threads(void **state)
{
    char a[128], b[128];
    (void)state;

    trace_path(a, sizeof(a), "threads-a");
    trace_path(b, sizeof(b), "threads-b");
    run_allreduce(false, "3", a);
    run_allreduce(false, "3", b);
    expect_same_bytes(a, b);
    unlink(a);
    unlink(b);
}

static void same_seed_same_trace_ranks_as_processes(void **state)
{
    char a[128], b[128];
    (void)state;

    trace_path(a, sizeof(a), "procs-a");
    trace_path(b, sizeof(b), "procs-b");
    run_allreduce(true, "3", a);
    run_allreduce(true, "3", b);
    expect_same_bytes(a, b);
    unlink(a);
    unlink(b);
}

static void other_seed_gives_a_valid_virtual_time_trace(void **state)
{
    char a[128];
    struct trace_stats st;
    (void)state;

    trace_path(a, sizeof(a), "seed4");
    run_allreduce(false, "4", a);
    scan_trace(a, &st);
    expect_tracks_and_flows(&st);
    assert_true(st.sorted);
    assert_true(st.no_overlap);
    assert_true(st.min_ts == 0.0); /* virtual time starts at 0 on every track */
    unlink(a);
}

static void default_mode_still_traces_in_wall_clock_time(void **state)
{
    char a[128];
    struct trace_stats st;
    const char *argv[] = {EX_ALLREDUCE, "--ranks", "3", "--bytes", "64K", NULL};
    const char *env[] = {NULL};
    (void)state;

    assert_int_equal(run(argv, env), 0); /* no seed, no trace */
    trace_path(a, sizeof(a), "noseed");
    run_allreduce(false, NULL, a);
    scan_trace(a, &st);
    expect_tracks_and_flows(&st);
    assert_true(st.min_ts > 0.0);
    unlink(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_seed_same_trace_ranks_as_threads),
        cmocka_unit_test(same_seed_same_trace_ranks_as_processes),
        cmocka_unit_test(other_seed_gives_a_valid_virtual_time_trace),
        cmocka_unit_test(default_mode_still_traces_in_wall_clock_time),
    };

    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests_name("diag_seed", tests, NULL, NULL);
}
