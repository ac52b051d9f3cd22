/* file_map.h - read-only view of a whole file for the loader's parsers.
 *
 * The descriptor and ELF parsers work on bytes in memory (so the fuzzer can feed them the
 * same way); this maps a file into such bytes without copying it. */
#ifndef HCEMU_LOADER_FILE_MAP_H
#define HCEMU_LOADER_FILE_MAP_H

#include <stddef.h>

#include "common/contract/status.h"

struct emu_file_map {
    void *data; /* NULL when len == 0 */
    size_t len;
};

/* Maps the regular file `path` privately and copy-on-write, so a parser may patch its view
 * without touching the file. Release with emu_file_map_close().
 * Returns EMU_OK, EMU_ENULL, or EMU_EFILE (cannot open, not a regular file, too large);
 * every failure logs one line naming the path. */
emu_status emu_file_map_open(const char *path, struct emu_file_map *out) EMU_MUST_CHECK;
/* Accepts NULL and a zeroed map. */
void emu_file_map_close(struct emu_file_map *m);

#endif
