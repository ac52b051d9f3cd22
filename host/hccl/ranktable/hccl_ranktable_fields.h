/* hccl_ranktable_fields.h - the field checks every rank-table reader uses (a number, a string,
 * an array, a rank id), each logging one line that names the field's JSON path. Used by
 * hccl_ranktable.c (file, version), hccl_ranktable_servers.c (the server_list forms) and
 * hccl_ranktable_ranks.c (the rank_list form of version 2.0); nothing else includes it. */
#ifndef HCEMU_HOST_HCCL_RANKTABLE_FIELDS_H
#define HCEMU_HOST_HCCL_RANKTABLE_FIELDS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "host/hccl/hccl_comm.h"
#include "hccl_ranktable_entry.h"

struct rt_parse {
    const char *fn;
    const char *path;
    uint32_t rank; /* the rank reading the table */
    bool seen[EMU_COMM_MAX_RANKS];
    uint32_t nranks;
    bool found;
    struct emu_ranktable_entry *out;
};

/* One log line naming the field (`where` is its JSON path, e.g. "rank_list[1].device_id")
 * and what is wrong with it; returns EMU_EINVAL. */
emu_status rt_bad(const struct rt_parse *p, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* How a number may be written: v1 tables write them as strings or integers, v2 as integers. */
enum rt_num { RT_NUM_INT, RT_NUM_INT_OR_STRING };

/* o[key] as a number in [lo, hi]. Absent: EMU_ENOENT when optional (nothing logged), else a
 * bad field. `where` is the object's path. */
emu_status rt_uint(const struct rt_parse *p, json_object *o, const char *where, const char *key,
                   enum rt_num form, bool required, uint32_t lo, uint32_t hi, uint32_t *out);
/* o[key] as a string of length [lo, hi]; absent as for rt_uint. */
emu_status rt_str(const struct rt_parse *p, json_object *o, const char *where, const char *key,
                  bool required, size_t lo, size_t hi, const char **out);
/* o[key] as an array of at least `min` entries; absent as for rt_uint. */
emu_status rt_array(const struct rt_parse *p, json_object *o, const char *where, const char *key,
                    bool required, size_t min, json_object **out);

/* Record rank_id `id` (given at `where`) as listed: a bad field when it repeats or is past
 * the emulator's limit. */
emu_status rt_take_rank(struct rt_parse *p, const char *where, uint32_t id);
/* After every rank is taken: rank ids are 0..N-1 and the reader's rank is one of them. */
emu_status rt_check_ranks(struct rt_parse *p);

#endif
