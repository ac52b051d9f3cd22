/* Links against the installed package and runs one copy on an emulated device. */
#include <acl/acl.h>
#include <hccl/hccl.h>
#include <hccl/hcomm_primitives.h>
#include <stdio.h>

int main(void)
{
    void *dev = NULL;
    int value = 42, back = 0;

    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtMalloc(&dev, sizeof(value), ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtMemcpy(dev, sizeof(value), &value, sizeof(value), ACL_MEMCPY_HOST_TO_DEVICE) ||
        aclrtMemcpy(&back, sizeof(back), dev, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST))
        return 1;
    printf("consumer read back %d\n", back);
    aclrtFree(dev);
    aclFinalize();
    return back == value ? 0 : 1;
}
