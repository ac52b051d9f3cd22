/* hcomm_primitives_expt.h - experimental thread drains (the vendor ships HcommThreadJoin in
 * pkg_inc/hcomm/; HcommThreadSynchronize is in no public header and is declared here so
 * hcemu's export of it has a prototype). Both block the calling AICPU code. */
#ifndef HCEMU_HCOMM_PRIMITIVES_EXPT_H
#define HCEMU_HCOMM_PRIMITIVES_EXPT_H

#include <stdint.h>

#include "hcomm_primitives.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Waits until thread's queue is empty; timeout seconds; HCCL_E_TIMEOUT on expiry. */
int32_t HcommThreadJoin(ThreadHandle thread, uint32_t timeout);
/* Waits, without a timeout, until thread's queue is empty. */
int32_t HcommThreadSynchronize(ThreadHandle thread);

#ifdef __cplusplus
}
#endif

#endif
