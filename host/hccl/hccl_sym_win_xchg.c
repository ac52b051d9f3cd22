/* hccl_sym_win_xchg.c - the exchange behind HcclCommSymWinRegister (see hccl_sym_win_xchg.h).
 *
 * Each rank owns one 64-byte block of the rendezvous file's window area: a counter of the
 * registrations it posted and two records by the parity of the registration's number. A
 * rank posts registration k (start, size), rings the file's bell and waits until every rank
 * posted k, then reads every record of k. Two records suffice: a rank posts k + 2 into the
 * record of k only after every rank posted k + 1, which each does only after reading k.
 * Every rank compares the same records, so all reach the same verdict. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "hccl_sym_win_xchg.h"
#include "host/hccl/rdv/hccl_rdv.h"

struct win_post {
    uint64_t base;
    uint64_t size;
    _Atomic uint32_t gave_up; /* this rank stopped waiting for the others */
    uint32_t reserved;
};

struct win_rank {
    _Atomic uint32_t posted; /* registrations posted; the next one's number */
    uint32_t reserved;
    struct win_post rec[2];
    uint8_t pad[8];
};
_Static_assert(sizeof(struct win_rank) == EMU_RDV_WIN_RANK_BYTES, "a block as the file sizes it");

struct wait_arg {
    struct win_rank *ranks;
    uint32_t n;
    uint32_t no;
};

/* Whether rank r posted registration `no` (the counter wraps after 2^32 of them). */
static bool posted(const struct win_rank *ranks, uint32_t r, uint32_t no)
{
    return (int32_t)(emu_load_acquire(&ranks[r].posted) - (no + 1u)) >= 0;
}

static bool all_posted(void *p)
{
    const struct wait_arg *w = p;

    for (uint32_t r = 0; r < w->n; r++)
        if (!posted(w->ranks, r, w->no))
            return false;
    return true;
}

/* The ranks that have not posted `no`, into list; their count. */
static uint32_t missing(const struct wait_arg *w, uint32_t *list)
{
    uint32_t m = 0;

    for (uint32_t r = 0; r < w->n; r++)
        if (!posted(w->ranks, r, w->no))
            list[m++] = r;
    return m;
}

static void name_ranks(const uint32_t *list, uint32_t m, char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (uint32_t i = 0; i < m && at + 16 < len; i++) {
        int w = snprintf(buf + at, len - at, "%s%u", i > 0 ? ", " : "", list[i]);
        if (w < 0)
            break;
        at += (size_t)w;
    }
}

static emu_status gave_up(struct emu_comm *c, const struct wait_arg *w, emu_status s, uint32_t gone,
                          const char *fn)
{
    static _Thread_local uint32_t list[EMU_COMM_MAX_RANKS];
    char names[512];

    emu_store_release(&w->ranks[c->rank].rec[w->no & 1].gave_up, 1);
    name_ranks(list, missing(w, list), names, sizeof(names));
    if (s == EMU_EREMOTE)
        EMU_COMM_ERR(c, fn,
                     "rank %u left the communicator or died without registering the "
                     "symmetric window; waiting for rank(s) %s",
                     gone, names);
    else
        EMU_COMM_ERR(c, fn,
                     "rank(s) %s did not register the symmetric window within "
                     "HCCL_CONNECT_TIMEOUT (%llu ms); every rank must call it",
                     names, (unsigned long long)c->connect_timeout_ms);
    return s;
}

/* Every rank's record of `no` into bases, or the verdict against them. */
static emu_status verdict(struct emu_comm *c, const struct wait_arg *w, uint64_t *bases,
                          const char *fn)
{
    const struct win_post *first = &w->ranks[0].rec[w->no & 1];

    for (uint32_t r = 0; r < w->n; r++) {
        const struct win_post *p = &w->ranks[r].rec[w->no & 1];
        if (emu_load_acquire(&p->gave_up) != 0) {
            EMU_COMM_ERR(c, fn,
                         "rank %u gave up waiting for the symmetric window's "
                         "registration (see its report); failing it here too",
                         r);
            return EMU_ETIMEOUT;
        }
        if (p->size != first->size) {
            EMU_COMM_ERR(c, fn,
                         "rank %u registers a %llu-byte symmetric window, rank 0 a "
                         "%llu-byte one: every rank must pass the same size",
                         r, (unsigned long long)p->size, (unsigned long long)first->size);
            return EMU_EINVAL;
        }
        bases[r] = p->base;
    }
    return EMU_OK;
}

emu_status emu_symwin_xchg(struct emu_comm *c, uint64_t base, uint64_t size, uint64_t *bases,
                           const char *fn)
{
    static _Thread_local uint32_t watch[EMU_COMM_MAX_RANKS];

    if (c->rdv == NULL || !emu_comm_one_folder(c)) {
        EMU_COMM_ERR(c, fn,
                     "communicator %s spans several hosts or job folders: hcemu "
                     "emulates symmetric windows between the ranks of one host",
                     c->name);
        return EMU_ENOTSUP;
    }
    struct win_rank *ranks = emu_rdv_win_area(c->rdv), *mine = &ranks[c->rank];
    uint32_t no = emu_load_relaxed(&mine->posted);
    struct win_post *rec = &mine->rec[no & 1];
    rec->base = base;
    rec->size = size;
    emu_store_relaxed(&rec->gave_up, 0);
    /* Pairs with the acquire in posted(): a rank that sees the count sees the record. */
    emu_store_release(&mine->posted, no + 1);
    emu_rdv_ring(c->rdv);
    struct wait_arg w = {ranks, c->size, no};
    uint32_t m = missing(&w, watch), gone = UINT32_MAX;
    uint64_t deadline = emu_os_now_ns() + c->connect_timeout_ms * 1000000ull;
    emu_status s = emu_rdv_wait(c->rdv, all_posted, &w, deadline, watch, m, &gone);
    if (s != EMU_OK)
        return gave_up(c, &w, s, gone, fn);
    return verdict(c, &w, bases, fn);
}
