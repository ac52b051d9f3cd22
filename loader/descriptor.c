/* descriptor.c - parses the AICPU operator-info JSON with json-c (see descriptor.h).
 *
 * Entry points: emu_descriptor_load(), emu_descriptor_parse(). Every refusal is reported by
 * the function that found it, with the origin and entry name, and nothing logs on the way up. */
#include "descriptor.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/platform/log.h"
#include "file_map.h"

static const char *const known_kernel_libs[] = {
    "AICPUKernel", "CUSTAICPUKernel", "TFKernel", "KFCKernel", "CUSTKFCKernel",
};

int emu_descriptor_is_known_kernel_lib(const char *lib)
{
    if (lib == NULL)
        return 0;
    for (size_t i = 0; i < sizeof(known_kernel_libs) / sizeof(known_kernel_libs[0]); i++)
        if (strcmp(lib, known_kernel_libs[i]) == 0)
            return 1;
    return 0;
}

void emu_descriptor_fini(struct emu_descriptor *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; d->entries != NULL && i < d->n_entries; i++) {
        free(d->entries[i].kernel_name);
        free(d->entries[i].function_name);
        free(d->entries[i].op_kernel_lib);
    }
    free(d->entries);
    free(d->so_path);
    memset(d, 0, sizeof(*d));
}

/* Strict mode refuses trailing commas, leading zeros and data after the top-level value, so what
 * works here also works with the vendor's parser. json-c 0.16 still accepts single-quoted strings
 * and NaN even when strict; that leniency is harmless. */
static emu_status parse_json(const char *text, size_t len, const char *origin,
                             struct json_object **root)
{
    const char *nul = memchr(text, '\0', len);

    if (nul != NULL) {
        EMU_LOG_ERR("%s: invalid JSON: NUL byte at offset %zu", origin, (size_t)(nul - text));
        return EMU_EPARSE;
    }
    if (len > INT_MAX) {
        EMU_LOG_ERR("%s: invalid JSON: file too large (%zu bytes)", origin, len);
        return EMU_EPARSE;
    }
    struct json_tokener *tok = json_tokener_new();
    if (tok == NULL)
        return EMU_ENOMEM;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    *root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error err = json_tokener_get_error(tok);
    size_t end = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (*root == NULL && err == json_tokener_continue)
        err = json_tokener_error_parse_eof; /* the whole input was given: it ended too early */
    if (*root == NULL || err != json_tokener_success) {
        EMU_LOG_ERR("%s: invalid JSON at byte %zu: %s", origin, end, json_tokener_error_desc(err));
        json_object_put(*root);
        *root = NULL;
        return EMU_EPARSE;
    }
    return EMU_OK;
}

/* Fetches opInfo.<field> as a string. `required` fields must be present and non-empty;
 * an absent optional field leaves *out NULL. */
static emu_status get_string(struct json_object *op_info, const char *field, int required,
                             const char *origin, const char *key, const char **out)
{
    struct json_object *v = NULL;

    *out = NULL;
    if (!json_object_object_get_ex(op_info, field, &v) || v == NULL) {
        if (!required)
            return EMU_OK;
        EMU_LOG_ERR("%s: entry \"%s\": opInfo.%s is missing", origin, key, field);
        return EMU_EPARSE;
    }
    if (!json_object_is_type(v, json_type_string)) {
        EMU_LOG_ERR("%s: entry \"%s\": opInfo.%s must be a string, found %s", origin, key, field,
                    json_type_to_name(json_object_get_type(v)));
        return EMU_EPARSE;
    }
    const char *s = json_object_get_string(v);
    size_t n = (size_t)json_object_get_string_len(v);
    if (strlen(s) != n) {
        EMU_LOG_ERR("%s: entry \"%s\": opInfo.%s contains a NUL character", origin, key, field);
        return EMU_EPARSE;
    }
    if (required && n == 0) {
        EMU_LOG_ERR("%s: entry \"%s\": opInfo.%s is empty", origin, key, field);
        return EMU_EPARSE;
    }
    *out = s;
    return EMU_OK;
}

/* kernelSo may name a file below the JSON's folder, never one outside it. */
static emu_status check_kernel_so(const char *so, const char *origin, const char *key)
{
    const char *why = NULL;
    size_t n = strlen(so);

    if (so[0] == '/')
        why = "is an absolute path";
    else if (so[n - 1] == '/')
        why = "names a folder";
    for (const char *c = so; why == NULL && *c != '\0'; c += strcspn(c, "/"), c += (*c == '/'))
        if (strncmp(c, "..", 2) == 0 && (c[2] == '/' || c[2] == '\0'))
            why = "has a \"..\" component";
    if (why == NULL)
        return EMU_OK;
    EMU_LOG_ERR("%s: entry \"%s\": opInfo.kernelSo \"%s\" %s; it must be a file name relative to "
                "the JSON's folder",
                origin, key, so, why);
    return EMU_EPARSE;
}

struct parse_state {
    const char *origin;
    const char *so;     /* kernelSo of the first entry; owned by the json tree */
    const char *so_key; /* the entry it came from */
};

/* Adds one top-level entry to d; entries without opInfo are skipped (as the vendor's). */
static emu_status parse_entry(struct parse_state *ps, const char *key, struct json_object *val,
                              struct emu_descriptor *d)
{
    struct json_object *op_info = NULL;
    const char *so, *fn, *lib;
    emu_status st;

    if (key[0] == '\0') {
        EMU_LOG_ERR("%s: an entry has an empty kernel name", ps->origin);
        return EMU_EPARSE;
    }
    if (!json_object_is_type(val, json_type_object)) {
        EMU_LOG_ERR("%s: entry \"%s\": value must be an object, found %s", ps->origin, key,
                    json_type_to_name(json_object_get_type(val)));
        return EMU_EPARSE;
    }
    if (!json_object_object_get_ex(val, "opInfo", &op_info) || op_info == NULL) {
        EMU_LOG_DEBUG("%s: entry \"%s\" has no opInfo; ignored", ps->origin, key);
        return EMU_OK;
    }
    if (!json_object_is_type(op_info, json_type_object)) {
        EMU_LOG_ERR("%s: entry \"%s\": opInfo must be an object, found %s", ps->origin, key,
                    json_type_to_name(json_object_get_type(op_info)));
        return EMU_EPARSE;
    }
    if ((st = get_string(op_info, "kernelSo", 1, ps->origin, key, &so)) != EMU_OK ||
        (st = get_string(op_info, "functionName", 1, ps->origin, key, &fn)) != EMU_OK ||
        (st = get_string(op_info, "opKernelLib", 0, ps->origin, key, &lib)) != EMU_OK ||
        (st = check_kernel_so(so, ps->origin, key)) != EMU_OK)
        return st;
    if (ps->so != NULL && strcmp(ps->so, so) != 0) {
        EMU_LOG_ERR("%s: entry \"%s\": kernelSo \"%s\" differs from \"%s\" of entry \"%s\"; one "
                    "descriptor describes one image, so write one JSON per .so",
                    ps->origin, key, so, ps->so, ps->so_key);
        return EMU_EPARSE;
    }
    ps->so = so;
    ps->so_key = key;
    struct emu_descriptor_entry *e = &d->entries[d->n_entries++];
    e->kernel_name = strdup(key);
    e->function_name = strdup(fn);
    e->op_kernel_lib = lib != NULL ? strdup(lib) : NULL;
    if (e->kernel_name == NULL || e->function_name == NULL || (lib != NULL && !e->op_kernel_lib))
        return EMU_ENOMEM;
    return EMU_OK;
}

static emu_status resolve_so(const char *base_dir, const char *so, struct emu_descriptor *d)
{
    char cwd[PATH_MAX];
    const char *sep = base_dir[0] != '\0' && base_dir[strlen(base_dir) - 1] == '/' ? "" : "/";
    int n;

    if (base_dir[0] == '/') {
        n = asprintf(&d->so_path, "%s%s%s", base_dir, sep, so);
    } else {
        if (getcwd(cwd, sizeof(cwd)) == NULL)
            snprintf(cwd, sizeof(cwd), ".");
        if (base_dir[0] == '\0' || strcmp(base_dir, ".") == 0)
            n = asprintf(&d->so_path, "%s/%s", cwd, so);
        else
            n = asprintf(&d->so_path, "%s/%s%s%s", cwd, base_dir, sep, so);
    }
    if (n < 0) {
        d->so_path = NULL;
        return EMU_ENOMEM;
    }
    return EMU_OK;
}

/* Warnings are held back until the whole descriptor is accepted, so a refused descriptor
 * produces exactly one line. */
static void warn_kernel_libs(const struct emu_descriptor *d, const char *origin)
{
    for (size_t i = 0; i < d->n_entries; i++) {
        const char *lib = d->entries[i].op_kernel_lib;
        if (lib == NULL)
            EMU_LOG_WARN("%s: entry \"%s\": opInfo.opKernelLib is missing; running it as an "
                         "AICPU kernel",
                         origin, d->entries[i].kernel_name);
        else if (!emu_descriptor_is_known_kernel_lib(lib))
            EMU_LOG_WARN("%s: entry \"%s\": unknown opKernelLib \"%s\" (expected AICPUKernel); "
                         "running it as an AICPU kernel",
                         origin, d->entries[i].kernel_name, lib);
    }
}

static emu_status parse_root(struct json_object *root, struct parse_state *ps, const char *base_dir,
                             struct emu_descriptor *d)
{
    if (!json_object_is_type(root, json_type_object)) {
        EMU_LOG_ERR("%s: the top level must be an object of kernel entries, found %s", ps->origin,
                    json_type_to_name(json_object_get_type(root)));
        return EMU_EPARSE;
    }
    size_t n = (size_t)json_object_object_length(root);
    d->entries = calloc(n > 0 ? n : 1, sizeof(*d->entries));
    if (d->entries == NULL)
        return EMU_ENOMEM;
    json_object_object_foreach(root, key, val)
    {
        emu_status st = parse_entry(ps, key, val, d);
        if (st != EMU_OK)
            return st;
    }
    if (d->n_entries == 0) {
        EMU_LOG_ERR("%s: no kernel entries (each needs an \"opInfo\" object with kernelSo and "
                    "functionName)",
                    ps->origin);
        return EMU_EPARSE;
    }
    return resolve_so(base_dir, ps->so, d);
}

emu_status emu_descriptor_parse(const char *text, size_t len, const char *origin_for_messages,
                                const char *base_dir, struct emu_descriptor *out)
{
    struct parse_state ps = {origin_for_messages ? origin_for_messages : "descriptor", 0, 0};
    struct json_object *root = NULL;

    if (out == NULL)
        return EMU_ENULL;
    memset(out, 0, sizeof(*out));
    if ((text == NULL && len > 0) || base_dir == NULL)
        return EMU_ENULL;
    emu_status st = parse_json(text != NULL ? text : "", len, ps.origin, &root);
    if (st != EMU_OK)
        return st;
    st = parse_root(root, &ps, base_dir, out);
    json_object_put(root);
    if (st != EMU_OK) {
        emu_descriptor_fini(out);
        return st;
    }
    warn_kernel_libs(out, ps.origin);
    return EMU_OK;
}

emu_status emu_descriptor_load(const char *json_path, struct emu_descriptor *out)
{
    struct emu_file_map map;

    if (out == NULL)
        return EMU_ENULL;
    memset(out, 0, sizeof(*out));
    emu_status st = emu_file_map_open(json_path, &map);
    if (st != EMU_OK)
        return st;
    if (map.len > EMU_DESCRIPTOR_MAX_BYTES) {
        EMU_LOG_ERR("%s: descriptor too large (%zu bytes; at most %u are accepted)", json_path,
                    map.len, EMU_DESCRIPTOR_MAX_BYTES);
        emu_file_map_close(&map);
        return EMU_EFILE;
    }
    char *real = realpath(json_path, NULL);
    if (real == NULL) {
        EMU_LOG_ERR("%s: cannot resolve its folder", json_path);
        emu_file_map_close(&map);
        return EMU_EFILE;
    }
    *strrchr(real, '/') = '\0'; /* realpath() is absolute, so there is a '/' */
    st = emu_descriptor_parse(map.data, map.len, json_path, real[0] ? real : "/", out);
    free(real);
    emu_file_map_close(&map);
    return st;
}
