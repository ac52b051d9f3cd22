/* ccl_kernel.c - libccl_kernel.so, the device API library as kernels see it.
 *
 * Kernels may link -lccl_kernel (DT_NEEDED libccl_kernel.so) or, like HCCL, dlopen
 * "libccl_kernel.so" and dlsym the optional functions from that handle. The functions live in
 * hcemu-device itself (api_*.c), which loads this library at start-up (DT_NEEDED, so its
 * soname is known and both forms find it). Each device API name here is a trampoline that
 * jumps, with the caller's arguments untouched, to the executor's definition found at load;
 * outside an executor (no definition) it returns HCCL_E_NOT_SUPPORT (5). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

#include "loader/device_api_names.h"

/* One hidden slot per name, filled by bind() below. */
#define SLOT(name) __attribute__((visibility("hidden"))) void *emu_ccl_slot_##name;
EMU_DEVICE_API_NAMES(SLOT)

/* One trampoline per name: jump through its slot, argument registers untouched. */
#if defined(__x86_64__)
#define TRAMPOLINE(name)                                                                       \
    __asm__(".text\n.globl " #name "\n.type " #name ",@function\n" #name ":\n"                 \
            "  jmp *emu_ccl_slot_" #name "(%rip)\n.size " #name ",.-" #name "\n");
#elif defined(__aarch64__)
#define TRAMPOLINE(name)                                                                       \
    __asm__(".text\n.globl " #name "\n.type " #name ",%function\n" #name ":\n"                 \
            "  adrp x16, emu_ccl_slot_" #name "\n"                                             \
            "  ldr x16, [x16, :lo12:emu_ccl_slot_" #name "]\n  br x16\n"                       \
            ".size " #name ",.-" #name "\n");
#else
#error "libccl_kernel trampolines: add this machine"
#endif
EMU_DEVICE_API_NAMES(TRAMPOLINE)

struct entry {
    const char *name;
    void **slot;
};
#define ENTRY(name) {#name, &emu_ccl_slot_##name},
static const struct entry entries[] = {EMU_DEVICE_API_NAMES(ENTRY)};

/* Outside an executor: what a function the device does not have answers. */
static int64_t not_supported(void)
{
    return 5; /* HCCL_E_NOT_SUPPORT */
}

/* The executor is first in the global scope, so RTLD_DEFAULT finds its definitions; a hit in
 * this library itself means there is none (a host process, a tool). */
__attribute__((constructor)) static void bind(void)
{
    Dl_info self, hit;

    if (dladdr((void *)&not_supported, &self) == 0)
        self.dli_fbase = NULL;
    for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
        void *p = dlsym(RTLD_DEFAULT, entries[i].name);
        if (p == NULL || (dladdr(p, &hit) != 0 && hit.dli_fbase == self.dli_fbase))
            p = (void *)&not_supported;
        *entries[i].slot = p;
    }
}
