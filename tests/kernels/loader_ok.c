/* loader_ok.c - a well-formed AICPU kernel for test_loader: two entries, an exported data
 * object (to name by mistake), a versioned libc import and a device API import.
 * Built -O0 -g so test_loader can check the line the symbolizer reports for the entry. */
#include <stdint.h>
#include <string.h>

typedef uint64_t ThreadHandle;
typedef uint64_t ChannelHandle;
int32_t HcommWriteOnThread(ThreadHandle thread, ChannelHandle channel, void *dst, const void *src,
                           uint64_t len);

uint32_t loader_ok_data[4];

/* test_loader expects the entry address to map to the line of the marker (gcc puts the
 * prologue on the brace) or to the line above it (clang puts it on the declarator). */
uint32_t loader_ok_entry(void *args)
{ /* LOADER_OK_ENTRY_LINE */
    uint32_t v[4];

    memcpy(v, args, sizeof(v[0]) * (loader_ok_data[0] + 1));
    return v[0];
}

uint32_t loader_ok_second(void *args)
{
    return (uint32_t)HcommWriteOnThread(0, 0, args, args, strlen(args));
}
