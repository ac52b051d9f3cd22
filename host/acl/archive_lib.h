/* archive_lib.h - libarchive for reading AICPU packages (package.c), opened on first use.
 * Linked in, libarchive and what it pulls in (libxml2, ICU, libstdc++, five compressors)
 * cost every process that loads libhcemu ~14 ms of CPU at start, for a feature few jobs use
 * (docs/ARCHITECTURE.md, "Start-up cost"). */
#ifndef HCEMU_HOST_ACL_ARCHIVE_LIB_H
#define HCEMU_HOST_ACL_ARCHIVE_LIB_H

#include <archive.h>
#include <archive_entry.h>

/* The libarchive functions package.c calls, with libarchive's own signatures. */
struct emu_archive_lib {
    __typeof__(archive_read_new) *read_new;
    __typeof__(archive_read_support_filter_all) *read_support_filter_all;
    __typeof__(archive_read_support_format_all) *read_support_format_all;
    __typeof__(archive_read_open_filename) *read_open_filename;
    __typeof__(archive_read_next_header) *read_next_header;
    __typeof__(archive_read_data_block) *read_data_block;
    __typeof__(archive_read_free) *read_free;
    __typeof__(archive_entry_filetype) *entry_filetype;
    __typeof__(archive_entry_pathname) *entry_pathname;
    __typeof__(archive_entry_size) *entry_size;
    __typeof__(archive_entry_size_is_set) *entry_size_is_set;
};

/* The table, loading libarchive on the first call (any thread). NULL, with one log line for
 * the process, when it cannot be loaded. */
const struct emu_archive_lib *emu_archive_lib(void);

#endif
