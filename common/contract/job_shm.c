/* job_shm.c - shared files of the job folder (see job_shm.h). */
#include "job_shm.h"

#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/platform/secure_dir.h"
#include "devctl.h"
#include "job.h"

emu_status emu_job_shm_open(const char *dir, const char *name, size_t size, uint64_t magic,
                            emu_status (*init)(void *p), const char *what, void **out)
{
    char path[EMU_PATH_MAX + 64];
    int fd = -1;
    bool creator = true;
    void *p;

    if (emu_job_path(path, sizeof(path), dir, "%s", name) != EMU_OK)
        return EMU_EINVAL;
    emu_status s = emu_secure_dir_open_path(path, O_RDWR | O_CREAT | O_EXCL, 0600, &fd);
    if (s == EMU_EAGAIN) {
        creator = false;
        s = emu_secure_dir_open_path(path, O_RDWR, 0, &fd);
    }
    if (s != EMU_OK || (creator && ftruncate(fd, (off_t)size) != 0)) {
        EMU_LOG_WARN("%s: cannot create %s: %m", what, path);
        if (fd >= 0)
            close(fd);
        return EMU_EFILE;
    }
    struct stat st;
    uint64_t until = emu_os_now_ns() + 2000000000ull;
    while (!creator && fstat(fd, &st) == 0 && (size_t)st.st_size < size && emu_os_now_ns() < until)
        usleep(1000);
    s = emu_os_map_shared(fd, 0, size, NULL, 0, &p);
    close(fd);
    if (s != EMU_OK)
        return s;
    uint64_t *m = p;
    if (creator && init != NULL && (s = init(p)) != EMU_OK) {
        emu_os_unmap(p, size);
        return s;
    }
    if (creator)
        __atomic_store_n(m, magic, __ATOMIC_RELEASE);
    while (__atomic_load_n(m, __ATOMIC_ACQUIRE) != magic && emu_os_now_ns() < until)
        usleep(1000);
    if (__atomic_load_n(m, __ATOMIC_ACQUIRE) != magic) {
        EMU_LOG_WARN("%s: %s was not initialised", what, path);
        emu_os_unmap(p, size);
        return EMU_EFILE;
    }
    *out = p;
    return EMU_OK;
}
