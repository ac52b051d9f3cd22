/* hccl_ranktable.c - reads the rank table of HcclCommInitClusterInfo.
 *
 * Accepted subset of the CANN rank table (versions "1.0", "1.2" and "2.0" share it):
 *   {"version": "1.0", "server_count": "2", "status": "completed",
 *    "server_list": [{"server_id": "10.0.0.1",
 *                     "device": [{"device_id": "0", "device_ip": "192.168.1.8",
 *                                 "rank_id": "0"}, ...]}, ...]}
 * server_count and status are optional (status, when present, must be "completed");
 * numbers may be strings or integers; device_ip is optional; other keys (super_pod_list,
 * host_nic_ip, ...) are ignored. rank_id values must be 0..N-1, each once. The server's
 * position in server_list is its server index (layer-0 instance); device_id is reported as
 * the endpoint's devPhyId. The rank runs on the device its thread set with aclrtSetDevice. */
#include "hccl_ranktable.h"

#include <arpa/inet.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/secure_dir.h"
#include "hccl_comm.h"

struct parse_ctx {
    const char *fn;
    const char *path;
    uint32_t rank;
    bool seen[EMU_COMM_MAX_RANKS];
    uint32_t nranks;
    bool found;
    struct emu_ranktable_entry *out;
};

static emu_status bad(const struct parse_ctx *p, const char *what)
{
    EMU_LOG_ERR("%s: rank %u: rank table %s: %s", p->fn, p->rank, p->path, what);
    return EMU_EINVAL;
}

/* A number given as an integer or as a decimal string. */
static bool get_num(json_object *o, const char *key, uint32_t *out)
{
    json_object *v;

    if (!json_object_object_get_ex(o, key, &v))
        return false;
    if (json_object_is_type(v, json_type_int)) {
        int64_t n = json_object_get_int64(v);
        if (n < 0 || n > UINT32_MAX)
            return false;
        *out = (uint32_t)n;
        return true;
    }
    if (!json_object_is_type(v, json_type_string))
        return false;
    const char *s = json_object_get_string(v);
    char *end;
    errno = 0;
    unsigned long n = strtoul(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno != 0 || n > UINT32_MAX)
        return false;
    *out = (uint32_t)n;
    return true;
}

static emu_status parse_device(struct parse_ctx *p, json_object *d, uint32_t server)
{
    uint32_t rank_id, dev_id, ip = 0;
    json_object *v;

    if (!json_object_is_type(d, json_type_object) || !get_num(d, "rank_id", &rank_id) ||
        !get_num(d, "device_id", &dev_id))
        return bad(p, "every device needs numeric \"device_id\" and \"rank_id\"");
    if (json_object_object_get_ex(d, "device_ip", &v)) {
        struct in_addr a;
        if (!json_object_is_type(v, json_type_string) ||
            inet_pton(AF_INET, json_object_get_string(v), &a) != 1)
            return bad(p, "a \"device_ip\" is not an IPv4 address");
        ip = a.s_addr;
    }
    if (rank_id >= EMU_COMM_MAX_RANKS)
        return bad(p, "a rank_id is 256 or more (hcemu emulates at most 256 ranks)");
    if (p->seen[rank_id])
        return bad(p, "a rank_id appears twice");
    p->seen[rank_id] = true;
    p->nranks++;
    if (rank_id == p->rank) {
        p->found = true;
        p->out->server = server;
        p->out->phy_id = dev_id;
        p->out->ip = ip;
    }
    return EMU_OK;
}

static emu_status parse_root(struct parse_ctx *p, json_object *root)
{
    json_object *list, *v;
    uint32_t count;

    if (!json_object_is_type(root, json_type_object))
        return bad(p, "the top level is not an object");
    if (!json_object_object_get_ex(root, "version", &v) ||
        !json_object_is_type(v, json_type_string) ||
        (strcmp(json_object_get_string(v), "1.0") != 0 &&
         strcmp(json_object_get_string(v), "1.2") != 0 &&
         strcmp(json_object_get_string(v), "2.0") != 0))
        return bad(p, "\"version\" must be \"1.0\", \"1.2\" or \"2.0\"");
    if (json_object_object_get_ex(root, "status", &v) &&
        (!json_object_is_type(v, json_type_string) ||
         strcmp(json_object_get_string(v), "completed") != 0))
        return bad(p, "\"status\" is not \"completed\"");
    if (!json_object_object_get_ex(root, "server_list", &list) ||
        !json_object_is_type(list, json_type_array) || json_object_array_length(list) == 0)
        return bad(p, "\"server_list\" must be a non-empty array");
    size_t ns = json_object_array_length(list);
    if (json_object_object_get_ex(root, "server_count", &v) &&
        (!get_num(root, "server_count", &count) || count != ns))
        return bad(p, "\"server_count\" does not match the length of \"server_list\"");
    for (size_t s = 0; s < ns; s++) {
        json_object *srv = json_object_array_get_idx(list, s), *devs;
        if (!json_object_is_type(srv, json_type_object) ||
            !json_object_object_get_ex(srv, "server_id", &v) ||
            !json_object_is_type(v, json_type_string) ||
            !json_object_object_get_ex(srv, "device", &devs) ||
            !json_object_is_type(devs, json_type_array) || json_object_array_length(devs) == 0)
            return bad(p, "every server needs a \"server_id\" string and a non-empty "
                          "\"device\" array");
        for (size_t i = 0; i < json_object_array_length(devs); i++) {
            emu_status st = parse_device(p, json_object_array_get_idx(devs, i), (uint32_t)s);
            if (st != EMU_OK)
                return st;
        }
    }
    for (uint32_t r = 0; r < p->nranks; r++)
        if (!p->seen[r])
            return bad(p, "rank_id values are not 0..N-1");
    if (!p->found) {
        EMU_LOG_ERR("%s: rank %u: rank table %s has no device with rank_id %u (it lists %u "
                    "ranks)",
                    p->fn, p->rank, p->path, p->rank, p->nranks);
        return EMU_EINVAL;
    }
    p->out->nranks = p->nranks;
    return EMU_OK;
}

static uint64_t fnv1a(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325ull;

    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

emu_status emu_ranktable_load(const char *path, uint32_t rank, const char *fn,
                              struct emu_ranktable_entry *out)
{
    struct parse_ctx p = {.fn = fn, .path = path, .rank = rank, .out = out};
    size_t len = 0;
    char *text = NULL, why[96];

    if (emu_secure_dir_read_input(path, EMU_RANKTABLE_MAX_BYTES, &text, &len, why,
                                  sizeof(why)) != EMU_OK) {
        EMU_LOG_ERR("%s: rank %u: cannot read rank table %s: %s", fn, rank, path, why);
        return EMU_EFILE;
    }
    enum json_tokener_error jerr;
    json_object *root = json_tokener_parse_verbose(text, &jerr);
    emu_status s;
    if (root == NULL) {
        EMU_LOG_ERR("%s: rank %u: rank table %s is not JSON: %s", fn, rank, path,
                    json_tokener_error_desc(jerr));
        s = EMU_EPARSE;
    } else {
        memset(out, 0, sizeof(*out));
        s = parse_root(&p, root);
        out->hash = fnv1a(text, len);
        json_object_put(root);
    }
    free(text);
    return s;
}
