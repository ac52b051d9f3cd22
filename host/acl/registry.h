/* registry.h - the one list of live objects that users hold handles to (ACL streams, events,
 * notifies, binaries, functions, captured graphs; HCCL channel configs). A user handle is
 * accepted only when it is found here with the right kind, so stale, foreign and random
 * pointers are refused without being dereferenced. Objects embed a `struct emu_registry_entry`
 * as their first member. */
#ifndef HCEMU_HOST_REGISTRY_H
#define HCEMU_HOST_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/status.h"

enum emu_registry_kind {
    EMU_REG_STREAM,
    EMU_REG_EVENT,
    EMU_REG_NOTIFY,
    EMU_REG_BINARY,
    EMU_REG_FUNCTION,
    EMU_REG_CHANNEL_CONFIG, /* HcclChannelConfig (host/hccl/hccl_channel_config.c) */
    EMU_REG_GRAPH,          /* aclmdlRI, a captured graph (acl_graph.c) */
    EMU_REG_KINDS
};

struct emu_hdev;

/* Owned by the registry while the object is registered: written under its lock. */
struct emu_registry_entry {
    uint32_t magic;       /* the kind's magic while registered, 0 after removal */
    struct emu_hdev *dev; /* device whose loss frees the object, or NULL */
    struct emu_registry_entry *next;
};

/* Publish `e` (the first member of its object) as a live handle of kind k. */
void emu_registry_add(struct emu_registry_entry *e, enum emu_registry_kind k);
/* The same for an object that lives in device d's control block (a stream or notify slot):
 * when d is closed or lost the registry withdraws it and frees it (it must come from malloc;
 * emu_registry_on_release names what else it owns), so later uses of the handle are refused. */
void emu_registry_add_on(struct emu_registry_entry *e, enum emu_registry_kind k,
                         struct emu_hdev *d);
/* Withdraw `e`; false when it was not registered as kind k (already removed). */
bool emu_registry_remove(struct emu_registry_entry *e, enum emu_registry_kind k);
/* What a lost device's objects of kind k own besides themselves: called on each such object
 * just before it is freed, with the registry's lock held (the release must not call back). */
typedef void (*emu_registry_release_fn)(struct emu_registry_entry *e);
void emu_registry_on_release(enum emu_registry_kind k, emu_registry_release_fn fn);
/* The object behind user handle `user` if it is a live object of kind k. Else the kind's
 * error code (EMU_ESTREAM for streams, EMU_EINVAL for channel configs, EMU_EHANDLE
 * otherwise) and one log line. */
emu_status emu_registry_check(const void *user, enum emu_registry_kind k,
                              void **out) EMU_MUST_CHECK;
/* Like emu_registry_check(), silent: callers log with their own context. */
bool emu_registry_has(const void *user, enum emu_registry_kind k);

/* Called for each entry of a kind under the registry lock; returning true withdraws the
 * entry, and the callback may have freed it already. Callbacks must not call the registry. */
typedef bool (*emu_registry_visit_cb)(struct emu_registry_entry *e, void *arg);
void emu_registry_visit(enum emu_registry_kind k, emu_registry_visit_cb cb, void *arg);

#endif
