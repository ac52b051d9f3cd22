/* cluster.c - the emulated cluster: servers and link protocols, from the product default
 * or the HCEMU_TOPOLOGY file, read once per process.
 *
 * File format (JSON):
 *   {"servers": [{"name": "node0", "devices": [0, 1, 2, 3]},
 *                {"name": "node1", "devices": [4, 5, 6, 7]}],
 *    "intra_protocol": "UB_CTP",            optional, default per product
 *    "inter_protocols": ["UBOE", "ROCE"]}   optional, default per product
 * Every device a rank uses must be listed once. Protocol names are the CommProtocol names
 * without the COMM_PROTOCOL_ prefix, in any case. */
#include "cluster.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/contract/layout.h"
#include "common/platform/log.h"
#include "common/platform/secure_dir.h"
#include "common/contract/product.h"
#include "common/contract/settings.h"
#include "hcomm/hcomm_res_defs.h" /* CommProtocol values */

/* A topology names at most 256 devices and their links; 1 MiB is plenty, and bounds what a
 * wrong path (/dev/zero, a huge file) can cost. */
#define EMU_TOPO_MAX_BYTES (1u << 20)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct emu_topo_cfg cfg;

static const char *const proto_names[] = {"HCCS",   "ROCE",   "PCIE", "SIO",       "UB_CTP",
                                          "UBC_TP", "UB_MEM", "UBOE", "HCCS_ONLY", "UB_RTP"};

int32_t emu_topo_protocol_of(const char *name)
{
    for (int32_t i = 0; i < (int32_t)(sizeof(proto_names) / sizeof(proto_names[0])); i++)
        if (strcasecmp(name, proto_names[i]) == 0)
            return i;
    if (strcasecmp(name, "UBC_CTP") == 0)
        return COMM_PROTOCOL_UB_CTP;
    if (strcasecmp(name, "UBG") == 0)
        return COMM_PROTOCOL_UB_RTP;
    return -2;
}

const char *emu_topo_protocol_name(int32_t protocol)
{
    if (protocol >= 0 && protocol < (int32_t)(sizeof(proto_names) / sizeof(proto_names[0])))
        return proto_names[protocol];
    return protocol == -1 ? "RESERVED" : "unknown";
}

static void set_defaults(void)
{
    bool ub = emu_product_current() == EMU_PRODUCT_950;

    cfg.n_servers = 1;
    snprintf(cfg.names[0], sizeof(cfg.names[0]), "server0");
    for (uint32_t i = 0; i < EMU_MAX_DEVICES; i++)
        cfg.server_of_dev[i] = 0;
    cfg.intra = ub ? COMM_PROTOCOL_UB_CTP : COMM_PROTOCOL_HCCS;
    cfg.n_inter = 0;
    if (ub)
        cfg.inter[cfg.n_inter++] = COMM_PROTOCOL_UBOE;
    cfg.inter[cfg.n_inter++] = COMM_PROTOCOL_ROCE;
}

static bool fail(const char *fmt, const char *a)
{
    snprintf(cfg.error, sizeof(cfg.error), fmt, a);
    return false;
}

static bool parse_protocol(json_object *o, int32_t *out)
{
    if (!json_object_is_type(o, json_type_string))
        return fail("a protocol is not a string%s", "");
    *out = emu_topo_protocol_of(json_object_get_string(o));
    if (*out < 0)
        return fail("unknown protocol \"%s\"", json_object_get_string(o));
    return true;
}

static bool parse_server(json_object *s, uint32_t index)
{
    json_object *name, *devs;

    if (!json_object_is_type(s, json_type_object) ||
        !json_object_object_get_ex(s, "devices", &devs) ||
        !json_object_is_type(devs, json_type_array))
        return fail("every server needs a \"devices\" array%s", "");
    if (json_object_object_get_ex(s, "name", &name) && json_object_is_type(name, json_type_string))
        snprintf(cfg.names[index], sizeof(cfg.names[index]), "%s", json_object_get_string(name));
    else
        snprintf(cfg.names[index], sizeof(cfg.names[index]), "server%u", index);
    for (size_t i = 0; i < json_object_array_length(devs); i++) {
        json_object *d = json_object_array_get_idx(devs, i);
        int64_t v = json_object_get_int64(d);
        if (!json_object_is_type(d, json_type_int) || v < 0 || v >= (int64_t)EMU_MAX_DEVICES)
            return fail("device ids are integers in [0, 64) (server \"%s\")", cfg.names[index]);
        if (cfg.server_of_dev[v] >= 0)
            return fail("a device is listed twice (server \"%s\")", cfg.names[index]);
        cfg.server_of_dev[v] = (int32_t)index;
    }
    return true;
}

static bool parse(json_object *root)
{
    json_object *servers, *o;

    if (!json_object_is_type(root, json_type_object) ||
        !json_object_object_get_ex(root, "servers", &servers) ||
        !json_object_is_type(servers, json_type_array) || json_object_array_length(servers) == 0 ||
        json_object_array_length(servers) > EMU_MAX_DEVICES)
        return fail("the top level needs a non-empty \"servers\" array%s", "");
    for (uint32_t i = 0; i < EMU_MAX_DEVICES; i++)
        cfg.server_of_dev[i] = -1;
    cfg.n_servers = (uint32_t)json_object_array_length(servers);
    for (uint32_t i = 0; i < cfg.n_servers; i++)
        if (!parse_server(json_object_array_get_idx(servers, i), i))
            return false;
    if (json_object_object_get_ex(root, "intra_protocol", &o) && !parse_protocol(o, &cfg.intra))
        return false;
    if (json_object_object_get_ex(root, "inter_protocols", &o)) {
        if (!json_object_is_type(o, json_type_array) || json_object_array_length(o) == 0 ||
            json_object_array_length(o) > EMU_TOPO_MAX_INTER)
            return fail("\"inter_protocols\" is an array of 1 to 4 names%s", "");
        cfg.n_inter = (uint32_t)json_object_array_length(o);
        for (uint32_t i = 0; i < cfg.n_inter; i++)
            if (!parse_protocol(json_object_array_get_idx(o, i), &cfg.inter[i]))
                return false;
    }
    return true;
}

static void load(void)
{
    const char *path = emu_settings_str(EMU_SET_TOPOLOGY);

    set_defaults();
    cfg.ok = true;
    if (*path == '\0')
        return;
    snprintf(cfg.path, sizeof(cfg.path), "%s", path);
    char *text = NULL, why[96];
    size_t len;
    if (emu_secure_dir_read_input(path, EMU_TOPO_MAX_BYTES, &text, &len, why, sizeof(why)) !=
        EMU_OK) {
        snprintf(cfg.error, sizeof(cfg.error), "cannot read it: %s", why);
        cfg.ok = false;
        return;
    }
    enum json_tokener_error jerr;
    json_object *root = json_tokener_parse_verbose(text, &jerr);
    free(text);
    if (root == NULL) {
        snprintf(cfg.error, sizeof(cfg.error), "cannot parse it (%s)",
                 json_tokener_error_desc(jerr));
        cfg.ok = false;
        return;
    }
    cfg.ok = parse(root);
    json_object_put(root);
    /* json-c's message ends with a newline; messages here are one line each. */
    char *nl = strchr(cfg.error, '\n');
    if (nl != NULL)
        *nl = '\0';
}

const struct emu_topo_cfg *emu_topo_cfg(void)
{
    pthread_once(&once, load);
    return &cfg;
}

emu_status emu_topo_server_of(uint32_t dev, const char *fn, uint32_t rank, uint32_t *server)
{
    const struct emu_topo_cfg *c = emu_topo_cfg();

    if (!c->ok) {
        EMU_LOG_ERR("%s: rank %u: HCEMU_TOPOLOGY %s: %s", fn, rank, c->path, c->error);
        return EMU_EPARSE;
    }
    if (dev >= EMU_MAX_DEVICES || c->server_of_dev[dev] < 0) {
        EMU_LOG_ERR("%s: rank %u: device %u is in no server of HCEMU_TOPOLOGY %s", fn, rank, dev,
                    c->path);
        return EMU_EINVAL;
    }
    *server = (uint32_t)c->server_of_dev[dev];
    return EMU_OK;
}

uint32_t emu_topo_server_listed(uint32_t dev)
{
    const struct emu_topo_cfg *c = emu_topo_cfg();

    return c->ok && dev < EMU_MAX_DEVICES && c->server_of_dev[dev] >= 0
               ? (uint32_t)c->server_of_dev[dev]
               : 0;
}
