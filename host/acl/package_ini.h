/* package_ini.h - the AICPU package whitelist, <toolkit>/conf/ascend_package_load.ini: blocks
 * of "key:value" lines, each block opened by "name:<package file>", optionally naming the
 * package's folder with "package_path:<folder below the toolkit>". */
#ifndef HCEMU_HOST_ACL_PACKAGE_INI_H
#define HCEMU_HOST_ACL_PACKAGE_INI_H

#include <stdbool.h>
#include <stddef.h>

/* The longest line and file read; longer ones make the whole file refused. */
#define EMU_PACKAGE_INI_LINE_MAX 4096u
#define EMU_PACKAGE_INI_MAX (1u << 20)

/* Whether `ini` has a block "name:<pkg>" whose package_path, if any, is `dir` (slashes at
 * either end do not count). Only a regular file of at most EMU_PACKAGE_INI_MAX bytes with no
 * line over EMU_PACKAGE_INI_LINE_MAX is read (a FIFO does not block); otherwise, and when
 * it is missing, false with the reason in `why`. Lines starting with '#' or ';' are
 * comments. */
bool emu_package_ini_lists(const char *ini, const char *pkg, const char *dir, size_t dir_len,
                           char *why, size_t why_len);

#endif
