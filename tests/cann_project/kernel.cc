/* kernel.cc - the packaged AICPU kernel (aclrt launch path). */
#include <string.h>

#include "mini.h"

extern "C" unsigned int MiniFillKernel(void *p)
{
    MiniArgs a;
    memcpy(&a, p, sizeof(a));
    uint32_t *out = reinterpret_cast<uint32_t *>(a.out);
    for (uint32_t i = 0; i < a.count; i++)
        out[i] = a.base + i;
    return 0;
}
