/* args.h - kernel argument lists (aclrtKernelArgs*): one per OS thread, packed with 1-byte
 * alignment as for AICPU kernels on hardware; placeholders get device buffers at launch. */
#ifndef HCEMU_HOST_ARGS_H
#define HCEMU_HOST_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "common/contract/status.h"

#define EMU_ARGS_MAX_PARAMS 128u
#define EMU_ARGS_MAX_BYTES (64u * 1024u)

struct emu_args;
struct emu_function;

/* Start this thread's list for f (the previous list of the thread is dropped). */
emu_status emu_args_init(struct emu_function *f, struct emu_args **out) EMU_MUST_CHECK;
/* The calling thread's live list; EMU_EHANDLE (one log line) for any other value. */
emu_status emu_args_check(const void *user, struct emu_args **out) EMU_MUST_CHECK;
emu_status emu_args_append(struct emu_args *a, const void *param, size_t size,
                           void **param_handle) EMU_MUST_CHECK;
emu_status emu_args_append_placeholder(struct emu_args *a, void **param_handle) EMU_MUST_CHECK;
emu_status emu_args_placeholder_buffer(struct emu_args *a, void *param_handle, size_t size,
                                       void **buf) EMU_MUST_CHECK;
emu_status emu_args_update(struct emu_args *a, void *param_handle, const void *param,
                           size_t size) EMU_MUST_CHECK;
void emu_args_finalize(struct emu_args *a);
/* EMU_OK when a is finalised and made for f; else EMU_EINVAL and one log line. */
emu_status emu_args_ready_for(const struct emu_args *a,
                              const struct emu_function *f) EMU_MUST_CHECK;
/* Bytes of the device block: the packed parameters, then each placeholder buffer (8-aligned). */
uint64_t emu_args_packed_size(const struct emu_args *a);
/* Write the block to `host` (the block's bytes as this process reaches them); `base` is its
 * device address, which placeholder parameters are patched to point into. */
void emu_args_pack(const struct emu_args *a, uint8_t *host, uint64_t base);

#endif
