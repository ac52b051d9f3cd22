/* job.h - the job folder: where the files of one emulated job live.
 *
 * A job is every process and device of one run. Its folder, <HCEMU_JOB_DIR>/hcemu-<uid>-<id>
 * (mode 0700), holds dev<N>.ctl, dev<N>.mem, dev<N>.sock, dev<N>.lock and pinned host memory
 * pin<pid>.mem. hcemu-run exports HCEMU_JOB_PATH so every rank shares one folder. */
#ifndef HCEMU_COMMON_JOB_H
#define HCEMU_COMMON_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Build "<dir>/<name>" into buf; EMU_EINVAL when it does not fit. */
emu_status emu_job_path(char *buf, size_t len, const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 4, 5))) EMU_MUST_CHECK;

#endif
