/* job_key.h - the key of a job spread over hosts: 32 random bytes written as 64 hex digits,
 * in the environment (HCEMU_KEY) or in a file only its owner can read (HCEMU_KEY_FILE,
 * `hcemu-run --key-file`). Never a command-line argument: every local user can read
 * /proc/PID/cmdline. The rendezvous proves knowledge of it without sending it
 * (host/hccl/rdv/rdv_auth.h). */
#ifndef HCEMU_COMMON_JOB_KEY_H
#define HCEMU_COMMON_JOB_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define EMU_JOB_KEY_BYTES 32u
#define EMU_JOB_KEY_HEX (2u * EMU_JOB_KEY_BYTES)

/* 64 hex digits (blanks and one trailing newline allowed around them) into key. EMU_EINVAL
 * with the reason in `why` otherwise. */
emu_status emu_job_key_parse(const char *text, size_t len, uint8_t *key, char *why,
                             size_t why_len) EMU_MUST_CHECK;
/* The key in file `path`: a regular file of ours with no group or other permission bits,
 * opened without following a symlink and without blocking. EMU_EFILE / EMU_EINVAL with the
 * reason in `why`. */
emu_status emu_job_key_read_file(const char *path, uint8_t *key, char *why,
                                 size_t why_len) EMU_MUST_CHECK;
/* A new key from the kernel's random source into a new file `path` (0600, never an existing
 * file). */
emu_status emu_job_key_make_file(const char *path, char *why, size_t why_len) EMU_MUST_CHECK;

#endif
