/* hccl_ranktable_ranks.c - the rank_list form of rank table version "2.0" (Ascend 950):
 *   {"version": "2.0", "status": "completed", "rank_count": 2,
 *    "rank_list": [{"rank_id": 0, "device_id": 0, "local_id": 0,
 *                   "device_port": 16666, "host_port": 60001,
 *                   "level_list": [{"net_layer": 0, "net_instance_id": "az0-rack0",
 *                                   "net_type": "TOPO_FILE_DESC", "net_attr": "",
 *                                   "rank_addr_list": [{"addr_type": "IPV4",
 *                                                       "addr": "223.0.0.10",
 *                                                       "ports": ["0/0"],
 *                                                       "plane_id": "plane0"}]}]}, ...]}
 * Numbers are JSON integers. Limits are the vendor's: rank_count 1..65536, device_id and
 * local_id 0..64 (64 = a backup rank, which names "replaced_local_id" 0..63), ports
 * 1..65535, at most 8 levels with net_layer 0..7 strictly increasing, net_instance_id 1..1024
 * characters, at most 24 addresses a level, each address of type EID (32 hex digits), IPV4
 * or IPV6 with 1..16 ports of 1..32 characters; ranks sharing a (net_layer,
 * net_instance_id) list the same number of addresses there.
 *
 * What the rank graph takes from it: the rank's server is its net_layer-0 instance (servers
 * numbered by first appearance in rank_list), its super pod its net_layer-1 instance (0 when
 * there is none), its address the first IPV4 address of its lowest level that has one. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hccl_ranktable_forms.h"

#define RT_RANK_COUNT_MAX 65536u
#define RT_DEVICE_ID_MAX 64u
#define RT_BACKUP_LOCAL_ID 64u
#define RT_PORT_MIN 1u
#define RT_PORT_MAX 65535u
#define RT_LEVELS_MAX 8u
#define RT_NET_LAYER_MAX 7u
#define RT_NET_ID_MAX 1024u
#define RT_ADDRS_MAX 24u
#define RT_ADDR_LEN_MAX 256u
#define RT_ADDR_PORTS_MAX 16u
#define RT_PORT_NAME_MAX 32u
#define RT_PLANE_ID_MAX 1024u
#define RT_BACKUP_ADDRS_MAX 16u
#define RT_EID_HEX 32u

static const char *const net_types[] = {"1DMESH",       "2DMESH",         "A3_SERVER",
                                        "A2_AX_SERVER", "TOPO_FILE_DESC", "CLOS"};

/* One (rank, level) seen so far: the shared-instance checks and the server numbering. */
struct level_seen {
    uint32_t layer;
    const char *inst;
    uint32_t naddr;
};

struct ranks_ctx {
    struct rt_parse *p;
    struct level_seen *seen;
    size_t nseen;
};

static bool is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isxdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* `addr` valid for `type`; an IPV4 one is returned in *ip4 (network order). */
static emu_status check_addr(const struct rt_parse *p, const char *where, const char *type,
                             const char *addr, uint32_t *ip4)
{
    struct in_addr a4;
    struct in6_addr a6;

    if (strcmp(type, "IPV4") == 0) {
        if (inet_pton(AF_INET, addr, &a4) != 1)
            return rt_bad(p, where, "\"%.64s\" is not an IPv4 address", addr);
        *ip4 = a4.s_addr;
    } else if (strcmp(type, "IPV6") == 0) {
        if (inet_pton(AF_INET6, addr, &a6) != 1)
            return rt_bad(p, where, "\"%.64s\" is not an IPv6 address", addr);
    } else if (strlen(addr) != RT_EID_HEX || !is_hex(addr, RT_EID_HEX)) {
        return rt_bad(p, where, "\"%.64s\" is not an EID (%u hexadecimal digits)", addr,
                      RT_EID_HEX);
    }
    return EMU_OK;
}

static emu_status parse_ports(const struct rt_parse *p, json_object *a, const char *where)
{
    char f[256];
    json_object *ports;
    emu_status s = rt_array(p, a, where, "ports", true, 1, &ports);

    if (s != EMU_OK)
        return s;
    size_t n = json_object_array_length(ports);
    if (n > RT_ADDR_PORTS_MAX)
        return rt_bad(p, where, "\"ports\" lists %zu ports, at most %u are allowed", n,
                      RT_ADDR_PORTS_MAX);
    for (size_t i = 0; i < n; i++) {
        json_object *v = json_object_array_get_idx(ports, i);
        snprintf(f, sizeof(f), "%s.ports[%zu]", where, i);
        if (!json_object_is_type(v, json_type_string))
            return rt_bad(p, f, "is not a string");
        size_t len = (size_t)json_object_get_string_len(v);
        if (len < 1 || len > RT_PORT_NAME_MAX)
            return rt_bad(p, f, "its length %zu is outside [1, %u]", len, RT_PORT_NAME_MAX);
    }
    return EMU_OK;
}

static emu_status parse_backup(const struct rt_parse *p, json_object *a, const char *where,
                               const char *type)
{
    char f[256];
    json_object *list;
    uint32_t unused;
    emu_status s = rt_array(p, a, where, "backup_addr", false, 0, &list);

    if (s == EMU_ENOTFOUND)
        return EMU_OK;
    if (s != EMU_OK)
        return s;
    snprintf(f, sizeof(f), "%s.backup_addr", where);
    if (strcmp(type, "EID") == 0)
        return rt_bad(p, f, "is for IPV4 and IPV6 addresses only");
    if (json_object_array_length(list) > RT_BACKUP_ADDRS_MAX)
        return rt_bad(p, f, "lists more than %u addresses", RT_BACKUP_ADDRS_MAX);
    for (size_t i = 0; i < json_object_array_length(list); i++) {
        json_object *v = json_object_array_get_idx(list, i);
        snprintf(f, sizeof(f), "%s.backup_addr[%zu]", where, i);
        if (!json_object_is_type(v, json_type_string))
            return rt_bad(p, f, "is not a string");
        if ((s = check_addr(p, f, type, json_object_get_string(v), &unused)) != EMU_OK)
            return s;
    }
    return EMU_OK;
}

static emu_status parse_addr(const struct rt_parse *p, json_object *a, const char *where,
                             uint32_t *ip4)
{
    char f[256];
    const char *type, *addr, *plane;
    emu_status s;

    if (!json_object_is_type(a, json_type_object))
        return rt_bad(p, where, "is not an object");
    if ((s = rt_str(p, a, where, "addr_type", true, 0, 16, &type)) != EMU_OK)
        return s;
    if (strcmp(type, "EID") != 0 && strcmp(type, "IPV4") != 0 && strcmp(type, "IPV6") != 0) {
        snprintf(f, sizeof(f), "%s.addr_type", where);
        return rt_bad(p, f, "\"%s\" is none of EID, IPV4, IPV6", type);
    }
    if ((s = rt_str(p, a, where, "addr", true, 1, RT_ADDR_LEN_MAX, &addr)) != EMU_OK)
        return s;
    snprintf(f, sizeof(f), "%s.addr", where);
    if ((s = check_addr(p, f, type, addr, ip4)) != EMU_OK ||
        (s = parse_backup(p, a, where, type)) != EMU_OK)
        return s;
    s = rt_str(p, a, where, "plane_id", false, 0, RT_PLANE_ID_MAX, &plane);
    if (s != EMU_OK && s != EMU_ENOTFOUND)
        return s;
    return parse_ports(p, a, where);
}

/* Ranks that share a (net_layer, net_instance_id) list the same number of addresses. */
static emu_status note_level(struct ranks_ctx *c, const char *where, uint32_t layer,
                             const char *inst, uint32_t naddr)
{
    for (size_t i = 0; i < c->nseen; i++) {
        const struct level_seen *o = &c->seen[i];
        if (o->layer == layer && strcmp(o->inst, inst) == 0 && o->naddr != naddr)
            return rt_bad(c->p, where,
                          "lists %u addresses where another rank of net_layer %u instance "
                          "\"%.64s\" lists %u",
                          naddr, layer, inst, o->naddr);
    }
    c->seen[c->nseen++] = (struct level_seen){.layer = layer, .inst = inst, .naddr = naddr};
    return EMU_OK;
}

static emu_status parse_level(struct ranks_ctx *c, json_object *l, const char *where,
                              uint32_t *layer, const char **inst, uint32_t *ip4)
{
    struct rt_parse *p = c->p;
    char f[160];
    const char *type, *attr;
    json_object *addrs;
    emu_status s;

    if (!json_object_is_type(l, json_type_object))
        return rt_bad(p, where, "is not an object");
    if ((s = rt_uint(p, l, where, "net_layer", RT_NUM_INT, true, 0, RT_NET_LAYER_MAX, layer)) !=
            EMU_OK ||
        (s = rt_str(p, l, where, "net_instance_id", true, 1, RT_NET_ID_MAX, inst)) != EMU_OK)
        return s;
    s = rt_str(p, l, where, "net_type", false, 0, 32, &type);
    if (s == EMU_OK) {
        size_t k = 0;
        while (k < sizeof(net_types) / sizeof(net_types[0]) && strcmp(net_types[k], type) != 0)
            k++;
        snprintf(f, sizeof(f), "%s.net_type", where);
        if (k == sizeof(net_types) / sizeof(net_types[0]))
            return rt_bad(p, f,
                          "\"%s\" is none of 1DMESH, 2DMESH, A3_SERVER, A2_AX_SERVER, "
                          "TOPO_FILE_DESC, CLOS",
                          type);
    } else if (s != EMU_ENOTFOUND) {
        return s;
    }
    s = rt_str(p, l, where, "net_attr", false, 0, SIZE_MAX, &attr);
    if (s != EMU_OK && s != EMU_ENOTFOUND)
        return s;
    if ((s = rt_array(p, l, where, "rank_addr_list", true, 0, &addrs)) != EMU_OK)
        return s;
    size_t n = json_object_array_length(addrs);
    if (n > RT_ADDRS_MAX) {
        snprintf(f, sizeof(f), "%s.rank_addr_list", where);
        return rt_bad(p, f, "lists %zu addresses, at most %u are allowed", n, RT_ADDRS_MAX);
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t ip = 0;
        snprintf(f, sizeof(f), "%s.rank_addr_list[%zu]", where, i);
        if ((s = parse_addr(p, json_object_array_get_idx(addrs, i), f, &ip)) != EMU_OK)
            return s;
        if (*ip4 == 0)
            *ip4 = ip;
    }
    snprintf(f, sizeof(f), "%s.rank_addr_list", where);
    return note_level(c, f, *layer, *inst, (uint32_t)n);
}

/* The instance ids of net_layer 0 and 1 in order of first appearance: their positions are
 * the server and super-pod indexes. */
static uint32_t instance_index(const struct ranks_ctx *c, uint32_t layer, const char *inst)
{
    uint32_t idx = 0;

    for (size_t i = 0; i < c->nseen; i++) {
        const struct level_seen *o = &c->seen[i];
        if (o->layer != layer)
            continue;
        if (strcmp(o->inst, inst) == 0)
            return idx;
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = !(c->seen[j].layer == layer && strcmp(c->seen[j].inst, o->inst) == 0);
        idx += first;
    }
    return idx;
}

static emu_status parse_rank(struct ranks_ctx *c, json_object *r, size_t index, uint32_t rank_count)
{
    struct rt_parse *p = c->p;
    char where[48], f[96];
    uint32_t rank_id, local_id, dev_id, port, replaced, ip4 = 0;
    const char *inst0 = NULL, *inst1 = NULL;
    json_object *levels;
    emu_status s;

    snprintf(where, sizeof(where), "rank_list[%zu]", index);
    if (!json_object_is_type(r, json_type_object))
        return rt_bad(p, where, "is not an object");
    if ((s = rt_uint(p, r, where, "rank_id", RT_NUM_INT, true, 0, rank_count - 1, &rank_id)) !=
            EMU_OK ||
        (s = rt_uint(p, r, where, "local_id", RT_NUM_INT, true, 0, RT_BACKUP_LOCAL_ID,
                     &local_id)) != EMU_OK ||
        (local_id == RT_BACKUP_LOCAL_ID &&
         (s = rt_uint(p, r, where, "replaced_local_id", RT_NUM_INT, true, 0, RT_BACKUP_LOCAL_ID - 1,
                      &replaced)) != EMU_OK) ||
        (s = rt_uint(p, r, where, "device_id", RT_NUM_INT, true, 0, RT_DEVICE_ID_MAX, &dev_id)) !=
            EMU_OK)
        return s;
    static const char *const ports[] = {"device_port", "host_port"};
    for (size_t i = 0; i < 2; i++) {
        s = rt_uint(p, r, where, ports[i], RT_NUM_INT, false, RT_PORT_MIN, RT_PORT_MAX, &port);
        if (s != EMU_OK && s != EMU_ENOTFOUND)
            return s;
    }
    if ((s = rt_array(p, r, where, "level_list", true, 1, &levels)) != EMU_OK)
        return s;
    size_t n = json_object_array_length(levels);
    if (n > RT_LEVELS_MAX) {
        snprintf(f, sizeof(f), "%s.level_list", where);
        return rt_bad(p, f, "lists %zu levels, at most %u are allowed", n, RT_LEVELS_MAX);
    }
    uint32_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t layer;
        const char *inst;
        snprintf(f, sizeof(f), "%s.level_list[%zu]", where, i);
        if ((s = parse_level(c, json_object_array_get_idx(levels, i), f, &layer, &inst, &ip4)) !=
            EMU_OK)
            return s;
        if (i > 0 && layer <= prev)
            return rt_bad(p, f, "net_layer %u does not follow %u: layers must increase", layer,
                          prev);
        prev = layer;
        inst0 = layer == 0 ? inst : inst0;
        inst1 = layer == 1 ? inst : inst1;
    }
    snprintf(f, sizeof(f), "%s.rank_id", where);
    if ((s = rt_take_rank(p, f, rank_id)) != EMU_OK)
        return s;
    if (rank_id == p->rank) {
        p->found = true;
        p->out->phy_id = dev_id;
        p->out->ip = ip4;
        p->out->server = inst0 != NULL ? instance_index(c, 0, inst0) : 0;
        p->out->super_pod = inst1 != NULL ? instance_index(c, 1, inst1) : 0;
    }
    return EMU_OK;
}

emu_status emu_ranktable_parse_ranks(struct rt_parse *p, json_object *root)
{
    json_object *list, *v;
    uint32_t count;
    emu_status s;

    if (json_object_object_get_ex(root, "detour", &v) &&
        (!json_object_is_type(v, json_type_string) ||
         (strcmp(json_object_get_string(v), "true") != 0 &&
          strcmp(json_object_get_string(v), "false") != 0 && json_object_get_string(v)[0] != '\0')))
        return rt_bad(p, "detour", "is not \"true\" or \"false\"");
    if ((s = rt_uint(p, root, "", "rank_count", RT_NUM_INT, true, 1, RT_RANK_COUNT_MAX, &count)) !=
            EMU_OK ||
        (s = rt_array(p, root, "", "rank_list", true, 1, &list)) != EMU_OK)
        return s;
    size_t n = json_object_array_length(list);
    if (n != count)
        return rt_bad(p, "rank_count", "%u does not match the %zu entries of rank_list", count, n);
    if (count > EMU_COMM_MAX_RANKS)
        return rt_bad(p, "rank_count", "%u: hcemu emulates at most %u ranks", count,
                      EMU_COMM_MAX_RANKS);
    struct ranks_ctx c = {.p = p, .seen = calloc(n * RT_LEVELS_MAX, sizeof(*c.seen))};
    if (c.seen == NULL)
        return EMU_ENOMEM;
    s = EMU_OK;
    for (size_t i = 0; i < n && s == EMU_OK; i++)
        s = parse_rank(&c, json_object_array_get_idx(list, i), i, count);
    if (s == EMU_OK)
        s = rt_check_ranks(p);
    free(c.seen);
    return s;
}
