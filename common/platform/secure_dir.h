/* secure_dir.h - private folders and files in places other users share (/dev/shm, /tmp).
 *
 * Every folder hcemu makes there is fresh (random name, mkdtemp), mode 0700, and checked with
 * fstat (a directory, owned by us, no group/other bits) through a descriptor opened with
 * O_NOFOLLOW; files inside are opened relative to that descriptor, never through a symlink,
 * created with O_EXCL where the name must be new, and checked the same way before use.
 * Removal walks by descriptor and never follows a symlink. */
#ifndef HCEMU_COMMON_SECURE_DIR_H
#define HCEMU_COMMON_SECURE_DIR_H

#include <stddef.h>

#include "common/contract/status.h"

/* Refuse (naming it) a parent folder that others may write without the sticky bit: anyone
 * could rename or replace what we put there. */
emu_status emu_secure_dir_check_parent(const char *parent) EMU_MUST_CHECK;
/* Make a fresh private folder "<parent>/<prefix>XXXXXX" (random suffix) and return its path.
 * A missing parent is created (mode 0700); an unsafe one is refused. */
emu_status emu_secure_dir_make(const char *parent, const char *prefix, char *out,
                               size_t len) EMU_MUST_CHECK;
/* Make "path" (mode 0700) unless it exists; either way it must then be a private folder of
 * ours. For fixed names that other users cannot pre-create (inside a private folder, or a
 * folder the caller falls back from). */
emu_status emu_secure_dir_ensure(const char *path) EMU_MUST_CHECK;
/* Open folder `path` (a symlink as the last component is refused) and check that it is a
 * private folder of ours; the descriptor (O_CLOEXEC) into *fd. */
emu_status emu_secure_dir_open(const char *path, int *fd) EMU_MUST_CHECK;
/* Open `name` in folder `dirfd` with `flags` (O_RDWR, O_WRONLY, O_CREAT|O_EXCL, ...; O_NOFOLLOW,
 * O_CLOEXEC and O_NONBLOCK are added) and check that it is a regular file of ours with no
 * group/other bits. `dir` names the folder in error messages. EMU_EAGAIN, with nothing
 * logged, when O_CREAT|O_EXCL finds the name taken. */
emu_status emu_secure_dir_open_at(int dirfd, const char *dir, const char *name, int flags,
                                  unsigned mode, int *fd) EMU_MUST_CHECK;
/* emu_secure_dir_open + emu_secure_dir_open_at. */
emu_status emu_secure_dir_open_in(const char *dir, const char *name, int flags, unsigned mode,
                                  int *fd) EMU_MUST_CHECK;
/* The same for "<dir>/<name>" given as one path. */
emu_status emu_secure_dir_open_path(const char *path, int flags, unsigned mode,
                                    int *fd) EMU_MUST_CHECK;
/* Remove entry `name` of folder `dirfd`, a whole tree when it is a folder; symlinks are
 * removed, never followed. Best effort. */
void emu_secure_dir_remove_at(int dirfd, const char *name);
/* Remove the tree at `path` the same way (the last component is never followed). */
void emu_secure_dir_remove(const char *path);
/* Read a whole input file that must be a regular file of at most `max` bytes: FIFOs,
 * devices and folders are refused before anything could block or grow. Nothing is logged:
 * on failure `why` says why (for the caller's one message). The bytes, NUL-terminated, into
 * *buf (free() them), their count into *len. */
emu_status emu_secure_dir_read_input(const char *path, size_t max, char **buf, size_t *len,
                                     char *why, size_t why_len) EMU_MUST_CHECK;

#endif
