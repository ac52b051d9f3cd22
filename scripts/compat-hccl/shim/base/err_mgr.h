/* base/err_mgr.h (hcemu compat shim) - CANN's error-message registry is not emulated: HCCL's
 * predefined-error reports are dropped (its own log line already names the error). */
#ifndef HCEMU_COMPAT_BASE_ERR_MGR_H
#define HCEMU_COMPAT_BASE_ERR_MGR_H

#define REPORT_PREDEFINED_ERR_MSG(code, keys, values) ((void)(code), (void)(keys), (void)(values))

#endif
