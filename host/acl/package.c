/* package.c - kernel images from installed AICPU packages (package.h).
 * Search: the package folders of the descriptor (../kernel and its own folder), each *.tar.gz
 * listed by libarchive (opened on first use, archive_lib.h); whitelist:
 * conf/ascend_package_load.ini of the toolkit the package is installed in; extraction:
 * <job>/aicpu-packages/<pkg>/, made under a private name and renamed into place, so processes
 * of one job share one copy. */
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

#include "common/log.h"
#include "common/secure_dir.h"
#include "common/settings.h"
#include "common/os.h"
#include "archive_lib.h"

#define TARBALL_SUFFIX ".tar.gz"
#define INI_NAME "conf/ascend_package_load.ini"

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

/* A path inside the archive that is safe to recreate: relative, no "..". */
static bool safe_entry(const char *p)
{
    return p[0] != '/' && strstr(p, "..") == NULL;
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

/* Whether the package holds a regular file named so_name. */
static bool package_holds(const char *tarball, const char *so_name)
{
    const struct emu_archive_lib *ar = emu_archive_lib();
    struct archive *a = ar != NULL ? open_tarball(ar, tarball) : NULL;
    struct archive_entry *e;
    bool found = false;

    if (a == NULL)
        return false;
    while (!found && ar->read_next_header(a, &e) == ARCHIVE_OK)
        found = ar->entry_filetype(e) == AE_IFREG &&
                strcmp(base_of(ar->entry_pathname(e)), so_name) == 0;
    ar->read_free(a);
    return found;
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

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '/'))
        s[--n] = '\0';
}

/* Whether the ini has a block "name:<pkg>" whose package_path (if any) is `dir`. */
static bool whitelisted(const char *ini, const char *pkg, const char *dir, size_t dir_len)
{
    FILE *f = fopen(ini, "r");
    char line[1024];
    bool in_block = false, listed = false, path_ok = true;

    if (f == NULL)
        return false;
    while (!listed && fgets(line, sizeof(line), f) != NULL) {
        trim(line);
        const char *v = line;
        while (*v == ' ' || *v == '\t')
            v++;
        if (strncmp(v, "name:", 5) == 0) {
            listed = in_block && path_ok;
            in_block = strcmp(v + 5, pkg) == 0;
            path_ok = true;
        } else if (in_block && strncmp(v, "package_path:", 13) == 0) {
            const char *p = v + 13;
            while (*p == '/')
                p++;
            path_ok = strlen(p) == dir_len && strncmp(p, dir, dir_len) == 0;
        }
    }
    listed = listed || (in_block && path_ok);
    fclose(f);
    return listed;
}

static emu_status check_whitelist(const char *tarball, const char *so_name)
{
    char root[PATH_MAX], ini[PATH_MAX + 64];
    const char *rel;
    const char *pkg = base_of(tarball);

    toolkit_of(tarball, root, sizeof(root), &rel);
    size_t dir_len = (size_t)(pkg - rel) > 0 ? (size_t)(pkg - rel) - 1 : 0;
    snprintf(ini, sizeof(ini), "%s/%s", root, INI_NAME);
    if (whitelisted(ini, pkg, rel, dir_len))
        return EMU_OK;
    EMU_LOG_ERR("kernel image %s is in AICPU package %s, which %s does not list, so the device "
                "does not load it; add: name:%s install_path:2 optional:true package_path:%.*s "
                "load_as_per_soc:false (one field per line)", so_name, tarball, ini, pkg,
                (int)dir_len, rel);
    return EMU_ENOTFOUND;
}

static emu_status write_entry(const struct emu_archive_lib *ar, struct archive *a,
                              const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
    const void *buf;
    size_t len;
    la_int64_t off;
    int r;

    if (fd < 0)
        return EMU_EFILE;
    while ((r = ar->read_data_block(a, &buf, &len, &off)) == ARCHIVE_OK)
        if (pwrite(fd, buf, len, off) != (ssize_t)len) {
            r = ARCHIVE_FATAL;
            break;
        }
    close(fd);
    return r == ARCHIVE_EOF ? EMU_OK : EMU_EFILE;
}

/* Every regular file of the package below `dir` (flat: images load by file name). */
static emu_status extract_to(const char *tarball, const char *dir)
{
    const struct emu_archive_lib *ar = emu_archive_lib();
    struct archive *a = ar != NULL ? open_tarball(ar, tarball) : NULL;
    struct archive_entry *e;
    emu_status s = EMU_OK;
    char path[PATH_MAX];

    if (a == NULL)
        return EMU_EFILE;
    while (s == EMU_OK && ar->read_next_header(a, &e) == ARCHIVE_OK) {
        const char *p = ar->entry_pathname(e);
        if (ar->entry_filetype(e) != AE_IFREG || !safe_entry(p))
            continue;
        int n = snprintf(path, sizeof(path), "%s/%s", dir, base_of(p));
        s = n > 0 && (size_t)n < sizeof(path) ? write_entry(ar, a, path) : EMU_EFILE;
    }
    ar->read_free(a);
    return s;
}

static emu_status extract_locked(const char *tarball, const char *job_dir, char *dir, size_t len)
{
    char tmp[PATH_MAX + 32];
    struct stat st;

    int n = snprintf(dir, len, "%s/aicpu-packages/%s", job_dir, base_of(tarball));
    if (n < 0 || (size_t)n >= len - 1)
        return EMU_EFILE;
    if (stat(dir, &st) == 0)
        return EMU_OK;
    char parent[PATH_MAX];
    snprintf(parent, sizeof(parent), "%s/aicpu-packages", job_dir);
    snprintf(tmp, sizeof(tmp), "%s.%d.tmp", dir, (int)getpid());
    /* Fixed names inside the private job folder: nobody else can have made them. */
    emu_status s = emu_secure_dir_ensure(parent);
    if (s == EMU_OK)
        s = emu_secure_dir_ensure(tmp);
    if (s == EMU_OK)
        s = extract_to(tarball, tmp);
    if (s != EMU_OK) {
        EMU_LOG_ERR("cannot extract AICPU package %s into %s", tarball, tmp);
        emu_secure_dir_remove(tmp);
        return s;
    }
    if (rename(tmp, dir) != 0)
        emu_secure_dir_remove(tmp); /* another process of the job extracted it first */
    return EMU_OK;
}

static pthread_mutex_t extract_lock = PTHREAD_MUTEX_INITIALIZER;

/* Ranks that are threads of this process wait for the first one's extraction (extract_lock);
 * other processes of the job extract under their own name and the first rename wins. */
static emu_status extract_once(const char *tarball, const char *job_dir, char *dir, size_t len)
{
    pthread_mutex_lock(&extract_lock);
    emu_status s = extract_locked(tarball, job_dir, dir, len);
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
        s = extract_once(tarball, job_dir, cand, sizeof(cand));
    if (s != EMU_OK)
        return s;
    int n = snprintf(out, out_len, "%s/%s", cand, so_name);
    return n > 0 && (size_t)n < out_len ? EMU_OK : EMU_EFILE;
}
