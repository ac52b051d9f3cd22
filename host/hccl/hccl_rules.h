/* hccl_rules.h - what each product (HCEMU_SOC, common/contract/product.h) lacks, per the support
 * columns (docs/CONTROL_PLANE.md §4) and the engine/protocol value checks that go with
 * them. Every refusal logs one line "fn: rank r: <product> ..." and returns the documented code:
 * EMU_ENOTSUP (HCCL_E_NOT_SUPPORT) for a product gap, EMU_EINVAL for a value that is not an
 * engine or protocol at all. */
#ifndef HCEMU_HOST_HCCL_RULES_H
#define HCEMU_HOST_HCCL_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/status.h"

#define EMU_ON_950 1u
#define EMU_ON_A3 2u
#define EMU_ON_A2 4u
#define EMU_ON_ALL 7u

/* The call exists on the products in `mask` (rank UINT32_MAX: a call without a communicator,
 * whose line names no rank). */
emu_status emu_rules_call(const char *fn, uint32_t rank, uint32_t mask) EMU_MUST_CHECK;
/* Whether the current product is one of `mask`, without a line. */
bool emu_rules_has(uint32_t mask);
/* `engine` is a CommEngine value (EMU_EINVAL if not) that this product has. */
emu_status emu_rules_engine(const char *fn, uint32_t rank, int32_t engine) EMU_MUST_CHECK;
/* `protocol` is a CommProtocol value (EMU_EINVAL for RESERVED or unknown) that this product
 * offers to channels of `engine`. */
emu_status emu_rules_protocol(const char *fn, uint32_t rank, int32_t engine,
                              int32_t protocol) EMU_MUST_CHECK;
/* Name of a CommEngine value for messages ("AICPU_TS"). */
const char *emu_rules_engine_name(int32_t engine);

#endif
