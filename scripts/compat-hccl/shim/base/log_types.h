/* base/log_types.h (hcemu compat shim) - the CANN log levels and module ids HCCL's logging
 * macros name. Only what HCCL uses; the values are the ones CANN's logger defines. */
#ifndef HCEMU_COMPAT_BASE_LOG_TYPES_H
#define HCEMU_COMPAT_BASE_LOG_TYPES_H

#define DLOG_DEBUG 0x0
#define DLOG_INFO 0x1
#define DLOG_WARN 0x2
#define DLOG_ERROR 0x3
#define DLOG_NULL 0x4
#define RUN_LOG_MASK (0x01000000U)

enum { HCCL = 3 };

#endif
