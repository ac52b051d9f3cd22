/* spin.c - the job-wide spin budget (see spin.h). */
#include "spin.h"

#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "common/atomic.h"
#include "common/job.h"
#include "common/os.h"
#include "common/secure_dir.h"

struct budget {
    _Atomic int32_t busy;     /* threads of the job's executors running tasks or kernels */
    _Atomic int32_t spinners; /* idle workers spinning right now */
};

static struct budget local; /* used until (or unless) the job file is mapped */
static struct budget *job = &local;

void emu_spin_open(const char *job_dir)
{
    char path[512];
    void *p;

    if (emu_job_path(path, sizeof(path), job_dir, "cpus.shm") != EMU_OK)
        return;
    /* Every executor may create it; all see the same zero-filled page. */
    int fd;
    if (emu_secure_dir_open_path(path, O_RDWR | O_CREAT, 0600, &fd) != EMU_OK)
        return;
    if (ftruncate(fd, 4096) == 0 && emu_os_map_shared(fd, 0, 4096, NULL, 0, &p) == EMU_OK)
        job = p;
    close(fd);
}

void emu_spin_busy(int delta)
{
    emu_fetch_add_relaxed(&job->busy, delta);
}

/* One spinning worker per device is enough: any worker can take the doorbell. */
static _Atomic int32_t local_spinner;

bool emu_spin_begin(void)
{
    int32_t none = 0;

    if (!atomic_compare_exchange_strong(&local_spinner, &none, 1))
        return false;
    int32_t want = emu_fetch_add_acq_rel(&job->spinners, 1) + 1;

    /* Spin while runnable threads (the busy ones, which will ring, and the spinners) do not
     * outnumber cores. Counters of a crashed executor may stay high: that only disables
     * spinning. */
    if (emu_load_relaxed(&job->busy) + want <= (int32_t)emu_os_cpu_count())
        return true;
    emu_fetch_sub_acq_rel(&job->spinners, 1);
    emu_store_release(&local_spinner, 0);
    return false;
}

void emu_spin_end(void)
{
    emu_fetch_sub_acq_rel(&job->spinners, 1);
    emu_store_release(&local_spinner, 0);
}
