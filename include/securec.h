/* securec.h - the bounds-checked string and memory functions CANN code uses (libc_sec).
 * hcemu implements them in libc_sec.so with the vendor return codes: EOK on success; the
 * *_AND_RESET codes when the destination was cleared because the call could not be done. */
#ifndef SECUREC_H
#define SECUREC_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>

#ifndef SECUREC_ERRNO_T_DEFINED
#define SECUREC_ERRNO_T_DEFINED
typedef int errno_t;
#endif

#ifndef EOK
#define EOK 0
#endif
#define SECUREC_STRING_MAX_LEN 0x7fffffffUL
#define SECUREC_MEM_MAX_LEN 0x7fffffffUL
#define EINVAL_AND_RESET (22 | 128)
#define ERANGE_AND_RESET (34 | 128)
#define EOVERLAP_AND_RESET (54 | 128)

#ifdef __cplusplus
extern "C" {
#endif

errno_t memset_s(void *dest, size_t destMax, int c, size_t count);
errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count);
errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count);
errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc);
errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count);
errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc);
errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc, size_t count);
char *strtok_s(char *strToken, const char *strDelimit, char **context);
int sprintf_s(char *strDest, size_t destMax, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list argList)
    __attribute__((format(printf, 3, 0)));
int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format,
                va_list argList) __attribute__((format(printf, 4, 0)));

#ifdef __cplusplus
}
#endif

#endif
