/* dp_exec.c - the data-plane test kernel: interprets a struct dp_op program (dp_params.h),
 * calling one Hcomm* function per op and storing its return value, so a test can drive every
 * call with any arguments from the host. */
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "hcomm/hcomm_primitives.h"
#include "hcomm/hcomm_primitives_expt.h"
#include "dp_params.h"

/* hcemu's own device calls, without the collectives' contract (coll_abi.h) */
#include "collectives/hcemu_calls.h"

static void *P(uint64_t a)
{
    return (void *)(uintptr_t)a;
}

static int32_t one(const struct dp_op *o)
{
    switch (o->fn) {
    case DPF_COPY:
        return HcommLocalCopyOnThread(o->thread, P(o->dst), P(o->src), o->n);
    case DPF_REDUCE:
        return HcommLocalReduceOnThread(o->thread, P(o->dst), P(o->src), o->n,
                                        (HcommDataType)o->dtype, (HcommReduceOp)o->rop);
    case DPF_TREC:
        return HcommThreadNotifyRecordOnThread(o->thread, o->other, o->idx);
    case DPF_TWAIT:
        return HcommThreadNotifyWaitOnThread(o->thread, o->idx, o->timeout);
    case DPF_TWAIT_DEF:
        return HcommThreadNotifyWaitOnThreadWithDefaultTimeout(o->thread, o->idx);
    case DPF_ACL_REC:
        return HcommAclrtNotifyRecordOnThread(o->thread, o->other);
    case DPF_ACL_WAIT:
        return HcommAclrtNotifyWaitOnThread(o->thread, o->other, o->timeout);
    case DPF_WRITE:
        return HcommWriteOnThread(o->thread, o->other, P(o->dst), P(o->src), o->n);
    case DPF_WRITE_REDUCE:
        return HcommWriteReduceOnThread(o->thread, o->other, P(o->dst), P(o->src), o->n,
                                        (HcommDataType)o->dtype, (HcommReduceOp)o->rop);
    case DPF_WRITE_NOTIFY:
        return HcommWriteWithNotifyOnThread(o->thread, o->other, P(o->dst), P(o->src), o->n,
                                            o->idx);
    case DPF_WRITE_REDUCE_NOTIFY:
        return HcommWriteReduceWithNotifyOnThread(o->thread, o->other, P(o->dst), P(o->src),
                                                  o->n, (HcommDataType)o->dtype,
                                                  (HcommReduceOp)o->rop, o->idx);
    case DPF_READ:
        return HcommReadOnThread(o->thread, o->other, P(o->dst), P(o->src), o->n);
    case DPF_READ_REDUCE:
        return HcommReadReduceOnThread(o->thread, o->other, P(o->dst), P(o->src), o->n,
                                       (HcommDataType)o->dtype, (HcommReduceOp)o->rop);
    case DPF_BATCH:
        return HcommBatchTransferOnThread(o->thread, o->other,
                                          o->null_ptr ? NULL : P(o->aux), (uint32_t)o->n);
    case DPF_WRITE_NBI_T:
        return HcommWriteNbiOnThread(o->thread, o->other, P(o->dst), P(o->src), o->n);
    case DPF_WRITE_NBI:
        return HcommWriteNbi(o->other, P(o->dst), P(o->src), o->n);
    case DPF_READ_NBI_T:
        return HcommReadNbiOnThread(o->thread, o->other, P(o->dst), P(o->src), o->n);
    case DPF_READ_NBI:
        return HcommReadNbi(o->other, P(o->dst), P(o->src), o->n);
    case DPF_WWN_NBI_T:
        return HcommWriteWithNotifyNbiOnThread(o->thread, o->other, P(o->dst), P(o->src), o->n,
                                               o->idx);
    case DPF_WWN_NBI:
        return HcommWriteWithNotifyNbi(o->other, P(o->dst), P(o->src), o->n, o->idx);
    case DPF_CREC:
        return HcommChannelNotifyRecordOnThread(o->thread, o->other, o->idx);
    case DPF_CWAIT:
        return HcommChannelNotifyWaitOnThread(o->thread, o->other, o->idx, o->timeout);
    case DPF_CWAIT_DEF:
        return HcommChannelNotifyWaitOnThreadWithDefaultTimeout(o->thread, o->other, o->idx);
    case DPF_CREC_NT:
        return HcommChannelNotifyRecord(o->other, o->idx);
    case DPF_CWAIT_NT:
        return HcommChannelNotifyWait(o->other, o->idx, o->timeout);
    case DPF_CFENCE_T:
        return HcommChannelFenceOnThread(o->thread, o->other);
    case DPF_CFENCE:
        return HcommChannelFence(o->other);
    case DPF_FENCE_T:
        return HcommFenceOnThread(o->thread);
    case DPF_DRAIN:
        return HcommChannelDrainOnThread(o->thread, o->other);
    case DPF_JOIN:
        return HcommThreadJoin(o->thread, o->timeout);
    case DPF_SYNC:
        return HcommThreadSynchronize(o->thread);
    case DPF_SET_WAIT:
        return HcommSetNotifyWaitTimeOut(o->ftimeout);
    case DPF_SET_RES:
        return HcommThreadResAcquireTimeOut(o->ftimeout);
    case DPF_BSTART:
        return HcommBatchModeStart(o->tag);
    case DPF_TAG_NULL:
        return HcommBatchModeStart(NULL);
    case DPF_BEND:
        return HcommBatchModeEnd(o->null_ptr ? NULL : o->tag);
    case DPF_ACQ:
        return HcommAcquireComm(o->null_ptr ? NULL : o->tag);
    case DPF_REL:
        return HcommReleaseComm(o->null_ptr ? NULL : o->tag);
    case DPF_C_LOOKUP: {
        bool hit = false;
        int32_t r = HcommAicpuTsTaskCacheLookup(o->tag, o->null_ptr ? NULL : &hit);
        return r != 0 ? r : (hit ? 1000 : 0); /* 1000 marks a hit */
    }
    case DPF_C_START:
        return HcommAicpuTsTaskCacheStart(o->tag, (void **)o->addrs, (uint64_t *)o->sizes,
                                          o->count);
    case DPF_C_END:
        return HcommAicpuTsTaskCacheEnd(o->tag);
    case DPF_C_EXEC:
        return HcommAicpuTsTaskCacheExecute(o->tag, (void **)o->addrs, (uint64_t *)o->sizes,
                                            o->count);
    case DPF_C_CLEAR:
        return HcommAicpuTsTaskCacheClear(o->tag);
    case DPF_READ_PUB:
        return hcemu_read_published(o->thread, o->other, P(o->dst), P(o->src), o->aux, o->n);
    case DPF_READ_REDUCE_PUB:
        return hcemu_read_reduce_published(o->thread, o->other, P(o->dst), P(o->src), o->aux,
                                           o->n, (HcommDataType)o->dtype,
                                           (HcommReduceOp)o->rop);
    case DPF_READ_REDUCE_PUB_INTO:
        return hcemu_read_reduce_published_into(o->thread, o->other, P(o->dst), P(o->addrs[0]),
                                                o->idx != 0, P(o->src), o->aux, o->n,
                                                (HcommDataType)o->dtype, (HcommReduceOp)o->rop);
    case DPF_WRITE_PUB:
        return hcemu_write_published(o->thread, o->other, P(o->dst), o->aux, P(o->src), o->n);
    case DPF_SPREAD_PUB: {
        ChannelHandle chans[2] = {0, 0};
        chans[(o->idx + 1) % 2] = o->other;
        return hcemu_reduce_spread_published(
            o->thread, chans, o->sizes[1] != 0 ? (uint32_t)o->sizes[1] : 2, o->idx, P(o->addrs[0]),
            P(o->dst), P(o->src), (uint32_t)o->sizes[0], o->aux, o->n, (HcommDataType)o->dtype,
            (HcommReduceOp)o->rop);
    }
    case DPF_WAIT_COPY:
        return hcemu_wait_copy(o->thread, o->other, o->idx, o->timeout, P(o->dst), P(o->src),
                               o->n);
    case DPF_WAIT_REDUCE:
        return hcemu_wait_reduce(o->thread, o->other, o->idx, o->timeout, P(o->dst), P(o->src),
                                 o->n, (HcommDataType)o->dtype, (HcommReduceOp)o->rop);
    case DPF_PEEK:
        return *(volatile int32_t *)P(o->dst);
    case DPF_SLEEP: {
        struct timespec ts = {(time_t)(o->n / 1000000u), (long)(o->n % 1000000u) * 1000L};
        nanosleep(&ts, NULL);
        return 0;
    }
    default:
        return -1;
    }
}

uint32_t dp_exec(void *argp)
{
    const struct dp_args *a = argp;
    const struct dp_op *ops = P(a->ops);
    int32_t *rets = P(a->rets);

    for (uint32_t i = 0; i < a->nops; i++) {
        if (ops[i].fn != DPF_LOOP) {
            rets[i] = one(&ops[i]);
            continue;
        }
        uint32_t body = ops[i].idx;
        rets[i] = 0;
        for (uint64_t k = 0; k < ops[i].n; k++)
            for (uint32_t j = 1; j <= body && i + j < a->nops; j++)
                rets[i + j] = one(&ops[i + j]);
        i += body;
    }
    return 0;
}
