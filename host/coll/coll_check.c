/* coll_check.c - the cross-rank checks of the collective operators (see coll_check.h).
 *
 * Area layout (in the communicator's rendezvous file, zeroed at creation): a header with the
 * futex word every post bumps, one record block per rank, then the vectors: for each parity
 * of the call number, each rank's two vectors of n elements.
 *
 * Two record slots per rank suffice: a rank posts call k + 2 into the slot of call k only after
 * every rank posted call k + 1, and a rank posts call k + 1 only after it finished reading the
 * records of call k. */
#include "coll_check.h"

#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "coll.h"
#include "coll_check_rec.h"
#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/contract/settings.h"
#include "host/acl/device.h"
#include "host/hccl/hccl_comm.h"
#include "host/hccl/rdv/hccl_rdv.h"

#define POLLS 64u /* yields before the first sleep */
#define SLICE_NS 50000000ull /* liveness of the missing ranks is looked at this often */

struct area_hdr {
    _Atomic uint32_t bell;    /* bumped by every post; futex word */
    _Atomic uint32_t waiters; /* ranks asleep on `bell`: a post wakes only when non-zero */
    uint8_t pad[56];
};

struct rank_block {
    _Atomic uint32_t posted; /* calls this rank posted; its next call's number */
    uint32_t reserved;
    struct emu_check_rec rec[2]; /* by the parity of the call number */
    uint8_t pad[128 - 8 - 2 * sizeof(struct emu_check_rec)];
};
_Static_assert(sizeof(struct rank_block) == 128, "rank blocks fill two cache lines");
_Static_assert(sizeof(struct area_hdr) == 64, "the header fills one cache line");

/* The rendezvous file sizes the area (hccl_rdv.h); these layouts must fit it. */
_Static_assert(sizeof(struct area_hdr) == EMU_RDV_CALL_HDR_BYTES, "header as the file sizes it");
_Static_assert(sizeof(struct rank_block) == EMU_RDV_CALL_RANK_BYTES, "rank block as sized");
_Static_assert(EMU_RDV_CALL_TABLES == 2u * 2u, "two vectors (counts, displacements) by parity");

struct area {
    struct area_hdr *hdr;
    struct rank_block *ranks;
    uint64_t *vecs;
    uint32_t n;
};

static struct area area_of(void *base, uint32_t n)
{
    uint8_t *p = base;

    return (struct area){(struct area_hdr *)p, (struct rank_block *)(p + sizeof(struct area_hdr)),
                         (uint64_t *)(p + sizeof(struct area_hdr) + n * sizeof(struct rank_block)),
                         n};
}

/* Rank r's first vector for calls of parity `par` (the second follows it). */
static uint64_t *vec_of(const struct area *a, uint32_t par, uint32_t r)
{
    return a->vecs + ((size_t)par * a->n + r) * 2u * a->n;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

/* The operator behind o->fn (0: not one the checks know). */
static enum emu_check_kind kind_of(const char *fn)
{
    for (uint32_t k = 1; k < EMU_CHECK_KINDS; k++)
        if (strcmp(emu_check_name(k), fn) == 0)
            return (enum emu_check_kind)k;
    return 0;
}

/* Fill my record and vectors (elements, from the plan's byte pairs) for a call of parity
 * `par`: the V forms' counts and displacements every rank must pass alike, or for AlltoAllV
 * and AlltoAllVC the counts each rank sends (vec) and receives (vec2), which pair up. */
static void fill(const struct area *a, uint32_t me, uint32_t par, enum emu_check_kind kind,
                 const struct emu_coll_op *o, struct emu_check_rec *rec)
{
    uint32_t n = a->n, esz = o->esz != 0 ? o->esz : 1;
    bool reduce = kind == EMU_CHECK_HcclAllReduce || kind == EMU_CHECK_HcclReduce ||
                  kind == EMU_CHECK_HcclReduceScatter || kind == EMU_CHECK_HcclReduceScatterV;
    bool rooted = kind == EMU_CHECK_HcclReduce || kind == EMU_CHECK_HcclBroadcast ||
                  kind == EMU_CHECK_HcclScatter;

    *rec = (struct emu_check_rec){.kind = (uint32_t)kind,
                                  .dtype = kind == EMU_CHECK_HcclBarrier ? 0 : (int32_t)o->dtype,
                                  .op = reduce ? (int32_t)o->op : 0,
                                  .root = rooted ? (int32_t)o->root : 0};
    if (kind != EMU_CHECK_HcclReduceScatterV && kind != EMU_CHECK_HcclAllGatherV &&
        kind != EMU_CHECK_HcclAlltoAllV && kind != EMU_CHECK_HcclAlltoAllVC) {
        rec->count = kind == EMU_CHECK_HcclBarrier ? 0 : o->count;
        return;
    }
    rec->flags |= EMU_CHECK_VEC;
    uint64_t *v = vec_of(a, par, me), *v2 = v + n;
    for (uint32_t p = 0; p < n; p++) {
        const struct hcoll_pair *pr = &o->pairs[p];
        if (kind == EMU_CHECK_HcclAllGatherV)
            v[p] = pr->recv_len / esz, v2[p] = pr->recv_off / esz;
        else if (kind == EMU_CHECK_HcclReduceScatterV)
            v[p] = pr->send_len / esz, v2[p] = pr->send_off / esz;
        else
            v[p] = pr->send_len / esz, v2[p] = pr->recv_len / esz;
    }
    /* The alltoall forms' vectors differ by rank: they pair up instead (verdict()). */
    if (kind == EMU_CHECK_HcclReduceScatterV || kind == EMU_CHECK_HcclAllGatherV)
        for (uint32_t i = 0; i < 2 * n; i++)
            rec->hash = mix(rec->hash, v[i]);
}

/* Whether rank r has posted call `no` (counters wrap after 2^32 calls). */
static bool posted(const struct area *a, uint32_t r, uint32_t no)
{
    return (int32_t)(emu_load_acquire(&a->ranks[r].posted) - (no + 1u)) >= 0;
}

static uint32_t missing(const struct area *a, uint32_t no, uint32_t *list)
{
    uint32_t m = 0;

    for (uint32_t r = 0; r < a->n; r++)
        if (!posted(a, r, no))
            list[m++] = r;
    return m;
}

/* The first of `list` that left the communicator or died (UINT32_MAX: none). */
static uint32_t first_gone(const struct emu_comm *c, const uint32_t *list, uint32_t m)
{
    for (uint32_t i = 0; i < m; i++)
        if (emu_rdv_rank_gone(c->rdv, list[i]))
            return list[i];
    return UINT32_MAX;
}

/* "3 (its last call was 4: HcclBroadcast(fp32, 1024, root 0)), 5 (no call yet)". */
static void name_missing(const struct area *a, const uint32_t *list,
                         uint32_t m, char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (uint32_t i = 0; i < m && at + 64 < len; i++) {
        uint32_t got = emu_load_acquire(&a->ranks[list[i]].posted);
        char call[160] = "";
        if (got > 0) {
            struct emu_check_view v = {&a->ranks[list[i]].rec[(got - 1) & 1], NULL, NULL};
            emu_check_describe(call, sizeof(call), &v, UINT32_MAX);
        }
        int w = got > 0 ? snprintf(buf + at, len - at, "%s%u (its last was call %u, %s)",
                                   i > 0 ? ", " : "", list[i], got, call)
                        : snprintf(buf + at, len - at, "%s%u (no collective call yet)",
                                   i > 0 ? ", " : "", list[i]);
        if (w < 0 || (size_t)w >= len - at)
            break;
        at += (size_t)w;
    }
}

/* Progress that keeps the wait from being a hang: another rank posted, or my device retired
 * a task or has one running (the missing rank may be synchronising on work we share). */
static uint64_t progress_of(const struct emu_comm *c, const struct area *a)
{
    uint64_t p = 0;

    for (uint32_t r = 0; r < a->n; r++)
        p += emu_load_relaxed(&a->ranks[r].posted);
    if (c->d != NULL && c->d->ctl != NULL)
        p += emu_load_relaxed(&c->d->ctl->progress) + emu_load_relaxed(&c->d->ctl->busy);
    return p;
}

/* Wait until every rank posted call `no`. EMU_ETIMEOUT after 2 x HCEMU_HANG_MS without
 * progress (or HCCL_CONNECT_TIMEOUT in all), EMU_EREMOTE when a missing rank is gone. */
static emu_status wait_all(const struct emu_comm *c, const struct area *a, uint32_t no,
                           const char *fn)
{
    static _Thread_local uint32_t list[EMU_COMM_MAX_RANKS];
    /* Twice the watchdog's period: when the missing rank is held up by a hang on the devices,
     * the watchdog's report (which names its cause) comes first, and its failure reaches
     * the missing rank, which then leaves (EMU_EREMOTE here). */
    uint64_t start = emu_os_now_ns(), hang_ns = 2 * emu_settings_u64(EMU_SET_HANG_MS) * 1000000ull;
    uint64_t deadline = start + c->connect_timeout_ms * 1000000ull;
    uint64_t last = progress_of(c, a), since = start, next_gone = start + SLICE_NS;
    uint32_t polls = 0;

    for (;;) {
        uint32_t seen = atomic_load(&a->hdr->bell);
        uint32_t m = missing(a, no, list);
        if (m == 0)
            return EMU_OK;
        uint64_t now = emu_os_now_ns();
        uint32_t gone = UINT32_MAX;
        if (now >= next_gone) {
            gone = first_gone(c, list, m);
            next_gone = now + SLICE_NS;
        }
        uint64_t p = progress_of(c, a);
        if (p != last)
            last = p, since = now;
        bool hung = hang_ns != 0 && now - since >= hang_ns;
        if (gone != UINT32_MAX || hung || now >= deadline) {
            char names[600];
            name_missing(a, list, m, names, sizeof(names));
            struct emu_check_rec *mine = &a->ranks[c->rank].rec[no & 1];
            mine->flags |= EMU_CHECK_GAVE_UP;
            if (gone != UINT32_MAX) {
                EMU_LOG_ERR("%s: rank %u: collective call %u of the communicator: rank %u left "
                            "the communicator or died without making it; waiting for rank%s %s",
                            fn, c->rank, no + 1u, gone, m > 1 ? "s" : "", names);
                return EMU_EREMOTE;
            }
            EMU_LOG_ERR("%s: rank %u: collective call %u of the communicator: rank%s %s did not "
                        "make it within %llu ms (%s)",
                        fn, c->rank, no + 1u, m > 1 ? "s" : "", names,
                        (unsigned long long)((now - start) / 1000000u),
                        hung ? "HCEMU_HANG_MS without progress" : "HCCL_CONNECT_TIMEOUT");
            return EMU_ETIMEOUT;
        }
        /* Ranks usually arrive within microseconds of each other: look again after giving
         * the core away a few times before paying for a sleep and a wake-up. */
        if (polls++ < POLLS) {
            sched_yield();
            continue;
        }
        uint64_t until = now + SLICE_NS;
        if (hang_ns != 0 && since + hang_ns < until)
            until = since + hang_ns;
        atomic_fetch_add(&a->hdr->waiters, 1);
        (void)emu_os_futex_wait(&a->hdr->bell, seen, until < deadline ? until : deadline);
        atomic_fetch_sub(&a->hdr->waiters, 1);
    }
}

/* Every rank reaches the same verdict from the same records. */
static emu_status verdict(const struct emu_comm *c, const struct area *a, uint32_t no,
                          const char *fn)
{
    static _Thread_local struct emu_check_view views[EMU_COMM_MAX_RANKS];
    uint32_t n = a->n, par = no & 1;
    bool same = true;

    for (uint32_t r = 0; r < n; r++) {
        const struct emu_check_rec *rec = &a->ranks[r].rec[par];
        bool vec = (rec->flags & EMU_CHECK_VEC) != 0;
        views[r] = (struct emu_check_view){rec, vec ? vec_of(a, par, r) : NULL,
                                           vec ? vec_of(a, par, r) + n : NULL};
        same &= emu_check_same(views[0].rec, rec);
        if (rec->flags & EMU_CHECK_GAVE_UP) {
            EMU_LOG_ERR("%s: rank %u: collective call %u of the communicator: rank %u gave up "
                        "waiting for it (HCEMU_HANG_MS without progress, or "
                        "HCCL_CONNECT_TIMEOUT; see its report); failing it here too",
                        fn, c->rank, no + 1u, r);
            return EMU_ETIMEOUT;
        }
    }
    if (!same) {
        emu_check_report_mismatch(fn, c->rank, no + 1u, n, views);
        return EMU_EINVAL;
    }
    if (views[0].rec->kind != EMU_CHECK_HcclAlltoAllV &&
        views[0].rec->kind != EMU_CHECK_HcclAlltoAllVC)
        return EMU_OK;
    /* The alltoall V forms: what rank r sends to p is what p expects from r. */
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t p = 0; p < n; p++)
            if (views[r].vec[p] != views[p].vec2[r]) {
                emu_check_report_pair(fn, c->rank, no + 1u, &views[r], r, p, views[r].vec[p],
                                      views[p].vec2[r]);
                return EMU_EINVAL;
            }
    return EMU_OK;
}

emu_status emu_coll_check_op(struct emu_comm *c, const struct emu_coll_op *o)
{
    if (!emu_settings_bool(EMU_SET_COLL_CHECK) || c->size < 2)
        return EMU_OK;
    void *base = c->rdv != NULL ? emu_rdv_call_area(c->rdv) : NULL;
    enum emu_check_kind kind = kind_of(o->fn);
    if (base == NULL || kind == 0 || !emu_comm_one_folder(c))
        return EMU_OK;
    struct area a = area_of(base, c->size);
    struct rank_block *mine = &a.ranks[c->rank];
    uint32_t no = emu_load_relaxed(&mine->posted);
    fill(&a, c->rank, no & 1, kind, o, &mine->rec[no & 1]);
    emu_store_release(&mine->posted, no + 1);
    atomic_fetch_add(&a.hdr->bell, 1);
    if (atomic_load(&a.hdr->waiters) != 0)
        emu_os_futex_wake(&a.hdr->bell, INT32_MAX);
    emu_status s = wait_all(c, &a, no, o->fn);
    return s == EMU_OK ? verdict(c, &a, no, o->fn) : s;
}
