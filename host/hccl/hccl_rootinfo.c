/* hccl_rootinfo.c - what HcclGetRootInfo puts in the 4108-byte blob: the job folder that
 * holds the rendezvous file, a nonce naming it, and the uid allowed to join.
 *
 * Under hcemu-run every rank calls HcclGetRootInfo itself, so the blob must come out the
 * same in every process: it is derived from the job (HCEMU_JOB_ID, HCEMU_JOB_PATH) and the
 * number of root infos this process asked for before, which SPMD programs agree on. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/log.h"
#include "common/os.h"
#include "common/settings.h"
#include "hccl_rdv.h"

static _Atomic uint32_t job_calls;

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (; *s != '\0'; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

static bool env_set(enum emu_setting id)
{
    return *emu_settings_str(id) != '\0';
}

uint64_t emu_rootinfo_fresh_nonce(void)
{
    uint64_t n = 0;

    if (getrandom(&n, sizeof(n), GRND_NONBLOCK) != (ssize_t)sizeof(n))
        n = emu_os_now_ns() ^ ((uint64_t)getpid() << 32);
    return n != 0 ? n : 1;
}

emu_status emu_rootinfo_make(void *blob, const char *fn)
{
    struct emu_root_info ri = {.magic = EMU_ROOT_INFO_MAGIC,
                               .version = EMU_ROOT_INFO_VERSION,
                               .uid = (uint32_t)geteuid(),
                               .pid = (int32_t)getpid()};
    const char *dir = emu_rt.job_dir;

    if (env_set(EMU_SET_RANK) && env_set(EMU_SET_RANK_SIZE) && env_set(EMU_SET_JOB_PATH)) {
        const char *id = emu_settings_str(env_set(EMU_SET_JOB_ID) ? EMU_SET_JOB_ID
                                                                  : EMU_SET_JOB_PATH);
        uint32_t n = atomic_fetch_add(&job_calls, 1);
        dir = emu_settings_str(EMU_SET_JOB_PATH);
        ri.nonce = fnv1a(id) + (uint64_t)n * 0x9e3779b97f4a7c15ull;
        ri.pid = 0; /* every rank makes it */
    } else {
        ri.nonce = emu_rootinfo_fresh_nonce();
    }
    if (strlen(dir) >= sizeof(ri.dir)) {
        EMU_LOG_ERR("%s: the job folder %s is too long", fn, dir);
        return EMU_EINVAL;
    }
    snprintf(ri.dir, sizeof(ri.dir), "%s", dir);
    memset(blob, 0, HCCL_ROOT_INFO_BYTES);
    memcpy(blob, &ri, sizeof(ri));
    return EMU_OK;
}

emu_status emu_rootinfo_read(const void *blob, struct emu_root_info *out, const char *fn,
                             uint32_t rank)
{
    memcpy(out, blob, sizeof(*out));
    if (out->magic != EMU_ROOT_INFO_MAGIC || out->version != EMU_ROOT_INFO_VERSION ||
        memchr(out->dir, '\0', sizeof(out->dir)) == NULL || out->dir[0] != '/') {
        EMU_LOG_ERR("%s: rank %u: rootInfo was not filled by HcclGetRootInfo", fn, rank);
        return EMU_EINVAL;
    }
    if (out->uid != (uint32_t)geteuid()) {
        EMU_LOG_ERR("%s: rank %u: rootInfo belongs to uid %u; only the same user (uid %u) may "
                    "join",
                    fn, rank, out->uid, (unsigned)geteuid());
        return EMU_EINVAL;
    }
    return EMU_OK;
}
