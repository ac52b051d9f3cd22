/* import.h - decides whether a kernel image may run on the emulated AICPU.
 *
 * Entry point: emu_import_check_image(). An AICPU kernel can only call what the device
 * provides: the device-side HCOMM API (device_api_names.h) and the C/C++ runtime. A call into
 * the host runtime (acl*, Hccl*) or into anything else would fail at dlopen time on the
 * device, or worse, run host code there; it is refused here, at load, with the symbol named. */
#ifndef HCEMU_LOADER_IMPORT_H
#define HCEMU_LOADER_IMPORT_H

#include <stddef.h>

#include "common/contract/status.h"
#include "elf.h"

enum emu_import_class {
    EMU_IMPORT_DEVICE_API, /* an exact name of EMU_DEVICE_API_NAMES */
    EMU_IMPORT_RUNTIME,    /* C, C++, math, thread runtime or sanitizer runtime */
    EMU_IMPORT_HOST_ONLY,  /* acl*, Hccl*: the host runtime and control plane */
    EMU_IMPORT_UNKNOWN,    /* anything else: refused */
};

/* How an undefined symbol is classified:
 * 1. its name is in EMU_DEVICE_API_NAMES -> DEVICE_API;
 * 2. "acl" or "Hccl" followed by a letter (aclrtMalloc, HcclThreadAcquire) -> HOST_ONLY;
 * 3. versioned (.gnu.version_r) from libc, libm, libmvec, libpthread, libdl, librt,
 *    libstdc++, libgcc_s, libatomic or the dynamic linker -> RUNTIME;
 * 4. unversioned but one of the weak hooks every toolchain emits (__gmon_start__,
 *    _ITM_(de)registerTMCloneTable, __cxa_finalize, frame-info hooks) or a sanitizer runtime
 *    entry (__asan_*, __ubsan_*, __tsan_*, __lsan_*, __sanitizer_*) -> RUNTIME;
 * 5. unversioned and defined by the C/C++ runtime of this machine (looked up by exact name with
 *    dlsym() in libc.so.6, libm.so.6, libstdc++.so.6, libgcc_s.so.1) -> RUNTIME. This is needed:
 *    a kernel built with -fsanitize=address links memcpy & co. against libasan's unversioned
 *    interceptors. It is a lookup in the real runtime, not a name pattern, so it accepts exactly
 *    what the dynamic linker will bind there (an unversioned reference binds to the default
 *    version). The first such lookup opens those libraries once for the process lifetime;
 * 6. otherwise UNKNOWN. */
enum emu_import_class emu_import_classify(const struct emu_elf_symbol *import);
/* "device", "runtime", "HOST-ONLY", "UNKNOWN"; never NULL. */
const char *emu_import_class_name(enum emu_import_class c);
/* Whether `name` is one of EMU_DEVICE_API_NAMES. */
int emu_import_is_device_api(const char *name);

/* The verdict on an inspected image. Every name of `entries` (n_entries may be 0 for a bare
 * .so) must be a defined global function; every import must be DEVICE_API or RUNTIME.
 * On refusal writes the reason into `why` (may be NULL; truncated to why_len), logs that
 * one line, and returns EMU_EINVAL. Returns EMU_OK (why = "") or EMU_ENULL for NULL
 * info/entries. Host-only imports are reported before unknown ones. */
emu_status emu_import_check_image(const struct emu_elf_info *info, const char *const *entries,
                                  size_t n_entries, char *why, size_t why_len) EMU_MUST_CHECK;

/* Same, with two more rules: an import defined by one of `provided` (the image's own
 * dependencies, already checked; n_provided may be 0) is accepted, and so is a weak import
 * of any class (the dynamic linker binds it if something defines it, else leaves it NULL,
 * and the program tests it before the call). emu_image_check is this with nothing provided. */
emu_status emu_import_check_image_with(const struct emu_elf_info *info, const char *const *entries,
                                size_t n_entries, const struct emu_elf_info *const *provided,
                                size_t n_provided, char *why, size_t why_len) EMU_MUST_CHECK;

/* Whether a DT_NEEDED name is a library of the C/C++/math/thread runtime (rule 3's files). */
int emu_import_is_runtime_file(const char *soname);

#endif
