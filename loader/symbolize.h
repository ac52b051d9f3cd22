/* symbolize.h - turns an address inside a kernel image into "function (file.c:line)".
 *
 * Entry points: emu_symbolize() for one address, emu_symbolize_create()/_lookup()/_destroy()
 * for many (the image and its DWARF are read once). Addresses are relative to the image's load
 * base, i.e. ELF virtual addresses: pc - dli_fbase from dladdr(). For a return address pass
 * ra - 1, so the line is the call's, not the next statement's.
 * Output, best first: `function (file.c:line)` when the image has DWARF line info,
 * `symbol+0xoff (libx.so)` with symbols only, `0xaddr (libx.so)` otherwise.
 * Uses libdw; neither thread-safe per symbolizer nor async-signal-safe: call it from the thread
 * that writes the report, not from inside a signal handler. Only the image itself is read:
 * separate debug files (.gnu_debuglink, debuginfod) are not searched, so a report never waits
 * on the network. */
#ifndef HCEMU_LOADER_SYMBOLIZE_H
#define HCEMU_LOADER_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "common/contract/status.h"

struct emu_symbolizer;

/* Opens `image_path` for lookups. Returns NULL (one log line) when the file cannot be read as
 * ELF. The caller owns the result; release it with emu_symbolize_destroy(). */
struct emu_symbolizer *emu_symbolize_create(const char *image_path);

/* Writes the best description of `addr` into out (always NUL-terminated, truncated to out_len).
 * Returns EMU_OK, or EMU_ENULL / EMU_EINVAL for NULL s/out or out_len == 0. Never logs. */
emu_status emu_symbolize_lookup(struct emu_symbolizer *s, uint64_t addr, char *out,
                                size_t out_len) EMU_MUST_CHECK;

/* Accepts NULL. */
void emu_symbolize_destroy(struct emu_symbolizer *s);

/* One-shot create + lookup + destroy. When the image cannot be read, still writes
 * "0xaddr (libx.so)" and returns EMU_EFILE (after create's log line). */
emu_status emu_symbolize(const char *image_path, uint64_t file_offset_or_vaddr, char *out,
                         size_t out_len) EMU_MUST_CHECK;

#endif
