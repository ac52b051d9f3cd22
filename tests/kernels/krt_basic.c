/* krt_basic.c - kernels of test_kernel_runtime that return normally: argument echo, several
 * entries in one image, a per-device global counter, a placeholder reader, a kernel that
 * returns a chosen non-zero value and one that waits for a flag the host sets.
 *
 * Device addresses travel inside the packed arguments as uint64_t; the arguments themselves
 * are unaligned (1-byte packing), so every field is read with memcpy. */
#include <stdint.h>
#include <string.h>
#include <time.h>

#define KRT_END_MARK 0xA5u

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return v;
}

/* args: [u64 out][u32 total][... any bytes ...][u8 0xA5]; total counts every byte, header
 * included. The marker must sit at exactly total - 1 (no padding anywhere); then the whole
 * block is copied to out, so the host can compare it byte for byte. */
uint32_t krt_args_echo(void *args)
{
    const uint8_t *a = args;
    uint32_t total = get_u32(a + 8);

    if (total < 13 || total > 64u * 1024u)
        return 1;
    if (a[total - 1] != KRT_END_MARK)
        return 2;
    memcpy((void *)(uintptr_t)get_u64(a), a, total);
    return 0;
}

/* args: [u64 out][u32 x][u32 y]: out = x + y. Registered under the name KrtAdd. */
uint32_t krt_add(void *args)
{
    const uint8_t *a = args;
    uint32_t sum = get_u32(a + 8) + get_u32(a + 12);

    memcpy((void *)(uintptr_t)get_u64(a), &sum, sizeof(sum));
    return 0;
}

/* args: [u64 out][u32 x][u32 y]: out = x * y. */
uint32_t krt_mul(void *args)
{
    const uint8_t *a = args;
    uint32_t prod = get_u32(a + 8) * get_u32(a + 12);

    memcpy((void *)(uintptr_t)get_u64(a), &prod, sizeof(prod));
    return 0;
}

/* Each device's executor has its own copy of this global. */
static uint32_t krt_launches;

/* args: [u64 out]: out = how many times this entry ran on this device. */
uint32_t krt_count(void *args)
{
    uint32_t n = __atomic_add_fetch(&krt_launches, 1, __ATOMIC_RELAXED);

    memcpy((void *)(uintptr_t)get_u64(args), &n, sizeof(n));
    return 0;
}

/* args: [u64 out][u32 len][u64 placeholder]: the placeholder holds the device address of
 * the buffer the host filled through aclrtKernelArgsGetPlaceHolderBuffer; copy len bytes. */
uint32_t krt_placeholder(void *args)
{
    const uint8_t *a = args;
    uint64_t src = get_u64(a + 12);

    if (src == 0)
        return 3;
    memcpy((void *)(uintptr_t)get_u64(a), (const void *)(uintptr_t)src, get_u32(a + 8));
    return 0;
}

/* args: [u32 value]: returns value (the host passes a non-zero one). */
uint32_t krt_return(void *args)
{
    return get_u32(args);
}

/* args: [u64 flag][u32 timeout_ms]: returns 0 once the u32 at flag is non-zero (the host
 * writes it with aclrtMemcpy), 4 after timeout_ms. Holds its stream meanwhile. */
uint32_t krt_wait_flag(void *args)
{
    const uint8_t *a = args;
    const volatile uint32_t *flag = (const volatile uint32_t *)(uintptr_t)get_u64(a);
    uint32_t timeout_ms = get_u32(a + 8);

    for (uint32_t waited_us = 0; waited_us < timeout_ms * 1000u; waited_us += 100) {
        if (*flag != 0)
            return 0;
        nanosleep(&(struct timespec){.tv_nsec = 100000}, NULL);
    }
    return 4;
}
