/* text_put.h - appending to a fixed text buffer, for the report lines of host/coll
 * (cross-rank checks, provenance). */
#ifndef HCEMU_HOST_COLL_TEXT_PUT_H
#define HCEMU_HOST_COLL_TEXT_PUT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Appends to buf[*at..len) like snprintf, never past the end. */
static inline void emu_text_put(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline void emu_text_put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
    va_list ap;

    if (buf == NULL || *at >= len)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *at, len - *at, fmt, ap);
    va_end(ap);
    if (n > 0)
        *at = *at + (size_t)n < len ? *at + (size_t)n : len;
}

#endif
