/* descriptor.h - the AICPU operator-info JSON that names a kernel image and its entries.
 *
 *   { "<KernelName>": { "opInfo": { "opKernelLib": "AICPUKernel",
 *                                   "kernelSo": "libx.so", "functionName": "<symbol>" } } }
 *
 * Entry points: emu_descriptor_load() for a file, emu_descriptor_parse() for bytes.
 * Decisions (the vendor docs leave them open; docs/DECISIONS.md, "ACL runtime"):
 * - One descriptor describes ONE image: every entry must name the same kernelSo, otherwise the
 *   descriptor is refused (EMU_EPARSE) with a message naming both files. A binary handle maps
 *   to one dlopen'ed object, so several images would need several handles anyway.
 * - kernelSo is a path relative to the JSON's folder; it may contain sub-folders but must not be
 *   empty, absolute, or contain a ".." component (it could then name any file on the machine).
 * - A missing or unrecognised opKernelLib is logged as a warning and the entry is kept, as the
 *   vendor runtime keeps it (it logs an error and leaves the kernel type unset); hcemu runs
 *   every AICPU entry the same way, so the value changes nothing here.
 * - Top-level keys whose object has no "opInfo" are ignored (vendor too); a non-object value or a
 *   non-object opInfo is a type error. */
#ifndef HCEMU_LOADER_DESCRIPTOR_H
#define HCEMU_LOADER_DESCRIPTOR_H

#include <stddef.h>

#include "common/contract/status.h"

struct emu_descriptor_entry {
    char *kernel_name;   /* the top-level key: what aclrtBinaryGetFunction() is given */
    char *function_name; /* opInfo.functionName: the exported symbol to call */
    char *op_kernel_lib; /* opInfo.opKernelLib as written, or NULL when missing */
};

struct emu_descriptor {
    char *so_path; /* absolute: base folder + "/" + kernelSo (the file may not exist) */
    struct emu_descriptor_entry *entries;
    size_t n_entries; /* >= 1 after a successful parse, in the JSON's order */
};

/* Reads and parses the descriptor at `json_path`; kernelSo is resolved against the folder of
 * the JSON's real path. On success `out` owns everything; release with emu_descriptor_fini().
 * On failure `out` is left zeroed (fini is still allowed).
 * Returns EMU_OK, EMU_ENULL, EMU_EFILE (cannot read), EMU_EPARSE (see emu_descriptor_parse),
 * EMU_ENOMEM. Each failure logs exactly one line naming the file. */
/* A descriptor lists a few kernels; megabytes of JSON are a mistake (or /dev/zero). */
#define EMU_DESCRIPTOR_MAX_BYTES (16u << 20)

emu_status emu_descriptor_load(const char *json_path, struct emu_descriptor *out) EMU_MUST_CHECK;

/* Parses `len` bytes of JSON (no NUL terminator needed). `origin_for_messages` names the input
 * in log lines (NULL: "descriptor"); `base_dir` is the folder kernelSo is relative to (a relative
 * base_dir is taken relative to the current directory).
 * Returns EMU_OK, EMU_ENULL, EMU_ENOMEM, or EMU_EPARSE for: invalid JSON, a top level that is
 * not an object, wrong value types, missing or empty kernelSo/functionName, kernelSo escaping
 * its folder, entries naming different kernelSo, no entry with an opInfo. One log line each,
 * e.g. `kernel.json: entry "AllGather": opInfo.functionName is missing`. */
emu_status emu_descriptor_parse(const char *text, size_t len, const char *origin_for_messages,
                                const char *base_dir, struct emu_descriptor *out) EMU_MUST_CHECK;

/* Frees what `d` owns and zeroes it; accepts NULL and half-built descriptors. */
void emu_descriptor_fini(struct emu_descriptor *d);

/* Whether `lib` is an opKernelLib value the vendor runtime recognises ("AICPUKernel", ...). */
int emu_descriptor_is_known_kernel_lib(const char *lib);

#endif
