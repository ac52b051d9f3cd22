/* krt_host_import.c - a kernel that calls the host API aclrtMalloc: an AICPU kernel cannot,
 * so aclrtBinaryLoadFromFile must refuse the image and name the symbol. */
#include <stddef.h>
#include <stdint.h>

int aclrtMalloc(void **devPtr, size_t size, int policy);

uint32_t krt_host_import(void *args)
{
    return (uint32_t)aclrtMalloc((void **)args, 64, 0);
}
