/* hccl_channel_config.c - channel-config objects (see hccl_channel_config.h). */
#include "hccl_channel_config.h"

#include <stdlib.h>

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
