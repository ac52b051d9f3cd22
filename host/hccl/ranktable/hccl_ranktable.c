/* hccl_ranktable.c - reads the rank table of HcclCommInitClusterInfo: the file, its version
 * and which form it is. The forms are read by hccl_ranktable_servers.c ("server_list":
 * versions 1.0, 1.2, 2.0) and hccl_ranktable_ranks.c ("rank_list": version 2.0, Ascend 950),
 * with the field checks of hccl_ranktable_fields.c. A version "2.0" table is
 * the rank_list form when it has "rank_list" and the server_list form otherwise. */
#include "hccl_ranktable.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/log.h"
#include "common/platform/secure_dir.h"
#include "hccl_ranktable_forms.h"

static emu_status parse_root(struct rt_parse *p, json_object *root)
{
    const char *version, *status;
    json_object *v;
    emu_status s;

    if (!json_object_is_type(root, json_type_object))
        return rt_bad(p, "(top level)", "is not an object");
    if ((s = rt_str(p, root, "", "version", true, 0, 16, &version)) != EMU_OK)
        return s;
    if (strcmp(version, "1.0") != 0 && strcmp(version, "1.2") != 0 && strcmp(version, "2.0") != 0)
        return rt_bad(p, "version", "\"%s\" is none of \"1.0\", \"1.2\", \"2.0\"", version);
    /* "initializing" marks a table still being written: the vendor refuses it too. */
    s = rt_str(p, root, "", "status", false, 0, 32, &status);
    if (s == EMU_OK && strcmp(status, "completed") != 0)
        return rt_bad(p, "status", "\"%s\" is not \"completed\"", status);
    if (s != EMU_OK && s != EMU_ENOTFOUND)
        return s;
    if (strcmp(version, "2.0") == 0 && json_object_object_get_ex(root, "rank_list", &v))
        return emu_ranktable_parse_ranks(p, root);
    return emu_ranktable_parse_servers(p, root, version);
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
    struct rt_parse *p = calloc(1, sizeof(*p));
    size_t len = 0;
    char *text = NULL, why[96];
    emu_status s;

    if (p == NULL)
        return EMU_ENOMEM;
    *p = (struct rt_parse){.fn = fn, .path = path, .rank = rank, .out = out};
    if (emu_secure_dir_read_input(path, EMU_RANKTABLE_MAX_BYTES, &text, &len, why, sizeof(why)) !=
        EMU_OK) {
        EMU_LOG_ERR("%s: rank %u: cannot read rank table %s: %s", fn, rank, path, why);
        free(p);
        return EMU_EFILE;
    }
    enum json_tokener_error jerr;
    json_object *root = json_tokener_parse_verbose(text, &jerr);
    if (root == NULL) {
        EMU_LOG_ERR("%s: rank %u: rank table %s is not JSON: %s", fn, rank, path,
                    json_tokener_error_desc(jerr));
        s = EMU_EPARSE;
    } else {
        memset(out, 0, sizeof(*out));
        out->super_dev = EMU_RANKTABLE_NO_SUPER_DEV;
        s = parse_root(p, root);
        out->hash = fnv1a(text, len);
        json_object_put(root);
    }
    free(text);
    free(p);
    return s;
}
