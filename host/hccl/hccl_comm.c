/* hccl_comm.c - the registry that turns a user's HcclComm into a live member, and the
 * settings and facts every module asks of a member. Creation and destruction, which use the
 * resource modules, are hccl_comm_life.c's. */
#include "hccl_comm.h"

#include <stdio.h>
#include <string.h>

#include "common/contract/settings.h"
#include "common/platform/log.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct emu_comm *reg_head;

uint64_t emu_comm_connect_timeout_ms(void)
{
    /* The vendor range is [120, 7200]; shorter values are accepted so tests and impatient
     * users need not wait two minutes for a rank that will never come. */
    return emu_settings_u64(EMU_SET_HCCL_CONNECT_TIMEOUT) * 1000u;
}

const char *emu_comm_host_of(const struct emu_comm *c, uint32_t r)
{
    return r < c->size ? c->ranks[r].host : "?";
}

bool emu_comm_same_host(const struct emu_comm *c, uint32_t r)
{
    return r < c->size && c->ranks[r].host_key == c->ranks[c->rank].host_key;
}

bool emu_comm_one_folder(const struct emu_comm *c)
{
    const char *mine = c->ranks[c->rank].job_dir;

    for (uint32_t r = 0; r < c->size; r++)
        if (!emu_comm_same_host(c, r) ||
            strncmp(c->ranks[r].job_dir, mine, sizeof(c->ranks[r].job_dir)) != 0)
            return false;
    return true;
}

uint64_t emu_comm_default_buf_bytes(void)
{
    /* HCCL_BUFFSIZE alone, not twice it: one block serves as the operators' staging area. */
    return emu_settings_u64(EMU_SET_HCCL_BUFFSIZE) << 20;
}

emu_status emu_comm_config_check(const HcclCommConfig *cfg, const char *fn, uint32_t rank)
{
    struct {
        size_t size;
        uint32_t magic;
        uint32_t version;
    } h;

    memcpy(&h, cfg->reserved, sizeof(h));
    if (h.magic != HCCL_COMM_CONFIG_MAGIC_WORD) {
        EMU_LOG_ERR("%s: rank %u: config was not set up with HcclCommConfigInit (magic 0x%x)", fn,
                    rank, h.magic);
        return EMU_EINVAL;
    }
    if (h.size < offsetof(HcclCommConfig, hcclAlgo)) {
        EMU_LOG_ERR("%s: rank %u: config size %zu is too small for a config of version %u", fn,
                    rank, h.size, h.version);
        return EMU_EINVAL;
    }
    if (cfg->hcclBufferSize == 0) {
        EMU_LOG_ERR("%s: rank %u: config hcclBufferSize is 0 (MB, at least 1)", fn, rank);
        return EMU_EINVAL;
    }
    if (memchr(cfg->hcclCommName, '\0', sizeof(cfg->hcclCommName)) == NULL) {
        EMU_LOG_ERR("%s: rank %u: config hcclCommName is not terminated within %u bytes", fn, rank,
                    COMM_NAME_MAX_LENGTH);
        return EMU_EINVAL;
    }
    if (cfg->hcclExecTimeOut < -1) {
        EMU_LOG_ERR("%s: rank %u: config hcclExecTimeOut %d is negative", fn, rank,
                    cfg->hcclExecTimeOut);
        return EMU_EINVAL;
    }
    return EMU_OK;
}

struct emu_comm *emu_comm_try_get(const void *user)
{
    struct emu_comm *found = NULL;

    pthread_mutex_lock(&reg_lock);
    for (struct emu_comm *p = reg_head; p != NULL; p = p->next)
        if (p == user && p->magic == EMU_COMM_MAGIC) {
            found = p;
            found->users++;
            break;
        }
    pthread_mutex_unlock(&reg_lock);
    return found;
}

struct emu_comm *emu_comm_get(const void *user, const char *fn)
{
    struct emu_comm *found = emu_comm_try_get(user);

    if (found == NULL)
        EMU_LOG_ERR("%s: comm %p is not a live communicator (destroyed, or never created)", fn,
                    user);
    return found;
}

void emu_comm_put(struct emu_comm *c)
{
    pthread_mutex_lock(&reg_lock);
    c->users--;
    pthread_mutex_unlock(&reg_lock);
}

struct emu_comm *emu_comm_next(struct emu_comm *prev)
{
    struct emu_comm *p;

    pthread_mutex_lock(&reg_lock);
    p = reg_head;
    if (prev != NULL) { /* from prev on, if it is still registered (a forced teardown may not) */
        while (p != NULL && p != prev)
            p = p->next;
        p = p != NULL ? p->next : NULL;
    }
    while (p != NULL && p->magic != EMU_COMM_MAGIC)
        p = p->next;
    if (p != NULL)
        p->users++;
    if (prev != NULL)
        prev->users--;
    pthread_mutex_unlock(&reg_lock);
    return p;
}

struct emu_comm *emu_comm_find_name(const char *name)
{
    struct emu_comm *first = NULL, *mine = NULL;
    int dev = emu_runtime_current_device();

    pthread_mutex_lock(&reg_lock);
    for (struct emu_comm *p = reg_head; p != NULL; p = p->next) {
        if (strcmp(p->name, name) != 0)
            continue;
        if (first == NULL)
            first = p;
        if (mine == NULL && dev >= 0 && p->d->id == (uint32_t)dev)
            mine = p;
    }
    pthread_mutex_unlock(&reg_lock);
    return mine != NULL ? mine : first;
}

void emu_comm_register(struct emu_comm *c)
{
    pthread_mutex_lock(&reg_lock);
    c->next = reg_head;
    reg_head = c;
    pthread_mutex_unlock(&reg_lock);
}

bool emu_comm_unregister(struct emu_comm *c, bool force)
{
    pthread_mutex_lock(&reg_lock);
    bool busy = !force && c->users > 1;
    if (!busy)
        for (struct emu_comm **p = &reg_head; *p != NULL; p = &(*p)->next)
            if (*p == c) {
                *p = c->next;
                break;
            }
    pthread_mutex_unlock(&reg_lock);
    return !busy;
}
