/* runtime_life.h - starting and ending the job of this process (runtime_life.c). */
#ifndef HCEMU_HOST_RUNTIME_LIFE_H
#define HCEMU_HOST_RUNTIME_LIFE_H

#include "runtime.h"

/* Read configuration and create (or join) the job folder. Idempotent. */
emu_status emu_runtime_init(void) EMU_MUST_CHECK;
/* Stop using every device and remove the job folder if this process made it. */
void emu_runtime_fini(void);

#endif
