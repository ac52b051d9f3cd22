/* hccl.h - helpers shared by the HCCL boundary files (api_hccl*.c): entering a call on
 * a communicator, null-pointer refusals, and the way out (one conversion to HcclResult). */
#ifndef HCEMU_HOST_HCCL_H
#define HCEMU_HOST_HCCL_H

#include "host/acl/api.h"
#include "common/platform/log.h"
#include "hccl_comm.h"

/* Take a use of the user's comm. NULL -> EMU_ENULL, not live -> EMU_EINVAL, device closed or
 * failed -> EMU_EDEVLOST, each logged. */
emu_status emu_hccl_enter(const void *comm, const char *fn, struct emu_comm **out) EMU_MUST_CHECK;
/* The same without the device check: for HcclCommDestroy, which must free the host side
 * even after aclFinalize closed the device. */
emu_status emu_hccl_enter_any(const void *comm, const char *fn,
                              struct emu_comm **out) EMU_MUST_CHECK;
/* Drop the use and convert: the last step of every call that entered. */
HcclResult emu_hccl_leave(struct emu_comm *c, emu_status s);
/* Log "fn: rank r: what is NULL" (c may be NULL) and return EMU_ENULL. */
emu_status emu_hccl_null(const struct emu_comm *c, const char *fn, const char *what);
/* Log "fn: rank r: <msg>" and return EMU_EINVAL. */
emu_status emu_hccl_bad(const struct emu_comm *c, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The calling thread must have set a device (aclrtSetDevice); logged EMU_ENODEVICE if not. */
emu_status emu_hccl_need_device(const char *fn, uint32_t rank,
                                struct emu_hdev **out) EMU_MUST_CHECK;

/* `p` must not be NULL (evaluates to a status). */
#define EMU_HCCL_NONNULL(c, p, fn) ((p) == NULL ? emu_hccl_null((c), (fn), #p) : EMU_OK)

#endif
