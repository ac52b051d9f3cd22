/* abuse_kernel.c - the adversarial data-plane kernel of test_api_abuse_kernel: calls every
 * device-side Hcomm* function with garbage handles, indices, pointers, counts, types and
 * batch descriptors, storing each return value and what DATA_PLANE.md says it must be. Before each
 * case it writes "ABUSE-CASE n" to stderr, so the host can count the log lines of each call.
 * It ends with a correct local copy and remote write, drained with HcommThreadJoin. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "abuse_params.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm/hcomm_primitives_expt.h"

#define PARA 1
#define PTR 2
#define NOTSUP 5
#define IDX (-2)  /* bad index: HCCL_E_PARA or HCCL_E_PTR (docs/DATA_PLANE.md §2) */
#define ANY ABUSE_ANY_ERROR
#define SANE (-3) /* either accepted (0, no line) or refused (one line) */

struct run {
    const struct abuse_args *a;
    int32_t *res;
    int32_t *exp;
    uint32_t n;
};

static void mark(uint32_t n)
{
    char line[32];
    int len = snprintf(line, sizeof(line), "ABUSE-CASE %u\n", n);
    ssize_t w = write(2, line, (size_t)len);
    (void)w;
}

#define CASE(r, want, call)                                                                    \
    do {                                                                                       \
        if ((r)->n < ABUSE_MAX_CASES) {                                                        \
            mark((r)->n);                                                                      \
            (r)->exp[(r)->n] = (want);                                                         \
            (r)->res[(r)->n] = (int32_t)(call);                                                \
            (r)->n++;                                                                          \
        }                                                                                      \
    } while (0)

static void *P(uint64_t a)
{
    return (void *)(uintptr_t)a;
}

/* Thread handles no kernel may queue on, with the code each must get. */
struct bad { uint64_t h; int32_t want; };

static uint32_t bad_threads(const struct abuse_args *a, struct bad *out)
{
    uint32_t n = 0;
    out[n++] = (struct bad){0, PTR};
    out[n++] = (struct bad){0xdeadbeefcafef00dull, PARA};
    out[n++] = (struct bad){0x8000000000000001ull, PARA};
    out[n++] = (struct bad){a->stale_thread, PARA};
    out[n++] = (struct bad){a->peer_thread, PARA};
    out[n++] = (struct bad){a->cpu_thread, PARA};
    out[n++] = (struct bad){a->exported_cpu, PARA};
    out[n++] = (struct bad){a->exported_main, PARA};
    out[n++] = (struct bad){a->channel, PARA};
    out[n++] = (struct bad){a->thread ^ (0x2000ull << 30), PARA};       /* generation */
    out[n++] = (struct bad){a->thread | 0x3FFFFFFFull, PARA};           /* slot index */
    out[n++] = (struct bad){a->thread ^ (0xFFull << 48), PARA};         /* device 255 - d */
    return n;
}

static uint32_t bad_channels(const struct abuse_args *a, struct bad *out)
{
    uint32_t n = 0;
    out[n++] = (struct bad){0, IDX};
    out[n++] = (struct bad){0x0123456789abcdefull, PARA};
    out[n++] = (struct bad){a->stale_channel, PARA};
    out[n++] = (struct bad){a->peer_channel, PARA};
    out[n++] = (struct bad){a->thread, PARA};
    out[n++] = (struct bad){a->channel ^ (0x2000ull << 30), PARA};
    out[n++] = (struct bad){a->channel | 0x3FFFFFFFull, PARA};
    out[n++] = (struct bad){a->channel ^ (0xFFull << 48), PARA};
    return n;
}

static void threads(struct run *r)
{
    const struct abuse_args *a = r->a;
    void *buf = P(a->local_buf), *b2 = P(a->local_buf + 1024);
    struct bad bt[16];
    uint32_t nt = bad_threads(a, bt);

    for (uint32_t i = 0; i < nt; i++) {
        ThreadHandle t = bt[i].h;
        int32_t w = bt[i].want;
        CASE(r, w, HcommLocalCopyOnThread(t, b2, buf, 64));
        CASE(r, w, HcommLocalReduceOnThread(t, b2, buf, 16, HCOMM_DATA_TYPE_INT32,
                                            HCOMM_REDUCE_SUM));
        CASE(r, w, HcommThreadNotifyRecordOnThread(t, a->thread2, 0));
        CASE(r, w, HcommThreadNotifyWaitOnThread(t, 0, 1));
        CASE(r, w, HcommThreadNotifyWaitOnThreadWithDefaultTimeout(t, 0));
        CASE(r, w, HcommWriteOnThread(t, a->channel, P(a->peer_hccl), buf, 64));
        CASE(r, w, HcommWriteReduceOnThread(t, a->channel, P(a->peer_hccl), buf, 16,
                                            HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM));
        CASE(r, w, HcommWriteWithNotifyOnThread(t, a->channel, P(a->peer_hccl), buf, 64, 0));
        CASE(r, w, HcommWriteReduceWithNotifyOnThread(t, a->channel, P(a->peer_hccl), buf, 16,
                                                      HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM,
                                                      0));
        CASE(r, w, HcommReadOnThread(t, a->channel, buf, P(a->peer_hccl), 64));
        CASE(r, w, HcommReadReduceOnThread(t, a->channel, buf, P(a->peer_hccl), 16,
                                           HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM));
        HcommBatchTransferDesc d;
        memset(&d, 0, sizeof(d));
        d.transType = HCOMM_TRANSFER_TYPE_WRITE;
        d.transferInfo.write.len = 64;
        d.transferInfo.write.dst = P(a->peer_hccl);
        d.transferInfo.write.src = buf;
        CASE(r, w, HcommBatchTransferOnThread(t, a->channel, &d, 1));
        CASE(r, w, HcommChannelNotifyRecordOnThread(t, a->channel, 0));
        CASE(r, w, HcommChannelNotifyWaitOnThread(t, a->channel, 0, 1));
        CASE(r, w, HcommChannelNotifyWaitOnThreadWithDefaultTimeout(t, a->channel, 0));
        CASE(r, w, HcommChannelFenceOnThread(t, a->channel));
        CASE(r, w, HcommChannelDrainOnThread(t, a->channel));
        CASE(r, w, HcommThreadJoin(t, 1));
        CASE(r, w, HcommThreadSynchronize(t));
        /* A2/A3 runtime notifies are not on Atlas 350, whatever the thread. */
        CASE(r, ANY, HcommAclrtNotifyRecordOnThread(t, 1));
        CASE(r, ANY, HcommAclrtNotifyWaitOnThread(t, 1, 1));
    }
    /* Destinations of a thread-notify record: the kernel's own threads or exported ones. */
    for (uint32_t i = 0; i < nt; i++)
        if (bt[i].h != a->exported_cpu) /* that one is a valid destination */
            CASE(r, bt[i].want, HcommThreadNotifyRecordOnThread(a->thread, bt[i].h, 0));
}

static void channels(struct run *r)
{
    const struct abuse_args *a = r->a;
    void *buf = P(a->local_buf);
    struct bad bc[16];
    uint32_t nc = bad_channels(a, bc);

    for (uint32_t i = 0; i < nc; i++) {
        ChannelHandle ch = bc[i].h;
        int32_t w = bc[i].want;
        CASE(r, w, HcommWriteOnThread(a->thread, ch, P(a->peer_hccl), buf, 64));
        CASE(r, w, HcommWriteReduceOnThread(a->thread, ch, P(a->peer_hccl), buf, 16,
                                            HCOMM_DATA_TYPE_FP32, HCOMM_REDUCE_MAX));
        CASE(r, w, HcommWriteWithNotifyOnThread(a->thread, ch, P(a->peer_hccl), buf, 64, 0));
        CASE(r, w, HcommWriteReduceWithNotifyOnThread(a->thread, ch, P(a->peer_hccl), buf, 16,
                                                      HCOMM_DATA_TYPE_FP32, HCOMM_REDUCE_MIN,
                                                      0));
        CASE(r, w, HcommReadOnThread(a->thread, ch, buf, P(a->peer_hccl), 64));
        CASE(r, w, HcommReadReduceOnThread(a->thread, ch, buf, P(a->peer_hccl), 16,
                                           HCOMM_DATA_TYPE_FP32, HCOMM_REDUCE_SUM));
        HcommBatchTransferDesc d;
        memset(&d, 0, sizeof(d));
        d.transType = HCOMM_TRANSFER_TYPE_NOTIFY_RECORD;
        CASE(r, w, HcommBatchTransferOnThread(a->thread, ch, &d, 1));
        CASE(r, w, HcommChannelNotifyRecordOnThread(a->thread, ch, 0));
        CASE(r, w, HcommChannelNotifyWaitOnThread(a->thread, ch, 0, 1));
        CASE(r, w, HcommChannelNotifyWaitOnThreadWithDefaultTimeout(a->thread, ch, 0));
        CASE(r, w, HcommChannelFenceOnThread(a->thread, ch));
        CASE(r, w, HcommChannelDrainOnThread(a->thread, ch));
    }
}

static void indices(struct run *r)
{
    const struct abuse_args *a = r->a;
    void *buf = P(a->local_buf);
    static const uint32_t bad_idx[] = {2, 64, 65, 0x7fffffffu, 0xffffffffu};

    for (uint32_t i = 0; i < sizeof(bad_idx) / sizeof(bad_idx[0]); i++) {
        uint32_t k = bad_idx[i];
        CASE(r, IDX, HcommThreadNotifyRecordOnThread(a->thread, a->thread2, k));
        CASE(r, IDX, HcommThreadNotifyRecordOnThread(a->thread, a->exported_cpu, k - 1 + 1));
        CASE(r, IDX, HcommThreadNotifyWaitOnThread(a->thread, k, 1));
        CASE(r, IDX, HcommThreadNotifyWaitOnThreadWithDefaultTimeout(a->thread, k));
        CASE(r, IDX, HcommChannelNotifyRecordOnThread(a->thread, a->channel, k));
        CASE(r, IDX, HcommChannelNotifyWaitOnThread(a->thread, a->channel, k, 1));
        CASE(r, IDX, HcommChannelNotifyWaitOnThreadWithDefaultTimeout(a->thread, a->channel, k));
        CASE(r, IDX, HcommWriteWithNotifyOnThread(a->thread, a->channel, P(a->peer_hccl), buf,
                                                  64, k));
        CASE(r, IDX, HcommWriteReduceWithNotifyOnThread(a->thread, a->channel, P(a->peer_hccl),
                                                        buf, 4, HCOMM_DATA_TYPE_INT8,
                                                        HCOMM_REDUCE_SUM, k));
    }
    /* The exported CPU_TS thread has one notify: index 1 is out of range too. */
    CASE(r, IDX, HcommThreadNotifyRecordOnThread(a->thread, a->exported_cpu, 1));
}

static void pointers(struct run *r)
{
    const struct abuse_args *a = r->a;
    uint64_t lb = a->local_buf, ph = a->peer_hccl, hp = a->host_ptr;
    uint64_t unmapped = lb + (1ull << 32); /* inside the device window, not allocated */
    uint64_t end = lb + a->local_size;
    ThreadHandle t = a->thread;
    ChannelHandle ch = a->channel;

    /* Local copy: both sides local device memory, in range. */
    CASE(r, PTR, HcommLocalCopyOnThread(t, NULL, P(lb), 64));
    CASE(r, PTR, HcommLocalCopyOnThread(t, P(lb), NULL, 64));
    CASE(r, ANY, HcommLocalCopyOnThread(t, P(hp), P(lb), 64));
    CASE(r, ANY, HcommLocalCopyOnThread(t, P(lb), P(hp), 64));
    CASE(r, ANY, HcommLocalCopyOnThread(t, P(ph), P(lb), 64));
    CASE(r, ANY, HcommLocalCopyOnThread(t, P(lb), P(ph), 64));
    CASE(r, ANY, HcommLocalCopyOnThread(t, P(unmapped), P(lb), 64));
    CASE(r, ANY, HcommLocalCopyOnThread(t, P(end - 16), P(lb), 64));
    CASE(r, ANY, HcommLocalCopyOnThread(t, P(lb), P(end - 16), 64));
    CASE(r, ANY, HcommLocalCopyOnThread(t, P(lb), P(lb + 64), 1ull << 62));
    CASE(r, ANY, HcommLocalCopyOnThread(t, P(lb), P(lb + 64), UINT64_MAX));
    CASE(r, ANY, HcommLocalCopyOnThread(t, P(UINT64_MAX - 8), P(lb), 64));
    CASE(r, ANY, HcommLocalCopyOnThread(t, P(lb), P(UINT64_MAX - 8), 64));
    CASE(r, ANY, HcommLocalCopyOnThread(t, P(0x1000), P(lb), 64));
    CASE(r, SANE, HcommLocalCopyOnThread(t, P(lb + 1024), P(lb), 0));
    /* Local reduce: count overflow, types, ops, alignment. */
    CASE(r, ANY, HcommLocalReduceOnThread(t, P(lb), P(lb + 64), (1ull << 62) + 1,
                                          HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM));
    CASE(r, ANY, HcommLocalReduceOnThread(t, P(lb), P(lb + 64), (1ull << 60) + 1,
                                          HCOMM_DATA_TYPE_INT128, HCOMM_REDUCE_SUM));
    CASE(r, ANY, HcommLocalReduceOnThread(t, P(lb), P(lb + 64), UINT64_MAX,
                                          HCOMM_DATA_TYPE_INT8, HCOMM_REDUCE_SUM));
    static const int32_t bad_types[] = {13, 18, 255, 256, -1, 0x7fffffff, (int32_t)0x80000000};
    for (uint32_t i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]); i++) {
        CASE(r, PARA, HcommLocalReduceOnThread(t, P(lb), P(lb + 64), 4,
                                               (HcommDataType)bad_types[i], HCOMM_REDUCE_SUM));
        CASE(r, PARA, HcommWriteReduceOnThread(t, ch, P(ph), P(lb), 4,
                                               (HcommDataType)bad_types[i], HCOMM_REDUCE_SUM));
        CASE(r, PARA, HcommReadReduceOnThread(t, ch, P(lb), P(ph), 4,
                                              (HcommDataType)bad_types[i], HCOMM_REDUCE_SUM));
        CASE(r, PARA, HcommWriteReduceWithNotifyOnThread(t, ch, P(ph), P(lb), 4,
                                                         (HcommDataType)bad_types[i],
                                                         HCOMM_REDUCE_SUM, 0));
    }
    static const int32_t bad_ops[] = {4, 255, -1, 0x7fffffff};
    for (uint32_t i = 0; i < sizeof(bad_ops) / sizeof(bad_ops[0]); i++) {
        CASE(r, PARA, HcommLocalReduceOnThread(t, P(lb), P(lb + 64), 4, HCOMM_DATA_TYPE_FP32,
                                               (HcommReduceOp)bad_ops[i]));
        CASE(r, PARA, HcommWriteReduceOnThread(t, ch, P(ph), P(lb), 4, HCOMM_DATA_TYPE_FP32,
                                               (HcommReduceOp)bad_ops[i]));
        CASE(r, PARA, HcommReadReduceOnThread(t, ch, P(lb), P(ph), 4, HCOMM_DATA_TYPE_FP32,
                                              (HcommReduceOp)bad_ops[i]));
    }
    /* Types the local reduce does not support (docs/DATA_PLANE.md §3): UINT32, INT64, FP64. */
    CASE(r, PARA, HcommLocalReduceOnThread(t, P(lb), P(lb + 64), 4, HCOMM_DATA_TYPE_FP64,
                                           HCOMM_REDUCE_SUM));
    CASE(r, SANE, HcommLocalReduceOnThread(t, P(lb + 1024 + 1), P(lb + 1024 + 64 + 1), 4,
                                           HCOMM_DATA_TYPE_FP32, HCOMM_REDUCE_SUM));
    /* Remote: dst is the peer's, src ours (write); the reverse for read. */
    CASE(r, PTR, HcommWriteOnThread(t, ch, NULL, P(lb), 64));
    CASE(r, PTR, HcommWriteOnThread(t, ch, P(ph), NULL, 64));
    CASE(r, ANY, HcommWriteOnThread(t, ch, P(lb), P(lb + 64), 64));
    CASE(r, ANY, HcommWriteOnThread(t, ch, P(hp), P(lb), 64));
    CASE(r, ANY, HcommWriteOnThread(t, ch, P(ph), P(hp), 64));
    CASE(r, ANY, HcommWriteOnThread(t, ch, P(ph), P(ph + 64), 64));
    CASE(r, ANY, HcommWriteOnThread(t, ch, P(ph + a->peer_size - 8), P(lb), 64));
    CASE(r, ANY, HcommWriteOnThread(t, ch, P(ph), P(lb), 1ull << 62));
    CASE(r, ANY, HcommWriteOnThread(t, ch, P(ph), P(lb), UINT64_MAX));
    CASE(r, ANY, HcommWriteOnThread(t, ch, P(UINT64_MAX - 8), P(lb), 64));
    CASE(r, ANY, HcommWriteOnThread(t, ch, P(ph), P(unmapped), 64));
    CASE(r, PTR, HcommReadOnThread(t, ch, NULL, P(ph), 64));
    CASE(r, PTR, HcommReadOnThread(t, ch, P(lb), NULL, 64));
    CASE(r, ANY, HcommReadOnThread(t, ch, P(lb), P(lb + 64), 64));
    CASE(r, ANY, HcommReadOnThread(t, ch, P(ph), P(ph + 64), 64));
    CASE(r, ANY, HcommReadOnThread(t, ch, P(hp), P(ph), 64));
    CASE(r, ANY, HcommReadOnThread(t, ch, P(lb), P(hp), 64));
    CASE(r, ANY, HcommReadOnThread(t, ch, P(lb), P(ph + a->peer_size - 8), 64));
    CASE(r, ANY, HcommReadOnThread(t, ch, P(end - 8), P(ph), 64));
    CASE(r, ANY, HcommWriteReduceOnThread(t, ch, P(ph), P(lb), (1ull << 62) + 1,
                                          HCOMM_DATA_TYPE_INT32, HCOMM_REDUCE_SUM));
    CASE(r, ANY, HcommReadReduceOnThread(t, ch, P(lb), P(ph), (1ull << 63) + 1,
                                         HCOMM_DATA_TYPE_INT16, HCOMM_REDUCE_SUM));
    CASE(r, ANY, HcommWriteReduceWithNotifyOnThread(t, ch, P(ph), P(lb), (1ull << 61) + 1,
                                                    HCOMM_DATA_TYPE_INT64, HCOMM_REDUCE_SUM, 0));
    CASE(r, PTR, HcommWriteReduceOnThread(t, ch, NULL, P(lb), 4, HCOMM_DATA_TYPE_INT32,
                                          HCOMM_REDUCE_SUM));
    CASE(r, PTR, HcommReadReduceOnThread(t, ch, P(lb), NULL, 4, HCOMM_DATA_TYPE_INT32,
                                         HCOMM_REDUCE_SUM));
    CASE(r, PTR, HcommWriteWithNotifyOnThread(t, ch, NULL, P(lb), 64, 0));
    CASE(r, ANY, HcommWriteWithNotifyOnThread(t, ch, P(hp), P(lb), 64, 0));
    CASE(r, SANE, HcommWriteReduceOnThread(t, ch, P(ph + 1025), P(lb + 1), 4,
                                           HCOMM_DATA_TYPE_FP32, HCOMM_REDUCE_SUM));
}

static void batches(struct run *r)
{
    const struct abuse_args *a = r->a;
    HcommBatchTransferDesc d[3];
    ThreadHandle t = a->thread;
    ChannelHandle ch = a->channel;

    CASE(r, PTR, HcommBatchTransferOnThread(t, ch, NULL, 1));
    memset(d, 0, sizeof(d));
    CASE(r, PARA, HcommBatchTransferOnThread(t, ch, d, 0));
    static const int32_t bad_types[] = {-1, 7, 99, 0x7fffffff, (int32_t)0x80000000};
    for (uint32_t i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]); i++) {
        memset(d, 0, sizeof(d));
        d[0].transType = (HcommTransferType)bad_types[i];
        CASE(r, NOTSUP, HcommBatchTransferOnThread(t, ch, d, 1));
    }
    /* Random bytes with a garbage type. */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < sizeof(d); i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        ((uint8_t *)d)[i] = (uint8_t)x;
    }
    d[0].transType = (HcommTransferType)0x31337;
    CASE(r, NOTSUP, HcommBatchTransferOnThread(t, ch, d, 3));
    /* A valid first entry does not carry an invalid second one. */
    memset(d, 0, sizeof(d));
    d[0].transType = HCOMM_TRANSFER_TYPE_WRITE;
    d[0].transferInfo.write.len = 64;
    d[0].transferInfo.write.dst = P(a->peer_hccl + 2048);
    d[0].transferInfo.write.src = P(a->local_buf);
    d[1].transType = (HcommTransferType)42;
    CASE(r, NOTSUP, HcommBatchTransferOnThread(t, ch, d, 2));
    d[1] = d[0];
    d[1].transferInfo.write.dst = NULL;
    CASE(r, PTR, HcommBatchTransferOnThread(t, ch, d, 2));
    d[1] = d[0];
    d[1].transferInfo.write.len = UINT64_MAX;
    CASE(r, ANY, HcommBatchTransferOnThread(t, ch, d, 2));
    d[1].transType = HCOMM_TRANSFER_TYPE_WRITE_WITH_NOTIFY;
    d[1].transferInfo.writeWithNotify.len = 64;
    d[1].transferInfo.writeWithNotify.dst = P(a->peer_hccl + 2048);
    d[1].transferInfo.writeWithNotify.src = P(a->local_buf);
    d[1].transferInfo.writeWithNotify.notifyIdx = 0xFFFFFFFFu;
    CASE(r, PARA, HcommBatchTransferOnThread(t, ch, d, 2));
    d[1].transferInfo.writeWithNotify.notifyIdx = 7;
    CASE(r, IDX, HcommBatchTransferOnThread(t, ch, d, 2));
    d[1].transType = HCOMM_TRANSFER_TYPE_WRITE_REDUCE;
    d[1].transferInfo.reduce.count = 4;
    d[1].transferInfo.reduce.dst = P(a->peer_hccl + 2048);
    d[1].transferInfo.reduce.src = P(a->local_buf);
    d[1].transferInfo.reduce.dataType = (HcommDataType)99;
    d[1].transferInfo.reduce.reduceOp = HCOMM_REDUCE_SUM;
    CASE(r, PARA, HcommBatchTransferOnThread(t, ch, d, 2));
    d[1].transferInfo.reduce.dataType = HCOMM_DATA_TYPE_INT32;
    d[1].transferInfo.reduce.reduceOp = (HcommReduceOp)77;
    CASE(r, PARA, HcommBatchTransferOnThread(t, ch, d, 2));
    d[1].transferInfo.reduce.reduceOp = HCOMM_REDUCE_SUM;
    d[1].transferInfo.reduce.count = (1ull << 62) + 1;
    CASE(r, ANY, HcommBatchTransferOnThread(t, ch, d, 2));
    d[1].transType = HCOMM_TRANSFER_TYPE_READ_REDUCE;
    d[1].transferInfo.reduce.count = 4;
    d[1].transferInfo.reduce.dst = P(a->host_ptr);
    d[1].transferInfo.reduce.src = P(a->peer_hccl);
    CASE(r, ANY, HcommBatchTransferOnThread(t, ch, d, 2));
    d[1].transType = HCOMM_TRANSFER_TYPE_NOTIFY_RECORD;
    d[1].transferInfo.notifyRecord.notifyIdx = 0xFFFFFFFFu;
    CASE(r, PARA, HcommBatchTransferOnThread(t, ch, d, 2));
    d[1].transferInfo.notifyRecord.notifyIdx = 2;
    CASE(r, IDX, HcommBatchTransferOnThread(t, ch, d, 2));
}

static void host_only(struct run *r)
{
    const struct abuse_args *a = r->a;
    void *buf = P(a->local_buf), *ph = P(a->peer_hccl);
    static const uint64_t hs[] = {0, 0xfeedfacefeedfaceull};

    for (uint32_t i = 0; i < 2; i++) {
        uint64_t h = hs[i] != 0 ? hs[i] : a->channel;
        CASE(r, NOTSUP, HcommWriteNbiOnThread(a->thread, h, ph, buf, 64));
        CASE(r, NOTSUP, HcommWriteNbi(h, ph, buf, 64));
        CASE(r, NOTSUP, HcommReadNbiOnThread(a->thread, h, buf, ph, 64));
        CASE(r, NOTSUP, HcommReadNbi(h, buf, ph, 64));
        CASE(r, NOTSUP, HcommWriteWithNotifyNbiOnThread(a->thread, h, ph, buf, 64, 0));
        CASE(r, NOTSUP, HcommWriteWithNotifyNbi(h, ph, buf, 64, 0));
        CASE(r, NOTSUP, HcommChannelNotifyRecord(h, 0));
        CASE(r, NOTSUP, HcommChannelNotifyWait(h, 0, 1));
        CASE(r, NOTSUP, HcommChannelFence(h));
        CASE(r, NOTSUP, HcommFenceOnThread(hs[i] != 0 ? hs[i] : a->thread));
    }
    CASE(r, NOTSUP, HcommWriteNbi(0, NULL, NULL, 0));
    CASE(r, NOTSUP, HcommChannelNotifyWait(0, 0xffffffffu, 0));
    CASE(r, NOTSUP, HcommAclrtNotifyRecordOnThread(a->thread, 0xffffffffffffull));
    CASE(r, NOTSUP, HcommAclrtNotifyWaitOnThread(a->thread, 0, 0));
}

static void settings(struct run *r)
{
    const struct abuse_args *a = r->a;
    static const float bad[] = {-1.0f, -0.5f, 1e20f, 4294967296.0f * 2.0f};

    for (uint32_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CASE(r, PARA, HcommSetNotifyWaitTimeOut(bad[i]));
        CASE(r, PARA, HcommThreadResAcquireTimeOut(bad[i]));
    }
    CASE(r, PARA, HcommSetNotifyWaitTimeOut(NAN));
    CASE(r, PARA, HcommThreadResAcquireTimeOut(NAN));
    CASE(r, PARA, HcommSetNotifyWaitTimeOut(-INFINITY));
    CASE(r, PARA, HcommThreadResAcquireTimeOut(INFINITY));
    CASE(r, 0, HcommSetNotifyWaitTimeOut(30.5f));
    CASE(r, 0, HcommThreadResAcquireTimeOut(60.0f));

    /* Batch mode pairing. */
    CASE(r, ANY, HcommBatchModeEnd(NULL));
    CASE(r, ANY, HcommBatchModeEnd("never-started"));
    CASE(r, 0, HcommBatchModeStart("abuse"));
    CASE(r, ANY, HcommBatchModeStart("abuse"));
    CASE(r, ANY, HcommBatchModeEnd("other-tag"));
    CASE(r, 0, HcommBatchModeEnd("abuse"));
    CASE(r, ANY, HcommBatchModeEnd("abuse"));

    /* Communicator lock. */
    char longname[300];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    CASE(r, PTR, HcommAcquireComm(NULL));
    CASE(r, PTR, HcommAcquireComm("no-such-communicator"));
    CASE(r, PTR, HcommAcquireComm(""));
    CASE(r, PTR, HcommAcquireComm(longname));
    CASE(r, 0, HcommAcquireComm(a->comm_name));
    CASE(r, ANY, HcommAcquireComm(a->comm_name));
    CASE(r, 0, HcommReleaseComm(a->comm_name));
    CASE(r, ANY, HcommReleaseComm(NULL));

    /* Task cache protocol. */
    bool hit = true;
    void *addrs[2] = {P(a->local_buf), NULL};
    uint64_t sizes[2] = {64, 64};
    CASE(r, ANY, HcommAicpuTsTaskCacheLookup(NULL, &hit));
    CASE(r, ANY, HcommAicpuTsTaskCacheLookup("abuse-cache", NULL));
    CASE(r, ANY, HcommAicpuTsTaskCacheEnd("abuse-cache"));
    CASE(r, ANY, HcommAicpuTsTaskCacheExecute("abuse-cache", addrs, sizes, 1));
    CASE(r, ANY, HcommAicpuTsTaskCacheStart("abuse-cache", addrs, sizes, 1));
    CASE(r, ANY, HcommAicpuTsTaskCacheEnd(NULL));
    CASE(r, ANY, HcommAicpuTsTaskCacheStart(NULL, addrs, sizes, 1));
    CASE(r, ANY, HcommAicpuTsTaskCacheClear(NULL));
    CASE(r, 0, HcommAicpuTsTaskCacheLookup("abuse-cache", &hit));
    CASE(r, ANY, HcommAicpuTsTaskCacheStart("wrong-tag", addrs, sizes, 1));
    CASE(r, ANY, HcommAicpuTsTaskCacheStart("abuse-cache", NULL, sizes, 2));
    CASE(r, ANY, HcommAicpuTsTaskCacheStart("abuse-cache", addrs, NULL, 2));
    CASE(r, ANY, HcommAicpuTsTaskCacheExecute("abuse-cache", addrs, sizes, UINT64_MAX));
    CASE(r, 0, HcommAicpuTsTaskCacheClear("abuse-cache"));
    CASE(r, 0, HcommAicpuTsTaskCacheClear("never-made"));
}

/* The device is still healthy: a copy and a remote write work and drain. */
static void healthy(struct run *r)
{
    const struct abuse_args *a = r->a;

    CASE(r, 0, HcommLocalCopyOnThread(a->thread, P(a->local_buf + 2048), P(a->local_buf),
                                      ABUSE_DATA));
    CASE(r, 0, HcommWriteOnThread(a->thread, a->channel, P(a->peer_hccl), P(a->local_buf),
                                  ABUSE_DATA));
    CASE(r, 0, HcommThreadNotifyRecordOnThread(a->thread, a->thread2, 1));
    CASE(r, 0, HcommThreadNotifyWaitOnThread(a->thread2, 1, 10));
    CASE(r, 0, HcommThreadJoin(a->thread, 10));
    CASE(r, 0, HcommThreadJoin(a->thread2, 10));
    CASE(r, 0, HcommChannelDrainOnThread(a->thread, a->channel));
}

/* What the host abuse test launches: accepted launches with odd arguments run this. */
uint32_t abuse_nop(void *args)
{
    (void)args;
    return 0;
}

uint32_t abuse_run(void *args)
{
    struct abuse_args *a = args;
    struct run r = {a, P(a->results), P(a->expected), 0};

    threads(&r);
    channels(&r);
    indices(&r);
    pointers(&r);
    batches(&r);
    host_only(&r);
    settings(&r);
    healthy(&r);
    ssize_t w = write(2, "ABUSE-END\n", 10);
    (void)w;
    *(volatile uint32_t *)P(a->ncases) = r.n;
    return 0;
}
