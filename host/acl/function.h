/* function.h - kernel functions of a binary (aclrtBinaryGetFunction, aclrtRegisterCpuFunc):
 * a kernel name, its entry symbol, and the entry's id in each device's executor. */
#ifndef HCEMU_HOST_FUNCTION_H
#define HCEMU_HOST_FUNCTION_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/status.h"
#include "runtime.h"

struct emu_binary;
struct emu_function;

/* The executor's id of binary b's image on device d, loading it there on first use
 * (binary.c's emu_binary_image_on: the binary hands it in, so functions never call up). */
typedef emu_status (*emu_function_image_fn)(struct emu_binary *b, struct emu_hdev *d,
                                            uint32_t *image);

/* The function `kernel` of b, created on first request (the same handle afterwards). The
 * binary owns it: emu_function_destroy_all() frees it at unload. */
emu_status emu_function_create(struct emu_binary *b, emu_function_image_fn image_on,
                               const char *kernel, const char *symbol,
                               struct emu_function **out) EMU_MUST_CHECK;
/* Whether b already has a function named `kernel`. */
bool emu_function_find(struct emu_binary *b, const char *kernel, struct emu_function **out);
/* Free every function of b (binary unload). */
void emu_function_destroy_all(struct emu_binary *b);
/* The live function behind a user handle; EMU_EHANDLE (one log line) otherwise. */
emu_status emu_function_check(const void *user, struct emu_function **out) EMU_MUST_CHECK;
/* The executor's id of f's entry on device d: loads the image and resolves, once per device. */
emu_status emu_function_resolve(struct emu_function *f, struct emu_hdev *d,
                                uint32_t *fid) EMU_MUST_CHECK;
/* The kernel name, for messages. */
const char *emu_function_name(const struct emu_function *f);

#endif
