/* runtime_life.c - starting and ending the job of this process (aclInit, aclFinalize):
 * configuration, the job folder, and at the end every device, pinned memory and the modelled
 * clock. The one place in acl/ that reaches all of them. */
#include "runtime_life.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/contract/job.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/contract/product.h"
#include "common/platform/secure_dir.h"
#include "common/contract/settings.h"
#include "common/platform/spin.h"
#include "device.h"
#include "fault.h"
#include "mem.h"
#include "model_time.h"
#include "pin.h"

static void read_config(void)
{
    emu_rt.ndev = (uint32_t)emu_settings_u64(EMU_SET_DEVICES);
    emu_rt.dev_mem = emu_settings_u64(EMU_SET_DEVICE_MEM_GB) << 30;
    snprintf(emu_rt.soc, sizeof(emu_rt.soc), "%s", emu_product_soc());
    for (uint32_t i = 0; i < EMU_MAX_DEVICES; i++) {
        emu_rt.devs[i].id = i;
        pthread_mutex_init(&emu_rt.devs[i].lock, NULL);
        pthread_mutex_init(&emu_rt.devs[i].rpc_lock, NULL);
        emu_rt.devs[i].sock = -1;
    }
}

static emu_status make_job_dir(void)
{
    const char *path = emu_settings_str(EMU_SET_JOB_PATH);

    if (*path != '\0') {
        /* hcemu-run (or another launcher) made the folder and removes it; it must be a
         * private folder of ours, and we join its owners so it is not collected under us. */
        if (snprintf(emu_rt.job_dir, sizeof(emu_rt.job_dir), "%s", path) >=
            (int)sizeof(emu_rt.job_dir) - 16) {
            EMU_LOG_ERR("HCEMU_JOB_PATH %s is too long", path);
            return EMU_EINVAL;
        }
        emu_rt.own_job_dir = false;
        emu_status s = emu_secure_dir_ensure(emu_rt.job_dir);
        return s == EMU_OK ? emu_job_claim(emu_rt.job_dir) : s;
    }
    const char *parent = emu_settings_str(EMU_SET_JOB_DIR);
    /* Room for the longest file name inside. */
    emu_status s = emu_job_make(parent, "", emu_rt.job_dir, sizeof(emu_rt.job_dir) - 16);
    emu_rt.own_job_dir = s == EMU_OK;
    return s;
}

/* A fresh generation for this start; a fresh key for a new process. */
static void new_incarnation(void)
{
    if (emu_rt.proc_key_pid != (int32_t)getpid() || emu_rt.proc_key == 0) {
        uint64_t k = 0;
        if (getrandom(&k, sizeof(k), GRND_NONBLOCK) != (ssize_t)sizeof(k))
            k = emu_os_now_ns() ^ ((uint64_t)getpid() << 32);
        emu_rt.proc_key = k != 0 ? k : 1;
        emu_rt.proc_key_pid = (int32_t)getpid();
    }
    emu_rt.generation++;
}

emu_status emu_runtime_init(void)
{
    emu_status s = EMU_OK;

    pthread_mutex_lock(&emu_rt.lock);
    if (!emu_rt.job_ready) {
        emu_os_raise_nofile();
        read_config();
        s = make_job_dir();
        if (s == EMU_OK) {
            new_incarnation();
            emu_rt.job_ready = true;
            emu_spin_open(emu_rt.job_dir); /* stream syncs spin within the job's budget */
            emu_runtime_arm_cleanup();
            emu_fault_install_host();
        }
    }
    pthread_mutex_unlock(&emu_rt.lock);
    return s;
}

void emu_runtime_fini(void)
{
    pthread_mutex_lock(&emu_rt.lock);
    if (emu_rt.job_ready) {
        for (uint32_t i = 0; i < EMU_MAX_DEVICES; i++) {
            pthread_mutex_lock(&emu_rt.devs[i].lock);
            emu_rt.left_refs[i] += emu_rt.devs[i].set_refs;
            pthread_mutex_unlock(&emu_rt.devs[i].lock);
            if (!emu_rt.devs[i].failed)
                emu_mem_retire_all(&emu_rt.devs[i]);
        }
        emu_device_close_all(emu_rt.devs, EMU_MAX_DEVICES);
        emu_pin_fini();
        if (emu_rt.own_job_dir)
            emu_secure_dir_remove(emu_rt.job_dir);
        (void)emu_job_leave(emu_rt.job_dir);
        emu_model_time_job_end();
        emu_rt.job_ready = false;
        emu_rt.own_job_dir = false;
    }
    pthread_mutex_unlock(&emu_rt.lock);
}
