/* api.h - conversion of emu_status to vendor codes at the API boundary, with the
 * per-OS-thread "last error" of the ACL runtime. */
#ifndef HCEMU_HOST_API_H
#define HCEMU_HOST_API_H

#include "common/contract/status.h"
#include "common/platform/log.h"
#include "runtime.h"

/* The aclError of `s`; a failure also becomes this thread's last error. */
int emu_api_acl(emu_status s);
/* The HcclResult of `s`. */
int emu_api_hccl(emu_status s);
/* aclrtGetLastError / aclrtPeekAtLastError. */
int emu_api_last_error(int reset);

/* In an ACL boundary function: refuse a call made before aclInit (or after aclFinalize) with
 * the vendor's "not initialised" code and one line naming `fn`. */
#define EMU_ACL_NEED_INIT(fn)                                                                  \
    do {                                                                                       \
        if (!emu_runtime_is_initialized()) {                                                   \
            EMU_LOG_ERR("%s: call aclInit first", (fn));                                       \
            return emu_api_acl(EMU_EUNINIT);                                                   \
        }                                                                                      \
    } while (0)

#endif
