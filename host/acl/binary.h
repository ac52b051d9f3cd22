/* binary.h - kernel binaries on the host side: one inspected image (and its descriptor
 * entries), loaded into a device's executor the first time a function of it is used there. */
#ifndef HCEMU_HOST_BINARY_H
#define HCEMU_HOST_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/contract/status.h"
#include "runtime.h"

struct emu_binary;
struct emu_function;

struct emu_binary_options {
    bool has_mode;
    int32_t cpu_kernel_mode;
};

/* Inspect an image (and its descriptor) and register the binary; release with
 * emu_binary_unload(). */
emu_status emu_binary_load_file(const char *path, const struct emu_binary_options *o,
                                struct emu_binary **out) EMU_MUST_CHECK;
emu_status emu_binary_load_data(const void *data, size_t len, const struct emu_binary_options *o,
                                struct emu_binary **out) EMU_MUST_CHECK;
/* Unload from every executor and free the binary with its functions. */
void emu_binary_unload(struct emu_binary *b);
/* The live binary behind a user handle; EMU_EHANDLE (one log line) otherwise. */
emu_status emu_binary_check(const void *user, struct emu_binary **out) EMU_MUST_CHECK;
/* A binary this process loaded from a file whose image is named `so_name` (no folder):
 * EMU_ENOTFOUND, silently, when there is none. */
emu_status emu_binary_find_loaded(const char *so_name, struct emu_binary **out) EMU_MUST_CHECK;
/* Look up a kernel by its descriptor name (or exported symbol for bare images). */
emu_status emu_binary_get_function(struct emu_binary *b, const char *kernel,
                                   struct emu_function **out) EMU_MUST_CHECK;
/* Register `symbol` of a binary as kernel `kernel` (aclrtRegisterCpuFunc). */
emu_status emu_binary_register(struct emu_binary *b, const char *symbol, const char *kernel,
                               struct emu_function **out) EMU_MUST_CHECK;
/* The executor's id of the image on device d, loading it there on first use. */
emu_status emu_binary_image_on(struct emu_binary *b, struct emu_hdev *d,
                               uint32_t *image) EMU_MUST_CHECK;

#endif
