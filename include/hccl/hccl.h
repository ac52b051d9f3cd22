/* hccl.h - umbrella header: every HCCL control-plane declaration plus the HCOMM data plane.
 * The vendor's collective calls (HcclAllReduce...) are outside hcemu's scope and absent. */
#ifndef HCEMU_HCCL_H
#define HCEMU_HCCL_H

#include "hccl_types.h"
#include "hccl_comm.h"
#include "hccl_res.h"
#include "hccl_res_expt.h"
#include "hccl_channel.h"
#include "hccl_rank_graph.h"
#include "hcomm_primitives.h"
#include "../hcomm/hcomm_primitives_expt.h"

#endif
