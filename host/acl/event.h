/* event.h - ACL events and ACL notifies, both backed by slots of a device's notify pool. */
#ifndef HCEMU_HOST_EVENT_H
#define HCEMU_HOST_EVENT_H

#include <stdint.h>

#include "common/status.h"
#include "stream.h"

struct emu_event;
struct emu_acl_notify;

emu_status emu_event_create(struct emu_hdev *d, struct emu_event **out) EMU_MUST_CHECK;
emu_status emu_event_check(void *user, struct emu_event **out) EMU_MUST_CHECK;
emu_status emu_event_record(struct emu_event *e, struct emu_hstream *s,
                            uint64_t callsite) EMU_MUST_CHECK;
emu_status emu_event_wait(struct emu_hstream *s, struct emu_event *e,
                          uint64_t callsite) EMU_MUST_CHECK;
emu_status emu_event_sync(struct emu_event *e) EMU_MUST_CHECK;
emu_status emu_event_destroy(struct emu_event *e) EMU_MUST_CHECK;

emu_status emu_acl_notify_create(struct emu_hdev *d, struct emu_acl_notify **out) EMU_MUST_CHECK;
emu_status emu_acl_notify_check(void *user, struct emu_acl_notify **out) EMU_MUST_CHECK;
emu_status emu_acl_notify_destroy(struct emu_acl_notify *n) EMU_MUST_CHECK;
emu_status emu_acl_notify_record(struct emu_acl_notify *n, struct emu_hstream *s,
                                 uint64_t callsite) EMU_MUST_CHECK;
emu_status emu_acl_notify_wait(struct emu_acl_notify *n, struct emu_hstream *s, uint32_t timeout_s,
                               uint64_t callsite) EMU_MUST_CHECK;
uint32_t emu_acl_notify_id(const struct emu_acl_notify *n);
/* Drop the events and notifies of device d (device close): their slots live in the control
 * block that goes away, so later uses of the handles are refused instead of followed. */
void emu_event_forget_device(struct emu_hdev *d);

#endif
