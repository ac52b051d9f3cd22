/* hccl_link.c - channels: creation is a two-phase handshake through the rendezvous file.
 *
 * For each new channel this side (1) reserves a channels[] slot and a notify range on its
 * device and posts an offer {slot, notify base and count, memories} for the key (engine,
 * protocol) in its block towards the peer, (2) waits for the peer's offer with the same
 * sequence number, fills its slot from it and marks the offer consumed (`got`), (3) waits
 * until the peer consumed ours. After (3) both slots are complete, so either side may
 * record into the other's notifies at once, and the next offer for the key may overwrite
 * this one. Entry point: emu_link_acquire(). */
#include "hccl_link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/platform/atomic.h"
#include "common/contract/handle.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "hccl_exchange.h"
#include "hccl_mem.h"
#include "host/hccl/rdv/hccl_rdv.h"
#include "hccl_rules.h"
#include "hccl_topo.h"
#include "host/acl/device.h"
#include "host/acl/notify_pool.h"

/* One channel this call creates. */
struct pending {
    uint32_t desc;
    uint32_t peer;
    uint32_t key;
    uint32_t seq;
    struct emu_rdv_offer *mine;
    struct emu_chan_rec rec;
    bool seen;    /* the peer's offer was there: it will judge ours itself */
    bool got;     /* the peer's offer has been read */
    bool created; /* rec.slot is reserved */
};

struct wait_arg {
    struct emu_comm *c;
    struct pending *p;
    uint32_t n;
    bool acks; /* phase 3: wait for `got`, not for offers */
};

static uint64_t chan_handle(const struct emu_comm *c, const struct emu_chan_rec *ch)
{
    struct emu_handle h = {.kind = EMU_HANDLE_CHANNEL,
                           .dev = c->d->id,
                           .engine = (uint32_t)ch->engine,
                           .exported = false,
                           .gen = ch->gen,
                           .index = ch->slot};

    return emu_handle_encode(&h);
}

static struct emu_chan_rec *find_key(struct emu_comm *c, int32_t engine, uint32_t peer,
                                     int32_t protocol)
{
    for (uint32_t i = 0; i < c->n_chans; i++) {
        struct emu_chan_rec *ch = c->chans[i];
        if (ch->engine == engine && ch->remote_rank == peer && ch->protocol == protocol)
            return ch;
    }
    return NULL;
}

void emu_link_query(struct emu_comm *c, int32_t engine, const HcclChannelDesc *descs, uint32_t n,
                    ChannelHandle *out)
{
    for (uint32_t i = 0; i < n; i++) {
        struct emu_chan_rec *ch =
            find_key(c, engine, descs[i].remoteRank, descs[i].channelProtocol);
        out[i] = ch != NULL ? chan_handle(c, ch) : 0;
    }
}

emu_status emu_link_find(struct emu_comm *c, ChannelHandle raw, struct emu_chan_rec **out,
                         const char *fn)
{
    struct emu_handle h;

    if (emu_handle_decode(raw, EMU_HANDLE_CHANNEL, &h) && h.dev == c->d->id) {
        for (uint32_t i = 0; i < c->n_chans; i++)
            if (c->chans[i]->slot == h.index && c->chans[i]->gen == h.gen) {
                *out = c->chans[i];
                return EMU_OK;
            }
    }
    EMU_COMM_ERR(c, fn,
                 "channel 0x%llx is not a channel of this communicator (destroyed, or "
                 "never acquired)",
                 (unsigned long long)raw);
    return EMU_ENOTFOUND;
}

/* ---- device side: slots and peer references ------------------------------------------- */

static emu_status slot_take(struct emu_comm *c, int32_t engine, struct pending *p)
{
    struct emu_devctl *ctl = c->d->ctl;
    emu_status s = EMU_EUNAVAIL;

    emu_devctl_lock(&ctl->res_lock);
    for (uint32_t i = 0; i < EMU_MAX_CHANNELS; i++) {
        struct emu_channel_ctl *cc = &ctl->channels[i];
        if (emu_load_relaxed(&cc->state) != 0)
            continue;
        cc->gen = (cc->gen + 1) & EMU_HANDLE_GEN_MASK;
        if (cc->gen == 0)
            cc->gen = 1;
        cc->engine = engine;
        cc->protocol = p->rec.protocol;
        cc->local_rank = c->rank;
        cc->remote_rank = p->peer;
        cc->notify_num = p->rec.notify_num;
        cc->local_notify_base = p->rec.notify_base;
        cc->remote_notify_base = 0;
        cc->remote_channel = UINT32_MAX;
        cc->peer = UINT32_MAX;
        cc->mem_num = 0;
        cc->comm_id = c->id;
        /* Reserved now, complete before any handle names it (emu_link_acquire's end). */
        emu_store_release(&cc->state, 1);
        p->rec.slot = i;
        p->rec.gen = cc->gen;
        s = EMU_OK;
        break;
    }
    emu_devctl_unlock(&ctl->res_lock);
    if (s != EMU_OK)
        EMU_LOG_ERR("device %u: no channel slot left (%u in use)", c->d->id, EMU_MAX_CHANNELS);
    return s;
}

/* The peers[] entry for (dev, job folder), shared with every channel to that device, with
 * one more reference (peer_unref drops it). Call with res_lock held. */
static uint32_t peer_ref(struct emu_devctl *ctl, const struct emu_rank_info *pi)
{
    uint32_t free_i = UINT32_MAX, hwm = ctl->peers_hwm < EMU_MAX_PEERS ? ctl->peers_hwm
                                                                          : EMU_MAX_PEERS;

    for (uint32_t i = 0; i < hwm; i++) {
        struct emu_peer_ref *e = &ctl->peers[i];
        if (e->used && e->dev == pi->dev && e->host_key == pi->host_key &&
            strcmp(e->job_dir, pi->job_dir) == 0) {
            e->used++;
            return i;
        }
        if (!e->used && free_i == UINT32_MAX)
            free_i = i;
    }
    if (free_i == UINT32_MAX && hwm < EMU_MAX_PEERS)
        free_i = hwm;
    if (free_i != UINT32_MAX) {
        struct emu_peer_ref *e = &ctl->peers[free_i];
        if (free_i >= ctl->peers_hwm)
            ctl->peers_hwm = free_i + 1;
        e->dev = pi->dev;
        e->host_key = pi->host_key;
        snprintf(e->host, sizeof(e->host), "%s", pi->host);
        snprintf(e->job_dir, sizeof(e->job_dir), "%s", pi->job_dir);
        e->used = 1;
    }
    return free_i;
}

/* Drop one channel's reference to peers[idx]; the entry is free when none is left. A count,
 * not a scan of every channel slot: at 256 ranks a device frees hundreds of channels, and a
 * scan read (and so allocated) every page of the slot table each time. Call with res_lock
 * held. */
static void peer_unref(struct emu_devctl *ctl, uint32_t idx)
{
    if (idx < EMU_MAX_PEERS && ctl->peers[idx].used > 0)
        ctl->peers[idx].used--;
}

static void slot_free(struct emu_comm *c, uint32_t slot, uint32_t gen)
{
    struct emu_devctl *ctl = c->d->ctl;

    if (ctl == NULL)
        return;
    emu_devctl_lock(&ctl->res_lock);
    struct emu_channel_ctl *cc = &ctl->channels[slot];
    if (cc->gen == gen && emu_load_relaxed(&cc->state) != 0) {
        uint32_t peer = cc->peer;
        emu_store_release(&cc->state, 0);
        peer_unref(ctl, peer);
    }
    emu_devctl_unlock(&ctl->res_lock);
}

/* Fill our slot from the peer's offer. */
static emu_status slot_fill(struct emu_comm *c, struct pending *p, const struct emu_rdv_offer *o,
                            const char *fn)
{
    struct emu_devctl *ctl = c->d->ctl;
    struct emu_channel_ctl *cc = &ctl->channels[p->rec.slot];
    uint32_t mem_num = o->mem_num < EMU_MAX_CHANNEL_MEMS ? o->mem_num : EMU_MAX_CHANNEL_MEMS;

    emu_devctl_lock(&ctl->res_lock);
    uint32_t peer = peer_ref(ctl, &c->ranks[p->peer]);
    cc->peer = peer;
    cc->remote_notify_base = o->notify_base;
    cc->remote_channel = o->slot;
    for (uint32_t m = 0; m < mem_num; m++) {
        cc->mems[m].addr = o->mems[m].addr;
        cc->mems[m].size = o->mems[m].size;
        /* Tags longer than the control block keeps are cut, as reports only show them. */
        size_t n = strnlen(o->mems[m].tag, sizeof(cc->mems[m].tag) - 1);
        memcpy(cc->mems[m].tag, o->mems[m].tag, n);
        cc->mems[m].tag[n] = '\0';
    }
    cc->mem_num = mem_num;
    emu_devctl_unlock(&ctl->res_lock);
    if (peer == UINT32_MAX) {
        EMU_COMM_ERR(c, fn,
                     "device %u already exchanges with %u other devices; no room for "
                     "rank %u's device",
                     c->d->id, EMU_MAX_PEERS, p->peer);
        return EMU_EUNAVAIL;
    }
    for (uint32_t m = 0; m < mem_num; m++) {
        p->rec.mems[m] =
            (CommMem){COMM_MEM_TYPE_DEVICE, (void *)(uintptr_t)o->mems[m].addr, o->mems[m].size};
        if ((p->rec.tags[m] = strdup(o->mems[m].tag)) == NULL)
            return EMU_ENOMEM;
    }
    p->rec.mem_num = mem_num;
    return EMU_OK;
}

static void rec_free_tags(struct emu_chan_rec *ch)
{
    for (uint32_t m = 0; m < EMU_MAX_CHANNEL_MEMS; m++) {
        free(ch->tags[m]);
        ch->tags[m] = NULL;
    }
}

/* ---- the handshake --------------------------------------------------------------------- */

/* Reserve the local half and post it. */
static emu_status post(struct emu_comm *c, int32_t engine, const HcclChannelDesc *d,
                       struct pending *p, const char *fn)
{
    void *buf;
    uint64_t buf_size;
    emu_status s;

    p->rec.engine = engine;
    p->rec.protocol = d->channelProtocol;
    p->rec.remote_rank = d->remoteRank;
    p->rec.notify_num = d->notifyNum;
    if ((s = emu_hccl_mem_buffer_get(c, false, &buf, &buf_size, fn)) != EMU_OK)
        return s;
    if (p->rec.notify_num > 0 &&
        (s = emu_notify_pool_alloc(c->d, p->rec.notify_num, &p->rec.notify_base)) != EMU_OK)
        return s;
    if ((s = slot_take(c, engine, p)) != EMU_OK) {
        if (p->rec.notify_num > 0)
            emu_notify_pool_free(c->d, p->rec.notify_base);
        return s;
    }
    p->created = true;
    p->mine = emu_rdv_my_offer(c->rdv, c->rank, p->peer, p->key);
    if (p->mine == NULL) {
        EMU_COMM_ERR(c, fn, "more than %u kinds of channel (engine, protocol) to rank %u",
                     EMU_RDV_KEYS, p->peer);
        return EMU_EUNAVAIL;
    }
    struct emu_rdv_offer *o = p->mine;
    o->notify_num = p->rec.notify_num;
    o->notify_base = p->rec.notify_base;
    o->slot = p->rec.slot;
    o->mems[0] = (struct emu_rdv_mem){.addr = (uint64_t)(uintptr_t)buf, .size = buf_size};
    snprintf(o->mems[0].tag, sizeof(o->mems[0].tag), "HcclBuffer");
    o->mem_num = 1;
    for (uint32_t m = 0; m < d->memHandleNum; m++) {
        const struct emu_memreg *r = emu_hccl_mem_reg_find(c, d->memHandles[m]);
        o->mems[o->mem_num].addr = (uint64_t)(uintptr_t)r->mem.addr;
        o->mems[o->mem_num].size = r->mem.size;
        snprintf(o->mems[o->mem_num].tag, sizeof(o->mems[0].tag), "%s", r->tag);
        o->mem_num++;
    }
    emu_xinfo_post(c, o);
    emu_store_relaxed(&o->gave_up_for, 0);
    p->seq = emu_load_relaxed(&o->seq) + 1;
    /* Pairs with the acquire load of `seq` in the peer's offers_ready(). */
    emu_store_release(&o->seq, p->seq);
    return EMU_OK;
}

static bool offers_ready(void *arg)
{
    struct wait_arg *w = arg;

    for (uint32_t i = 0; i < w->n; i++) {
        const struct pending *p = &w->p[i];
        const struct emu_rdv_offer *o = emu_rdv_peer_offer(w->c->rdv, p->peer, w->c->rank, p->key);
        if (o == NULL)
            return false;
        uint32_t v = w->acks ? emu_load_acquire(&((struct emu_rdv_offer *)o)->got)
                             : emu_load_acquire(&((struct emu_rdv_offer *)o)->seq);
        if ((int32_t)(v - p->seq) < 0)
            return false;
    }
    return true;
}

/* A rank `q` whose HcclChannelAcquire is stuck waiting for a peer: the first rank `r` to
 * which q posted an offer that r has not answered with its own (the matching channel, same
 * (engine, protocol)). UINT32_MAX when none is visible (q is not in a channel set-up, or its
 * peers are on another host whose offers this host does not see). */
static uint32_t waits_for(const struct emu_comm *c, uint32_t q)
{
    for (uint32_t r = 0; r < c->size; r++) {
        if (r == q)
            continue;
        for (uint32_t k = 0; k < EMU_RDV_KEYS; k++) {
            struct emu_rdv_offer *mine = (struct emu_rdv_offer *)emu_rdv_offer_at(c->rdv, q, r, k);
            uint32_t key = mine != NULL ? emu_load_acquire(&mine->key) : 0;
            if (key == 0)
                continue;
            uint32_t posted = emu_load_acquire(&mine->seq);
            struct emu_rdv_offer *theirs = (struct emu_rdv_offer *)emu_rdv_peer_offer(c->rdv, r,
                                                                                      q, key);
            uint32_t answered = theirs != NULL ? emu_load_acquire(&theirs->seq) : 0;
            if ((int32_t)(answered - posted) < 0)
                return r;
        }
    }
    return UINT32_MAX;
}

/* Who rank q waits for, as text: "; rank q is itself waiting for rank r, which did not
 * acquire the matching channel to rank q" following the chain to the rank that holds
 * everyone up. Empty when q waits for nobody visible. */
static void describe_wait_chain(const struct emu_comm *c, uint32_t q, char *out, size_t len)
{
    uint32_t first = waits_for(c, q), at = first, root = first;

    out[0] = '\0';
    if (first == UINT32_MAX)
        return;
    for (uint32_t hops = 0; hops < c->size && at != UINT32_MAX && at != q; hops++) {
        root = at;
        at = waits_for(c, at);
    }
    if (root == first)
        snprintf(out, len, "; rank %u is itself waiting for rank %u, which did not acquire the "
                 "matching channel to rank %u", q, first, q);
    else
        snprintf(out, len, "; rank %u is itself waiting for rank %u, and the chain of waits "
                 "ends at rank %u, which did not acquire its matching channel", q, first, root);
}

static void report_wait(struct emu_comm *c, struct pending *p, uint32_t n, bool acks, emu_status s,
                        uint32_t gone, const char *fn)
{
    char list[256], chain[192];
    size_t used = 0;
    uint32_t missing = 0, first = UINT32_MAX;
    bool offered = true; /* every missing peer did post its side (acks phase) */
    struct wait_arg one = {.c = c, .n = 1, .acks = acks};
    struct wait_arg posted = {.c = c, .n = 1, .acks = false};

    list[0] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        one.p = &p[i];
        if (offers_ready(&one))
            continue;
        posted.p = &p[i];
        offered = offered && offers_ready(&posted);
        if (first == UINT32_MAX)
            first = p[i].peer;
        missing++;
        if (used + 16 < sizeof(list))
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%u",
                                     missing > 1 ? ", " : "", p[i].peer);
    }
    chain[0] = '\0';
    uint32_t gave_up = 0;
    if (first != UINT32_MAX) {
        describe_wait_chain(c, first, chain, sizeof(chain));
        for (uint32_t i = 0; i < n && gave_up == 0; i++) {
            const struct emu_rdv_offer *o =
                p[i].peer == first ? emu_rdv_peer_offer(c->rdv, first, c->rank, p[i].key) : NULL;
            if (o != NULL)
                gave_up = emu_load_acquire(&((struct emu_rdv_offer *)o)->gave_up_for);
        }
    }
    if (s == EMU_EREMOTE && !emu_comm_same_host(c, gone))
        EMU_COMM_ERR(c, fn,
                     "rank %u (host %s) left the communicator before its channel to rank %u was "
                     "connected: it destroyed the communicator, or its process or host is gone",
                     gone, emu_comm_host_of(c, gone), c->rank);
    else if (s == EMU_EREMOTE)
        EMU_COMM_ERR(c, fn,
                     "rank %u left the communicator (destroyed, or its process exited) "
                     "before its channel to rank %u was connected",
                     gone, c->rank);
    else if (gave_up != 0 && chain[0] == '\0')
        /* The peer did ask for the channel, then its own call timed out waiting for another
         * rank and withdrew its side. */
        EMU_COMM_ERR(c, fn,
                     "rank %u acquired the matching channel to rank %u (%s, %s) but gave up "
                     "within %llu ms (HCCL_CONNECT_TIMEOUT): rank %u was itself waiting for "
                     "rank %u, which did not acquire the matching channel to rank %u",
                     first, c->rank, emu_rules_engine_name(p[0].rec.engine),
                     emu_topo_protocol_name(p[0].rec.protocol),
                     (unsigned long long)c->connect_timeout_ms, first, gave_up - 1, first);
    else if (acks && offered)
        /* The peer called HcclChannelAcquire for us, but its call has not connected our
         * channel: it is still waiting for another of its peers. */
        EMU_COMM_ERR(c, fn,
                     "rank%s %s acquired the matching channel%s to rank %u (%s, %s) but did not "
                     "connect %s within %llu ms (HCCL_CONNECT_TIMEOUT)%s",
                     missing > 1 ? "s" : "", list, missing > 1 ? "s" : "", c->rank,
                     emu_rules_engine_name(p[0].rec.engine),
                     emu_topo_protocol_name(p[0].rec.protocol), missing > 1 ? "them" : "it",
                     (unsigned long long)c->connect_timeout_ms,
                     chain[0] != '\0' ? chain
                                       : ": its acquire call is still waiting for other peers");
    else
        EMU_COMM_ERR(c, fn,
                     "rank%s %s did not acquire the matching channel%s to rank %u "
                     "(%s, %s) within %llu ms (HCCL_CONNECT_TIMEOUT)%s",
                     missing > 1 ? "s" : "", list, missing > 1 ? "s" : "", c->rank,
                     emu_rules_engine_name(p[0].rec.engine),
                     emu_topo_protocol_name(p[0].rec.protocol),
                     (unsigned long long)c->connect_timeout_ms, chain);
}

/* Before the offers are withdrawn: tell the peers we offered a channel to whom we were still
 * waiting for, so their own timeout can name that rank instead of us. */
static void note_gave_up(struct emu_comm *c, struct pending *p, uint32_t n, bool acks)
{
    struct wait_arg one = {.c = c, .n = 1, .acks = acks};
    uint32_t missing = UINT32_MAX;

    for (uint32_t i = 0; i < n && missing == UINT32_MAX; i++) {
        one.p = &p[i];
        if (!offers_ready(&one))
            missing = p[i].peer;
    }
    for (uint32_t i = 0; i < n && missing != UINT32_MAX; i++)
        if (p[i].mine != NULL && p[i].peer != missing)
            emu_store_release(&p[i].mine->gave_up_for, missing + 1);
}

/* Whether everything this phase needs from `peer` is already published. */
static bool peer_done(struct emu_comm *c, struct pending *p, uint32_t n, bool acks, uint32_t peer)
{
    struct wait_arg one = {.c = c, .n = 1, .acks = acks};

    for (uint32_t i = 0; i < n; i++) {
        one.p = &p[i];
        if (p[i].peer == peer && !offers_ready(&one))
            return false;
    }
    return true;
}

static emu_status wait_phase(struct emu_comm *c, struct pending *p, uint32_t n, bool acks,
                             uint64_t deadline, const char *fn)
{
    uint32_t watch[EMU_COMM_MAX_RANKS] = {0}, nw = 0, gone = 0;
    struct wait_arg w = {.c = c, .p = p, .n = n, .acks = acks};

    for (uint32_t i = 0; i < n; i++) {
        bool seen = false;
        for (uint32_t k = 0; k < nw; k++)
            seen = seen || watch[k] == p[i].peer;
        if (!seen)
            watch[nw++] = p[i].peer;
    }
    emu_status s;
    while ((s = emu_rdv_wait(c->rdv, offers_ready, &w, deadline, watch, nw, &gone)) ==
               EMU_EREMOTE &&
           peer_done(c, p, n, acks, gone)) {
        /* The peer finished its side (its acquire returned) and then left: what it left
         * behind is all this side needs, so stop watching it and finish without it. */
        for (uint32_t k = 0; k < nw; k++)
            if (watch[k] == gone)
                watch[k--] = watch[--nw];
    }
    if (s != EMU_OK) {
        report_wait(c, p, n, acks, s, gone, fn);
        note_gave_up(c, p, n, acks);
    }
    return s;
}

/* Connect this device's executor to the executor of `p`'s peer when it is on another host.
 * Done before our side of the handshake's last phase (consume publishes `got`), so the peer,
 * which waits for `got`, returns only after we connected: a fast peer that finished its
 * work and exited before we connected refused us (ECONNREFUSED, "Destination is
 * unreachable"; 1 in 10 runs of the 4+4 diag_fan_ok case). */
static emu_status connect_remote(struct emu_comm *c, const struct pending *p, const char *fn)
{
    const struct emu_rank_info *pi = &c->ranks[p->peer];

    if (emu_comm_same_host(c, p->peer))
        return EMU_OK;
    struct emu_rpc_req q = {.op = EMU_RPC_NET_CONNECT,
                            .arg0 = c->d->ctl->channels[p->rec.slot].peer,
                            .arg1 = pi->net_len};
    struct emu_rpc_rep r;
    memcpy(q.text, pi->net_addr, pi->net_len < EMU_HOST_ADDR_MAX ? pi->net_len : EMU_HOST_ADDR_MAX);
    _Static_assert(EMU_HOST_ADDR_MAX + EMU_NET_TOKEN_BYTES <= sizeof(q.text), "address, token");
    memcpy(q.text + EMU_HOST_ADDR_MAX, c->net_token, EMU_NET_TOKEN_BYTES);
    emu_status s = emu_device_rpc(c->d, &q, &r);
    if (s == EMU_OK)
        s = (emu_status)r.status;
    if (s != EMU_OK)
        EMU_LOG_ERR("%s: rank %u: connecting to rank %u on host %s failed: %s", fn, c->rank,
                    p->peer, pi->host, r.msg);
    return s;
}

/* Phase 2: read each peer's offer into our slot, connect, and acknowledge it. */
static emu_status consume(struct emu_comm *c, struct pending *p, uint32_t n, const char *fn)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct emu_rdv_offer *o = emu_rdv_peer_offer(c->rdv, p[i].peer, c->rank, p[i].key);
        if (emu_load_acquire(&((struct emu_rdv_offer *)o)->seq) != p[i].seq) {
            EMU_COMM_ERR(c, fn,
                         "ranks %u and %u disagree on how often their channel (%s, %s) "
                         "was created (one side destroyed it and the other did not)",
                         c->rank, p[i].peer, emu_rules_engine_name(p[i].rec.engine),
                         emu_topo_protocol_name(p[i].rec.protocol));
            return EMU_EINVAL;
        }
        if (o->notify_num != p[i].rec.notify_num) {
            EMU_COMM_ERR(c, fn,
                         "channel to rank %u: notifyNum is %u here but %u on rank %u "
                         "(both sides must agree)",
                         p[i].peer, p[i].rec.notify_num, o->notify_num, p[i].peer);
            return EMU_EINVAL;
        }
        emu_status s = slot_fill(c, &p[i], o, fn);
        if (s == EMU_OK)
            s = emu_xinfo_store(c, p[i].peer, o);
        if (s == EMU_OK)
            s = connect_remote(c, &p[i], fn);
        if (s != EMU_OK)
            return s;
        p[i].got = true;
        /* Pairs with the acquire load of `got` in the peer's phase 3. */
        emu_store_release(&p[i].mine->got, p[i].seq);
    }
    emu_rdv_ring(c->rdv);
    return EMU_OK;
}

static void map_peers(struct emu_comm *c, const struct pending *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct emu_rank_info *pi = &c->ranks[p[i].peer];
        if (c->peer_mapped[p[i].peer] || !emu_comm_same_host(c, p[i].peer))
            continue;
        struct emu_rpc_req q = {.op = EMU_RPC_MAP_PEER, .arg0 = pi->dev};
        struct emu_rpc_rep r;
        snprintf(q.text, sizeof(q.text), "%s", pi->job_dir);
        /* Now, while the peer's files surely exist; failing here only means the executor
         * maps them on first use instead. */
        if (emu_device_rpc(c->d, &q, &r) == EMU_OK)
            c->peer_mapped[p[i].peer] = true;
        else
            EMU_LOG_WARN("device %u: the executor could not map rank %u's device %u now: %s",
                         c->d->id, p[i].peer, pi->dev, r.msg);
    }
}

static void rollback(struct emu_comm *c, struct pending *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        /* Withdraw an offer the peer has not matched yet; once it has, the peer reads ours
         * and reaches the same verdict (e.g. a notifyNum mismatch) on its own. */
        if (p[i].mine != NULL && !p[i].seen && emu_load_relaxed(&p[i].mine->seq) == p[i].seq)
            emu_store_release(&p[i].mine->seq, p[i].seq - 1);
        if (p[i].created) {
            slot_free(c, p[i].rec.slot, p[i].rec.gen);
            if (p[i].rec.notify_num > 0)
                emu_notify_pool_free(c->d, p[i].rec.notify_base);
        }
        rec_free_tags(&p[i].rec);
    }
    emu_rdv_ring(c->rdv);
}

static emu_status keep(struct emu_comm *c, struct pending *p, uint32_t n)
{
    if (c->n_chans + n > c->cap_chans) {
        uint32_t cap = c->cap_chans ? c->cap_chans : 16;
        while (cap < c->n_chans + n)
            cap *= 2;
        void *np = realloc(c->chans, cap * sizeof(*c->chans));
        if (np == NULL)
            return EMU_ENOMEM;
        c->chans = np;
        c->cap_chans = cap;
    }
    struct emu_chan_rec **recs = calloc(n ? n : 1, sizeof(*recs));
    if (recs == NULL)
        return EMU_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        if ((recs[i] = malloc(sizeof(*recs[i]))) == NULL) {
            while (i-- > 0)
                free(recs[i]);
            free(recs);
            return EMU_ENOMEM;
        }
    }
    /* The records own the tags from here on; the pendings forget them. */
    for (uint32_t i = 0; i < n; i++) {
        *recs[i] = p[i].rec;
        memset(p[i].rec.tags, 0, sizeof(p[i].rec.tags));
        c->chans[c->n_chans++] = recs[i];
    }
    free(recs);
    return EMU_OK;
}

/* New channels of this call, one per distinct (peer, protocol) without an existing one. */
static uint32_t plan(struct emu_comm *c, int32_t engine, const HcclChannelDesc *d, uint32_t n,
                     struct pending *p)
{
    uint32_t np = 0;

    for (uint32_t i = 0; i < n; i++) {
        if (find_key(c, engine, d[i].remoteRank, d[i].channelProtocol) != NULL)
            continue;
        uint32_t key = emu_rdv_key(engine, d[i].channelProtocol);
        bool dup = false;
        for (uint32_t k = 0; k < np && !dup; k++)
            dup = p[k].peer == d[i].remoteRank && p[k].key == key;
        if (!dup)
            p[np++] = (struct pending){.desc = i, .peer = d[i].remoteRank, .key = key};
    }
    return np;
}

static emu_status handshake(struct emu_comm *c, int32_t engine, const HcclChannelDesc *d,
                            struct pending *p, uint32_t np, const char *fn)
{
    uint64_t deadline = emu_os_now_ns() + c->connect_timeout_ms * 1000000u;
    emu_status s = EMU_OK;

    for (uint32_t i = 0; i < np && s == EMU_OK; i++)
        s = post(c, engine, &d[p[i].desc], &p[i], fn);
    if (np > 0)
        emu_rdv_ring(c->rdv);
    if (s == EMU_OK)
        s = wait_phase(c, p, np, false, deadline, fn);
    for (uint32_t i = 0; i < np && s == EMU_OK; i++)
        p[i].seen = true;
    if (s == EMU_OK)
        s = consume(c, p, np, fn);
    if (s == EMU_OK)
        s = wait_phase(c, p, np, true, deadline, fn);
    if (s == EMU_OK)
        s = keep(c, p, np);
    return s;
}

/* A peer of another host is reached through the executors' network transport
 * (device/net/net.h): both ranks need its address in their rendezvous rows. A peer of this host
 * whose job folder is missing cannot be mapped either. */
static emu_status reachable(const struct emu_comm *c, const struct pending *p, uint32_t n,
                            const char *fn)
{
    const struct emu_rank_info *me = &c->ranks[c->rank];
    struct stat st;

    for (uint32_t i = 0; i < n; i++) {
        const struct emu_rank_info *pi = &c->ranks[p[i].peer];
        if (!emu_comm_same_host(c, p[i].peer)) {
            if (me->net_len != 0 && pi->net_len != 0)
                continue;
            EMU_LOG_ERR("%s: rank %u (host %s): rank %u is on host %s and rank %u's executor "
                        "has no network transport (hcemu built without UCX, UCX failed to "
                        "start, or the job is not multi-host); channel refused",
                        fn, c->rank, me->host, p[i].peer, pi->host,
                        me->net_len == 0 ? c->rank : p[i].peer);
            return EMU_ENOTSUP;
        }
        if (stat(pi->job_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            EMU_LOG_ERR("%s: rank %u: rank %u's job folder %s is not on this host although "
                        "both name the same host; channel refused", fn, c->rank, p[i].peer,
                        pi->job_dir);
            return EMU_ENOTSUP;
        }
    }
    return EMU_OK;
}

/* Publish on the member's device entry that its host waits in `fn` for peers (NULL: no
 * longer), for the hang watchdog of the ranks that wait on it. */
static void mark_host_call(struct emu_comm *c, const char *fn)
{
    struct emu_devctl *ctl = c->d->ctl;

    if (ctl == NULL || c->ctl_slot == UINT32_MAX)
        return;
    struct emu_comm_ctl *e = &ctl->comms[c->ctl_slot];
    if (fn == NULL) {
        emu_store_release(&e->host_call_on, 0);
        return;
    }
    snprintf(e->host_call, sizeof(e->host_call), "%s", fn);
    /* Pairs with the watchdog's acquire load before it reads host_call. */
    emu_store_release(&e->host_call_on, 1);
}

emu_status emu_link_acquire(struct emu_comm *c, int32_t engine, const HcclChannelDesc *d,
                            uint32_t n, ChannelHandle *out, const char *fn)
{
    struct pending *p = calloc(n, sizeof(*p));

    if (p == NULL)
        return EMU_ENOMEM;
    uint32_t np = plan(c, engine, d, n, p);
    emu_status s = reachable(c, p, np, fn);
    if (s != EMU_OK) {
        free(p);
        return s;
    }
    mark_host_call(c, fn);
    s = handshake(c, engine, d, p, np, fn);
    mark_host_call(c, NULL);
    if (s != EMU_OK) {
        rollback(c, p, np);
        free(p);
        return s;
    }
    map_peers(c, p, np);
    free(p);
    /* Sent with this call's new channels (or not needed by its existing ones): used up. */
    emu_xinfo_sent(c);
    emu_link_query(c, engine, d, n, out);
    return EMU_OK;
}

static void report_set_notifies(struct emu_comm *c, const struct emu_chan_rec *ch)
{
    for (uint32_t k = 0; k < ch->notify_num; k++)
        if (emu_load_acquire(&c->d->ctl->notifies[ch->notify_base + k].value) != 0)
            EMU_LOG_WARN("HcclCommDestroy: rank %u channel to rank %u (%s, slot %u): notify %u "
                         "was recorded but never waited for",
                         c->rank, ch->remote_rank, emu_topo_protocol_name(ch->protocol), ch->slot,
                         k);
}

void emu_link_release(struct emu_comm *c, struct emu_chan_rec *ch)
{
    slot_free(c, ch->slot, ch->gen);
    if (ch->notify_num > 0)
        emu_notify_pool_free(c->d, ch->notify_base);
    rec_free_tags(ch);
    /* Keep the array dense: move the last record into the hole. */
    for (uint32_t i = 0; i < c->n_chans; i++)
        if (c->chans[i] == ch) {
            c->chans[i] = c->chans[--c->n_chans];
            break;
        }
    free(ch);
}

void emu_link_release_all(struct emu_comm *c)
{
    bool alive = c->d->ctl != NULL;

    while (c->n_chans > 0) {
        struct emu_chan_rec *ch = c->chans[c->n_chans - 1];
        if (alive)
            report_set_notifies(c, ch);
        emu_link_release(c, ch);
    }
}
