/* deps.h - an image's own dependencies: the DT_NEEDED libraries that ship next to it.
 *
 * Entry points: emu_deps_check() (host, at aclrtBinaryLoad*: the same import policy for the
 * image and every library it brings), emu_deps_preload() (executor, before dlopen of the
 * image: the dynamic linker does not search the image's folder, so the libraries found there
 * are opened first by path and then match the image's DT_NEEDED by soname).
 * A DT_NEEDED name that is a file in the image's folder (and not a runtime library or
 * EMU_DEVICE_LIBRARY, the device API library every executor has loaded) is the image's own:
 * it is inspected by the same import policy, and what it defines may be imported by the image
 * (at most EMU_DEPS_MAX libraries, EMU_DEPS_DEPTH levels). Any other name is left to the
 * dynamic linker, and the import policy decides what the image may take from it. */
#ifndef HCEMU_LOADER_DEPS_H
#define HCEMU_LOADER_DEPS_H

#include <stddef.h>

#include "common/contract/status.h"
#include "elf.h"

#define EMU_DEVICE_LIBRARY "libccl_kernel.so"
#define EMU_DEPS_MAX 16u
#define EMU_DEPS_DEPTH 4u

/* emu_import_check_image_with() for `info`, an image in folder `dir` (NULL: an image from memory,
 * which has no folder and so no libraries of its own). Returns EMU_OK, EMU_ENULL,
 * EMU_EINVAL (refused: why says which library or import, one log line), or the status of
 * inspecting a library next to the image. */
emu_status emu_deps_check(const struct emu_elf_info *info, const char *dir,
                          const char *const *entries, size_t n_entries, char *why,
                          size_t why_len) EMU_MUST_CHECK;

/* dlopen()s (RTLD_NOW | RTLD_LOCAL) every library the image at `path` needs from its own
 * folder, dependencies first, and stores the handles in `handles` (*n of them; they stay open
 * for the process lifetime, like the images). EMU_OK, EMU_EINVAL with why set when one fails. */
emu_status emu_deps_preload(const char *path, void **handles, size_t max, size_t *n, char *why,
                            size_t why_len) EMU_MUST_CHECK;

#endif
