/* securec.h (hcemu compat shim) - the bounded string and memory functions of CANN's libc_sec
 * that HCCL calls, as header-only inlines so HCCL's libraries import nothing for them.
 * Contract kept: 0 (EOK) on success; on a too-small or NULL destination the destination is
 * cleared where possible and a non-zero code is returned. */
#ifndef HCEMU_COMPAT_SECUREC_H
#define HCEMU_COMPAT_SECUREC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef int errno_t;
#define EOK 0
#define SECUREC_EINVAL 22
#define SECUREC_ERANGE 34

static inline errno_t memcpy_s(void *dst, size_t cap, const void *src, size_t n)
{
    if (dst == NULL || src == NULL)
        return SECUREC_EINVAL;
    if (n > cap) {
        memset(dst, 0, cap);
        return SECUREC_ERANGE;
    }
    memmove(dst, src, n);
    return EOK;
}

static inline errno_t memmove_s(void *dst, size_t cap, const void *src, size_t n)
{
    return memcpy_s(dst, cap, src, n);
}

static inline errno_t memset_s(void *dst, size_t cap, int c, size_t n)
{
    if (dst == NULL)
        return SECUREC_EINVAL;
    memset(dst, c, n < cap ? n : cap);
    return n > cap ? SECUREC_ERANGE : EOK;
}

static inline errno_t strncpy_s(char *dst, size_t cap, const char *src, size_t n)
{
    if (dst == NULL || cap == 0)
        return SECUREC_EINVAL;
    if (src == NULL) {
        dst[0] = '\0';
        return SECUREC_EINVAL;
    }
    size_t len = strnlen(src, n);
    if (len >= cap) {
        dst[0] = '\0';
        return SECUREC_ERANGE;
    }
    memcpy(dst, src, len);
    dst[len] = '\0';
    return EOK;
}

static inline errno_t strcpy_s(char *dst, size_t cap, const char *src)
{
    return strncpy_s(dst, cap, src, src == NULL ? 0 : strlen(src));
}

static inline errno_t strcat_s(char *dst, size_t cap, const char *src)
{
    if (dst == NULL || src == NULL)
        return SECUREC_EINVAL;
    size_t used = strnlen(dst, cap);
    return used == cap ? SECUREC_EINVAL : strcpy_s(dst + used, cap - used, src);
}

static inline int vsnprintf_s(char *dst, size_t cap, size_t n, const char *fmt, va_list ap)
{
    if (dst == NULL || cap == 0 || fmt == NULL)
        return -1;
    size_t lim = n + 1 < cap ? n + 1 : cap;
    int w = vsnprintf(dst, lim, fmt, ap);
    return (w < 0 || (size_t)w >= lim) ? -1 : w;
}

static inline int snprintf_s(char *dst, size_t cap, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf_s(dst, cap, n, fmt, ap);
    va_end(ap);
    return w;
}

static inline int sprintf_s(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf_s(dst, cap, cap - 1, fmt, ap);
    va_end(ap);
    return w;
}

#endif
