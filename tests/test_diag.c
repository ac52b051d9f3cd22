/* test_diag.c - the diagnostics of issue 7, end to end: each buggy kernel of
 * kernels/diag_bugs.c runs on two ranks in test_diag_host (a child process, stdout and
 * stderr captured), and the report it must produce is checked: hang reports (cycle, wait
 * nobody records, wrong index, absorbed record), a refused remote write, races (read vs
 * incoming write, write-write between threads, staging reuse), no report for the correct
 * kernel, and a timeline that parses as JSON with the expected tracks and flows. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <json-c/json.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
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

struct run {
    char *out;      /* stdout and stderr, interleaved */
    int status;     /* exit status, -1 when killed */
    double seconds; /* wall time */
};

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

/* Run test_diag_host with DIAG_CASE=kcase and the extra "K=V" settings (NULL-terminated). */
static void run_case(struct run *r, const char *kcase, ...)
{
    int fds[2];
    size_t len = 0;
    double t0 = now_s();
    char jobdir[96];

    /* A private job folder, removed below even when the program could not remove it (a
     * failing rank thread exits the process while another is still in a call). */
    snprintf(jobdir, sizeof(jobdir), "/dev/shm/hcemu-test-diag-%d-jobs", getpid());
    assert_true(mkdir(jobdir, 0700) == 0 || errno == EEXIST);

    memset(r, 0, sizeof(*r));
    r->out = calloc(1, OUT_MAX + 1);
    assert_non_null(r->out);
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        va_list ap;
        const char *kv;
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        setenv("DIAG_CASE", kcase, 1);
        setenv("HCEMU_DEVICES", "2", 1);
        setenv("HCEMU_JOB_DIR", jobdir, 1);
        va_start(ap, kcase);
        while ((kv = va_arg(ap, const char *)) != NULL)
            putenv((char *)kv);
        va_end(ap);
        execl(DIAG_HOST, DIAG_HOST, "--ranks", "2", "--bytes", "64K", "--iters", "1", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    /* Read until every writer (the host and the executors it started) closed the pipe. */
    for (;;) {
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        if (now_s() - t0 > RUN_TIMEOUT_S) {
            kill(pid, SIGKILL);
            break;
        }
        if (poll(&p, 1, 1000) <= 0)
            continue;
        ssize_t n = read(fds[0], r->out + len, OUT_MAX - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r->seconds = now_s() - t0;
    nftw(jobdir, remove_cb, 16, FTW_DEPTH | FTW_PHYS);
    /* Sanitizer builds: the host program and the executors it started stay clean. */
    if (strstr(r->out, "AddressSanitizer") != NULL || strstr(r->out, "runtime error:") != NULL) {
        print_error("sanitizer report in the output:\n%s\n", r->out);
        fail();
    }
}

static void expect_text(const struct run *r, const char *text)
{
    if (strstr(r->out, text) == NULL) {
        print_error("missing \"%s\" in the output:\n%s\n", text, r->out);
        fail();
    }
}

static void expect_no_text(const struct run *r, const char *text)
{
    if (strstr(r->out, text) != NULL) {
        print_error("unexpected \"%s\" in the output:\n%s\n", text, r->out);
        fail();
    }
}

/* A hang is reported within seconds, names the kernel's source lines, fails the waits. */
static void expect_hang(const struct run *r)
{
    expect_text(r, "hang: no task of the job made progress for 500 ms");
    expect_text(r, "(" DIAG_KERNEL_SRC ":");
    expect_text(r, "failing these waits with HCCL_E_TIMEOUT");
    assert_int_not_equal(r->status, 0);
    assert_true(r->seconds < 30.0);
    /* Exactly one report per hang, whichever executor made it. */
    const char *first = strstr(r->out, "hang: no task");
    assert_null(strstr(first + 1, "hang: no task"));
}

static void two_rank_notify_cycle_is_reported_as_a_cycle(void **state)
{
    struct run r;
    (void)state;

    run_case(&r, "diag_cycle", "HCEMU_HANG_MS=500", NULL);
    expect_hang(&r);
    expect_text(&r, "waits on channel notify 0 of rank 0's channel to rank 1");
    expect_text(&r, "waits on channel notify 0 of rank 1's channel to rank 0");
    expect_text(&r, "but is parked itself");
    if (strstr(r.out, "deadlock cycle: rank 0 waits rank 1 waits rank 0") == NULL)
        expect_text(&r, "deadlock cycle: rank 1 waits rank 0 waits rank 1");
    free(r.out);
}

static void wait_nobody_records_names_the_peer_that_should(void **state)
{
    struct run r;
    (void)state;

    run_case(&r, "diag_nobody", "HCEMU_HANG_MS=500", NULL);
    expect_hang(&r);
    expect_text(&r, "waits on channel notify 1 of rank 0's channel to rank 1");
    expect_text(&r, "it was never recorded");
    expect_text(&r, "the peer (rank 1, dev 1) records it with HcommChannelNotifyRecordOnThread");
    expect_text(&r, "diag_nobody (" DIAG_KERNEL_SRC ":");
    free(r.out);
}

/* Rank 1 is still in HcclChannelAcquire on the host when rank 0's kernel waits for it: the
 * report says so, and does not claim rank 1 finished. */
static void a_peer_still_in_channel_setup_is_not_called_finished(void **state)
{
    struct run r;
    (void)state;

    run_case(&r, "diag_ok", "HCEMU_HANG_MS=500", "DIAG_LATE_CHANNEL=1", "HCCL_CONNECT_TIMEOUT=6",
             NULL);
    expect_text(&r, "hang: no task of the job made progress for 500 ms");
    expect_text(&r, "no thread of rank 1 waits: its host is still in HcclChannelAcquire "
                    "(channel set-up, waiting for its peers)");
    expect_no_text(&r, "finished without recording it");
    free(r.out);
}

static void wrong_notify_index_hints_at_the_set_sibling(void **state)
{
    struct run r;
    (void)state;

    run_case(&r, "diag_wrong_index", "HCEMU_HANG_MS=500", NULL);
    expect_hang(&r);
    expect_text(&r, "it was never recorded");
    expect_text(&r, "hint: thread notify 1 of rank 0 thread");
    expect_text(&r, "nobody waits for it: wrong notify index?");
    free(r.out);
}

static void absorbed_double_record_is_counted(void **state)
{
    struct run r;
    (void)state;

    run_case(&r, "diag_absorbed", "HCEMU_HANG_MS=500", NULL);
    expect_hang(&r);
    expect_text(&r, "recorded 2 time(s)");
    expect_text(&r, "1 record(s) absorbed");
    free(r.out);
}

static void remote_write_past_the_peer_buffer_is_refused_at_its_line(void **state)
{
    struct run r;
    (void)state;

    run_case(&r, "diag_past_buffer", "HCEMU_HANG_MS=500", NULL);
    expect_text(&r, "is not inside the peer's HCCL buffer");
    expect_text(&r, "diag_past_buffer (" DIAG_KERNEL_SRC ":");
    assert_int_not_equal(r.status, 0);
    free(r.out);
}

static void read_racing_an_incoming_write_is_reported(void **state)
{
    struct run r;
    (void)state;

    run_case(&r, "diag_read_race", "HCEMU_RACECHECK=1", NULL);
    expect_text(&r, "data race on HCCL buffer of device 0");
    expect_text(&r, "diag_read_race (" DIAG_KERNEL_SRC ":");
    expect_text(&r, "missing edge: no channel notify record->wait");
    free(r.out);
}

static void write_write_race_between_two_threads_is_reported(void **state)
{
    struct run r;
    (void)state;

    run_case(&r, "diag_ww_race", "HCEMU_RACECHECK=1", NULL);
    expect_text(&r, "data race on device memory of device 0");
    expect_text(&r, "write of [");
    expect_text(&r, "is not ordered with the earlier write");
    expect_text(&r, "missing edge: no thread notify record->wait between the two threads");
    free(r.out);
}

static void staging_reuse_without_acknowledgement_is_reported(void **state)
{
    struct run r;
    (void)state;

    run_case(&r, "diag_reuse", "HCEMU_RACECHECK=1", NULL);
    expect_text(&r, "data race on HCCL buffer of device 0");
    expect_text(&r, "reused before the reader acknowledged");
    expect_text(&r, "diag_reuse (" DIAG_KERNEL_SRC ":");
    free(r.out);
}

static void correct_kernel_produces_no_report(void **state)
{
    struct run r;
    (void)state;

    run_case(&r, "diag_ok", "HCEMU_RACECHECK=1", "HCEMU_HANG_MS=500", NULL);
    expect_text(&r, "diag: PASS");
    expect_no_text(&r, "data race");
    expect_no_text(&r, "hang:");
    assert_int_equal(r.status, 0);
    free(r.out);
}

static void seeded_schedules_run_the_correct_kernel(void **state)
{
    static const char *const seeds[] = {"HCEMU_SEED=1", "HCEMU_SEED=2", "HCEMU_SEED=99"};
    (void)state;

    for (size_t i = 0; i < 3; i++) {
        struct run r;
        run_case(&r, "diag_ok", seeds[i], "HCEMU_RACECHECK=1", NULL);
        expect_text(&r, "diag: PASS");
        expect_no_text(&r, "data race");
        free(r.out);
    }
}

/* --- timeline ---------------------------------------------------------------------------- */

struct trace_stats {
    int tracks_rank0, tracks_rank1, slices, slices_with_site, flow_s, flow_f, matched;
};

static const char *str_of(json_object *o, const char *key)
{
    json_object *v;

    return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static void scan_trace(const char *path, struct trace_stats *st)
{
    json_object *root = json_object_from_file(path);
    long long s_ids[4096];
    int n_s = 0;

    memset(st, 0, sizeof(*st));
    assert_non_null(root);
    assert_true(json_object_is_type(root, json_type_array));
    size_t n = json_object_array_length(root);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(root, i), *args, *id;
        const char *ph = str_of(e, "ph"), *name = str_of(e, "name");
        assert_non_null(ph);
        if (strcmp(ph, "M") == 0 && name != NULL && strcmp(name, "thread_name") == 0 &&
            json_object_object_get_ex(e, "args", &args)) {
            const char *tn = str_of(args, "name");
            st->tracks_rank0 += tn != NULL && strncmp(tn, "rank 0 ", 7) == 0;
            st->tracks_rank1 += tn != NULL && strncmp(tn, "rank 1 ", 7) == 0;
        } else if (strcmp(ph, "X") == 0) {
            st->slices++;
            if (json_object_object_get_ex(e, "args", &args)) {
                const char *site = str_of(args, "site");
                st->slices_with_site += site != NULL && strstr(site, DIAG_KERNEL_SRC) != NULL;
            }
        } else if (strcmp(ph, "s") == 0 && json_object_object_get_ex(e, "id", &id)) {
            if (n_s < 4096)
                s_ids[n_s++] = json_object_get_int64(id);
            st->flow_s++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(root, i), *id;
        const char *ph = str_of(e, "ph");
        if (strcmp(ph, "f") != 0 || !json_object_object_get_ex(e, "id", &id))
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

static void trace_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "/tmp/hcemu-test-diag-%d-%s.json", getpid(), name);
}

static void trace_has_tracks_slices_and_flows(void **state)
{
    char path[128], env[160];
    struct trace_stats st;
    struct run r;
    (void)state;

    trace_path(path, sizeof(path), "ok");
    snprintf(env, sizeof(env), "HCEMU_TRACE=%s", path);
    run_case(&r, "diag_ok", env, NULL);
    expect_text(&r, "diag: PASS");
    scan_trace(path, &st);
    /* rank 0: host stream, main, slave; rank 1: host stream, main. */
    assert_true(st.tracks_rank0 >= 3);
    assert_true(st.tracks_rank1 >= 2);
    assert_true(st.slices >= 15);
    assert_true(st.slices_with_site >= 10);
    /* Start and done hand-shakes (2 per rank), slave start/join, READY, DONE. */
    assert_true(st.flow_s >= 8);
    assert_true(st.matched >= 8);
    assert_int_equal(st.matched, st.flow_f);
    unlink(path);
    free(r.out);
}

static void trace_is_valid_json_after_a_failed_job(void **state)
{
    char path[128], env[160];
    struct trace_stats st;
    struct run r;
    (void)state;

    trace_path(path, sizeof(path), "hang");
    snprintf(env, sizeof(env), "HCEMU_TRACE=%s", path);
    run_case(&r, "diag_cycle", env, "HCEMU_HANG_MS=300", NULL);
    assert_int_not_equal(r.status, 0);
    scan_trace(path, &st);
    assert_true(st.tracks_rank0 >= 1);
    assert_true(st.slices >= 2);
    unlink(path);
    free(r.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_rank_notify_cycle_is_reported_as_a_cycle),
        cmocka_unit_test(wait_nobody_records_names_the_peer_that_should),
        cmocka_unit_test(a_peer_still_in_channel_setup_is_not_called_finished),
        cmocka_unit_test(wrong_notify_index_hints_at_the_set_sibling),
        cmocka_unit_test(absorbed_double_record_is_counted),
        cmocka_unit_test(remote_write_past_the_peer_buffer_is_refused_at_its_line),
        cmocka_unit_test(read_racing_an_incoming_write_is_reported),
        cmocka_unit_test(write_write_race_between_two_threads_is_reported),
        cmocka_unit_test(staging_reuse_without_acknowledgement_is_reported),
        cmocka_unit_test(correct_kernel_produces_no_report),
        cmocka_unit_test(seeded_schedules_run_the_correct_kernel),
        cmocka_unit_test(trace_has_tracks_slices_and_flows),
        cmocka_unit_test(trace_is_valid_json_after_a_failed_job),
    };

    signal(SIGPIPE, SIG_IGN);
    return cmocka_run_group_tests_name("diag", tests, NULL, NULL);
}
