/* main.c - hcemu-device: the executor process of one emulated device.
 *
 *   hcemu-device --job DIR --dev N --mem BYTES [--ready-fd FD]
 *
 * Adopts the settings its host wrote into the control file (it never reads its own
 * environment), creates the device's files in the job folder, maps its memory at the
 * device's global window, starts the TS scheduler, publishes READY and serves host requests
 * until the last host disconnects. Started by the host library on first use of the device. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/contract/job.h"
#include "common/contract/layout.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/platform/secure_dir.h"
#include "common/contract/settings.h"
#include "common/platform/spin.h"
#include "diag/diagnostics.h"
#include "exec.h"
#include "device/kernel/fault.h"
#include "inject.h"
#include "device/net/net.h"
#include "prov_rec.h"
#include "device/kernel/kernel.h"
#include "report.h"
#include "runq.h"
#include "device/sched/sched.h"
#include "server.h"

struct options {
    const char *job;
    uint32_t dev;
    uint64_t mem;
    int ready_fd;
};

static int parse(int argc, char **argv, struct options *o)
{
    o->dev = UINT32_MAX;
    o->mem = EMU_DEFAULT_DEVICE_MEM;
    o->ready_fd = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--job") == 0)
            o->job = argv[i + 1];
        else if (strcmp(argv[i], "--dev") == 0)
            o->dev = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--mem") == 0)
            o->mem = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--ready-fd") == 0)
            o->ready_fd = atoi(argv[i + 1]);
        else
            return -1;
    }
    if (o->job == NULL || o->dev >= EMU_MAX_DEVICES || o->mem == 0 || o->mem > EMU_WINDOW_SIZE)
        return -1;
    return 0;
}

static emu_status create_file(const char *dir, const char *fmt, uint32_t dev, uint64_t size)
{
    char path[512];
    emu_status s = emu_job_path(path, sizeof(path), dir, fmt, dev);

    if (s != EMU_OK)
        return s;
    /* A file left by an earlier executor of this device (killed) is replaced, never reused:
     * only a fresh O_EXCL file is known to be ours alone. */
    int fd = -1;
    unlink(path);
    if (emu_secure_dir_open_path(path, O_RDWR | O_CREAT | O_EXCL, 0600, &fd) != EMU_OK ||
        ftruncate(fd, (off_t)size) != 0) {
        EMU_LOG_ERR("cannot create %s: %m", path);
        if (fd >= 0)
            close(fd);
        return EMU_EFILE;
    }
    close(fd);
    return EMU_OK;
}

/* Take the settings the starting host wrote into the control file (settings.h): the
 * executor never reads its own environment. */
static struct emu_settings_block host_settings;

static void adopt_settings(const char *dir, uint32_t dev)
{
    struct emu_settings_block *b = &host_settings;
    char path[512];
    bool ok = false;

    if (emu_job_path(path, sizeof(path), dir, "dev%u.ctl", dev) == EMU_OK) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ok = fd >= 0 && pread(fd, b, sizeof(*b), (off_t)offsetof(struct emu_devctl, settings)) ==
                            (ssize_t)sizeof(*b);
        if (fd >= 0)
            close(fd);
    }
    emu_settings_adopt(ok ? b : NULL);
}

static void remove_files(const char *dir, uint32_t dev)
{
    static const char *const names[] = {"dev%u.sock", "dev%u.mem", "dev%u.ctl"};
    char path[512];

    for (size_t i = 0; i < 3; i++)
        if (emu_job_path(path, sizeof(path), dir, names[i], dev) == EMU_OK)
            unlink(path);
    /* The folder too when that left it empty. A host that ends while this executor still
     * starts or stops removes the folder's files, but not the folder while our files are in
     * it; nobody else comes back for it. A folder in use is never empty (its owners file),
     * and rmdir neither follows a symlink nor removes anything else. */
    (void)rmdir(dir);
}

/* kernel.c tells the crash report what runs where (fault.c cannot call up into it). */
static const struct emu_fault_locator fault_locator = {emu_kernel_where, emu_kernel_image_of};

int main(int argc, char **argv)
{
    struct options o = {0};
    char role[32];
    char sock[512];
    int lfd = -1;

    if (parse(argc, argv, &o) != 0) {
        fprintf(stderr, "usage: hcemu-device --job DIR --dev N --mem BYTES [--ready-fd FD]\n"
                        "(started by the hcemu host library; not meant to be run by hand)\n");
        return 2;
    }
    snprintf(role, sizeof(role), "dev%u", o.dev);
    emu_log_set_role(role);
    emu_exec_g.dev = o.dev;
    snprintf(emu_exec_g.job_dir, sizeof(emu_exec_g.job_dir), "%s", o.job);
    emu_exec_g.self.mem_fd = -1;
    emu_os_raise_nofile(); /* a descriptor per peer device mapped (devmem.c) */
    adopt_settings(o.job, o.dev);
    if (create_file(o.job, "dev%u.ctl", o.dev, sizeof(struct emu_devctl)) != EMU_OK ||
        create_file(o.job, "dev%u.mem", o.dev, o.mem) != EMU_OK ||
        emu_devmem_open_self(o.job, o.dev, o.mem) != EMU_OK)
        goto fail;
    struct emu_devctl *ctl = emu_exec_ctl();
    if (emu_devctl_init(ctl, o.dev, o.mem) != EMU_OK)
        goto fail;
    ctl->exec_pid = getpid();
    emu_job_hold(o.job);
    emu_settings_export(&ctl->settings); /* for hosts that join later */
    ctl->settings.writer_pid = host_settings.writer_pid;
    ctl->window_base = emu_window_base(o.dev);
    if (emu_job_path(sock, sizeof(sock), o.job, "dev%u.sock", o.dev) != EMU_OK ||
        (emu_spin_open(o.job), 0) || emu_server_listen(sock, &lfd) != EMU_OK ||
        emu_fault_install(&fault_locator) != EMU_OK || emu_report_register() != EMU_OK ||
        (emu_diagnostics_start(), 0) || (emu_inject_init(o.dev), 0) ||
        (emu_prov_rec_init(), 0) || (emu_runq_init(), 0) ||
        emu_sched_start(ctl, 0, emu_task_host_decode) != EMU_OK)
        goto fail;
    emu_spin_executor(1); /* for the job's spin budget, until the server returns */
    /* Pairs with the acquire load of `state` by hosts waiting for the device. */
    emu_store_release(&ctl->state, EMU_DEV_READY);
    emu_os_futex_wake(&ctl->state, INT32_MAX);
    if (o.ready_fd >= 0) {
        ssize_t ignored = write(o.ready_fd, "R", 1);
        (void)ignored;
        close(o.ready_fd);
    }
    emu_server_run(lfd);
    emu_spin_executor(-1);
    emu_net_stop();
    emu_diagnostics_stop();
    /* A job folder is removed by the host that made it. When its users are all gone (a
     * SIGKILLed host, a killed hcemu-run whose ranks died with it), the last executor to
     * leave removes it. */
    (void)emu_job_leave(o.job);
    emu_store_release(&ctl->state, EMU_DEV_STOPPED);
    emu_os_futex_wake(&ctl->state, INT32_MAX);
    remove_files(o.job, o.dev);
    /* Workers may sit inside kernel code or waits; the process ends here without joining. */
    _exit(0);
fail:
    remove_files(o.job, o.dev);
    return 1;
}
