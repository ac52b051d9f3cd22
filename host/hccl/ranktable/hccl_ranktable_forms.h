/* hccl_ranktable_forms.h - the readers of each rank-table form, called by emu_ranktable_load
 * once it knows the version: the server_list forms (hccl_ranktable_servers.c) and the
 * rank_list form of version 2.0 (hccl_ranktable_ranks.c). */
#ifndef HCEMU_HOST_HCCL_RANKTABLE_FORMS_H
#define HCEMU_HOST_HCCL_RANKTABLE_FORMS_H

#include <json-c/json.h>

#include "hccl_ranktable_fields.h"

emu_status emu_ranktable_parse_servers(struct rt_parse *p, json_object *root,
                                       const char *version) EMU_MUST_CHECK;
emu_status emu_ranktable_parse_ranks(struct rt_parse *p, json_object *root) EMU_MUST_CHECK;

#endif
