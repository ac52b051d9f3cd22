/* symbols.h - code addresses as source lines for reports: inside kernel images (libdw through
 * the loader's symbolizer) and inside host programs (through /proc/<pid>/maps). */
#ifndef HCEMU_DEVICE_SYMBOLS_H
#define HCEMU_DEVICE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Source line of `offset` (address minus load base) in image `path`; false when the image
 * has no usable symbols. */
bool emu_symbols_lookup(const char *path, uint64_t offset, char *out, size_t len);
/* "function (file.c:line)" for a pc inside a loaded kernel image, else "symbol+0xoff (image)"
 * or "0x...". */
void emu_symbols_kernel_pc(uint64_t pc, char *out, size_t len);
/* Describe a call site of a task of this device: "function (file.c:line)" when the kernel
 * image (or host program) has debug info, else "symbol+0xoff (image)". `pc` is a return
 * address; `stream` is the stream slot (its owner names the host program). */
void emu_symbols_callsite(uint64_t pc, uint32_t stream, bool from_kernel, char *out, size_t len);

#endif
