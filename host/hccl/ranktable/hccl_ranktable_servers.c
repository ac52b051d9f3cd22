/* hccl_ranktable_servers.c - the server_list forms of the rank table (versions "1.0", "1.2",
 * and "2.0" written with server_list):
 *   {"version": "1.0", "server_count": "2", "status": "completed",
 *    "server_list": [{"server_id": "node_0", "host_ip": "172.16.0.100",
 *                     "device": [{"device_id": "0", "device_ip": "192.168.1.8",
 *                                 "super_device_id": "0", "rank_id": "0"}, ...]}, ...],
 *    "super_pod_list": [{"super_pod_id": "0", "server_list": [{"server_id": "node_0"}]}]}
 * Numbers may be strings or integers. The server's position in server_list is its server
 * index; its position's super pod (super_pod_list, version 1.2) is its super-pod index. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "hccl_ranktable_forms.h"

#define RT_PORT_MIN 1u
#define RT_PORT_MAX 65535u
#define RT_DEVICE_ID_MAX 63u /* /dev/davinciN on the largest server */
#define RT_SERVER_ID_MAX 64u /* characters */
#define RT_POD_ID_MAX 128u

/* An IPv4 or IPv6 address, or several separated by commas (the vendor splits them); the
 * first IPv4 one lands in *ip4 (left alone when there is none). */
static emu_status ip_list(const struct rt_parse *p, const char *where, const char *s, uint32_t *ip4)
{
    char buf[256];
    char *save = NULL;
    bool any = false, have4 = false;

    if (strlen(s) >= sizeof(buf))
        return rt_bad(p, where, "is longer than %zu characters", sizeof(buf) - 1);
    snprintf(buf, sizeof(buf), "%s", s);
    for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
        struct in_addr a4;
        struct in6_addr a6;
        if (inet_pton(AF_INET, t, &a4) == 1) {
            if (!have4)
                *ip4 = a4.s_addr;
            have4 = true;
        } else if (inet_pton(AF_INET6, t, &a6) != 1) {
            return rt_bad(p, where, "\"%.64s\" is not an IPv4 or IPv6 address", t);
        }
        any = true;
    }
    return any ? EMU_OK : rt_bad(p, where, "is empty");
}

static emu_status optional_ip(const struct rt_parse *p, json_object *o, const char *where,
                              const char *key, uint32_t *ip4)
{
    char f[192];
    const char *s;
    emu_status st = rt_str(p, o, where, key, false, 0, 255, &s);

    if (st == EMU_ENOTFOUND)
        return EMU_OK;
    if (st != EMU_OK)
        return st;
    snprintf(f, sizeof(f), "%s.%s", where, key);
    return ip_list(p, f, s, ip4);
}

static emu_status optional_port(const struct rt_parse *p, json_object *o, const char *where,
                                const char *key)
{
    uint32_t v;
    emu_status s =
        rt_uint(p, o, where, key, RT_NUM_INT_OR_STRING, false, RT_PORT_MIN, RT_PORT_MAX, &v);
    return s == EMU_ENOTFOUND ? EMU_OK : s;
}

static emu_status parse_device(struct rt_parse *p, json_object *d, const char *where,
                               uint32_t server)
{
    uint32_t rank_id, dev_id, super_dev = EMU_RANKTABLE_NO_SUPER_DEV, ip = 0, unused = 0;
    char f[192];
    emu_status s;

    if (!json_object_is_type(d, json_type_object))
        return rt_bad(p, where, "is not an object");
    if ((s = rt_uint(p, d, where, "rank_id", RT_NUM_INT_OR_STRING, true, 0, UINT32_MAX,
                     &rank_id)) != EMU_OK ||
        (s = rt_uint(p, d, where, "device_id", RT_NUM_INT_OR_STRING, true, 0, RT_DEVICE_ID_MAX,
                     &dev_id)) != EMU_OK ||
        (s = optional_ip(p, d, where, "device_ip", &ip)) != EMU_OK ||
        (s = optional_ip(p, d, where, "backup_device_ip", &unused)) != EMU_OK ||
        (s = optional_port(p, d, where, "device_port")) != EMU_OK ||
        (s = optional_port(p, d, where, "backup_device_port")) != EMU_OK ||
        (s = optional_port(p, d, where, "host_port")) != EMU_OK)
        return s;
    s = rt_uint(p, d, where, "super_device_id", RT_NUM_INT_OR_STRING, false, 0, UINT32_MAX - 1,
                &super_dev);
    if (s != EMU_OK && s != EMU_ENOTFOUND)
        return s;
    snprintf(f, sizeof(f), "%s.rank_id", where);
    if ((s = rt_take_rank(p, f, rank_id)) != EMU_OK)
        return s;
    if (rank_id == p->rank) {
        p->found = true;
        p->out->server = server;
        p->out->phy_id = dev_id;
        p->out->super_dev = super_dev;
        p->out->ip = ip;
    }
    return EMU_OK;
}

static emu_status parse_server(struct rt_parse *p, json_object *srv, size_t index, const char **id)
{
    char where[64], f[128];
    json_object *devs;
    uint32_t unused = 0;
    emu_status s;

    snprintf(where, sizeof(where), "server_list[%zu]", index);
    if (!json_object_is_type(srv, json_type_object))
        return rt_bad(p, where, "is not an object");
    if ((s = rt_str(p, srv, where, "server_id", true, 1, RT_SERVER_ID_MAX, id)) != EMU_OK ||
        (s = optional_ip(p, srv, where, "host_ip", &unused)) != EMU_OK ||
        (s = rt_array(p, srv, where, "device", true, 1, &devs)) != EMU_OK)
        return s;
    for (size_t i = 0; i < json_object_array_length(devs); i++) {
        snprintf(f, sizeof(f), "%s.device[%zu]", where, i);
        if ((s = parse_device(p, json_object_array_get_idx(devs, i), f, (uint32_t)index)) != EMU_OK)
            return s;
    }
    return EMU_OK;
}

/* super_pod_list: each pod names servers of server_list, each server in exactly one pod.
 * pod_of[] receives each server's pod index. */
static emu_status parse_pods(struct rt_parse *p, json_object *root, const char **ids, size_t ns,
                             uint32_t *pod_of)
{
    json_object *pods, *list;
    char where[64], f[128];
    size_t placed = 0;
    emu_status s = rt_array(p, root, "", "super_pod_list", false, 1, &pods);

    if (s == EMU_ENOTFOUND)
        return EMU_OK;
    if (s != EMU_OK)
        return s;
    for (size_t i = 0; i < ns; i++)
        pod_of[i] = UINT32_MAX;
    for (size_t k = 0; k < json_object_array_length(pods); k++) {
        json_object *pod = json_object_array_get_idx(pods, k);
        const char *pod_id, *sid;
        snprintf(where, sizeof(where), "super_pod_list[%zu]", k);
        if (!json_object_is_type(pod, json_type_object))
            return rt_bad(p, where, "is not an object");
        if ((s = rt_str(p, pod, where, "super_pod_id", true, 1, RT_POD_ID_MAX, &pod_id)) !=
                EMU_OK ||
            (s = rt_array(p, pod, where, "server_list", true, 1, &list)) != EMU_OK)
            return s;
        for (size_t j = 0; j < k; j++) {
            const char *other = json_object_get_string(
                json_object_object_get(json_object_array_get_idx(pods, j), "super_pod_id"));
            if (strcmp(other, pod_id) == 0)
                return rt_bad(p, where, "super_pod_id \"%s\" appears twice", pod_id);
        }
        for (size_t j = 0; j < json_object_array_length(list); j++) {
            json_object *e = json_object_array_get_idx(list, j);
            snprintf(f, sizeof(f), "%s.server_list[%zu]", where, j);
            if (!json_object_is_type(e, json_type_object))
                return rt_bad(p, f, "is not an object");
            if ((s = rt_str(p, e, f, "server_id", true, 1, RT_SERVER_ID_MAX, &sid)) != EMU_OK)
                return s;
            size_t at = 0;
            while (at < ns && strcmp(ids[at], sid) != 0)
                at++;
            if (at == ns)
                return rt_bad(p, f, "server_id \"%s\" is not in server_list", sid);
            if (pod_of[at] != UINT32_MAX)
                return rt_bad(p, f, "server_id \"%s\" is in two super pods", sid);
            pod_of[at] = (uint32_t)k;
            placed++;
        }
    }
    if (placed != ns)
        return rt_bad(p, "super_pod_list", "places %zu servers, server_list has %zu", placed, ns);
    return EMU_OK;
}

emu_status emu_ranktable_parse_servers(struct rt_parse *p, json_object *root, const char *version)
{
    json_object *list;
    uint32_t count;
    emu_status s;

    (void)version; /* the three versions share the shape; 1.2 adds super pods */
    if ((s = rt_array(p, root, "", "server_list", true, 1, &list)) != EMU_OK)
        return s;
    size_t ns = json_object_array_length(list);
    if (ns > EMU_COMM_MAX_RANKS)
        return rt_bad(p, "server_list", "lists %zu servers, more than hcemu's %u ranks", ns,
                      EMU_COMM_MAX_RANKS);
    s = rt_uint(p, root, "", "server_count", RT_NUM_INT_OR_STRING, false, 1, UINT32_MAX, &count);
    if (s == EMU_OK && count != ns)
        return rt_bad(p, "server_count", "%u does not match the %zu entries of server_list", count,
                      ns);
    if (s != EMU_OK && s != EMU_ENOTFOUND)
        return s;
    const char *ids[EMU_COMM_MAX_RANKS];
    uint32_t pod_of[EMU_COMM_MAX_RANKS];
    for (size_t i = 0; i < ns; i++) {
        if ((s = parse_server(p, json_object_array_get_idx(list, i), i, &ids[i])) != EMU_OK)
            return s;
        for (size_t j = 0; j < i; j++)
            if (strcmp(ids[j], ids[i]) == 0) {
                char where[64];
                snprintf(where, sizeof(where), "server_list[%zu].server_id", i);
                return rt_bad(p, where, "\"%s\" appears twice", ids[i]);
            }
        pod_of[i] = 0;
    }
    if ((s = parse_pods(p, root, ids, ns, pod_of)) != EMU_OK || (s = rt_check_ranks(p)) != EMU_OK)
        return s;
    p->out->super_pod = pod_of[p->out->server];
    return EMU_OK;
}
