/* acl_notify.h - ACL notifies (aclrtCreateNotify), binary slots of a device's notify pool. */
#ifndef HCEMU_HOST_ACL_NOTIFY_H
#define HCEMU_HOST_ACL_NOTIFY_H

#include <stdint.h>

#include "common/contract/status.h"
#include "stream.h"

struct emu_acl_notify;

emu_status emu_acl_notify_create(struct emu_hdev *d, struct emu_acl_notify **out) EMU_MUST_CHECK;
/* The live notify behind a user handle; EMU_EHANDLE (one log line) otherwise. */
emu_status emu_acl_notify_check(void *user, struct emu_acl_notify **out) EMU_MUST_CHECK;
void emu_acl_notify_destroy(struct emu_acl_notify *n);
emu_status emu_acl_notify_record(struct emu_acl_notify *n, struct emu_hstream *s,
                                 uint64_t callsite) EMU_MUST_CHECK;
emu_status emu_acl_notify_wait(struct emu_acl_notify *n, struct emu_hstream *s, uint32_t timeout_s,
                               uint64_t callsite) EMU_MUST_CHECK;
uint32_t emu_acl_notify_id(const struct emu_acl_notify *n);

#endif
