/* acl_notify.c - ACL notifies (aclrtCreateNotify): binary slots of a device's notify pool,
 * like thread notifies, recorded and waited on by stream tasks. */
#include "acl_notify.h"

#include <stdlib.h>
#include <string.h>

#include "common/platform/log.h"
#include "notify_pool.h"
#include "registry.h"

struct emu_acl_notify {
    struct emu_registry_entry reg; /* first: the user's aclrtNotify points here */
    struct emu_hdev *d;
    uint32_t slot;
};

emu_status emu_acl_notify_create(struct emu_hdev *d, struct emu_acl_notify **out)
{
    struct emu_acl_notify *n = calloc(1, sizeof(*n));
    emu_status s;

    if (n == NULL)
        return EMU_ENOMEM;
    if ((s = emu_notify_pool_alloc(d, 1, &n->slot)) != EMU_OK) {
        free(n);
        return s;
    }
    n->d = d;
    emu_registry_add_on(&n->reg, EMU_REG_NOTIFY, d);
    *out = n;
    return EMU_OK;
}

emu_status emu_acl_notify_check(void *user, struct emu_acl_notify **out)
{
    void *obj;
    emu_status s = emu_registry_check(user, EMU_REG_NOTIFY, &obj);

    if (s == EMU_OK)
        *out = obj;
    return s;
}

void emu_acl_notify_destroy(struct emu_acl_notify *n)
{
    if (!emu_registry_remove(&n->reg, EMU_REG_NOTIFY))
        return; /* the device was closed meanwhile and freed it */
    emu_notify_pool_free(n->d, n->slot);
    free(n);
}

emu_status emu_acl_notify_record(struct emu_acl_notify *n, struct emu_hstream *s, uint64_t cs)
{
    struct emu_wire_task w;

    memset(&w, 0, sizeof(w));
    w.kind = EMU_TASK_NOTIFY_RECORD;
    w.callsite = cs;
    w.u.notify.dev = n->d->id;
    w.u.notify.slot = n->slot;
    return emu_stream_submit(s, &w);
}

emu_status emu_acl_notify_wait(struct emu_acl_notify *n, struct emu_hstream *s, uint32_t timeout_s,
                               uint64_t cs)
{
    struct emu_wire_task w;

    if (s->dev != n->d->id) {
        EMU_LOG_ERR("aclrtWaitAndResetNotify: the notify belongs to device %u, the stream to "
                    "device %u",
                    n->d->id, s->dev);
        return EMU_EINVAL;
    }
    memset(&w, 0, sizeof(w));
    w.kind = EMU_TASK_NOTIFY_WAIT;
    w.callsite = cs;
    w.u.wait.slot = n->slot;
    w.u.wait.timeout_s = timeout_s;
    return emu_stream_submit(s, &w);
}

uint32_t emu_acl_notify_id(const struct emu_acl_notify *n)
{
    return (n->d->id << 24) | n->slot;
}
