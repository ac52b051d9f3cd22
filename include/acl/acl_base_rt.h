/* acl_base_rt.h - basic ACL runtime types, the aclError codes and aclrtGetSocName.
 *
 * hcemu's own rendition of the CANN 1.17 header (docs/FLOW.md, CONTROL_PLANE.md §1). The vendor
 * spells the ACL_* codes as `static const int`; in C that defines an object in every
 * translation unit, so they are plain int macros here (same type, same values). */
#ifndef HCEMU_ACL_BASE_RT_H
#define HCEMU_ACL_BASE_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Default visibility only when the includer asks for it, as the vendor does. */
#ifndef ACL_FUNC_VISIBILITY
#ifdef FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define ACL_FUNC_VISIBILITY
#endif
#endif

typedef int aclError;

typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef void *aclrtNotify;
typedef void *aclrtBinHandle;
typedef void *aclrtFuncHandle;
typedef void *aclrtArgsHandle;
typedef void *aclrtParamHandle;
typedef void *aclrtBinary;
typedef void *aclrtDrvMemHandle;
typedef void *aclmdlRITask; /* a task of a captured graph */
typedef void *aclrtTaskGrp; /* a task group of a capture */

/* Marks deprecated declarations (only with GCC-compatible compilers), as the vendor does. */
#ifndef ACL_DEPRECATED_MESSAGE
#if defined(__GNUC__) || defined(__clang__)
#define ACL_DEPRECATED_MESSAGE(message) __attribute__((deprecated(message)))
#else
#define ACL_DEPRECATED_MESSAGE(message)
#endif
#endif

#define ACL_SUCCESS 0
#define ACL_ERROR_NONE 0

#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_UNINITIALIZE 100001
#define ACL_ERROR_REPEAT_INITIALIZE 100002
#define ACL_ERROR_INVALID_FILE 100003
#define ACL_ERROR_INVALID_FILE_SIZE 100005
#define ACL_ERROR_PARSE_FILE 100006
#define ACL_ERROR_FILE_MISSING_ATTR 100007
#define ACL_ERROR_FILE_ATTR_INVALID 100008
#define ACL_ERROR_KERNEL_NOT_FOUND 100029
#define ACL_ERROR_REPEAT_FINALIZE 100037

#define ACL_ERROR_BAD_ALLOC 200000
#define ACL_ERROR_API_NOT_SUPPORT 200001
#define ACL_ERROR_INVALID_DEVICE 200002
#define ACL_ERROR_MEMORY_ADDRESS_UNALIGNED 200003
#define ACL_ERROR_RESOURCE_NOT_MATCH 200004
#define ACL_ERROR_INVALID_RESOURCE_HANDLE 200005
#define ACL_ERROR_FEATURE_UNSUPPORTED 200006

#define ACL_ERROR_STORAGE_OVER_LIMIT 300000

#define ACL_ERROR_INTERNAL_ERROR 500000
#define ACL_ERROR_FAILURE 500001
#define ACL_ERROR_RT_FAILURE 500003
#define ACL_ERROR_DRV_FAILURE 500004

/* SoC version string of device 0 ("Ascend950PR_9599" style), NULL on failure.
 * The string is owned by the runtime. */
ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void);

#ifdef __cplusplus
}
#endif

#endif
