/* aicpu_api.h - the AICPU kernel language of .aicpu and .asc sources, as hcemu-cc compiles
 * them for the host: __global__ marks a kernel entry, __aicpu__ says it runs on the AICPU (an
 * emulated device executor), so the entry must be visible to the executor's dlsym. */
#ifndef AICPU_API_H
#define AICPU_API_H

#include <stddef.h>
#include <stdint.h>

#ifndef __global__
#define __global__
#endif
#ifndef __aicpu__
#define __aicpu__ __attribute__((visibility("default")))
#endif

#endif
