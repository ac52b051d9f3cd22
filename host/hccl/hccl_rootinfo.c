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

#include "common/contract/launch.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/contract/settings.h"
#include "host/hccl/rdv/hccl_rdv.h"
#include "host/hccl/rdv/hccl_rdvnet.h"
#include "host/hccl/rdv/rdv_auth.h"

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

/* Multi-host: rank 0's process listens where the root info says, every rank of a launched
 * job at HCEMU_ROOT with the job's key; a root info made alone (to be broadcast by the
 * program) at HCCL_IF_IP / HCCL_SOCKET_IFNAME on any port, with a random key. No address
 * configured: no listener, every rank must be on this machine. */
static emu_status add_listener(struct emu_root_info *ri, const struct emu_launch_id *l,
                               bool launched, const char *id)
{
    emu_status s;

    if (launched && env_set(EMU_SET_ROOT)) {
        if ((s = emu_rdvnet_parse_addr(emu_settings_str(EMU_SET_ROOT), &ri->net_ip,
                                       &ri->net_port)) != EMU_OK)
            return s;
        if ((s = emu_rdv_key_load(ri->net_ip, id, ri->key)) != EMU_OK)
            return s;
        if (l->rank != 0)
            return EMU_OK;
        return emu_rdvnet_listen(ri->dir, ri->net_ip, ri->net_port, ri->key, &ri->net_port);
    }
    if (launched)
        return EMU_OK;
    s = emu_rdvnet_local_addr(&ri->net_ip);
    if (s == EMU_ENOTFOUND)
        return EMU_OK;
    if (s != EMU_OK)
        return s;
    if (getrandom(ri->key, sizeof(ri->key), 0) != (ssize_t)sizeof(ri->key)) {
        EMU_LOG_ERR("no random bytes for the root info's key");
        return EMU_ESYSCALL;
    }
    return emu_rdvnet_listen(ri->dir, ri->net_ip, 0, ri->key, &ri->net_port);
}

emu_status emu_rootinfo_make(void *blob, const char *fn)
{
    struct emu_root_info ri = {.magic = EMU_ROOT_INFO_MAGIC,
                               .version = EMU_ROOT_INFO_VERSION,
                               .uid = (uint32_t)geteuid(),
                               .pid = (int32_t)getpid()};
    const char *dir = emu_rt.job_dir;
    struct emu_launch_id l = {0};
    bool launched = emu_launch_identity(&l);
    const char *id = "";

    /* Every rank derives the same root info when they share a job folder (hcemu-run) or a
     * root address (a job over several hosts). */
    if ((env_set(EMU_SET_RANK) && env_set(EMU_SET_RANK_SIZE) && env_set(EMU_SET_JOB_PATH)) ||
        (launched && env_set(EMU_SET_ROOT))) {
        id = env_set(EMU_SET_JOB_ID)   ? emu_settings_str(EMU_SET_JOB_ID)
             : *l.job != '\0'          ? l.job
             : env_set(EMU_SET_JOB_PATH) ? emu_settings_str(EMU_SET_JOB_PATH)
                                       : emu_settings_str(EMU_SET_ROOT);
        uint32_t n = atomic_fetch_add(&job_calls, 1);
        if (env_set(EMU_SET_JOB_PATH))
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
    emu_status s = add_listener(&ri, &l, launched, id);
    if (s != EMU_OK) {
        EMU_LOG_ERR("%s: no rendezvous listener for ranks of other hosts (see above)", fn);
        return s;
    }
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
