/* test_model.c - the modelled clock (common/model.c, docs/MODEL.md): simulated times of task
 * graphs of known shape against their closed-form alpha-beta results. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "bench/model_graphs.h"
#include "common/model.h"

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
                fail_msg("ring allreduce n=%u bytes=%llu: modelled %g s, alpha-beta %g s",
                         ranks[i], (unsigned long long)sizes[j], got, want);
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
                fail_msg("mesh allgather n=%u bytes=%llu: modelled %g s, alpha-beta %g s",
                         ranks[i], (unsigned long long)sizes[j], got, want);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_transfer_takes_dispatch_latency_and_bytes_over_bandwidth),
        cmocka_unit_test(two_transfers_on_one_link_each_take_twice_as_long),
        cmocka_unit_test(transfers_to_different_peers_do_not_slow_each_other_on_a_mesh),
        cmocka_unit_test(a_flow_that_joins_later_shares_only_from_then_on),
        cmocka_unit_test(a_chain_of_notifies_adds_notify_latency_and_dispatch_per_hop),
        cmocka_unit_test(ring_allreduce_matches_its_closed_form_at_2_4_8_ranks),
        cmocka_unit_test(mesh_allgather_matches_its_closed_form_at_2_4_8_ranks),
        cmocka_unit_test(inter_server_transfers_share_the_device_port),
        cmocka_unit_test(a_per_link_figure_overrides_the_default),
        cmocka_unit_test(a_kernel_ends_when_the_tasks_it_queued_end),
        cmocka_unit_test(waits_meet_records_in_queue_order),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
