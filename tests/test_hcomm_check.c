/* test_hcomm_check.c - the shared Hcomm call checks (common/contract/hcomm_check.c) on their own:
 * handle decoding, own / notify-destination threads, caller naming and the one refusal line,
 * for a host-like (CPU_TS, any device) and an executor-like (AICPU_TS, one device) side over
 * control blocks made in memory. The end-to-end texts are checked by test_dataplane and
 * test_api_abuse_*; here each branch is reached directly. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/contract/hcomm_check.h"
#include "common/platform/log.h"

#define NDEV 2u

static struct emu_devctl *ctls[NDEV];

static struct emu_devctl *ctl_of(uint32_t dev, bool live)
{
    (void)live;
    return dev < NDEV ? ctls[dev] : NULL;
}

static void site(uint64_t pc, char *out, size_t len)
{
    snprintf(out, len, "site 0x%llx", (unsigned long long)pc);
}

static void context(char *out, size_t len)
{
    snprintf(out, len, " (kernel k)");
}

static const struct emu_hcomm_side host = {
    .engine = EMU_ENGINE_CPU_TS,
    .rule = "the host uses CPU_TS (1)",
    .channel_engine_also = EMU_HCOMM_NONE,
    .channel_rule = "the host uses CPU_TS (1)",
    .hint = " (hint)",
    .hint_exported = " (hint exported)",
    .stale = "released",
    .ctl_of = ctl_of,
    .site = site,
};

static const struct emu_hcomm_side dev_side = {
    .engine = EMU_ENGINE_AICPU_TS,
    .one_device = true,
    .rule = "a kernel can use only AICPU_TS (3)",
    .channel_engine_also = EMU_ENGINE_AICPU,
    .channel_rule = "a kernel can use only AICPU_TS (3) and AICPU (2)",
    .hint = " (export it)",
    .hint_exported = "",
    .stale = "its thread was released",
    .ctl_of = ctl_of,
    .site = site,
    .context = context,
};

static struct emu_hcomm_call call_of(const struct emu_hcomm_side *sd, uint32_t dev)
{
    return (struct emu_hcomm_call){.side = sd,
                                   .fn = "HcommTest",
                                   .callsite = 0x1234,
                                   .dev = dev,
                                   .thread = EMU_HCOMM_NONE,
                                   .channel = EMU_HCOMM_NONE};
}

/* A live stream slot of device `dev`, and its handle as `engine` (exported or not). */
static uint64_t thread_at(uint32_t dev, uint32_t slot, uint32_t kind, uint32_t engine,
                          uint32_t handle_engine, bool exported)
{
    struct emu_stream_ctl *s = &ctls[dev]->streams[slot];
    s->kind = kind;
    s->engine = (int32_t)engine;
    s->gen = 7;
    s->rank = 2;
    s->thread_index = 1;
    s->notify_num = 4;
    struct emu_handle h = {.kind = EMU_HANDLE_THREAD, .dev = dev, .engine = handle_engine,
                           .exported = exported, .gen = 7, .index = slot};
    return emu_handle_encode(&h);
}

static int setup(void **state)
{
    (void)state;
    for (uint32_t d = 0; d < NDEV; d++) {
        ctls[d] = calloc(1, sizeof(*ctls[d]));
        if (ctls[d] == NULL)
            return -1;
    }
    emu_log_last_error(1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (uint32_t d = 0; d < NDEV; d++)
        free(ctls[d]);
    return 0;
}

/* The last refusal line contains `text`. */
static void refused_with(const char *text)
{
    const char *line = emu_log_last_error(1);
    assert_non_null(line);
    if (strstr(line, text) == NULL)
        fail_msg("\"%s\" not in \"%s\"", text, line);
}

static void thread_handles_are_decoded_or_refused(void **state)
{
    (void)state;
    struct emu_hcomm_call c = call_of(&host, EMU_HCOMM_NONE);
    struct emu_handle dh;
    struct emu_stream_ctl *s;
    uint64_t cpu = thread_at(1, 3, EMU_STREAM_ACL, EMU_ENGINE_CPU_TS, EMU_ENGINE_CPU_TS, false);

    assert_int_equal(emu_hcomm_check_thread(&c, "thread", 0, &dh, &s), EMU_ENULL);
    refused_with("host: HcommTest refused: thread is 0 (no thread); called from site 0x1234");
    assert_int_equal(emu_hcomm_check_thread(&c, "thread", 0x1234, &dh, &s), EMU_EHANDLE);
    refused_with("thread 0x0000000000001234 is not a thread handle");
    assert_int_equal(emu_hcomm_check_thread(&c, "thread", cpu, &dh, &s), EMU_OK);
    assert_int_equal(dh.index, 3);
    assert_ptr_equal(s, &ctls[1]->streams[3]);

    struct emu_handle foreign = dh;
    foreign.dev = 9;
    assert_int_equal(emu_hcomm_check_thread(&c, "dstThread", emu_handle_encode(&foreign), &dh, &s),
                     EMU_EHANDLE);
    refused_with("names device 9, which this process has not opened");

    struct emu_handle aicpu = {.kind = EMU_HANDLE_THREAD, .dev = 1, .engine = EMU_ENGINE_AICPU_TS,
                               .gen = 7, .index = 3};
    assert_int_equal(emu_hcomm_check_thread(&c, "thread", emu_handle_encode(&aicpu), &dh, &s),
                     EMU_EHANDLE);
    refused_with("is a handle of engine 3; the host uses CPU_TS (1) handles (hint)");

    ctls[1]->streams[3].gen = 8;
    assert_int_equal(emu_hcomm_check_thread(&c, "thread", cpu, &dh, &s), EMU_EHANDLE);
    refused_with("is stale (released) or was never acquired");
}

static void device_side_pins_its_device_and_names_the_kernel(void **state)
{
    (void)state;
    struct emu_hcomm_call c = call_of(&dev_side, 0);
    struct emu_handle dh;
    struct emu_stream_ctl *s;
    uint64_t other = thread_at(1, 5, EMU_STREAM_DEVICE, EMU_ENGINE_AICPU_TS,
                               EMU_ENGINE_AICPU_TS, false);
    uint64_t cpu = thread_at(0, 6, EMU_STREAM_ACL, EMU_ENGINE_CPU_TS, EMU_ENGINE_CPU_TS, false);

    assert_int_equal(emu_hcomm_check_thread(&c, "thread", other, &dh, &s), EMU_EHANDLE);
    refused_with("device 0 (kernel k): HcommTest refused: thread 0x");
    assert_int_equal(emu_hcomm_check_thread(&c, "thread", other, &dh, &s), EMU_EHANDLE);
    refused_with("belongs to device 1, this kernel runs on device 0");
    assert_int_equal(emu_hcomm_check_thread(&c, "thread", cpu, &dh, &s), EMU_EHANDLE);
    refused_with("a kernel can use only AICPU_TS (3) handles (export it)");

    uint64_t own = thread_at(0, 2, EMU_STREAM_DEVICE, EMU_ENGINE_AICPU_TS, EMU_ENGINE_AICPU_TS,
                             false);
    assert_int_equal(emu_hcomm_check_thread(&c, "thread", own, &dh, &s), EMU_OK);
    c.thread = dh.index;
    assert_int_equal(emu_hcomm_check_index(&c, "notifyIdx", 4, s->notify_num), EMU_EINVAL);
    refused_with("rank 2 thread 1 (kernel k): HcommTest refused: notifyIdx 4 is out of range "
                 "[0, 4)");
    snprintf(s->label, sizeof(s->label), "rank 2 thread 1 lbl");
    assert_int_equal(emu_hcomm_check_index(&c, "notifyIdx", 0, 0), EMU_EINVAL);
    refused_with("rank 2 thread 1 lbl (kernel k): HcommTest refused: notifyIdx 0: the target "
                 "has no notifies (notifyNum 0)");
}

static void own_threads_and_notify_destinations(void **state)
{
    (void)state;
    struct emu_hcomm_call c = call_of(&host, EMU_HCOMM_NONE);
    struct emu_handle dh;
    struct emu_stream_ctl *s;
    uint64_t cpu = thread_at(0, 1, EMU_STREAM_ACL, EMU_ENGINE_CPU_TS, EMU_ENGINE_CPU_TS, false);
    /* An AICPU_TS thread exported to CPU_TS: the handle carries the destination engine. */
    uint64_t exported = thread_at(0, 2, EMU_STREAM_DEVICE, EMU_ENGINE_AICPU_TS,
                                  EMU_ENGINE_CPU_TS, true);
    /* A CPU_TS thread exported to CPU_TS names nothing the host may use. */
    uint64_t odd = thread_at(0, 3, EMU_STREAM_ACL, EMU_ENGINE_CPU_TS, EMU_ENGINE_CPU_TS, true);

    assert_int_equal(emu_hcomm_check_thread(&c, "thread", cpu, &dh, &s), EMU_OK);
    assert_true(emu_hcomm_check_own(&host, &dh, s));
    assert_true(emu_hcomm_check_notify_dst(&host, &dh, s));
    assert_int_equal(emu_hcomm_check_thread(&c, "dstThread", exported, &dh, &s), EMU_OK);
    assert_false(emu_hcomm_check_own(&host, &dh, s));
    assert_true(emu_hcomm_check_notify_dst(&host, &dh, s));
    assert_int_equal(emu_hcomm_check_thread(&c, "dstThread", odd, &dh, &s), EMU_OK);
    assert_false(emu_hcomm_check_own(&host, &dh, s));
    assert_false(emu_hcomm_check_notify_dst(&host, &dh, s));
}

static void host_caller_is_named_by_device_and_stream(void **state)
{
    (void)state;
    struct emu_hcomm_call c = call_of(&host, 1);
    char whom[128];

    c.thread = 4;
    ctls[1]->streams[4].rank = 3;
    ctls[1]->streams[4].thread_index = 0;
    emu_hcomm_check_whom(&c, whom, sizeof(whom));
    assert_string_equal(whom, "rank 3 CPU_TS thread 0 (device 1 stream 4)");
    ctls[1]->streams[4].rank = UINT32_MAX;
    emu_hcomm_check_whom(&c, whom, sizeof(whom));
    assert_string_equal(whom, "device 1 stream 4");
}

static void channel_handles_are_decoded_or_refused(void **state)
{
    (void)state;
    struct emu_hcomm_call c = call_of(&dev_side, 0);
    struct emu_channel_ctl *ch = &ctls[0]->channels[1];
    struct emu_handle h = {.kind = EMU_HANDLE_CHANNEL, .dev = 0, .engine = EMU_ENGINE_AICPU_TS,
                           .gen = 3, .index = 1};
    uint32_t slot = 0;

    ch->state = 1;
    ch->gen = 3;
    ch->engine = (int32_t)EMU_ENGINE_AICPU_TS;
    ch->local_rank = 0;
    ch->remote_rank = 1;
    assert_int_equal(emu_hcomm_check_channel(&c, 0, &slot), EMU_ENULL);
    refused_with("channel is 0 (no channel)");
    assert_int_equal(emu_hcomm_check_channel(&c, emu_handle_encode(&h), &slot), EMU_OK);
    assert_int_equal(slot, 1);
    assert_int_equal(c.channel, 1);
    assert_int_equal(emu_hcomm_check_index(&c, "remoteNotifyIdx", 0, 0), EMU_EINVAL);
    refused_with("rank 0 channel to rank 1 (kernel k): HcommTest refused:");

    h.engine = EMU_ENGINE_CPU_TS;
    assert_int_equal(emu_hcomm_check_channel(&c, emu_handle_encode(&h), &slot), EMU_EHANDLE);
    refused_with("was acquired for engine 1; a kernel can use only AICPU_TS (3) and AICPU (2) channels");
    h.engine = EMU_ENGINE_AICPU_TS;
    ch->state = 0;
    assert_int_equal(emu_hcomm_check_channel(&c, emu_handle_encode(&h), &slot), EMU_EHANDLE);
    refused_with("is stale (released) or was never acquired");
}

static void timeouts_are_whole_seconds_in_range(void **state)
{
    (void)state;
    struct emu_hcomm_call c = call_of(&host, EMU_HCOMM_NONE);
    uint32_t s = 0;

    assert_int_equal(emu_hcomm_check_timeout(&c, 2.9f, &s), EMU_OK);
    assert_int_equal(s, 2);
    assert_int_equal(emu_hcomm_check_timeout(&c, NAN, &s), EMU_EINVAL);
    refused_with("must be a number in [0, 4294967295] (0 = forever)");
    assert_int_equal(emu_hcomm_check_timeout(&c, -1.0f, &s), EMU_EINVAL);
    assert_int_equal(emu_hcomm_check_timeout(&c, 1e10f, &s), EMU_EINVAL);
    assert_int_equal(s, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(thread_handles_are_decoded_or_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(device_side_pins_its_device_and_names_the_kernel, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(own_threads_and_notify_destinations, setup, teardown),
        cmocka_unit_test_setup_teardown(host_caller_is_named_by_device_and_stream, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(channel_handles_are_decoded_or_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(timeouts_are_whole_seconds_in_range, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
