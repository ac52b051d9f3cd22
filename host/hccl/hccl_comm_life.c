/* hccl_comm_life.c - a communicator member's life: creation (rendezvous, rank graph, device
 * entry) and destruction (every resource, in dependency order). Entry points:
 * emu_comm_create(), emu_comm_destroy(). */
#include "hccl_comm_life.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/contract/settings.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "hccl_exchange.h"
#include "hccl_link.h"
#include "hccl_mem.h"
#include "hccl_sym_win.h"
#include "host/hccl/rdv/hccl_rdv.h"
#include "host/hccl/rdv/hccl_rdvnet.h"
#include "hccl_thread.h"
#include "hccl_topo.h"
#include "host/hccl/rdv/rdv_auth.h"
#include "host/acl/device.h"
#include "host/acl/stream.h"

static void apply_config(struct emu_comm *c, const struct emu_comm_args *a)
{
    const HcclCommConfig *cfg = a->config;

    c->buf_bytes = emu_comm_default_buf_bytes();
    c->exec_timeout_s =
        (int32_t)emu_settings_u64(EMU_SET_HCCL_EXEC_TIMEOUT);
    c->connect_timeout_ms = emu_comm_connect_timeout_ms();
    snprintf(c->name, sizeof(c->name), "hcemu_comm_%016llx", (unsigned long long)a->nonce);
    if (cfg == NULL)
        return;
    if (cfg->hcclBufferSize != HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET)
        c->buf_bytes = (uint64_t)cfg->hcclBufferSize << 20;
    if (cfg->hcclExecTimeOut >= 0)
        c->exec_timeout_s = cfg->hcclExecTimeOut;
    if (cfg->hcclCommName[0] != '\0')
        snprintf(c->name, sizeof(c->name), "%s", cfg->hcclCommName);
}

/* Ranks of a multi-host job carry their executor's network address, so peers of other hosts
 * can connect to it. Without one (no UCX) channels to other hosts are refused later, with
 * the reason. */
static void net_address(const struct emu_comm_args *a, struct emu_rank_info *me)
{
    struct emu_rpc_req q = {.op = EMU_RPC_NET_ADDR};
    struct emu_rpc_rep r;
    struct emu_net_job job;

    /* The executor admits messages carrying this token, and listens only on the interface
     * the rendezvous uses (the one the job was given). */
    memset(&job, 0, sizeof(job));
    emu_rdv_net_token(a->key, job.token);
    if (a->multi_host)
        emu_rdvnet_ifname(a->root_ip, a->root_port, job.ifname, sizeof(job.ifname));
    memcpy(q.text, &job, sizeof(job));

    if (emu_device_rpc(a->d, &q, &r) != EMU_OK || r.status != EMU_OK ||
        r.val0 > sizeof(me->net_addr)) {
        EMU_LOG_INFO("%s: rank %u: no network transport (%s); ranks of other hosts will be "
                     "unreachable", a->fn, a->rank, r.msg);
        return;
    }
    me->net_len = r.val0;
    memcpy(me->net_addr, r.msg, r.val0);
}

static emu_status describe_me(const struct emu_comm_args *a, struct emu_rank_info *me)
{
    memset(me, 0, sizeof(*me));
    me->dev = a->d->id;
    me->pid = (int32_t)getpid();
    me->proc_key = emu_rt.proc_key;
    me->runtime_gen = emu_rt.generation;
    snprintf(me->job_dir, sizeof(me->job_dir), "%s", emu_rt.job_dir);
    const struct emu_host_id *host = emu_host_of_device(a->d->id);
    me->host_key = host->key;
    snprintf(me->host, sizeof(me->host), "%s", host->name);
    if (a->multi_host || emu_settings_u64(EMU_SET_HOST_SPLIT) != 0)
        net_address(a, me);
    if (a->has_table) {
        me->server = a->server;
        me->phy_id = a->phy_id;
        me->ip = a->ip;
        me->super_pod = a->super_pod;
        me->super_dev = a->super_dev;
    } else {
        me->super_dev = UINT32_MAX;
        emu_status s = emu_topo_server_of(a->d->id, a->fn, a->rank, &me->server);
        if (s != EMU_OK)
            return s;
        me->phy_id = a->d->id;
    }
    if (me->ip == 0) /* 10.<server>.<device / 256>.<device % 256 + 1> */
        me->ip = htonl((10u << 24) | ((me->server & 0xFFu) << 16) |
                       ((me->phy_id >> 8 & 0xFFu) << 8) | ((me->phy_id & 0xFFu) + 1u));
    return EMU_OK;
}

/* Two ranks on one device would share its notifies and streams unknowingly. */
static emu_status check_distinct(const struct emu_comm *c, const char *fn)
{
    for (uint32_t i = 0; i < c->size; i++)
        for (uint32_t j = i + 1; j < c->size; j++)
            if (c->ranks[i].dev == c->ranks[j].dev &&
                c->ranks[i].host_key == c->ranks[j].host_key &&
                strcmp(c->ranks[i].job_dir, c->ranks[j].job_dir) == 0) {
                EMU_COMM_ERR(c, fn, "ranks %u and %u both use device %u (one device per rank)", i,
                             j, c->ranks[i].dev);
                return EMU_EINVAL;
            }
    return EMU_OK;
}

/* Make the member visible to kernels on the device (HcommAcquireComm by name). */
static emu_status publish_on_device(struct emu_comm *c, const char *fn)
{
    struct emu_devctl *ctl = c->d->ctl;
    uint32_t slot = UINT32_MAX;
    bool dup = false;

    emu_devctl_lock(&ctl->res_lock);
    for (uint32_t i = 0; i < EMU_MAX_COMMS; i++) {
        struct emu_comm_ctl *e = &ctl->comms[i];
        if (emu_load_acquire(&e->state) != 0)
            dup = dup || strcmp(e->name, c->name) == 0;
        else if (slot == UINT32_MAX)
            slot = i;
    }
    if (!dup && slot != UINT32_MAX) {
        struct emu_comm_ctl *e = &ctl->comms[slot];
        e->rank = c->rank;
        e->size = c->size;
        e->comm_id = c->id;
        emu_store_relaxed(&e->locked, 0);
        emu_store_relaxed(&e->host_call_on, 0);
        snprintf(e->name, sizeof(e->name), "%s", c->name);
        /* Pairs with the acquire load of `state` in the executor's HcommAcquireComm. */
        emu_store_release(&e->state, 1);
    }
    emu_devctl_unlock(&ctl->res_lock);
    if (dup) {
        EMU_COMM_ERR(c, fn, "device %u already has a communicator named \"%s\"", c->d->id, c->name);
        return EMU_EINVAL;
    }
    if (slot == UINT32_MAX) {
        EMU_COMM_ERR(c, fn, "device %u has no room for another communicator (%u in use)", c->d->id,
                     EMU_MAX_COMMS);
        return EMU_EUNAVAIL;
    }
    c->ctl_slot = slot;
    return EMU_OK;
}

static void unpublish(struct emu_comm *c)
{
    struct emu_devctl *ctl = c->d->ctl;

    if (c->ctl_slot == UINT32_MAX || ctl == NULL)
        return;
    emu_devctl_lock(&ctl->res_lock);
    emu_store_release(&ctl->comms[c->ctl_slot].state, 0);
    emu_devctl_unlock(&ctl->res_lock);
    c->ctl_slot = UINT32_MAX;
}

static void free_comm(struct emu_comm *c, bool joined)
{
    emu_graph_destroy(c->graph);
    emu_rdv_close(c->rdv, c->rank, joined);
    free(c->ranks);
    free(c->threads);
    free(c->spare_notifies);
    free(c->chans);
    emu_xinfo_free(c);
    pthread_mutex_destroy(&c->lock);
    c->magic = 0;
    free(c);
}

static emu_status join(struct emu_comm *c, const struct emu_comm_args *a)
{
    struct emu_rank_info me;
    emu_status s = describe_me(a, &me);

    uint64_t deadline = emu_os_now_ns() + c->connect_timeout_ms * 1000000u;
    struct emu_rdvnet *net = NULL;

    if (s == EMU_OK)
        s = emu_rdv_open(a->rdv_dir, a->nonce, a->size, &me, a->fn, a->rank, &c->rdv);
    struct emu_rdvnet_who who = {a->fn, a->nonce, a->size, a->rank, me.host, me.job_dir};
    if (s == EMU_OK && a->net_port != 0 &&
        (s = emu_rdvnet_connect(a->net_ip, a->net_port, a->key, deadline, &who, &net)) == EMU_OK)
        emu_rdv_attach_net(c->rdv, net, &emu_rdvnet_link, a->rank);
    if (s == EMU_OK)
        s = emu_rdv_join(c->rdv, a->rank, &me, deadline, a->fn);
    return s;
}

emu_status emu_comm_create(const struct emu_comm_args *a, struct emu_comm **out)
{
    struct emu_comm *c = calloc(1, sizeof(*c));
    emu_status s;

    if (c == NULL || (c->ranks = calloc(a->size, sizeof(*c->ranks))) == NULL) {
        free(c);
        return EMU_ENOMEM;
    }
    pthread_mutex_init(&c->lock, NULL);
    c->d = a->d;
    c->rank = a->rank;
    emu_rdv_net_token(a->key, c->net_token);
    c->size = a->size;
    c->id = a->nonce;
    c->ctl_slot = UINT32_MAX;
    apply_config(c, a);
    if ((s = join(c, a)) != EMU_OK) {
        free_comm(c, false);
        return s;
    }
    for (uint32_t r = 0; r < c->size; r++)
        c->ranks[r] = *emu_rdv_info(c->rdv, r);
    if ((s = check_distinct(c, a->fn)) != EMU_OK ||
        (s = emu_graph_create(c->ranks, c->size, c->rank, &c->graph)) != EMU_OK ||
        (s = publish_on_device(c, a->fn)) != EMU_OK) {
        free_comm(c, true);
        return s;
    }
    c->magic = EMU_COMM_MAGIC;
    emu_comm_register(c);
    EMU_LOG_INFO("communicator %s: rank %u of %u on device %u", c->name, c->rank, c->size,
                 c->d->id);
    *out = c;
    return EMU_OK;
}

static void teardown(struct emu_comm *c)
{
    /* The waits its last collectives left owed go on their streams (stream_owed.h), then
     * threads drain their queues: they may still wait on channel notifies. */
    emu_stream_settle_owner(c);
    pthread_mutex_lock(&c->lock);
    emu_thread_quiesce(c);
    emu_link_release_all(c);
    emu_thread_release_all(c);
    emu_symwin_release_all(c);
    emu_hccl_mem_release_all(c);
    pthread_mutex_unlock(&c->lock);
    unpublish(c);
    free_comm(c, true);
}

emu_status emu_comm_destroy(struct emu_comm *c, const char *fn)
{
    if (!emu_comm_unregister(c, false)) {
        EMU_COMM_ERR(c, fn, "another call is using communicator %s; try again when it returns",
                     c->name);
        return EMU_EAGAIN;
    }
    teardown(c);
    return EMU_OK;
}

void emu_comm_abandon(struct emu_comm *c)
{
    (void)emu_comm_unregister(c, true);
    teardown(c);
}

/* ---- HcclCommInitAll: one member per device, each joining from its own OS thread -------- */

struct init_all_job {
    pthread_t tid;
    struct emu_comm_args a;
    struct emu_comm *c;
    emu_status s;
};

static void *init_all_cb(void *arg)
{
    struct init_all_job *j = arg;

    emu_runtime_set_current_device((int)j->a.d->id); /* names the device in log lines */
    j->s = emu_comm_create(&j->a, &j->c);
    return NULL;
}

static emu_status run_all(uint32_t ndev, const int32_t *devices, struct init_all_job *j,
                          const char *fn)
{
    uint64_t nonce = emu_rootinfo_fresh_nonce();
    emu_status first = EMU_OK;
    uint32_t started = 0;

    /* Open every device before any member starts waiting for the others. */
    for (uint32_t i = 0; i < ndev && first == EMU_OK; i++) {
        j[i].a = (struct emu_comm_args){.fn = fn, .rank = i, .size = ndev, .nonce = nonce};
        snprintf(j[i].a.rdv_dir, sizeof(j[i].a.rdv_dir), "%s", emu_rt.job_dir);
        first = emu_device_open((uint32_t)devices[i], &j[i].a.d);
    }
    for (uint32_t i = 0; i < ndev && first == EMU_OK; i++) {
        if (pthread_create(&j[i].tid, NULL, init_all_cb, &j[i]) != 0) {
            EMU_LOG_ERR("%s: cannot start a thread for device %d", fn, devices[i]);
            first = EMU_ESYSCALL;
            break;
        }
        started++;
    }
    for (uint32_t i = 0; i < started; i++) {
        pthread_join(j[i].tid, NULL);
        if (first == EMU_OK)
            first = j[i].s;
    }
    return first;
}

emu_status emu_comm_create_all(uint32_t ndev, const int32_t *devices, struct emu_comm **out,
                               const char *fn)
{
    struct init_all_job *j = calloc(ndev, sizeof(*j));
    emu_status s;

    if (j == NULL)
        return EMU_ENOMEM;
    s = run_all(ndev, devices, j, fn);
    for (uint32_t i = 0; i < ndev; i++) {
        if (s == EMU_OK)
            out[i] = j[i].c;
        else if (j[i].c != NULL)
            emu_comm_abandon(j[i].c); /* all or nothing: undo the members that were made */
    }
    free(j);
    return s;
}
