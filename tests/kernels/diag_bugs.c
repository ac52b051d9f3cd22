/* diag_bugs.c - small kernels with one communication bug each, for the diagnostics tests
 * (tests/test_diag.c) and docs/DEBUGGING.md. Two ranks; each rank has two AICPU_TS threads
 * (main, slave) with two notifies each (main's notify 1 is the host start signal) and one
 * channel to the other rank with two notifies (0 = READY/DATA, 1 = DONE).
 * Entries: diag_ok (correct), diag_cycle, diag_nobody, diag_wrong_index, diag_absorbed,
 * diag_past_buffer, diag_read_race, diag_ww_race, diag_reuse; and on any number of ranks
 * (one channel to every peer, channels[0] of rank r > 0 to rank 0): diag_fan_ok (correct),
 * diag_fan_race; diag_slow (rank 1 computes for 6 s before it records). */
#include <stdint.h>
#include <string.h>

#include <hccl/hcomm_primitives.h>

#include "op_args.h"

#define TMO EX_NOTIFY_TIMEOUT

enum { READY = 0, DONE = 1 };

struct kctx {
    const struct ex_op_param *p;
    struct ex_res_ctx res;
    ThreadHandle main, slave;
    ChannelHandle ch;
    uint8_t *L; /* this rank's HCCL buffer */
    uint8_t *R; /* the peer's HCCL buffer, through the channel */
    uint64_t peer_size;
    uint8_t *in, *out;
    uint64_t bytes;
    uint32_t rank;
};

static int begin(void *args, struct kctx *k)
{
    k->p = args;
    if (k->p->ctx_size < sizeof(k->res))
        return -1;
    memcpy(&k->res, k->p->ctx, sizeof(k->res));
    k->main = k->res.threads[0];
    k->slave = k->res.threads[1];
    k->ch = k->res.channels[0].handle;
    k->L = k->res.hccl_buf;
    k->R = k->res.channels[0].peer_buf;
    k->peer_size = k->res.channels[0].peer_buf_size;
    k->in = k->p->input;
    k->out = k->p->output;
    k->bytes = k->p->count * 4;
    k->rank = k->p->rank;
    if (HcommBatchModeStart(k->p->tag) != 0)
        return -1;
    return HcommThreadNotifyWaitOnThread(k->main, k->p->start_idx, TMO);
}

static uint32_t finish(struct kctx *k, int bad)
{
    bad |= HcommThreadNotifyRecordOnThread(k->main, k->p->host_thread, 0) != 0;
    bad |= HcommBatchModeEnd(k->p->tag) != 0;
    return bad != 0;
}

/* Correct: rank 0 stages its input, rank 1 reads it after READY and acknowledges with DONE;
 * rank 0's slave copies the input to the output and joins the main thread. */
uint32_t diag_ok(void *args)
{
    struct kctx k;
    int bad = begin(args, &k) != 0;

    if (k.rank == 0) {
        bad |= HcommThreadNotifyRecordOnThread(k.main, k.slave, 0) != 0;
        bad |= HcommThreadNotifyWaitOnThread(k.slave, 0, TMO) != 0;
        bad |= HcommLocalCopyOnThread(k.slave, k.out, k.in, k.bytes) != 0;
        bad |= HcommThreadNotifyRecordOnThread(k.slave, k.main, 0) != 0;
        bad |= HcommLocalCopyOnThread(k.main, k.L, k.in, k.bytes) != 0;
        bad |= HcommChannelNotifyRecordOnThread(k.main, k.ch, READY) != 0;
        bad |= HcommChannelNotifyWaitOnThread(k.main, k.ch, DONE, TMO) != 0;
        bad |= HcommThreadNotifyWaitOnThread(k.main, 0, TMO) != 0;
    } else {
        bad |= HcommChannelNotifyWaitOnThread(k.main, k.ch, READY, TMO) != 0;
        bad |= HcommReadOnThread(k.main, k.ch, k.out, k.R, k.bytes) != 0;
        bad |= HcommChannelNotifyRecordOnThread(k.main, k.ch, DONE) != 0;
    }
    return finish(&k, bad);
}

/* Both ranks wait for the other's record before making their own. */
uint32_t diag_cycle(void *args)
{
    struct kctx k;
    int bad = begin(args, &k) != 0;

    bad |= HcommChannelNotifyWaitOnThread(k.main, k.ch, READY, TMO) != 0;
    bad |= HcommChannelNotifyRecordOnThread(k.main, k.ch, READY) != 0;
    return finish(&k, bad);
}

/* Rank 0 waits for DONE; rank 1 never records it. */
uint32_t diag_nobody(void *args)
{
    struct kctx k;
    int bad = begin(args, &k) != 0;

    if (k.rank == 0)
        bad |= HcommChannelNotifyWaitOnThread(k.main, k.ch, DONE, TMO) != 0;
    return finish(&k, bad);
}

/* Rank 0's main thread starts its slave on notify 1, the slave waits on notify 0. */
uint32_t diag_wrong_index(void *args)
{
    struct kctx k;
    int bad = begin(args, &k) != 0;

    if (k.rank == 0) {
        bad |= HcommThreadNotifyRecordOnThread(k.main, k.slave, 1) != 0;
        bad |= HcommThreadNotifyWaitOnThread(k.slave, 0, TMO) != 0;
        bad |= HcommThreadNotifyRecordOnThread(k.slave, k.main, 0) != 0;
        bad |= HcommThreadNotifyWaitOnThread(k.main, 0, TMO) != 0;
    }
    return finish(&k, bad);
}

/* Rank 0's main thread records the slave's notify 0 twice before the slave waits: the second
 * record is absorbed, so the slave's second wait never ends. */
uint32_t diag_absorbed(void *args)
{
    struct kctx k;
    int bad = begin(args, &k) != 0;

    if (k.rank == 0) {
        bad |= HcommThreadNotifyRecordOnThread(k.main, k.slave, 0) != 0;
        bad |= HcommThreadNotifyRecordOnThread(k.main, k.slave, 0) != 0;
        bad |= HcommThreadNotifyRecordOnThread(k.main, k.slave, 1) != 0;
        bad |= HcommThreadNotifyWaitOnThread(k.slave, 1, TMO) != 0;
        bad |= HcommThreadNotifyWaitOnThread(k.slave, 0, TMO) != 0;
        bad |= HcommThreadNotifyWaitOnThread(k.slave, 0, TMO) != 0;
        bad |= HcommThreadNotifyRecordOnThread(k.slave, k.main, 0) != 0;
        bad |= HcommThreadNotifyWaitOnThread(k.main, 0, TMO) != 0;
    }
    return finish(&k, bad);
}

/* Rank 0 writes 128 bytes starting 64 bytes before the end of the peer's HCCL buffer. */
uint32_t diag_past_buffer(void *args)
{
    struct kctx k;
    int bad = begin(args, &k) != 0;

    if (k.rank == 0)
        bad |= HcommWriteOnThread(k.main, k.ch, k.R + k.peer_size - 64, k.L, 128) != 0;
    return finish(&k, bad);
}

/* Rank 1 writes into rank 0's buffer and records DATA; rank 0 copies the buffer out before
 * waiting for DATA. */
uint32_t diag_read_race(void *args)
{
    struct kctx k;
    int bad = begin(args, &k) != 0;

    if (k.rank == 1) {
        bad |= HcommLocalCopyOnThread(k.main, k.L, k.in, k.bytes) != 0;
        bad |= HcommWriteOnThread(k.main, k.ch, k.R, k.L, k.bytes) != 0;
        bad |= HcommChannelNotifyRecordOnThread(k.main, k.ch, READY) != 0;
    } else {
        bad |= HcommLocalCopyOnThread(k.main, k.out, k.L, k.bytes) != 0;
        bad |= HcommChannelNotifyWaitOnThread(k.main, k.ch, READY, TMO) != 0;
    }
    return finish(&k, bad);
}

/* Rank 0's two threads both write the output, ordered by nothing. */
uint32_t diag_ww_race(void *args)
{
    struct kctx k;
    int bad = begin(args, &k) != 0;

    if (k.rank == 0) {
        bad |= HcommThreadNotifyRecordOnThread(k.main, k.slave, 0) != 0;
        bad |= HcommLocalCopyOnThread(k.main, k.out, k.in, k.bytes) != 0;
        bad |= HcommThreadNotifyWaitOnThread(k.slave, 0, TMO) != 0;
        bad |= HcommLocalCopyOnThread(k.slave, k.out, k.in, k.bytes) != 0;
        bad |= HcommThreadNotifyRecordOnThread(k.slave, k.main, 0) != 0;
        bad |= HcommThreadNotifyWaitOnThread(k.main, 0, TMO) != 0;
    }
    return finish(&k, bad);
}

/* Rank 0 stages the first half, signals READY, and stages the second half into the same
 * buffer before rank 1 acknowledged (DONE) reading the first. */
uint32_t diag_reuse(void *args)
{
    struct kctx k;
    int bad = begin(args, &k) != 0;
    uint64_t half = k.bytes / 2;

    if (k.rank == 0) {
        bad |= HcommLocalCopyOnThread(k.main, k.L, k.in, half) != 0;
        bad |= HcommChannelNotifyRecordOnThread(k.main, k.ch, READY) != 0;
        bad |= HcommLocalCopyOnThread(k.main, k.L, k.in + half, half) != 0;
        bad |= HcommChannelNotifyWaitOnThread(k.main, k.ch, DONE, TMO) != 0;
    } else {
        bad |= HcommChannelNotifyWaitOnThread(k.main, k.ch, READY, TMO) != 0;
        bad |= HcommReadOnThread(k.main, k.ch, k.out, k.R, half) != 0;
        bad |= HcommChannelNotifyRecordOnThread(k.main, k.ch, DONE) != 0;
    }
    return finish(&k, bad);
}

/* Any number of ranks: rank 0 stages its input in its buffer and records READY on every
 * channel; every other rank waits for READY, reads the buffer and acknowledges with DONE;
 * rank 0 waits for every DONE. Every rank ends with rank 0's input. With `late_half`, the
 * upper half of the ranks (the other host of a job split in two) reads before waiting for
 * READY: their reads race with rank 0's staging copy. */
static uint32_t fan(void *args, int late_half)
{
    struct kctx k;
    int bad = begin(args, &k) != 0;
    uint32_t n = k.p->rank_size;

    if (k.rank == 0) {
        bad |= HcommThreadNotifyRecordOnThread(k.main, k.slave, 0) != 0;
        bad |= HcommThreadNotifyWaitOnThread(k.slave, 0, TMO) != 0;
        bad |= HcommLocalCopyOnThread(k.slave, k.out, k.in, k.bytes) != 0;
        bad |= HcommThreadNotifyRecordOnThread(k.slave, k.main, 0) != 0;
        bad |= HcommLocalCopyOnThread(k.main, k.L, k.in, k.bytes) != 0;
        for (uint32_t c = 0; c + 1 < n; c++)
            bad |= HcommChannelNotifyRecordOnThread(k.main, k.res.channels[c].handle, READY) != 0;
        for (uint32_t c = 0; c + 1 < n; c++)
            bad |= HcommChannelNotifyWaitOnThread(k.main, k.res.channels[c].handle, DONE, TMO) != 0;
        bad |= HcommThreadNotifyWaitOnThread(k.main, 0, TMO) != 0;
    } else if (late_half && k.rank >= n / 2) {
        bad |= HcommReadOnThread(k.main, k.ch, k.out, k.R, k.bytes) != 0;
        bad |= HcommChannelNotifyWaitOnThread(k.main, k.ch, READY, TMO) != 0;
        bad |= HcommChannelNotifyRecordOnThread(k.main, k.ch, DONE) != 0;
    } else {
        bad |= HcommChannelNotifyWaitOnThread(k.main, k.ch, READY, TMO) != 0;
        bad |= HcommReadOnThread(k.main, k.ch, k.out, k.R, k.bytes) != 0;
        bad |= HcommChannelNotifyRecordOnThread(k.main, k.ch, DONE) != 0;
    }
    return finish(&k, bad);
}

uint32_t diag_fan_ok(void *args)
{
    return fan(args, 0);
}

uint32_t diag_fan_race(void *args)
{
    return fan(args, 1);
}

/* Included here, not above, so the kernels above keep the line numbers the docs cite. */
#include <time.h>

/* Rank 0 waits for DONE; rank 1 is slow: its kernel computes (here: sleeps) for 6 s before it
 * records DONE. Rank 1 is busy, not waiting, so a hang report on rank 0's host finds no cycle
 * through it (tests/multihost/hang_cycle.sh). */
uint32_t diag_slow(void *args)
{
    struct kctx k;
    int bad = begin(args, &k) != 0;

    if (k.rank == 0) {
        bad |= HcommChannelNotifyWaitOnThread(k.main, k.ch, DONE, TMO) != 0;
    } else {
        struct timespec ts = {.tv_sec = 6};
        while (nanosleep(&ts, &ts) != 0)
            ;
        bad |= HcommChannelNotifyRecordOnThread(k.main, k.ch, DONE) != 0;
    }
    return finish(&k, bad);
}
