/* dlog_pub.h - the CANN log calls (libunified_dlog). hcemu prints records at or above the
 * level of ASCEND_GLOBAL_LOG_LEVEL (0 debug, 1 info, 2 warning, 3 error (default), 4 none)
 * to stderr, one line each. */
#ifndef DLOG_PUB_H
#define DLOG_PUB_H

#define DLOG_DEBUG 0
#define DLOG_INFO 1
#define DLOG_WARN 2
#define DLOG_ERROR 3
#define DLOG_NULL 4

#ifdef __cplusplus
extern "C" {
#endif

int CheckLogLevel(int moduleId, int logLevel);
void DlogRecord(int moduleId, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int dlog_getlevel(int moduleId, int *enableEvent);
int dlog_setlevel(int moduleId, int level, int enableEvent);
void DlogFlush(void);

#ifdef __cplusplus
}
#endif

#endif
