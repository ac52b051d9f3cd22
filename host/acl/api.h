/* api.h - conversion of emu_status to vendor codes at the API boundary, with the
 * per-OS-thread "last error" of the ACL runtime. */
#ifndef HCEMU_HOST_API_H
#define HCEMU_HOST_API_H

#include "common/contract/status.h"

/* The aclError of `s`; a failure also becomes this thread's last error. */
int emu_api_acl(emu_status s);
/* The HcclResult of `s`. */
int emu_api_hccl(emu_status s);
/* aclrtGetLastError / aclrtPeekAtLastError. */
int emu_api_last_error(int reset);

#endif
