/* hccl_channel_config.h - channel-config objects (HcclChannelConfigCreate): the settings of
 * a shared-queue channel acquisition, kept until the user destroys them. Handles are
 * validated through the ACL handle registry. */
#ifndef HCEMU_HOST_HCCL_CHANNEL_CONFIG_H
#define HCEMU_HOST_HCCL_CHANNEL_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/status.h"
#include "host/acl/registry.h"

#define EMU_CHANNEL_CONFIG_TAG_MAX 255u /* bytes of a shared-queue tag, with its NUL */

struct emu_channel_config {
    struct emu_registry_entry reg; /* first: the user's HcclChannelConfig points here */
    bool shared;
    char tag[EMU_CHANNEL_CONFIG_TAG_MAX];
};

/* A new, empty config; the user frees it with emu_channel_config_destroy(). */
emu_status emu_channel_config_create(struct emu_channel_config **out) EMU_MUST_CHECK;
/* The live config behind a user handle; silent (callers log with their context). */
bool emu_channel_config_lookup(const void *user, struct emu_channel_config **out);
/* Withdraw and free a config; false when `user` is not a live config. */
bool emu_channel_config_destroy(const void *user);
/* HcclChannelConfigSetInt/SetStr: a live config, a setting of that kind, a value that fits;
 * EMU_EINVAL with one line naming `fn` otherwise. */
emu_status emu_channel_config_set_int(const void *user, int32_t type, uint32_t value,
                                      const char *fn) EMU_MUST_CHECK;
emu_status emu_channel_config_set_str(const void *user, int32_t type, const char *value,
                                      const char *fn) EMU_MUST_CHECK;

#endif
