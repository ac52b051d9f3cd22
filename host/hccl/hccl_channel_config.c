/* hccl_channel_config.c - channel-config objects (see hccl_channel_config.h). */
#include "hccl_channel_config.h"

#include <hccl/hccl_channel.h>

#include <stdlib.h>
#include <string.h>

#include "hccl.h"

emu_status emu_channel_config_create(struct emu_channel_config **out)
{
    struct emu_channel_config *x = calloc(1, sizeof(*x));

    if (x == NULL)
        return EMU_ENOMEM;
    emu_registry_add(&x->reg, EMU_REG_CHANNEL_CONFIG);
    *out = x;
    return EMU_OK;
}

bool emu_channel_config_lookup(const void *user, struct emu_channel_config **out)
{
    if (!emu_registry_has(user, EMU_REG_CHANNEL_CONFIG))
        return false;
    *out = (struct emu_channel_config *)user;
    return true;
}

bool emu_channel_config_destroy(const void *user)
{
    /* The registry compares addresses only: `user` is not dereferenced unless it is live. */
    struct emu_channel_config *x = (struct emu_channel_config *)user;

    if (!emu_registry_remove(&x->reg, EMU_REG_CHANNEL_CONFIG))
        return false;
    free(x);
    return true;
}

/* The live config behind `user`, or EMU_EINVAL with one line naming the call. */
static emu_status live(const void *user, struct emu_channel_config **x, const char *fn)
{
    if (!emu_channel_config_lookup(user, x))
        return emu_hccl_bad(NULL, fn, "config %p is not a live channel config", user);
    return EMU_OK;
}

emu_status emu_channel_config_set_int(const void *user, int32_t type, uint32_t value,
                                      const char *fn)
{
    struct emu_channel_config *x;
    emu_status s = live(user, &x, fn);

    if (s != EMU_OK)
        return s;
    if (type != HCCL_CHANNEL_CONFIG_TYPE_IS_SHARED_QUEUE)
        return emu_hccl_bad(NULL, fn, "type %d is not an integer setting (IS_SHARED_QUEUE)",
                            (int)type);
    x->shared = value != 0;
    return EMU_OK;
}

emu_status emu_channel_config_set_str(const void *user, int32_t type, const char *value,
                                      const char *fn)
{
    struct emu_channel_config *x;
    emu_status s = live(user, &x, fn);

    if (s != EMU_OK)
        return s;
    if (type != HCCL_CHANNEL_CONFIG_TYPE_SHARED_QUEUE_TAG)
        return emu_hccl_bad(NULL, fn, "type %d is not a string setting (SHARED_QUEUE_TAG)",
                            (int)type);
    if (value == NULL)
        return emu_hccl_bad(NULL, fn, "value is NULL");
    size_t len = strnlen(value, sizeof(x->tag));
    if (len >= sizeof(x->tag))
        return emu_hccl_bad(NULL, fn, "the tag is longer than %zu bytes", sizeof(x->tag) - 1);
    memcpy(x->tag, value, len + 1);
    return EMU_OK;
}
