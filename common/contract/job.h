/* job.h - the job folder: where the files of one emulated job live.
 *
 * A job is every process and device of one run. Its folder, <HCEMU_JOB_DIR>/hcemu-<uid>-XXXXXX
 * (hcemu-<uid>-runXXXXXX for hcemu-run; random suffix, mode 0700, common/platform/secure_dir.h), holds
 * dev<N>.ctl, dev<N>.mem, dev<N>.sock, dev<N>.lock, pinned host memory pin<pid>.mem, and
 * `owners`: one "pid starttime" line per process that made or joined it. hcemu-run exports
 * HCEMU_JOB_PATH so every rank shares one folder. A folder whose owners are all gone belongs
 * to a dead job; every job start collects those of its user (emu_job_collect). */
#ifndef HCEMU_COMMON_JOB_H
#define HCEMU_COMMON_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define EMU_JOB_OWNERS "owners"

/* Build "<dir>/<name>" into buf; EMU_EINVAL when it does not fit. */
emu_status emu_job_path(char *buf, size_t len, const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 4, 5))) EMU_MUST_CHECK;
/* Make a fresh private job folder "<parent>/hcemu-<uid>-<kind>XXXXXX" owned by this process
 * (recorded in its owners file), after collecting the folders of this user's dead jobs. */
emu_status emu_job_make(const char *parent, const char *kind, char *out,
                        size_t len) EMU_MUST_CHECK;
/* Check that `dir` is a private folder of ours and record this process as one of its owners;
 * the process then holds the folder (emu_job_hold) until emu_job_leave or its end. */
emu_status emu_job_claim(const char *dir) EMU_MUST_CHECK;
/* Hold job folder `dir` without being recorded as an owner (executors): a shared lock on its
 * owners file, dropped by the kernel however the process ends. */
void emu_job_hold(const char *dir);
/* Stop holding the folder; when no other process holds it any more (every host, executor and
 * launcher of the job has left or died), remove it. True when this call removed it. */
bool emu_job_leave(const char *dir);
/* Whether every process recorded in the owners file of folder `dirfd` is gone (false when
 * the file is missing or empty: a folder being made). */
bool emu_job_is_dead_at(int dirfd);
/* Remove the folders of this user's dead jobs from `parent`; never another user's folder,
 * never a folder whose owners still run. Returns how many were removed. */
unsigned emu_job_collect(const char *parent);
/* Start time of a running process (clock ticks since boot, /proc/<pid>/stat field 22); 0
 * when it is gone or a zombie. Pid and start time together name a process: pids are reused. */
uint64_t emu_job_pid_start(int pid);

#endif
