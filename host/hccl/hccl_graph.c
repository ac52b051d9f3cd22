/* hccl_graph.c - the rank graph of one communicator (HcclRankGraph* queries).
 *
 * Layer 0 groups the ranks by server (one instance per server, id = server index, a full
 * mesh over the intra-server protocol); layer 1 exists when the ranks span several servers
 * and holds all of them in instance 0 (CLOS over the inter-server protocols). Built once at
 * init from the rendezvous announcements, so every member sees the same graph.
 *
 * Servers follow the hosts: each rank announces the server its own host's description gives
 * it (HCEMU_TOPOLOGY or a rank table; server 0 by default) and its host key. Ranks of
 * different hosts are never on one server: when some announced server holds ranks of
 * several hosts, the servers are renumbered as the distinct (host, announced server) pairs,
 * hosts in the order of their lowest rank, servers ascending within a host. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/log.h"
#include "common/contract/product.h"
#include "hccl_graph_priv.h"
#include "hccl_topo.h"

static void build_layer(struct emu_graph *g, struct emu_graph_layer *L, bool by_server)
{
    /* Instances in ascending id order; ranks ascending inside each. */
    for (uint32_t r = 0; r < g->n; r++) {
        uint32_t id = by_server ? g->server[r] : 0;
        uint32_t k = 0;
        while (k < L->n_inst && L->ids[k] != id)
            k++;
        if (k == L->n_inst) {
            uint32_t at = 0;
            while (at < L->n_inst && L->ids[at] < id)
                at++;
            memmove(&L->ids[at + 1], &L->ids[at], (L->n_inst - at) * sizeof(L->ids[0]));
            memmove(&L->sizes[at + 1], &L->sizes[at], (L->n_inst - at) * sizeof(L->sizes[0]));
            L->ids[at] = id;
            L->sizes[at] = 0;
            L->n_inst++;
            k = at;
        }
        L->sizes[k]++;
    }
    uint32_t pos = 0;
    for (uint32_t k = 0; k < L->n_inst; k++) {
        L->start[k] = pos;
        uint32_t fill = pos;
        for (uint32_t r = 0; r < g->n; r++)
            if ((by_server ? g->server[r] : 0) == L->ids[k])
                L->ranks[fill++] = r;
        if ((by_server ? g->server[g->me] : 0) == L->ids[k])
            L->my_inst = k;
        pos += L->sizes[k];
    }
}

/* The address hccl_comm.c gives a rank's NIC when no rank table names one. */
static uint32_t default_ip(uint32_t server, uint32_t phy)
{
    return htonl((10u << 24) | ((server & 0xFFu) << 16) | ((phy >> 8 & 0xFFu) << 8) |
                 ((phy & 0xFFu) + 1u));
}

/* Position of rank r's host among the hosts, in the order of their lowest rank. */
static uint32_t host_order(const struct emu_rank_info *ranks, uint32_t r)
{
    uint32_t order = 0;

    for (uint32_t q = 0; q < r; q++) {
        bool first = true; /* q is the lowest rank of its host */
        for (uint32_t k = 0; k < q && first; k++)
            first = ranks[k].host_key != ranks[q].host_key;
        if (first && ranks[q].host_key == ranks[r].host_key)
            return order;
        order += first;
    }
    return order;
}

/* g->server[] from the announcements: as announced unless a server spans hosts. */
static void assign_servers(struct emu_graph *g, const struct emu_rank_info *ranks, uint32_t n)
{
    uint64_t pair[EMU_COMM_MAX_RANKS];
    bool spans = false;

    for (uint32_t r = 0; r < n; r++) {
        g->server[r] = ranks[r].server;
        for (uint32_t q = 0; q < r && !spans; q++)
            spans = ranks[q].server == ranks[r].server && ranks[q].host_key != ranks[r].host_key;
    }
    if (!spans)
        return;
    /* (host order, announced server) of every rank; a server's id is its pair's rank among
     * the distinct pairs. */
    for (uint32_t r = 0; r < n; r++)
        pair[r] = (uint64_t)host_order(ranks, r) << 32 | ranks[r].server;
    for (uint32_t r = 0; r < n; r++) {
        uint32_t id = 0;
        for (uint32_t q = 0; q < n; q++) {
            bool seen = false; /* count each smaller distinct pair once */
            for (uint32_t k = 0; k < q && !seen; k++)
                seen = pair[k] == pair[q];
            id += !seen && pair[q] < pair[r];
        }
        g->server[r] = id;
        if (g->ip[r] == default_ip(ranks[r].server, ranks[r].phy_id))
            g->ip[r] = default_ip(id, ranks[r].phy_id); /* one address per device of the job */
    }
}

emu_status emu_graph_create(const struct emu_rank_info *ranks, uint32_t n, uint32_t me,
                            struct emu_graph **out)
{
    const struct emu_topo_cfg *c = emu_topo_cfg();
    struct emu_graph *g = calloc(1, sizeof(*g));

    if (g == NULL)
        return EMU_ENOMEM;
    g->n = n;
    g->me = me;
    for (uint32_t r = 0; r < n; r++) {
        g->phy[r] = ranks[r].phy_id;
        g->dev[r] = ranks[r].dev;
        g->ip[r] = ranks[r].ip;
        g->pod[r] = ranks[r].super_pod;
        g->super_dev[r] = ranks[r].super_dev != UINT32_MAX ? ranks[r].super_dev : ranks[r].dev;
    }
    assign_servers(g, ranks, n);
    build_layer(g, &g->layer[0], true);
    g->layer[0].n_proto = 1;
    g->layer[0].proto[0] = c->intra;
    g->n_layers = 1;
    g->layer_ids[0] = 0;
    if (g->layer[0].n_inst > 1) {
        build_layer(g, &g->layer[1], false);
        g->layer[1].n_proto = c->n_inter;
        memcpy(g->layer[1].proto, c->inter, sizeof(g->layer[1].proto));
        g->layer_ids[1] = 1;
        g->n_layers = 2;
    }
    *out = g;
    return EMU_OK;
}

void emu_graph_destroy(struct emu_graph *g)
{
    free(g);
}

static struct emu_graph_layer *layer_of(struct emu_graph *g, uint32_t layer, const char *fn)
{
    if (layer < g->n_layers)
        return &g->layer[layer];
    EMU_LOG_ERR("%s: rank %u: layer %u does not exist (this communicator has layer%s 0%s)", fn,
                g->me, layer, g->n_layers > 1 ? "s" : "", g->n_layers > 1 ? " and 1" : "");
    return NULL;
}

static int inst_index(const struct emu_graph_layer *L, uint32_t inst)
{
    for (uint32_t k = 0; k < L->n_inst; k++)
        if (L->ids[k] == inst)
            return (int)k;
    return -1;
}

void emu_graph_layers(const struct emu_graph *g, uint32_t **layers, uint32_t *n)
{
    *layers = (uint32_t *)g->layer_ids;
    *n = g->n_layers;
}

emu_status emu_graph_my_ranks(struct emu_graph *g, uint32_t layer, uint32_t **ranks, uint32_t *n,
                              const char *fn)
{
    struct emu_graph_layer *L = layer_of(g, layer, fn);

    if (L == NULL)
        return EMU_EINVAL;
    if (ranks != NULL)
        *ranks = &L->ranks[L->start[L->my_inst]];
    *n = L->sizes[L->my_inst];
    return EMU_OK;
}

emu_status emu_graph_inst_sizes(struct emu_graph *g, uint32_t layer, uint32_t **sizes, uint32_t *n,
                                const char *fn)
{
    struct emu_graph_layer *L = layer_of(g, layer, fn);

    if (L == NULL)
        return EMU_EINVAL;
    *sizes = L->sizes;
    *n = L->n_inst;
    return EMU_OK;
}

emu_status emu_graph_insts(struct emu_graph *g, uint32_t layer, uint32_t **ids, uint32_t *n,
                           const char *fn)
{
    struct emu_graph_layer *L = layer_of(g, layer, fn);

    if (L == NULL)
        return EMU_EINVAL;
    *ids = L->ids;
    *n = L->n_inst;
    return EMU_OK;
}

static int find_inst(struct emu_graph *g, struct emu_graph_layer *L, uint32_t layer, uint32_t inst,
                     const char *fn)
{
    int k = inst_index(L, inst);

    if (k < 0)
        EMU_LOG_ERR("%s: rank %u: layer %u has no instance %u (HcclRankGraphGetTopoInstsByLayer "
                    "lists them)",
                    fn, g->me, layer, inst);
    return k;
}

emu_status emu_graph_inst_ranks(struct emu_graph *g, uint32_t layer, uint32_t inst,
                                uint32_t **ranks, uint32_t *n, const char *fn)
{
    struct emu_graph_layer *L = layer_of(g, layer, fn);
    int k;

    if (L == NULL || (k = find_inst(g, L, layer, inst, fn)) < 0)
        return EMU_EINVAL;
    *ranks = &L->ranks[L->start[k]];
    *n = L->sizes[k];
    return EMU_OK;
}

/* Layer 0 is described as hcomm describes a server of the product: on Atlas 350 its rank
 * graph comes from the server's topology file (net type TOPO_FILE_DESC, reported for the
 * layer as COMM_TOPO_CUSTOM) and the file's topology instance is the devices' full mesh
 * (COMM_TOPO_1DMESH); an A3 server is COMM_TOPO_910_93, an A2 server a 1D mesh. HCCL's
 * Atlas 350 topology matchers accept only CUSTOM or CLOS for the layer and shape the
 * server by its instances. */
static CommTopo layer0_topo(bool instance)
{
    switch (emu_product_current()) {
    case EMU_PRODUCT_A3:
        return COMM_TOPO_910_93;
    case EMU_PRODUCT_A2:
        return COMM_TOPO_1DMESH;
    default:
        return instance ? COMM_TOPO_1DMESH : COMM_TOPO_CUSTOM;
    }
}

emu_status emu_graph_topo_type(struct emu_graph *g, uint32_t layer, uint32_t inst, CommTopo *type,
                               const char *fn)
{
    struct emu_graph_layer *L = layer_of(g, layer, fn);

    if (L == NULL)
        return EMU_EINVAL;
    if (inst != UINT32_MAX && find_inst(g, L, layer, inst, fn) < 0)
        return EMU_EINVAL;
    *type = layer == 0 ? layer0_topo(inst != UINT32_MAX) : COMM_TOPO_CLOS;
    return EMU_OK;
}

static bool is_ip_protocol(int32_t p)
{
    return p == COMM_PROTOCOL_ROCE || p == COMM_PROTOCOL_UBOE;
}

/* The endpoint of `rank` for `protocol`: devices carry their location; IP protocols an
 * IPv4 address, the others an id made of server and device. */
static void endpoint(const struct emu_graph *g, uint32_t rank, int32_t protocol, EndpointDesc *e)
{
    (void)EndpointDescInit(e, 1);
    e->protocol = (CommProtocol)protocol;
    if (is_ip_protocol(protocol)) {
        e->commAddr.type = COMM_ADDR_TYPE_IP_V4;
        memcpy(&e->commAddr.addr, &g->ip[rank], sizeof(g->ip[rank]));
    } else {
        e->commAddr.type = COMM_ADDR_TYPE_ID;
        e->commAddr.id = (g->server[rank] << 16) | g->phy[rank];
    }
    e->loc.locType = ENDPOINT_LOC_TYPE_DEVICE;
    e->loc.device.devPhyId = g->phy[rank];
    e->loc.device.superDevId = g->super_dev[rank];
    e->loc.device.serverIdx = g->server[rank];
    e->loc.device.superPodIdx = g->pod[rank];
}

static bool endpoint_equal(const EndpointDesc *a, const EndpointDesc *b)
{
    if (a->protocol != b->protocol || a->commAddr.type != b->commAddr.type ||
        a->loc.locType != b->loc.locType)
        return false;
    size_t n = a->commAddr.type == COMM_ADDR_TYPE_IP_V4   ? 4
               : a->commAddr.type == COMM_ADDR_TYPE_IP_V6 ? 16
               : a->commAddr.type == COMM_ADDR_TYPE_ID    ? 4
                                                          : 16;
    return memcmp(a->commAddr.raws, b->commAddr.raws, n) == 0 &&
           memcmp(&a->loc.device, &b->loc.device, sizeof(a->loc.device)) == 0;
}

static bool layer_has(const struct emu_graph_layer *L, int32_t protocol)
{
    for (uint32_t i = 0; i < L->n_proto; i++)
        if (L->proto[i] == protocol)
            return true;
    return false;
}

/* Layer 1 (CLOS) reaches every device, those of one server too: each has its own port on
 * the network, and HCCL's level-1 algorithms pair ranks that share a server. */
bool emu_graph_has_link(const struct emu_graph *g, uint32_t a, uint32_t b, int32_t protocol)
{
    bool same = g->server[a] == g->server[b];

    return (same && layer_has(&g->layer[0], protocol)) ||
           (g->n_layers >= 2 && layer_has(&g->layer[1], protocol));
}

bool emu_graph_endpoint_ok(const struct emu_graph *g, uint32_t rank, int32_t protocol,
                           const EndpointDesc *ep)
{
    EndpointDesc want;

    if (ep->protocol == COMM_PROTOCOL_RESERVED && ep->loc.locType == ENDPOINT_LOC_TYPE_RESERVED)
        return true;
    endpoint(g, rank, protocol, &want);
    return endpoint_equal(&want, ep);
}

emu_status emu_graph_links(struct emu_graph *g, uint32_t layer, uint32_t src, uint32_t dst,
                           CommLink **links, uint32_t *n, const char *fn)
{
    struct emu_graph_layer *L = layer_of(g, layer, fn);

    if (L == NULL)
        return EMU_EINVAL;
    if (src >= g->n || dst >= g->n || src == dst) {
        EMU_LOG_ERR("%s: rank %u: no links from rank %u to rank %u (ranks are 0..%u and must "
                    "differ)",
                    fn, g->me, src, dst, g->n - 1);
        return EMU_EINVAL;
    }
    uint32_t count = 0;
    bool same = g->server[src] == g->server[dst];
    if (layer != 0 || same) {
        for (uint32_t i = 0; i < L->n_proto; i++) {
            CommLink *l = &g->links[count++];
            (void)CommLinkInit(l, 1);
            endpoint(g, src, L->proto[i], &l->srcEndpointDesc);
            endpoint(g, dst, L->proto[i], &l->dstEndpointDesc);
            l->linkAttr.linkProtocol = (CommProtocol)L->proto[i];
            l->linkAttr.hop = 1;
        }
    }
    *links = g->links;
    *n = count;
    return EMU_OK;
}

emu_status emu_graph_endpoints(struct emu_graph *g, uint32_t layer, uint32_t inst, uint32_t *num,
                               EndpointDesc *out, const char *fn)
{
    struct emu_graph_layer *L = layer_of(g, layer, fn);
    int k;

    if (L == NULL || (k = find_inst(g, L, layer, inst, fn)) < 0)
        return EMU_EINVAL;
    uint32_t need = L->sizes[k] * L->n_proto;
    if (out == NULL) {
        *num = need;
        return EMU_OK;
    }
    if (*num < need) {
        EMU_LOG_ERR("%s: rank %u: *descNum is %u but instance %u of layer %u has %u endpoints "
                    "(HcclRankGraphGetEndpointNum)",
                    fn, g->me, *num, inst, layer, need);
        return EMU_EINVAL;
    }
    uint32_t w = 0;
    for (uint32_t i = 0; i < L->sizes[k]; i++)
        for (uint32_t p = 0; p < L->n_proto; p++)
            endpoint(g, L->ranks[L->start[k] + i], L->proto[p], &out[w++]);
    *num = w;
    return EMU_OK;
}

emu_status emu_graph_endpoint_info(struct emu_graph *g, uint32_t rank, const EndpointDesc *ep,
                                   EndpointAttr attr, uint32_t len, void *info, const char *fn)
{
    bool found = false;
    EndpointDesc e;

    for (uint32_t l = 0; l < g->n_layers && !found; l++)
        for (uint32_t p = 0; p < g->layer[l].n_proto && !found; p++) {
            endpoint(g, rank, g->layer[l].proto[p], &e);
            found = endpoint_equal(&e, ep);
        }
    if (!found) {
        EMU_LOG_ERR("%s: rank %u: the endpoint (protocol %s) is not an endpoint of rank %u", fn,
                    g->me, emu_topo_protocol_name(ep->protocol), rank);
        return EMU_EINVAL;
    }
    uint32_t need = attr == ENDPOINT_ATTR_LOCATION ? (uint32_t)sizeof(EndpointLoc) : 4u;
    if (attr != ENDPOINT_ATTR_BW_COEFF && attr != ENDPOINT_ATTR_DIE_ID &&
        attr != ENDPOINT_ATTR_LOCATION) {
        EMU_LOG_ERR("%s: rank %u: endpoint attribute %d is not one of BW_COEFF, DIE_ID, "
                    "LOCATION",
                    fn, g->me, (int)attr);
        return EMU_EINVAL;
    }
    if (len != need) {
        EMU_LOG_ERR("%s: rank %u: infoLen is %u; attribute %d needs %u bytes", fn, g->me, len,
                    (int)attr, need);
        return EMU_EINVAL;
    }
    if (attr == ENDPOINT_ATTR_LOCATION) {
        memcpy(info, &e.loc, sizeof(e.loc));
    } else {
        /* Relative bandwidth: UB links are the fastest, RoCE the slowest. */
        uint32_t v = attr == ENDPOINT_ATTR_DIE_ID ? 0u
                     : is_ip_protocol(e.protocol) ? (e.protocol == COMM_PROTOCOL_ROCE ? 25u : 50u)
                                                  : 100u;
        memcpy(info, &v, sizeof(v));
    }
    return EMU_OK;
}
