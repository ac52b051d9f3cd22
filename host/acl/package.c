/* package.c - kernel images from installed AICPU packages (package.h).
 * Search: the package folders of the descriptor (../kernel and its own folder), each *.tar.gz
 * listed by libarchive (opened on first use, archive_lib.h); whitelist:
 * conf/ascend_package_load.ini of the toolkit the package is installed in (package_ini.h);
 * extraction: only the image asked for, into <job>/aicpu-packages/<pkg>/<image>, written
 * under a private name and renamed into place, so processes of one job share one copy.
 * A package is untrusted input: at most EMU_PACKAGE_ENTRIES_MAX entries are looked at, an
 * image is at most EMU_PACKAGE_IMAGE_MAX bytes (counted as written, not as announced), and
 * a package holding two regular files of the image's name is refused (which one the device
 * loads would depend on the order). */
#include "package.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/platform/log.h"
#include "common/platform/secure_dir.h"
#include "common/contract/settings.h"
#include "common/platform/os.h"
#include "archive_lib.h"
#include "package_ini.h"

#define TARBALL_SUFFIX ".tar.gz"
#define INI_NAME "conf/ascend_package_load.ini"
#define EMU_PACKAGE_ENTRIES_MAX 4096u
#define EMU_PACKAGE_IMAGE_MAX (256ull << 20)

static const char *base_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s != NULL ? s + 1 : path;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The package open for reading with libarchive `ar`; NULL when it cannot be. */
static struct archive *open_tarball(const struct emu_archive_lib *ar, const char *path)
{
    struct archive *a = ar->read_new();
    if (a == NULL)
        return NULL;
    ar->read_support_filter_all(a);
    ar->read_support_format_all(a);
    if (ar->read_open_filename(a, path, 64 * 1024) != ARCHIVE_OK) {
        ar->read_free(a);
        return NULL;
    }
    return a;
}

/* How many regular files of the package are named so_name (any folder), within the first
 * EMU_PACKAGE_ENTRIES_MAX entries; *too_many when it has more entries than that. */
static unsigned package_count(const char *tarball, const char *so_name, bool *too_many)
{
    const struct emu_archive_lib *ar = emu_archive_lib();
    struct archive *a = ar != NULL ? open_tarball(ar, tarball) : NULL;
    struct archive_entry *e;
    unsigned found = 0, entries = 0;

    *too_many = false;
    if (a == NULL)
        return 0;
    while (ar->read_next_header(a, &e) == ARCHIVE_OK) {
        if (++entries > EMU_PACKAGE_ENTRIES_MAX) {
            *too_many = true;
            break;
        }
        found += ar->entry_filetype(e) == AE_IFREG &&
                 strcmp(base_of(ar->entry_pathname(e)), so_name) == 0;
    }
    ar->read_free(a);
    return found;
}

static bool package_holds(const char *tarball, const char *so_name)
{
    bool too_many;
    return package_count(tarball, so_name, &too_many) != 0 || too_many;
}

/* The first *.tar.gz in `dir` holding so_name, into out. */
static bool find_in_dir(const char *dir, const char *so_name, char *out, size_t out_len)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    bool found = false;

    if (d == NULL)
        return false;
    while (!found && (de = readdir(d)) != NULL) {
        if (!ends_with(de->d_name, TARBALL_SUFFIX))
            continue;
        int n = snprintf(out, out_len, "%s/%s", dir, de->d_name);
        found = n > 0 && (size_t)n < out_len && package_holds(out, so_name);
    }
    closedir(d);
    return found;
}

/* The one read of ASCEND_HOME_PATH: the toolkit a package outside any opp/ tree belongs to. */
static const char *toolkit_from_env(void)
{
    const char *s = emu_settings_str(EMU_SET_ASCEND_HOME_PATH);
    return *s != '\0' ? s : NULL;
}

/* The toolkit root of an installed package (the part before /opp/), and the package's folder
 * relative to it. */
static void toolkit_of(const char *tarball, char *root, size_t root_len, const char **rel_dir)
{
    const char *opp = strstr(tarball, "/opp/");
    if (opp != NULL) {
        snprintf(root, root_len, "%.*s", (int)(opp - tarball), tarball);
        *rel_dir = opp + 1;
        return;
    }
    const char *env = toolkit_from_env();
    snprintf(root, root_len, "%s", env != NULL ? env : "");
    *rel_dir = tarball;
}

static emu_status check_whitelist(const char *tarball, const char *so_name)
{
    char root[PATH_MAX], ini[PATH_MAX + 64];
    const char *rel;
    const char *pkg = base_of(tarball);

    toolkit_of(tarball, root, sizeof(root), &rel);
    size_t dir_len = (size_t)(pkg - rel) > 0 ? (size_t)(pkg - rel) - 1 : 0;
    snprintf(ini, sizeof(ini), "%s/%s", root, INI_NAME);
    char why[160];
    if (emu_package_ini_lists(ini, pkg, rel, dir_len, why, sizeof(why)))
        return EMU_OK;
    /* The package_path printed is the one the parser matches (leading slashes ignored). */
    while (dir_len > 0 && *rel == '/') {
        rel++;
        dir_len--;
    }
    EMU_LOG_ERR("kernel image %s is in AICPU package %s, which %s does not list (%s), so the "
                "device does not load it; add: name:%s install_path:2 optional:true "
                "package_path:%.*s load_as_per_soc:false (one field per line)",
                so_name, tarball, ini, why, pkg, (int)dir_len, rel);
    return EMU_ENOTFOUND;
}

/* The current entry's bytes into the new file `path`, at most EMU_PACKAGE_IMAGE_MAX. */
static emu_status write_entry(const struct emu_archive_lib *ar, struct archive *a,
                              const char *path, const char *tarball)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);
    const void *buf;
    size_t len;
    la_int64_t off;
    int r;

    if (fd < 0) {
        EMU_LOG_ERR("cannot create %s: %s", path, strerror(errno));
        return EMU_EFILE;
    }
    while ((r = ar->read_data_block(a, &buf, &len, &off)) == ARCHIVE_OK) {
        if (off < 0 || (uint64_t)off + len > EMU_PACKAGE_IMAGE_MAX) {
            EMU_LOG_ERR("AICPU package %s: its image %s is larger than %llu MiB; refused",
                        tarball, base_of(path), EMU_PACKAGE_IMAGE_MAX >> 20);
            close(fd);
            return EMU_EFILE;
        }
        if (pwrite(fd, buf, len, off) != (ssize_t)len) {
            EMU_LOG_ERR("cannot write %s: %s", path, strerror(errno));
            close(fd);
            return EMU_EFILE;
        }
    }
    close(fd);
    if (r != ARCHIVE_EOF)
        EMU_LOG_ERR("AICPU package %s is damaged (reading its image %s failed)", tarball,
                    base_of(path));
    return r == ARCHIVE_EOF ? EMU_OK : EMU_EFILE;
}

/* The package's one regular file named so_name into the new file `path`. */
static emu_status extract_image(const char *tarball, const char *so_name, const char *path)
{
    const struct emu_archive_lib *ar = emu_archive_lib();
    bool too_many;
    unsigned n = package_count(tarball, so_name, &too_many);

    if (too_many) {
        EMU_LOG_ERR("AICPU package %s has more than %u entries; refused", tarball,
                    EMU_PACKAGE_ENTRIES_MAX);
        return EMU_EFILE;
    }
    if (n != 1) {
        EMU_LOG_ERR("AICPU package %s holds %u files named %s (in different folders); which "
                    "one is the image is ambiguous: refused", tarball, n, so_name);
        return EMU_EFILE;
    }
    struct archive *a = ar != NULL ? open_tarball(ar, tarball) : NULL;
    struct archive_entry *e;
    emu_status s = EMU_EFILE;

    if (a == NULL)
        return EMU_EFILE;
    while (ar->read_next_header(a, &e) == ARCHIVE_OK)
        if (ar->entry_filetype(e) == AE_IFREG &&
            strcmp(base_of(ar->entry_pathname(e)), so_name) == 0) {
            if (ar->entry_size_is_set(e) && ar->entry_size(e) > (la_int64_t)EMU_PACKAGE_IMAGE_MAX)
                EMU_LOG_ERR("AICPU package %s: its image %s announces %lld bytes, more than "
                            "%llu MiB; refused", tarball, so_name, (long long)ar->entry_size(e),
                            EMU_PACKAGE_IMAGE_MAX >> 20);
            else
                s = write_entry(ar, a, path, tarball);
            break;
        }
    ar->read_free(a);
    return s;
}

static emu_status extract_locked(const char *tarball, const char *so_name, const char *job_dir,
                                 char *dir, size_t len)
{
    char path[PATH_MAX + 64], tmp[PATH_MAX + 96];
    struct stat st;

    int n = snprintf(dir, len, "%s/aicpu-packages/%s", job_dir, base_of(tarball));
    if (n < 0 || (size_t)n >= len - 1)
        return EMU_EFILE;
    snprintf(path, sizeof(path), "%s/%s", dir, so_name);
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
        return EMU_OK;
    char parent[PATH_MAX];
    snprintf(parent, sizeof(parent), "%s/aicpu-packages", job_dir);
    /* Fixed names inside the private job folder: nobody else can have made them. */
    emu_status s = emu_secure_dir_ensure(parent);
    if (s == EMU_OK)
        s = emu_secure_dir_ensure(dir);
    snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
    unlink(tmp); /* a leftover of a killed extraction by a process of this pid */
    if (s == EMU_OK)
        s = extract_image(tarball, so_name, tmp);
    if (s != EMU_OK) {
        EMU_LOG_ERR("cannot extract image %s of AICPU package %s into %s", so_name, tarball, dir);
        unlink(tmp);
        return s;
    }
    if (rename(tmp, path) != 0) {
        EMU_LOG_ERR("cannot rename %s to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
        return EMU_EFILE;
    }
    return EMU_OK;
}

static pthread_mutex_t extract_lock = PTHREAD_MUTEX_INITIALIZER;

/* Ranks that are threads of this process wait for the first one's extraction (extract_lock);
 * other processes of the job extract under their own name and the first rename wins. */
static emu_status extract_once(const char *tarball, const char *so_name, const char *job_dir,
                               char *dir, size_t len)
{
    pthread_mutex_lock(&extract_lock);
    emu_status s = extract_locked(tarball, so_name, job_dir, dir, len);
    pthread_mutex_unlock(&extract_lock);
    return s;
}


emu_status emu_package_find_image(const char *json, const char *so_path, const char *job_dir,
                                  char *out, size_t out_len)
{
    const char *so_name = base_of(so_path);
    char dir[PATH_MAX], cand[PATH_MAX + 16], tarball[PATH_MAX], real[PATH_MAX];

    if (realpath(json, real) == NULL)
        snprintf(real, sizeof(real), "%s", json);
    snprintf(dir, sizeof(dir), "%s", real);
    char *slash = strrchr(dir, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(cand, sizeof(cand), "%s/../kernel", dir);
    if (!find_in_dir(cand, so_name, tarball, sizeof(tarball)) &&
        !find_in_dir(dir, so_name, tarball, sizeof(tarball))) {
        EMU_LOG_ERR("kernel image %s of %s: cannot open it (not beside the descriptor, and no "
                    "AICPU package in %s/../kernel holds it)", so_name, json, dir);
        return EMU_EFILE;
    }
    if (realpath(tarball, real) != NULL) /* the whitelist names it without "..": normalise */
        snprintf(tarball, sizeof(tarball), "%s", real);
    emu_status s = check_whitelist(tarball, so_name);
    if (s == EMU_OK)
        s = extract_once(tarball, so_name, job_dir, cand, sizeof(cand));
    if (s != EMU_OK)
        return s;
    int n = snprintf(out, out_len, "%s/%s", cand, so_name);
    return n > 0 && (size_t)n < out_len ? EMU_OK : EMU_EFILE;
}
