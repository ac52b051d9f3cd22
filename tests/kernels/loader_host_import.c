/* loader_host_import.c - a kernel that calls the host API aclrtMalloc, which an AICPU kernel
 * cannot do; the loader must refuse it. Built without debug info (symbolizer fallback test). */
#include <stddef.h>
#include <stdint.h>

int aclrtMalloc(void **devPtr, size_t size, int policy);

uint32_t loader_host_entry(void *args)
{
    return (uint32_t)aclrtMalloc((void **)args, 64, 0);
}
