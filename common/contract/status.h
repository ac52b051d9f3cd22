/* status.h - the one internal status type of hcemu and its mapping to vendor codes.
 *
 * Internal functions return emu_status; only the boundary files (host/api_*.c,
 * device/dp/api_*.c) turn it into an aclError or HcclResult, once, on the way out.
 * The numeric vendor values are spelled here so common/ needs no vendor header. */
#ifndef HCEMU_COMMON_STATUS_H
#define HCEMU_COMMON_STATUS_H

#include <stdint.h>

#define EMU_MUST_CHECK __attribute__((warn_unused_result))

/* X(name, message, aclError, HcclResult, usage-error?) */
#define EMU_STATUS_MAP(X)                                                                      \
    X(OK, "success", 0, 0, 0)                                                                  \
    X(EINVAL, "invalid argument", 107000, 1, 1)                                                \
    X(ENULL, "null pointer", 107000, 2, 1)                                                     \
    X(ENOMEM, "out of memory", 207001, 3, 0)                                                   \
    X(ENOTSUP, "not supported", 200006, 5, 1)                                                  \
    X(ENOTFOUND, "not found", 107017, 6, 1)                                                    \
    X(EUNAVAIL, "resource unavailable", 207005, 7, 0)                                          \
    X(ESYSCALL, "system call failed", 507000, 8, 0)                                            \
    X(ETIMEOUT, "timed out", 107019, 9, 0)                                                     \
    X(ETASK_TIMEOUT, "device task timed out", 107020, 9, 0)                                    \
    X(EKERNEL_TIMEOUT, "AICPU kernel timed out", 507017, 9, 0)                                 \
    X(ESYNC_TIMEOUT, "stream synchronisation timed out", 507046, 9, 0)                         \
    X(EFILE, "cannot open file", 107009, 10, 1)                                                \
    X(EPARSE, "cannot parse file", 100006, 10, 1)                                              \
    X(EDEVICE, "invalid device id", 107001, 1, 1)                                              \
    X(ENODEVICE, "no device set on this thread", 107002, 15, 1)                                \
    X(ESTREAM, "stream not in the current context", 107003, 1, 1)                              \
    X(EHANDLE, "invalid handle", 107017, 1, 1)                                                 \
    X(EFREE, "memory free error", 207002, 3, 1)                                                \
    X(EKERNEL_LOOKUP, "kernel not found", 507027, 6, 1)                                        \
    X(EKERNEL_FAIL, "AICPU kernel failed", 507018, 4, 0)                                       \
    X(EDEVLOST, "emulated device failed", 507018, 15, 0)                                       \
    X(ETASK_FAIL, "device task failed", 507018, 4, 0)                                          \
    X(EUNINIT, "runtime not initialised", 100001, 7, 1)                                        \
    X(EREINIT, "runtime already initialised", 100002, 0, 1)                                    \
    X(EAGAIN, "resource busy, try again", 107000, 20, 0)                                       \
    X(EREMOTE, "peer rank failed", 507018, 21, 0)                                              \
    X(EINTERNAL, "internal error", 507000, 4, 0)                                               \
    X(ERTNOTSUP, "not supported by the runtime", 207000, 5, 1)                                 \
    X(ERESET, "device not set, or already reset", 507007, 1, 1)                                   \
    X(EACLPARAM, "invalid parameter", 100000, 1, 1)                                            \
    X(ECAPTURED, "stream is being captured", 107027, 15, 1)                                    \
    X(ENOT_CAPTURED, "stream is not being captured", 107029, 15, 1)                            \
    X(ECAPTURE_MODE, "not permitted in this capture mode", 107030, 15, 1)                      \
    X(ECAPTURE_INVALID, "capture invalidated", 507903, 15, 1)                                  \
    X(ECAPTURE_UNMATCHED, "capture not begun on this stream", 107036, 15, 1)                   \
    X(ECAPTURE_THREAD, "capture ended on the wrong thread", 107038, 15, 1)                     \
    X(ECAPTURE_DEP, "dependency on uncaptured work", 107024, 15, 1)                            \
    X(ECAPTURE_CONFLICT, "streams of two captures depend on each other", 107032, 15, 1)        \
    X(ECAPTURE_IMPLICIT, "default stream used in a capture", 107031, 15, 1)                    \
    X(EUNJOINED, "captured stream not joined back", 107025, 15, 1)                             \
    X(EMODEL_CAPTURED, "model is being captured", 107026, 15, 1)                               \
    X(EEVENT_CAPTURED, "event is being captured", 107028, 15, 1)                               \
    X(EMODEL_CONTEXT, "model not in the current context", 107004, 15, 1)                       \
    X(EMODEL_EXECUTE, "model cannot execute", 507011, 15, 1)

typedef enum emu_status {
#define EMU_STATUS_ENUM(name, msg, acl, hccl, usage) EMU_##name,
    EMU_STATUS_MAP(EMU_STATUS_ENUM)
#undef EMU_STATUS_ENUM
        EMU_STATUS_COUNT
} emu_status;

/* Text for a status ("invalid argument"); never NULL. */
const char *emu_status_str(emu_status st);
/* The name of a status ("EINVAL"); never NULL. */
const char *emu_status_name(emu_status st);
/* The aclError value of a status (int, as aclError is). */
int emu_status_to_acl(emu_status st);
/* The HcclResult value of a status. */
int emu_status_to_hccl(emu_status st);
/* Whether the status is caused by the caller's input rather than by hcemu or the system. */
int emu_status_is_usage(emu_status st);

#endif
