/* job_shm.h - a file of shared state in the job folder (diag.shm, model.shm, prov.shm): made
 * by the first process of the job that needs it (O_EXCL, mode 0600, no symlink followed),
 * joined by the others, ready once its creator stored its magic. */
#ifndef HCEMU_COMMON_JOB_SHM_H
#define HCEMU_COMMON_JOB_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Create or join "<dir>/<name>" of `size` bytes (a sparse file) and map it. The mapping starts
 * with a uint64_t magic: the creator runs `init` (may be NULL) and then stores `magic`
 * (release); a joiner waits up to 2 s for the file's size and the magic. `what` names the
 * feature in the one warning a failure logs ("diagnostics off: cannot create ..."). */
emu_status emu_job_shm_open(const char *dir, const char *name, size_t size, uint64_t magic,
                            emu_status (*init)(void *p), const char *what,
                            void **out) EMU_MUST_CHECK;

#endif
