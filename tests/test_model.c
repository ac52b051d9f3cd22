/* test_model.c - the modelled clock (common/model/model.c, docs/MODEL.md): simulated times of task
 * graphs of known shape against their closed-form alpha-beta results; and end to end, a
 * kernel's aclrtEventElapsedTime with HCEMU_TIME=model against the closed form of its task
 * graph, identical across runs with different HCEMU_SEEDs (each run a child process with
 * its own executors, since executors take their settings when they start). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hccl_res.h>
#include <hccl/hccl_res_expt.h>
#include <hcomm/hcomm_primitives.h>

#include "model_graphs.h"
#include "common/model/model.h"
#include "kernels/dp_params.h"
#include "test_comm_util.h"

/* Paths here are short temporary folders; GCC cannot know that. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define NONE EMU_MODEL_NONE
#define MB (1ull << 20)

static struct emu_model_params P;

static void sim(const struct mg *g, struct emu_model_times *t)
{
    uint32_t unmatched = 1;
    assert_int_equal(emu_model_simulate(g->nd, g->n, &P, t, &unmatched), EMU_OK);
    assert_int_equal(unmatched, 0);
}

static void near(double got, double want)
{
    if (!(got >= want * (1 - 1e-9) - 1e-15 && got <= want * (1 + 1e-9) + 1e-15))
        fail_msg("modelled %.9g s, closed form %.9g s", got, want);
}

static int setup(void **state)
{
    (void)state;
    emu_model_params_default(&P);
    return 0;
}

static void one_transfer_takes_dispatch_latency_and_bytes_over_bandwidth(void **state)
{
    struct mg g = {0};
    struct emu_model_times t[1];

    (void)state;
    mg_write(&g, 0, 1, 1, 64 * MB, NONE);
    sim(&g, t);
    near(t[0].start, 0);
    near(t[0].end, P.task_s + P.link_lat_s + 64.0 * MB / P.link_bw);
    mg_free(&g);
}

static void two_transfers_on_one_link_each_take_twice_as_long(void **state)
{
    struct mg g = {0};
    struct emu_model_times t[2];

    (void)state;
    mg_write(&g, 0, 1, 1, 64 * MB, NONE);
    mg_write(&g, 0, 2, 1, 64 * MB, NONE);
    sim(&g, t);
    near(t[0].end, P.task_s + P.link_lat_s + 2 * 64.0 * MB / P.link_bw);
    near(t[1].end, t[0].end);
    mg_free(&g);
}

static void transfers_to_different_peers_do_not_slow_each_other_on_a_mesh(void **state)
{
    struct mg g = {0};
    struct emu_model_times t[7];

    (void)state;
    for (uint32_t p = 1; p < 8; p++)
        mg_write(&g, 0, p, p, 16 * MB, NONE);
    sim(&g, t);
    for (uint32_t i = 0; i < 7; i++)
        near(t[i].end, P.task_s + P.link_lat_s + 16.0 * MB / P.link_bw);
    mg_free(&g);
}

/* A joins the link alone; B joins when A is half done: A's second half and B's first half
 * share the link, then B finishes alone. */
static void a_flow_that_joins_later_shares_only_from_then_on(void **state)
{
    struct mg g = {0};
    struct emu_model_times t[3];
    double s = 64.0 * MB / P.link_bw; /* A alone */

    (void)state;
    mg_write(&g, 0, 1, 1, 64 * MB, NONE);
    /* B's thread first copies locally for exactly s / 2. */
    P.copy_bw = 64.0 * MB / (s / 2);
    mg_copy(&g, 0, 2, 64 * MB, 0);
    mg_write(&g, 0, 2, 1, 64 * MB, NONE);
    sim(&g, t);
    double a0 = P.task_s + P.link_lat_s;
    /* B starts moving at a0 + s/2 (its copy ended at task_s + s/2, then task_s + latency). */
    double b0 = P.task_s + s / 2 + P.task_s + P.link_lat_s;
    double a_left = 64.0 * MB - (b0 - a0) * P.link_bw;
    near(t[0].end, b0 + a_left / (P.link_bw / 2));
    double b_left = 64.0 * MB - (t[0].end - b0) * P.link_bw / 2;
    near(t[2].end, t[0].end + b_left / P.link_bw);
    emu_model_params_default(&P);
    mg_free(&g);
}

/* Hours into a run, rounding of rate * time leaves crumbs of bytes; flows still end on time. */
static void flows_late_in_a_long_run_end_when_their_bytes_are_due(void **state)
{
    struct mg g = {0};
    struct emu_model_times t[6];

    (void)state;
    P.copy_bw = 1.0; /* 10000 bytes: 10000 s */
    for (uint32_t th = 1; th <= 3; th++) {
        mg_copy(&g, 0, th, 10000, 0);
        mg_write(&g, 0, th, 1, 3 * MB + th, NONE);
    }
    sim(&g, t);
    double from = 10000.0 + 2 * P.task_s + P.link_lat_s;
    if (!(t[5].end > from && t[5].end < from + 4 * 3.0 * MB / P.link_bw))
        fail_msg("last flow ended at %.9f s", t[5].end);
    emu_model_params_default(&P);
    mg_free(&g);
}

static void a_chain_of_notifies_adds_notify_latency_and_dispatch_per_hop(void **state)
{
    struct mg g = {0};
    struct emu_model_times t[16];
    const uint32_t hops = 7;

    (void)state;
    mg_record(&g, 0, 0, 0, 1); /* thread 0 -> notify 1 (thread 1's) */
    for (uint32_t h = 1; h <= hops; h++) {
        mg_wait(&g, 0, h, h);
        mg_record(&g, 0, h, 0, h + 1);
    }
    sim(&g, t);
    /* The first record, then per hop the notify latency and the next record's dispatch (each
     * wait was dispatched long before its record came). */
    near(t[g.n - 1].end, P.task_s + hops * (P.notify_s + P.task_s));
    mg_free(&g);
}

static void ring_allreduce_matches_its_closed_form_at_2_4_8_ranks(void **state)
{
    static const uint32_t ranks[] = {2, 4, 8};
    static const uint64_t sizes[] = {1024, 4 * MB, 256 * MB};

    (void)state;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++) {
            struct mg g = {0};
            mg_ring_allreduce(&g, ranks[i], sizes[j]);
            double got = mg_simulate(&g, &P), want = mg_ring_allreduce_ab(&P, ranks[i], sizes[j]);
            if (got < want * 0.99 || got > want * 1.01)
                fail_msg("ring allreduce n=%u bytes=%llu: modelled %g s, alpha-beta %g s", ranks[i],
                         (unsigned long long)sizes[j], got, want);
            mg_free(&g);
        }
}

static void mesh_allgather_matches_its_closed_form_at_2_4_8_ranks(void **state)
{
    static const uint32_t ranks[] = {2, 4, 8};
    static const uint64_t sizes[] = {1024, 4 * MB, 256 * MB};

    (void)state;
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++) {
            struct mg g = {0};
            mg_mesh_allgather(&g, ranks[i], sizes[j]);
            double got = mg_simulate(&g, &P), want = mg_mesh_allgather_ab(&P, ranks[i], sizes[j]);
            if (got < want * 0.99 || got > want * 1.01)
                fail_msg("mesh allgather n=%u bytes=%llu: modelled %g s, alpha-beta %g s", ranks[i],
                         (unsigned long long)sizes[j], got, want);
            mg_free(&g);
        }
}

static void inter_server_transfers_share_the_device_port(void **state)
{
    struct mg g = {0};
    struct emu_model_times t[3];

    (void)state;
    P.server[2] = P.server[3] = 1;
    mg_write(&g, 0, 1, 2, 8 * MB, NONE);
    mg_write(&g, 0, 2, 3, 8 * MB, NONE);
    mg_write(&g, 0, 3, 1, 8 * MB, NONE); /* same server: its own link */
    sim(&g, t);
    near(t[0].end, P.task_s + P.net_lat_s + 2 * 8.0 * MB / P.net_bw);
    near(t[1].end, t[0].end);
    near(t[2].end, P.task_s + P.link_lat_s + 8.0 * MB / P.link_bw);
    emu_model_params_default(&P);
    mg_free(&g);
}

static void a_per_link_figure_overrides_the_default(void **state)
{
    struct mg g = {0};
    struct emu_model_times t[2];

    (void)state;
    P.pair_bw[0][1] = 10e9;
    mg_write(&g, 0, 1, 1, 10 * MB, NONE);
    mg_write(&g, 0, 2, 2, 10 * MB, NONE);
    sim(&g, t);
    near(t[0].end, P.task_s + P.link_lat_s + 10.0 * MB / 10e9);
    near(t[1].end, P.task_s + P.link_lat_s + 10.0 * MB / P.link_bw);
    emu_model_params_default(&P);
    mg_free(&g);
}

/* A local reduce moves at its data type's figure when the model has one, else at the common
 * figure; a copy at the copy figure. */
static void a_local_reduce_moves_at_its_data_types_figure(void **state)
{
    struct mg g = {0};
    struct emu_model_times t[3];

    (void)state;
    P.reduce_dtype_bw[emu_model_dtype("fp16")] = 100e9;
    mg_copy(&g, 0, 1, 64 * MB, 1);
    g.nd[0].dtype = (uint8_t)emu_model_dtype("fp16");
    mg_copy(&g, 0, 2, 64 * MB, 1);
    g.nd[1].dtype = (uint8_t)emu_model_dtype("fp32");
    mg_copy(&g, 0, 3, 64 * MB, 0);
    g.nd[2].dtype = (uint8_t)emu_model_dtype("fp16");
    sim(&g, t);
    near(t[0].end, P.task_s + 64.0 * MB / 100e9);
    near(t[1].end, P.task_s + 64.0 * MB / P.reduce_bw);
    near(t[2].end, P.task_s + 64.0 * MB / P.copy_bw);
    assert_int_equal(emu_model_dtype("bfp16"), 11);
    assert_int_equal(emu_model_dtype("float"), -1);
    emu_model_params_default(&P);
    mg_free(&g);
}

/* Utilisation samples of one simulation. */
struct samples {
    struct emu_model_usage u[16];
    int n;
};

static void keep_sample(void *ctx, const struct emu_model_usage *u)
{
    struct samples *s = ctx;
    if (s->n < 16)
        s->u[s->n++] = *u;
}

static void expect_sample(const struct emu_model_usage *u, double t, uint32_t src, uint32_t dst,
                          double bps, double cap)
{
    near(u->t, t);
    assert_int_equal(u->src, src);
    assert_int_equal(u->dst, dst);
    near(u->bps, bps);
    near(u->cap, cap);
}

/* Two transfers share link 0 -> 1: it is fully used from their start to their common end. Two
 * inter-server transfers from device 0 share its egress port (full) and use half of each
 * receiver's ingress port. */
static void links_and_ports_report_their_utilisation(void **state)
{
    struct mg g = {0};
    struct emu_model_times t[4];
    struct samples s = {.n = 0};
    uint32_t unmatched = 1;

    (void)state;
    mg_write(&g, 0, 1, 1, 8 * MB, NONE);
    mg_write(&g, 0, 2, 1, 8 * MB, NONE);
    assert_int_equal(emu_model_simulate_usage(g.nd, g.n, &P, t, &unmatched, keep_sample, &s),
                     EMU_OK);
    double a = P.task_s + P.link_lat_s;
    assert_int_equal(s.n, 2);
    expect_sample(&s.u[0], a, 0, 1, P.link_bw, P.link_bw);
    expect_sample(&s.u[1], t[0].end, 0, 1, 0, P.link_bw);
    mg_free(&g);

    P.server[2] = P.server[3] = 1;
    s.n = 0;
    mg_write(&g, 0, 1, 2, 8 * MB, NONE);
    mg_write(&g, 0, 2, 3, 8 * MB, NONE);
    assert_int_equal(emu_model_simulate_usage(g.nd, g.n, &P, t, &unmatched, keep_sample, &s),
                     EMU_OK);
    a = P.task_s + P.net_lat_s;
    assert_int_equal(s.n, 6); /* egress of 0, ingress of 2 and 3: busy, then idle */
    expect_sample(&s.u[0], a, 0, NONE, P.net_bw, P.net_bw);
    expect_sample(&s.u[1], a, NONE, 2, P.net_bw / 2, P.net_bw);
    expect_sample(&s.u[2], a, NONE, 3, P.net_bw / 2, P.net_bw);
    for (int i = 3; i < 6; i++)
        near(s.u[i].t, t[0].end), near(s.u[i].bps, 0);
    emu_model_params_default(&P);
    mg_free(&g);
}

/* Host stream: kernel, then an event record; the kernel's AICPU task starts after the launch
 * and the kernel (so the event) ends when that task ends. */
static void a_kernel_ends_when_the_tasks_it_queued_end(void **state)
{
    struct mg g = {0};
    struct emu_model_times t[3];

    (void)state;
    mg_copy(&g, 0, 9, 0, 0);
    g.nd[0].role = EMU_MODEL_KERNEL, g.nd[0].aicpu = 0;
    mg_write(&g, 0, 1, 1, 56 * MB, NONE);
    g.nd[1].kernel = 0;
    mg_record(&g, 0, 9, 0, 5);
    g.nd[2].aicpu = 0, g.nd[2].event = 1, g.nd[2].event_seq = 1;
    sim(&g, t);
    double w = P.launch_s + P.task_s + P.link_lat_s + 56.0 * MB / P.link_bw;
    near(t[1].end, w);
    near(t[0].end, w);
    near(t[2].end, w + P.host_task_s);
    mg_free(&g);
}

/* The k-th wait of a notify is satisfied by its k-th record, whatever the node order. */
static void waits_meet_records_in_queue_order(void **state)
{
    struct mg g = {0};
    struct emu_model_times t[5];

    (void)state;
    mg_wait(&g, 0, 1, 3);
    mg_wait(&g, 0, 1, 3);
    mg_record(&g, 0, 2, 0, 3);
    mg_copy(&g, 0, 2, 750000, 0); /* 1 us at 750 GB/s */
    mg_record(&g, 0, 2, 0, 3);
    sim(&g, t);
    near(t[0].end, P.task_s + P.notify_s);
    near(t[1].end, P.task_s * 2 + 1e-6 + P.task_s + P.notify_s);
    mg_free(&g);
}

/* A host that synchronised with one stream before queuing on another: the second stream's
 * task starts when what the host waited for ended, not at 0 (it used to overlap it). The
 * host's synchronisations are a thread of their own: the later one bounds the earlier. */
static void a_task_queued_after_a_host_synchronisation_starts_after_what_it_waited_for(void **state)
{
    struct mg g = {0};
    struct emu_model_times t[6];

    (void)state;
    mg_write(&g, 0, 1, 1, 56 * MB, NONE); /* 0: the stream the host synchronises with */
    mg_copy(&g, 0, 2, 0, 0);              /* 1: a short task on another stream */
    g.nd[1].aicpu = 0;
    uint32_t h1 = mg_copy(&g, 0, EMU_MODEL_HOST_STREAM | 7, 0, 0); /* 2: synchronised on 0 */
    g.nd[h1].role = EMU_MODEL_HOST, g.nd[h1].aicpu = 0, g.nd[h1].after = 0 + 1;
    uint32_t h2 = mg_copy(&g, 0, EMU_MODEL_HOST_STREAM | 7, 0, 0); /* 3: then on 1 */
    g.nd[h2].role = EMU_MODEL_HOST, g.nd[h2].aicpu = 0, g.nd[h2].after = 1 + 1;
    mg_record(&g, 0, 3, 0, 5); /* 4: queued by the host after both */
    g.nd[4].aicpu = 0, g.nd[4].after = h2 + 1;
    mg_record(&g, 0, 4, 0, 6); /* 5: queued before any synchronisation */
    g.nd[5].aicpu = 0;
    sim(&g, t);
    double w = P.task_s + P.link_lat_s + 56.0 * MB / P.link_bw;
    near(t[0].end, w);
    near(t[h1].end, w);
    near(t[h2].end, w); /* 1 ended long before: the thread order keeps h1's bound */
    near(t[4].start, w);
    near(t[4].end, w + P.host_task_s);
    near(t[5].start, 0);
    assert_int_equal(t[4].why, h2);
    mg_free(&g);
}

/* A question's past (emu_model_simulate_past): a write on a link, and a second write on the
 * same link by another thread that nothing of the question waited for (another rank's next
 * collective, queued or not yet queued when the question is asked). The whole graph shares
 * the link between them; the question's past holds the first alone and gives the same
 * figure as the graph without the second. A kernel whose start only the past needs starts
 * but is not simulated to its end: its other task is left out. */
static void a_question_sees_only_what_its_targets_waited_for(void **state)
{
    struct mg g = {0};
    struct emu_model_times t[6];
    uint32_t unmatched = 1;

    (void)state;
    uint32_t k = mg_copy(&g, 0, 9, 0, 0); /* 0: a kernel launch on host stream 9 */
    g.nd[k].role = EMU_MODEL_KERNEL, g.nd[k].aicpu = 0;
    uint32_t w = mg_write(&g, 0, 1, 1, 56 * MB, NONE); /* 1: its write, the question's past */
    g.nd[w].kernel = k;
    uint32_t r = mg_record(&g, 0, 1, 0, 4); /* 2: then a record the host waits for */
    g.nd[r].kernel = k;
    uint32_t late = mg_write(&g, 0, 2, 1, 56 * MB, NONE); /* 3: the kernel's other thread */
    g.nd[late].kernel = k;
    uint32_t hw = mg_wait(&g, 0, 7, 4); /* 4: a host stream waits for the record */
    g.nd[hw].aicpu = 0;
    uint32_t other = mg_write(&g, 0, 3, 1, 56 * MB, NONE); /* 5: a thread of another kernel */
    assert_int_equal(emu_model_simulate(g.nd, g.n, &P, t, &unmatched), EMU_OK);
    double alone = P.launch_s + P.task_s + P.link_lat_s + 56.0 * MB / P.link_bw;
    assert_true(t[w].end > alone * 1.5); /* the whole graph: three writes share 0->1 */

    uint32_t target = hw;
    assert_int_equal(emu_model_simulate_past(g.nd, g.n, &P, t, &unmatched, &target, 1, NULL,
                                             NULL),
                     EMU_OK);
    near(t[w].end, alone);
    near(t[hw].end, alone + P.task_s + P.notify_s);
    near(t[k].start, 0);
    assert_true(t[k].end == -1);     /* started, not simulated to its end */
    assert_true(t[late].start == -1); /* outside the past */
    assert_true(t[other].start == -1 && t[other].end == -1);
    mg_free(&g);
}

/* Folder a's view of a job split over two job folders: ranks 0-3 its own, ranks 4-7 mirrors of
 * folder b's nodes (numbered there 0-3, indexed in b's order), arriving in reverse order
 * between a's own; the fields naming the other folder's devices flagged as the peer's. */
#define KEY_A 0xa11ceull
#define KEY_B 0xb0bull
static void split_view(const struct mg *g, struct emu_model_node *out)
{
    static const uint8_t flag[3] = {EMU_MODEL_PEER_SRC, EMU_MODEL_PEER_DST, EMU_MODEL_PEER_SYNC};
    struct emu_model_node *own = malloc(g->n * sizeof(*own)), *mirror = malloc(g->n * sizeof(*own));
    uint32_t n_own = 0, n_mirror = 0;

    assert_true(own != NULL && mirror != NULL);
    for (uint32_t i = 0; i < g->n; i++) {
        struct emu_model_node x = g->nd[i];
        bool in_b = x.dev >= 4;
        uint32_t *f[3] = {&x.src_dev, &x.dst_dev, &x.sync_dev};
        for (int k = 0; k < 3; k++) {
            if (*f[k] == NONE)
                continue;
            if ((*f[k] >= 4) != in_b)
                x.peer = in_b ? KEY_A : KEY_B, x.peer_fields |= flag[k];
            *f[k] %= 4;
        }
        x.dev %= 4;
        if (in_b) {
            x.origin = KEY_B, x.origin_idx = n_mirror;
            mirror[n_mirror++] = x;
        } else {
            own[n_own++] = x;
        }
    }
    /* Own nodes in order, each followed by a mirror taken from the back (latest first). */
    for (uint32_t at = 0, o = 0, m = n_mirror; o < n_own || m > 0;) {
        if (o < n_own)
            out[at++] = own[o++];
        if (m > 0)
            out[at++] = mirror[--m];
    }
    free(own), free(mirror);
}

static void a_graph_split_over_two_folders_simulates_as_one_folder_on_two_servers(void **state)
{
    struct mg g = {0};
    struct emu_model_params one = P, merged = P;
    char why[160] = "";
    uint32_t unmatched = 1;

    (void)state;
    mg_ring_allreduce(&g, 8, 4 * MB);
    for (uint32_t d = 4; d < 8; d++)
        one.server[d] = 1;
    struct emu_model_times *t1 = malloc(g.n * sizeof(*t1)), *t2 = malloc(g.n * sizeof(*t2));
    struct emu_model_node *split = malloc(g.n * sizeof(*split));
    assert_true(t1 != NULL && t2 != NULL && split != NULL);
    assert_int_equal(emu_model_simulate(g.nd, g.n, &one, t1, &unmatched), EMU_OK);
    assert_int_equal(unmatched, 0);
    split_view(&g, split);
    assert_int_equal(emu_model_merge(split, g.n, KEY_A, &merged, why, sizeof(why)), EMU_OK);
    assert_int_equal(emu_model_simulate(split, g.n, &merged, t2, &unmatched), EMU_OK);
    assert_int_equal(unmatched, 0);
    /* The merged order: a's nodes in their order, then b's in theirs. */
    uint32_t k = 0;
    for (int in_b = 0; in_b < 2; in_b++)
        for (uint32_t i = 0; i < g.n; i++) {
            if ((g.nd[i].dev >= 4) != in_b)
                continue;
            if (t1[i].start != t2[k].start || t1[i].end != t2[k].end)
                fail_msg("node %u (dev %u): one folder [%.9g, %.9g] s, split [%.9g, %.9g] s", i,
                         g.nd[i].dev, t1[i].start, t1[i].end, t2[k].start, t2[k].end);
            k++;
        }
    free(t1), free(t2), free(split);
    mg_free(&g);
}

/* ---- end to end: a held-out kernel on two ranks -------------------------------------------- */

#define E2E_BYTES (1ull << 20)
#define E2E_START 1u /* the main thread's notify the host records */
#define E2E_DATA 0u  /* channel notify: "your data landed" */

static char self[CU_PATH];
static char tmp[CU_PATH];

/* The model file of the runs: round figures, and link 0 -> 1 at half the others' bandwidth. */
static const char model_json[] = "{\"task_us\": 2, \"launch_us\": 5, \"host_task_us\": 1,"
                                 " \"notify_us\": 1, \"link_latency_us\": 1, \"link_GBps\": 50,"
                                 " \"links\": [{\"src\": 0, \"dst\": 1, \"GBps\": 25}]}";

struct e2e {
    aclrtFuncHandle fn;
    uint64_t bytes; /* written to the peer */
    float ms[2];
};

static void rank_body(struct cu_rank *r)
{
    struct e2e *x = r->arg;
    uint32_t me = (uint32_t)r->rank, peer = 1 - me;
    aclrtStream st = NULL;
    ThreadHandle t0, cpu, cpu_on_ai, t0_on_cpu;
    ChannelHandle ch;
    HcclChannelDesc d;
    void *hb = NULL, *peer_hb = NULL, *blk = NULL;
    uint64_t hb_size = 0, peer_size = 0;
    aclrtEvent a = NULL, b = NULL;

    memset(&d, 0, sizeof(d));
    CU_CHECK(r, aclrtCreateStream(&st) == ACL_SUCCESS);
    CU_CHECK(r, HcclGetHcclBuffer(r->comm, &hb, &hb_size) == 0 && hb_size >= 2 * E2E_BYTES);
    CU_CHECK(r, HcclThreadAcquire(r->comm, COMM_ENGINE_AICPU_TS, 1, 2, &t0) == 0);
    CU_CHECK(r, HcclThreadAcquireWithStream(r->comm, COMM_ENGINE_CPU_TS, st, 1, &cpu) == 0);
    CU_CHECK(r,
             HcclThreadExportToCommEngine(r->comm, 1, &cpu, COMM_ENGINE_AICPU_TS, &cpu_on_ai) == 0);
    CU_CHECK(r, HcclThreadExportToCommEngine(r->comm, 1, &t0, COMM_ENGINE_CPU_TS, &t0_on_cpu) == 0);
    CU_CHECK(r, cu_desc_to(r->comm, me, peer, COMM_PROTOCOL_UB_CTP, 2, &d) == HCCL_SUCCESS);
    CU_CHECK(r, HcclChannelAcquire(r->comm, COMM_ENGINE_AICPU_TS, &d, 1, &ch) == 0);
    CU_CHECK(r, HcclChannelGetHcclBuffer(r->comm, ch, &peer_hb, &peer_size) == 0);
    if (r->failures != 0)
        return;
    /* The program: wait for the host, write 1 MiB into the peer's buffer with notify, wait
     * for the peer's, tell the host. */
    struct dp_op ops[4];
    memset(ops, 0, sizeof(ops));
    ops[0] = (struct dp_op){.fn = DPF_TWAIT, .thread = t0, .idx = E2E_START, .timeout = 30};
    ops[1] = (struct dp_op){.fn = DPF_WRITE_NOTIFY,
                            .thread = t0,
                            .other = ch,
                            .dst = (uint64_t)(uintptr_t)peer_hb + E2E_BYTES,
                            .src = (uint64_t)(uintptr_t)hb,
                            .n = x->bytes,
                            .idx = E2E_DATA};
    ops[2] =
        (struct dp_op){.fn = DPF_CWAIT, .thread = t0, .other = ch, .idx = E2E_DATA, .timeout = 30};
    ops[3] = (struct dp_op){.fn = DPF_TREC, .thread = t0, .other = cpu_on_ai, .idx = 0};
    size_t bytes = sizeof(struct dp_args) + sizeof(ops) + 4 * sizeof(int32_t);
    uint8_t host[sizeof(struct dp_args) + sizeof(ops) + 4 * sizeof(int32_t)];
    CU_CHECK(r, aclrtMalloc(&blk, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    struct dp_args *args = (struct dp_args *)host;
    args->ops = (uint64_t)(uintptr_t)blk + sizeof(*args);
    args->rets = args->ops + sizeof(ops);
    args->nops = 4;
    memcpy(host + sizeof(*args), ops, sizeof(ops));
    CU_CHECK(r, aclrtMemcpy(blk, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    CU_CHECK(r, aclrtCreateEvent(&a) == ACL_SUCCESS && aclrtCreateEvent(&b) == ACL_SUCCESS);
    cu_barrier_wait(); /* both channels complete before either kernel runs */
    CU_CHECK(r, aclrtRecordEvent(a, st) == ACL_SUCCESS);
    CU_CHECK(r, HcommThreadNotifyRecordOnThread(cpu, t0_on_cpu, E2E_START) == 0);
    CU_CHECK(r, aclrtLaunchKernel(x->fn, 1, blk, sizeof(struct dp_args), st) == ACL_SUCCESS);
    CU_CHECK(r, HcommThreadNotifyWaitOnThread(cpu, 0, 30) == 0);
    CU_CHECK(r, aclrtRecordEvent(b, st) == ACL_SUCCESS);
    CU_CHECK(r, aclrtSynchronizeStream(st) == ACL_SUCCESS);
    CU_CHECK(r, aclrtEventElapsedTime(&x->ms[me], a, b) == ACL_SUCCESS);
    int32_t rets[4] = {-1, -1, -1, -1};
    CU_CHECK(r, aclrtMemcpy(rets, sizeof(rets), (uint8_t *)blk + sizeof(*args) + sizeof(ops),
                            sizeof(rets), ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    CU_CHECK(r, rets[0] == 0 && rets[1] == 0 && rets[2] == 0 && rets[3] == 0);
    cu_barrier_wait(); /* the peer's last task reads nothing of ours, but keep the order plain */
    CU_CHECK(r, aclrtDestroyEvent(a) == ACL_SUCCESS && aclrtDestroyEvent(b) == ACL_SUCCESS);
    CU_CHECK(r, aclrtFree(blk) == ACL_SUCCESS);
    CU_CHECK(r, HcclCommDestroy(r->comm) == HCCL_SUCCESS);
    r->keep = true;
    CU_CHECK(r, aclrtDestroyStream(st) == ACL_SUCCESS);
}

/* One job of the child: both ranks as threads, from aclInit to aclFinalize, each writing
 * `bytes`; their elapsed times in ms[0..2). 0 when all went well. */
static int child_job(uint64_t bytes, float ms[2])
{
    struct cu_rank ranks[2];
    struct e2e x = {.bytes = bytes};
    aclrtBinHandle bin;
    HcclRootInfo root;
    int bad = 0;

    memset(ranks, 0, sizeof(ranks));
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtBinaryLoadFromFile(DPC_KERNELS_JSON, NULL, &bin) != ACL_SUCCESS ||
        aclrtBinaryGetFunction(bin, "dp_exec", &x.fn) != ACL_SUCCESS ||
        HcclGetRootInfo(&root) != HCCL_SUCCESS)
        return 2;
    cu_run_ranks(ranks, 2, &root, rank_body, &x);
    for (int i = 0; i < 2; i++)
        bad |= ranks[i].init_rc != HCCL_SUCCESS || ranks[i].failures != 0;
    ms[0] = x.ms[0], ms[1] = x.ms[1];
    aclrtBinaryUnLoad(bin);
    aclrtResetDevice(0);
    aclFinalize();
    return bad ? 3 : 0;
}

/* The child: `jobs` jobs one after the other in this process, job j writing E2E_BYTES >> j;
 * writes "ms0 ms1" per job to `out`. Exit status 0 when all went well. */
static int child_run(const char *out, int jobs)
{
    float ms[2];
    int bad = 0;
    FILE *f = fopen(out, "w");

    for (int j = 0; j < jobs && bad == 0; j++) {
        bad = child_job(E2E_BYTES >> j, ms);
        if (f == NULL || fprintf(f, "%.9g %.9g\n", ms[0], ms[1]) < 0)
            bad = 1;
    }
    if (f != NULL)
        fclose(f);
    return bad;
}

/* Run a child with HCEMU_SEED=seed (and the model file when `file`) that runs `jobs` jobs (1
 * or 2) in turn; the two elapsed times of each, in ms[2 * job + rank]. */
static void run_jobs(const char *time, uint64_t seed, bool file, int jobs, double *ms)
{
    static char env[6][CU_PATH * 2];
    char out[CU_PATH * 2], model[CU_PATH * 2];

    cu_write(tmp, "model.json", model_json, model, sizeof(model));
    snprintf(out, sizeof(out), "%s/out.txt", tmp);
    snprintf(env[0], sizeof(env[0]), "HCEMU_TIME=%s", time);
    snprintf(env[1], sizeof(env[1]), "HCEMU_SEED=%llu", (unsigned long long)seed);
    snprintf(env[2], sizeof(env[2]), "HCEMU_JOB_DIR=%s", tmp);
    snprintf(env[3], sizeof(env[3]), "HCEMU_MODEL=%s", file ? model : "");
    snprintf(env[4], sizeof(env[4]), "HCCL_BUFFSIZE=4");
    snprintf(env[5], sizeof(env[5]), "HCEMU_TRACE=%s/trace.json", tmp);
    char *e[] = {env[0], env[1], env[2], env[3], env[4], env[5], NULL};
    int st = cu_wait(cu_spawn(self, jobs == 2 ? "run2" : "run", out, e), 90000);
    if (st != 0)
        fail_msg("child (HCEMU_TIME=%s HCEMU_SEED=%llu) exited with %d", time,
                 (unsigned long long)seed, st);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    for (int j = 0; j < jobs; j++)
        assert_int_equal(fscanf(f, "%lf %lf", &ms[2 * j], &ms[2 * j + 1]), 2);
    fclose(f);
    unlink(out);
    assert_int_equal(cu_wait_executors_gone(tmp, 5000), 0);
}

/* The closed form of the graph (docs/MODEL.md "Worked example"): event A (host task), the
 * start record (host task), the kernel launch; the main thread's wait, its write of `bytes`
 * at the link's bandwidth, its wait for the peer's write, its record; the host's wait, event
 * B. Returns rank me's milliseconds. */
static double closed_form(const struct emu_model_params *p, uint32_t me, const double bw[2],
                          uint64_t bytes)
{
    double H = p->host_task_s, K = p->launch_s, T = p->task_s, N = p->notify_s;
    double w[2];

    for (int r = 0; r < 2; r++) /* write ends: start record, launch, wait, write */
        w[r] = 2 * H + K + T + T + p->link_lat_s + (double)bytes / bw[r];
    double cwait = w[me] + T > w[1 - me] + N ? w[me] + T : w[1 - me] + N;
    double done = cwait + T;               /* the record to the host */
    double b = done + (H > N ? H : N) + H; /* host wait, event B */
    return (b - H) * 1e3;                  /* minus event A's end */
}

static void run_child(const char *time, uint64_t seed, bool file, double ms[2])
{
    run_jobs(time, seed, file, 1, ms);
}

static void elapsed(double got, double want)
{
    if (got < want * 0.99 || got > want * 1.01)
        fail_msg("aclrtEventElapsedTime %.6f ms, closed form %.6f ms", got, want);
}

static void kernel_elapsed_time_is_the_closed_form_identically_across_seeds(void **state)
{
    struct emu_model_params p;
    double ms[3][2];
    static const uint64_t seeds[] = {0, 5, 977};

    (void)state;
    emu_model_params_default(&p);
    p.task_s = 2e-6, p.launch_s = 5e-6, p.host_task_s = 1e-6, p.notify_s = 1e-6;
    p.link_lat_s = 1e-6;
    const double bw[2] = {25e9, 50e9}; /* 0 -> 1 from the file's "links" */
    for (int i = 0; i < 3; i++) {
        run_child("model", seeds[i], true, ms[i]);
        for (uint32_t r = 0; r < 2; r++)
            elapsed(ms[i][r], closed_form(&p, r, bw, E2E_BYTES));
        if (i > 0 && (ms[i][0] != ms[0][0] || ms[i][1] != ms[0][1]))
            fail_msg("HCEMU_SEED=%llu: %.9g %.9g ms; HCEMU_SEED=0: %.9g %.9g ms",
                     (unsigned long long)seeds[i], ms[i][0], ms[i][1], ms[0][0], ms[0][1]);
    }
}

/* A process that ends its job (aclFinalize) and starts another, whose kernel writes half the
 * bytes: the second job's modelled times come from its own graph, with none of the first
 * job's synchronisations (it used to read the first job's graph, and found the first job's
 * event records there). */
static void a_second_job_in_one_process_models_its_own_graph(void **state)
{
    struct emu_model_params p;
    double ms[4];

    (void)state;
    emu_model_params_default(&p);
    p.task_s = 2e-6, p.launch_s = 5e-6, p.host_task_s = 1e-6, p.notify_s = 1e-6;
    p.link_lat_s = 1e-6;
    const double bw[2] = {25e9, 50e9}; /* as in the model file */
    run_jobs("model", 0, true, 2, ms);
    for (uint32_t r = 0; r < 2; r++) {
        elapsed(ms[r], closed_form(&p, r, bw, E2E_BYTES));
        elapsed(ms[2 + r], closed_form(&p, r, bw, E2E_BYTES / 2));
    }
}

/* Also: with HCEMU_TRACE, <trace>.model.json holds the slices at modelled times, a transfers
 * track and a utilisation track per link. */
static void without_a_model_file_the_vendor_figures_apply(void **state)
{
    struct emu_model_params p;
    double ms[2];
    char path[CU_PATH * 2], text[65536];

    (void)state;
    emu_model_params_default(&p);
    const double bw[2] = {p.link_bw, p.link_bw};
    run_child("model", 3, false, ms);
    for (uint32_t r = 0; r < 2; r++)
        elapsed(ms[r], closed_form(&p, r, bw, E2E_BYTES));
    snprintf(path, sizeof(path), "%s/trace.json.model.json", tmp);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = 0;
    assert_true(n > 4 && text[0] == '[' && strcmp(text + n - 3, "\n]\n") == 0);
    assert_non_null(strstr(text, "\"name\":\"link 0->1 transfers\""));
    assert_non_null(strstr(text, "\"name\":\"link 0->1 utilisation\",\"pid\":0,"));
    assert_non_null(strstr(text, "\"args\":{\"percent\":100.00}"));
    assert_non_null(strstr(text, "\"name\":\"transfer\""));
}

static void wall_time_is_the_default(void **state)
{
    double ms[2];

    (void)state;
    run_child("wall", 0, false, ms);
    assert_true(ms[0] >= 0 && ms[1] >= 0);
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--child") == 0 && strcmp(argv[2], "run") == 0)
        return child_run(argv[3], 1);
    if (argc >= 4 && strcmp(argv[1], "--child") == 0 && strcmp(argv[2], "run2") == 0)
        return child_run(argv[3], 2);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_transfer_takes_dispatch_latency_and_bytes_over_bandwidth),
        cmocka_unit_test(two_transfers_on_one_link_each_take_twice_as_long),
        cmocka_unit_test(transfers_to_different_peers_do_not_slow_each_other_on_a_mesh),
        cmocka_unit_test(a_flow_that_joins_later_shares_only_from_then_on),
        cmocka_unit_test(flows_late_in_a_long_run_end_when_their_bytes_are_due),
        cmocka_unit_test(a_chain_of_notifies_adds_notify_latency_and_dispatch_per_hop),
        cmocka_unit_test(ring_allreduce_matches_its_closed_form_at_2_4_8_ranks),
        cmocka_unit_test(mesh_allgather_matches_its_closed_form_at_2_4_8_ranks),
        cmocka_unit_test(inter_server_transfers_share_the_device_port),
        cmocka_unit_test(a_per_link_figure_overrides_the_default),
        cmocka_unit_test(a_local_reduce_moves_at_its_data_types_figure),
        cmocka_unit_test(links_and_ports_report_their_utilisation),
        cmocka_unit_test(a_kernel_ends_when_the_tasks_it_queued_end),
        cmocka_unit_test(waits_meet_records_in_queue_order),
        cmocka_unit_test(a_task_queued_after_a_host_synchronisation_starts_after_what_it_waited_for),
        cmocka_unit_test(a_question_sees_only_what_its_targets_waited_for),
        cmocka_unit_test(a_graph_split_over_two_folders_simulates_as_one_folder_on_two_servers),
        cmocka_unit_test(kernel_elapsed_time_is_the_closed_form_identically_across_seeds),
        cmocka_unit_test(a_second_job_in_one_process_models_its_own_graph),
        cmocka_unit_test(without_a_model_file_the_vendor_figures_apply),
        cmocka_unit_test(wall_time_is_the_default),
    };
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 1;
    self[n] = 0;
    cu_tmpdir(tmp, sizeof(tmp));
    int rc = cmocka_run_group_tests(tests, setup, NULL);
    cu_rmtree(tmp);
    return rc;
}
