/* api_securec.c - libc_sec: the bounds-checked functions of securec.h with the vendor's
 * return codes. A destination that cannot take the result is cleared (memory: zeroed up to
 * destMax; strings: emptied) and the *_AND_RESET code says so. */
#include <securec.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int overlaps(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + nb && y < x + na;
}

static int bad_max(size_t destMax, size_t limit)
{
    return destMax == 0 || destMax > limit;
}

errno_t memset_s(void *dest, size_t destMax, int c, size_t count)
{
    if (bad_max(destMax, SECUREC_MEM_MAX_LEN))
        return ERANGE;
    if (dest == NULL)
        return EINVAL;
    if (count > destMax) {
        memset(dest, c, destMax);
        return ERANGE_AND_RESET;
    }
    memset(dest, c, count);
    return EOK;
}

static errno_t copy_mem(void *dest, size_t destMax, const void *src, size_t count, int move)
{
    if (bad_max(destMax, SECUREC_MEM_MAX_LEN))
        return ERANGE;
    if (dest == NULL)
        return EINVAL;
    if (src == NULL) {
        memset(dest, 0, destMax);
        return EINVAL_AND_RESET;
    }
    if (count > destMax) {
        memset(dest, 0, destMax);
        return ERANGE_AND_RESET;
    }
    if (!move && dest != src && overlaps(dest, count, src, count)) {
        memset(dest, 0, destMax);
        return EOVERLAP_AND_RESET;
    }
    if (dest != src && count > 0)
        memmove(dest, src, count);
    return EOK;
}

errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count)
{
    return copy_mem(dest, destMax, src, count, 0);
}

errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count)
{
    return copy_mem(dest, destMax, src, count, 1);
}

/* Appends at most n bytes of src to dest[at..]: the common body of the four string calls. */
static errno_t put_str(char *dest, size_t destMax, size_t at, const char *src, size_t n)
{
    size_t len = strnlen(src, n);

    if (at + len >= destMax) {
        dest[0] = '\0';
        return ERANGE_AND_RESET;
    }
    if (overlaps(dest, destMax, src, len + 1)) {
        dest[0] = '\0';
        return EOVERLAP_AND_RESET;
    }
    memcpy(dest + at, src, len);
    dest[at + len] = '\0';
    return EOK;
}

static errno_t str_args(char *dest, size_t destMax, const char *src)
{
    if (bad_max(destMax, SECUREC_STRING_MAX_LEN))
        return ERANGE;
    if (dest == NULL)
        return EINVAL;
    if (src == NULL) {
        dest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    return EOK;
}

errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc)
{
    errno_t e = str_args(strDest, destMax, strSrc);
    return e != EOK ? e : put_str(strDest, destMax, 0, strSrc, SECUREC_STRING_MAX_LEN);
}

errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc, size_t count)
{
    errno_t e = str_args(strDest, destMax, strSrc);
    return e != EOK ? e : put_str(strDest, destMax, 0, strSrc, count);
}

static errno_t cat(char *dest, size_t destMax, const char *src, size_t n)
{
    errno_t e = str_args(dest, destMax, src);
    if (e != EOK)
        return e;
    size_t at = strnlen(dest, destMax);
    if (at == destMax) { /* dest is not a string within destMax */
        dest[0] = '\0';
        return EINVAL_AND_RESET;
    }
    return put_str(dest, destMax, at, src, n);
}

errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc)
{
    return cat(strDest, destMax, strSrc, SECUREC_STRING_MAX_LEN);
}

errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc, size_t count)
{
    return cat(strDest, destMax, strSrc, count);
}

char *strtok_s(char *strToken, const char *strDelimit, char **context)
{
    if (context == NULL || strDelimit == NULL || (strToken == NULL && *context == NULL))
        return NULL;
    return strtok_r(strToken, strDelimit, context);
}

int vsnprintf_s(char *strDest, size_t destMax, size_t count, const char *format,
                va_list argList)
{
    if (strDest == NULL || bad_max(destMax, SECUREC_STRING_MAX_LEN))
        return -1;
    if (format == NULL) {
        strDest[0] = '\0';
        return -1;
    }
    /* count < destMax asks for truncation to count characters; otherwise the whole result
     * must fit or the destination is emptied. */
    size_t limit = count < destMax ? count : destMax - 1;
    int n = vsnprintf(strDest, limit + 1, format, argList);
    if (n < 0 || (size_t)n > limit) {
        if (n < 0 || count >= destMax)
            strDest[0] = '\0';
        return -1;
    }
    return n;
}

int vsprintf_s(char *strDest, size_t destMax, const char *format, va_list argList)
{
    return vsnprintf_s(strDest, destMax, SECUREC_STRING_MAX_LEN, format, argList);
}

int sprintf_s(char *strDest, size_t destMax, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = vsprintf_s(strDest, destMax, format, ap);
    va_end(ap);
    return n;
}

int snprintf_s(char *strDest, size_t destMax, size_t count, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf_s(strDest, destMax, count, format, ap);
    va_end(ap);
    return n;
}
