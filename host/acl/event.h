/* event.h - ACL events, backed by slots of a device's notify pool. */
#ifndef HCEMU_HOST_EVENT_H
#define HCEMU_HOST_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/status.h"
#include "stream.h"

struct emu_event;

emu_status emu_event_create(struct emu_hdev *d, struct emu_event **out) EMU_MUST_CHECK;
emu_status emu_event_check(void *user, struct emu_event **out) EMU_MUST_CHECK;
/* Events of aclrtCreateEventExWithFlag are marked: only those may be captured (acl_graph.c). */
void emu_event_mark_ex(struct emu_event *e);
bool emu_event_is_ex(const struct emu_event *e);
/* Whether the event was recorded at least once. */
bool emu_event_recorded(struct emu_event *e);
emu_status emu_event_record(struct emu_event *e, struct emu_hstream *s,
                            uint64_t callsite) EMU_MUST_CHECK;
emu_status emu_event_wait(struct emu_hstream *s, struct emu_event *e,
                          uint64_t callsite) EMU_MUST_CHECK;
emu_status emu_event_sync(struct emu_event *e) EMU_MUST_CHECK;
void emu_event_destroy(struct emu_event *e);

/* Milliseconds from start's last record to end's (both waited for): wall clock, or the
 * modelled clock with HCEMU_TIME=model. EMU_EINVAL when one was never recorded. */
emu_status emu_event_elapsed(struct emu_event *start, struct emu_event *end,
                             float *ms) EMU_MUST_CHECK;

#endif
