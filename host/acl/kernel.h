/* kernel.h - kernel binaries, argument lists and launches on the host side.
 *
 * A binary handle names one inspected image (and its descriptor entries); the image is
 * loaded into a device's executor the first time a function of it is used on that device.
 * Argument lists are per-OS-thread singletons, packed with 1-byte alignment, as for AICPU
 * kernels on hardware. */
#ifndef HCEMU_HOST_KERNEL_H
#define HCEMU_HOST_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/status.h"
#include "stream.h"

#define EMU_ARGS_MAX_PARAMS 128u
#define EMU_ARGS_MAX_BYTES (64u * 1024u)

struct emu_bin;
struct emu_func;
struct emu_args;

struct emu_bin_options {
    bool has_mode;
    int32_t cpu_kernel_mode;
};

emu_status emu_bin_load_file(const char *path, const struct emu_bin_options *o,
                             struct emu_bin **out) EMU_MUST_CHECK;
emu_status emu_bin_load_data(const void *data, size_t len, const struct emu_bin_options *o,
                             struct emu_bin **out) EMU_MUST_CHECK;
emu_status emu_bin_unload(struct emu_bin *b) EMU_MUST_CHECK;
/* Look up a kernel by its descriptor name (or exported symbol for bare images). */
emu_status emu_bin_get_function(struct emu_bin *b, const char *kernel,
                                struct emu_func **out) EMU_MUST_CHECK;
/* Register `symbol` of a binary as kernel `kernel` (aclrtRegisterCpuFunc). */
emu_status emu_bin_register(struct emu_bin *b, const char *symbol, const char *kernel,
                            struct emu_func **out) EMU_MUST_CHECK;
/* Validate user handles (registry lookups; never dereference unknown pointers). */
emu_status emu_bin_check(const void *user, struct emu_bin **out) EMU_MUST_CHECK;
emu_status emu_func_check(const void *user, struct emu_func **out) EMU_MUST_CHECK;

emu_status emu_args_init(struct emu_func *f, struct emu_args **out) EMU_MUST_CHECK;
emu_status emu_args_check(const void *user, struct emu_args **out) EMU_MUST_CHECK;
emu_status emu_args_append(struct emu_args *a, const void *param, size_t size,
                           void **param_handle) EMU_MUST_CHECK;
emu_status emu_args_append_placeholder(struct emu_args *a, void **param_handle) EMU_MUST_CHECK;
emu_status emu_args_placeholder_buffer(struct emu_args *a, void *param_handle, size_t size,
                                       void **buf) EMU_MUST_CHECK;
emu_status emu_args_update(struct emu_args *a, void *param_handle, const void *param,
                           size_t size) EMU_MUST_CHECK;
emu_status emu_args_finalize(struct emu_args *a) EMU_MUST_CHECK;

struct emu_launch_opts {
    uint32_t blocks;
    uint64_t timeout_us; /* 0 = forever */
    uint64_t callsite;
};

/* Launch with a finalised argument list (copied to device memory now). */
emu_status emu_kernel_launch(struct emu_func *f, struct emu_args *a, struct emu_hstream *s,
                             const struct emu_launch_opts *o) EMU_MUST_CHECK;
/* Launch with arguments already in device memory of the stream's device. */
emu_status emu_kernel_launch_raw(struct emu_func *f, const void *args, size_t size,
                                 struct emu_hstream *s,
                                 const struct emu_launch_opts *o) EMU_MUST_CHECK;

/* Forget what was loaded into device `dev`'s executor (device closed or failed). */
void emu_kernel_forget_device(uint32_t dev);

#endif
