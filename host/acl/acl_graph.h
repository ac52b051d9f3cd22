/* acl_graph.h - ACL graph capture (aclmdlRI): tasks issued on a capturing stream are recorded
 * into a graph instead of being queued; an execute queues the recorded tasks again, with
 * their captured arguments, on any stream of the graph's device (docs/GRAPH_CAPTURE.md).
 *
 * The hooks below are what the rest of the runtime calls: each is a single load of a counter
 * while no capture is active anywhere in the process. */
#ifndef HCEMU_HOST_ACL_GRAPH_H
#define HCEMU_HOST_ACL_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/status.h"
#include "common/contract/wire.h"
#include "event.h"
#include "stream.h"

struct emu_graph;

/* The vendor's aclmdlRICaptureMode and aclmdlRICaptureStatus values. */
enum { EMU_CAPTURE_GLOBAL, EMU_CAPTURE_THREAD_LOCAL, EMU_CAPTURE_RELAXED, EMU_CAPTURE_MODES };
enum { EMU_CAPTURE_NONE, EMU_CAPTURE_ACTIVE, EMU_CAPTURE_INVALIDATED };

/* --- hooks of the runtime ----------------------------------------------------------------- */

/* Whether stream s (a user stream, or an HCCL thread wrapping its slot) is being captured. */
bool emu_aclgraph_capturing(const struct emu_hstream *s);
/* emu_stream_submit's first step (its capture hook, set by the first emu_aclgraph_begin):
 * when s is being captured, record task w in its graph (*taken = true) and return the
 * outcome; a kernel task whose argument block the executor would free (EMU_WIRE_FREE_ARGS)
 * hands the block to the graph. */
emu_status emu_aclgraph_take_task(struct emu_hstream *s, const struct emu_wire_task *w,
                                  bool *taken) EMU_MUST_CHECK;
/* aclrtRecordEvent / aclrtStreamWaitEvent: captured when the stream (record) or the event or
 * the stream (wait) takes part in a capture (*taken = true); refused with the vendor's code
 * where the runtime refuses. A wait on an event recorded in a capture joins the stream to it. */
emu_status emu_aclgraph_event_record(struct emu_event *e, struct emu_hstream *s, uint64_t callsite,
                                     bool *taken) EMU_MUST_CHECK;
emu_status emu_aclgraph_event_wait(struct emu_hstream *s, struct emu_event *e, uint64_t callsite,
                                   bool *taken) EMU_MUST_CHECK;
/* Refusals during capture, each with one log line naming fn: synchronising or destroying a
 * capturing stream (EMU_ECAPTURED), synchronising a device with one (EMU_ECAPTURED), waiting
 * for or timing an event recorded in a capture (EMU_EEVENT_CAPTURED), and a synchronous copy
 * or memset the calling thread's capture mode forbids (EMU_ECAPTURE_MODE). */
emu_status emu_aclgraph_check_stream(const struct emu_hstream *s, const char *fn) EMU_MUST_CHECK;
emu_status emu_aclgraph_check_device(uint32_t dev, const char *fn) EMU_MUST_CHECK;
emu_status emu_aclgraph_check_event(const struct emu_event *e, const char *fn) EMU_MUST_CHECK;
emu_status emu_aclgraph_check_mode(const char *fn) EMU_MUST_CHECK;

/* --- the aclmdlRI calls (api_acl_acl_graph.c validates handles and arguments) ---------------- */

emu_status emu_aclgraph_begin(struct emu_hstream *s, int mode) EMU_MUST_CHECK;
/* Ends the capture begun on s; the graph in *out. */
emu_status emu_aclgraph_end(struct emu_hstream *s, struct emu_graph **out) EMU_MUST_CHECK;
/* rtStreamAddToModel: s takes part in g's capture from now on, and need not be joined back. */
emu_status emu_aclgraph_add_stream(struct emu_graph *g, struct emu_hstream *s) EMU_MUST_CHECK;
/* Status of s and the graph it is captured into (NULL when none). */
void emu_aclgraph_info(const struct emu_hstream *s, int *status, struct emu_graph **g);
/* Swap the calling thread's capture mode with *mode. */
void emu_aclgraph_exchange_mode(int *mode);
emu_status emu_aclgraph_check(const void *user, struct emu_graph **out) EMU_MUST_CHECK;
/* Queue the graph's tasks on s in the order they were captured. */
emu_status emu_aclgraph_execute(struct emu_graph *g, struct emu_hstream *s,
                                uint64_t callsite) EMU_MUST_CHECK;
/* Waits for the graph's queued executions, runs its destroy callbacks, frees it. */
emu_status emu_aclgraph_destroy(struct emu_graph *g) EMU_MUST_CHECK;
emu_status emu_aclgraph_set_name(struct emu_graph *g, const char *name) EMU_MUST_CHECK;
const char *emu_aclgraph_name(const struct emu_graph *g);
uint32_t emu_aclgraph_id(const struct emu_graph *g);
/* One line per task on stdout (aclmdlRIDebugPrint), or a JSON file (DebugJsonPrint). */
void emu_aclgraph_print(const struct emu_graph *g);
emu_status emu_aclgraph_print_json(const struct emu_graph *g, const char *path) EMU_MUST_CHECK;
typedef void (*emu_aclgraph_cb)(void *user);
emu_status emu_aclgraph_on_destroy(struct emu_graph *g, emu_aclgraph_cb fn, void *user,
                                   bool add) EMU_MUST_CHECK;

#endif
