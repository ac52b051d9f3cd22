/* dp.h - the HCOMM data plane inside the executor: what device/dp/api_hcomm.c (the Hcomm* calls
 * kernels make) builds on.
 *
 * A call validates its arguments (dp_check.c), builds one task (dp_task.c) and hands it to
 * dp_submit.c, which either gives it to the scheduler at once (eager mode) or keeps it in the
 * calling OS thread's batch until HcommBatchModeEnd (dp_submit.c), and copies it into the task
 * cache while one is being recorded (dp_cache.c). Blocking drains live in dp_drain.c.
 * Every refusal is logged once, by emu_hcomm_check_refuse() (common/contract/hcomm_check.h, shared
 * with the host), with rank, thread, call and call site. Task kinds and their facts are the
 * rows of dp_kinds.h. */
#ifndef HCEMU_DEVICE_DP_H
#define HCEMU_DEVICE_DP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/contract/devctl.h"
#include "common/contract/handle.h"
#include "common/contract/hcomm_check.h"
#include "common/contract/status.h"
#include "common/contract/symwin.h"
#include "dp_kinds.h"
#include "device/exec.h"
#include "device/sched/sched.h"

#define EMU_DP_NONE UINT32_MAX
#define EMU_DP_BATCH_LIMIT 128u          /* tasks pending on one queue before it is released */
#define EMU_DP_DEFAULT_WAIT_S 1836u      /* HcommSetNotifyWaitTimeOut default (device) */
#define EMU_DP_DEFAULT_RES_S 1856u       /* HcommThreadResAcquireTimeOut default */
#define EMU_DP_SPREAD_MAX 256u           /* ranks of a reduce-spread task (HCOLL_MAX_RANKS) */

/* The payload of a data-plane task, in emu_task.u.raw. Addresses are global device
 * addresses; the maps say through which mapping this process reaches them, resolved at the
 * call so the task itself does no lookups beyond its liveness check. */
struct emu_dp_op {
    uint64_t dst;
    uint64_t src;
    uint64_t len;   /* bytes moved (count * element size for reductions) */
    uint64_t count; /* elements (reductions) */
    struct emu_devmap *dst_map;
    struct emu_devmap *src_map;
    struct emu_devctl *notify_ctl; /* record: control block owning the slot; wait: ours */
    int32_t dtype;
    int32_t op;
    uint32_t notify_slot; /* EMU_DP_NONE when the task sets no notify */
    uint32_t channel;     /* channel slot, EMU_DP_NONE for thread-only tasks */
    /* A task that records or waits has a notify and no published source; a published read
     * has neither, and a read-reduce into a third buffer takes the room (the payload fills
     * the task's last line to the byte). */
    union {
        struct {
            uint32_t notify_dev;
            uint32_t timeout_s; /* waits: seconds, 0 = forever */
        };
        /* EMU_DPF_PUBLISHED with EMU_DPF_REDUCE: dst = op(own, src), or op(src, own) when
         * own_first is 0, `own` in this device's memory; 0: op(dst, src), as every other
         * reduction. */
        uint64_t own;
        /* EMU_DPF_SPREAD: the ranks, mine among them, and the distance between two ranks'
         * mailboxes, which start at `mailbox` (hcemu_reduce_spread_published). */
        struct {
            uint16_t spread_n;
            uint16_t spread_me;
            uint32_t spread_stride;
        };
    };
    uint32_t net_dev;     /* the channel's peer's device, when `net` */
    uint8_t net;          /* 1: the channel's peer is on another host (device/net/net.h) */
    uint8_t net_diag;     /* 1: the peer shares this job folder, so its diagnostics files */
    uint8_t copy_mode;    /* enum emu_copy_mode: the launch's (kernel.h), for copies */
    uint8_t own_first;    /* see `own` */
    uint64_t mailbox;     /* EMU_DPF_PUBLISHED: where in this device the peer put its base */
    uint64_t pub_off;     /* EMU_DPF_PUBLISHED: src (a read) or dst (a write) = base + pub_off */
    /* The device whose stream the task belongs to when another executor runs it (the
     * job-wide run queue, runq.c); NULL for this executor's own tasks. */
    struct emu_devctl *home_ctl;
};
_Static_assert(sizeof(struct emu_dp_op) <= sizeof(((struct emu_task *)0)->u.raw),
               "data-plane payload fits in a task");

static inline struct emu_dp_op *emu_dp_op_of(struct emu_task *t)
{
    return (struct emu_dp_op *)(void *)t->u.raw;
}

/* The local operand of a published read-reduce into a third buffer, 0 for any other task
 * (kind flags f; elsewhere the field's bytes are the notify's). */
static inline uint64_t emu_dp_own_of(const struct emu_dp_op *o, uint32_t f)
{
    const uint32_t both = EMU_DPF_PUBLISHED | EMU_DPF_REDUCE;

    return (f & both) == both ? o->own : 0;
}

/* --- dp_check.c: argument validation; each refusal logs one line and returns a status ----
 * Shared with the host (common/contract/hcomm_check.h): emu_hcomm_check_refuse, _channel (a live
 * AICPU_TS channel of this device; sets c->channel), _index, _timeout. */

/* The executor's side of the shared checks; every call names it (EMU_DP_CALL below). */
extern const struct emu_hcomm_side emu_dp_check_side;

/* What a kernel calls (api_hcomm.c, api_hccl_device.c): exported, never inlined (its return
 * address is the kernel's call site), and the call's record for the checks above. */
#define EMU_DP_API __attribute__((visibility("default"), noinline))
#define EMU_DP_CALL(name)                                                                      \
    struct emu_hcomm_call c = {.side = &emu_dp_check_side,                                     \
                               .fn = (name),                                                   \
                               .callsite = (uint64_t)(uintptr_t)__builtin_return_address(0), \
                               .dev = emu_exec_g.dev,                                          \
                               .thread = EMU_HCOMM_NONE,                                       \
                               .channel = EMU_HCOMM_NONE}
/* Refuse with EMU_ENOTSUP: `what` says which product lacks which feature. */
emu_status emu_dp_check_not_supported(const struct emu_hcomm_call *c,
                                      const char *what) EMU_MUST_CHECK;
/* The executing AICPU_TS thread of a call: a live, non-exported AICPU_TS thread of this
 * device. Sets c->thread. EMU_ENULL for 0, EMU_EHANDLE otherwise. */
emu_status emu_dp_check_thread(struct emu_hcomm_call *c, uint64_t h, uint32_t *slot) EMU_MUST_CHECK;
/* A channel call's thread (as emu_dp_check_thread) and its channel (emu_hcomm_check_channel):
 * the first that fails names the call's error. */
emu_status emu_dp_check_thread_channel(struct emu_hcomm_call *c, uint64_t thread,
                                       uint64_t channel, uint32_t *slot,
                                       uint32_t *ch) EMU_MUST_CHECK;
/* The destination of a thread-notify record: an AICPU_TS thread of this device or a CPU_TS
 * thread exported to AICPU_TS. Outputs its notify base and count. */
emu_status emu_dp_check_dst_thread(struct emu_hcomm_call *c, uint64_t h, uint32_t *slot,
                                   uint32_t *notify_base, uint32_t *notify_num) EMU_MUST_CHECK;
/* Non-NULL pointer argument. */
emu_status emu_dp_check_ptr(const struct emu_hcomm_call *c, const char *what,
                            const void *p) EMU_MUST_CHECK;
/* [addr, addr+len) inside one live allocation of this device; len 0 passes. */
emu_status emu_dp_check_local(const struct emu_hcomm_call *c, const char *what, uint64_t addr,
                              uint64_t len) EMU_MUST_CHECK;
/* [addr, addr+len) inside one memory the channel reaches on the peer; outputs the peer's
 * mapping. len 0 passes the range test. */
emu_status emu_dp_check_remote(const struct emu_hcomm_call *c, uint32_t ch, const char *what,
                               uint64_t addr, uint64_t len,
                               struct emu_devmap **map) EMU_MUST_CHECK;
/* count * element size without overflow, for a (type, op) valid at the call's site. */
emu_status emu_dp_check_reduce(const struct emu_hcomm_call *c, int dtype, int op, uint64_t count,
                               bool remote, uint64_t *bytes) EMU_MUST_CHECK;
/* The control block of the peer of channel `ch` (for remote notify records). */
emu_status emu_dp_check_peer_ctl(const struct emu_hcomm_call *c, uint32_t ch,
                                 struct emu_devctl **out) EMU_MUST_CHECK;
/* Whether [addr, addr+len) is inside a live allocation of the device mapped by `m`
 * (run-time check of a task; any device of the job). */
bool emu_dp_check_range_alive(const struct emu_devmap *m, uint64_t addr, uint64_t len);
/* --- dp_symwin.c: symmetric windows (HcclCommSymWinRegister) ---------------------------- */

/* The descriptor behind window handle h, or NULL (silently) when h is not a registered
 * window of this device. */
const struct emu_symwin_desc *emu_dp_symwin_desc(uint64_t h);
/* Whether [addr, addr+len) lies in peer_rank's copy of a window that communicator comm_id
 * registered on this device: a channel to that peer may then reach it. */
bool emu_dp_symwin_reaches(uint64_t comm_id, uint32_t peer_rank, uint64_t addr, uint64_t len);
/* --- dp_task.c: task kinds (dp_kinds.h) run and described from their row ---------------- */

/* Register the kind names with the report module (executor start-up). */
void emu_dp_task_init(void);
/* A new task of `kind` for stream `slot`, payload zeroed except notify_slot/channel = NONE;
 * NULL when out of memory (logged). */
struct emu_task *emu_dp_task_new(uint32_t kind);
/* Fill the diagnostics metadata (acc[], sync_*) from the payload. */
void emu_dp_task_describe(struct emu_task *t);
/* The run function of every data-plane task (what its kind's row says). */
enum emu_run_result emu_dp_task_run(struct emu_task *t);
/* EMU_DPF_PUBLISHED: set t's peer end (a read's source, a write's destination) to the address
 * the peer wrote into the mailbox, read through `self` (this executor's mapping of the task's
 * own device), pub_off past it; it must lie in the memory of device `peer`. Then mailbox is 0:
 * the task runs with that address. False, with the task's status and note, when it does not.
 * The task's run does this itself unless the job-wide run queue's runner did (runq.c). */
bool emu_dp_resolve_published(struct emu_task *t, struct emu_devmap *self, uint32_t peer);
/* The move alone of a wait-then-move task whose notify the caller has consumed (the job-wide
 * run queue's runner, runq.c): DONE or FAIL, never PARK. */
enum emu_run_result emu_dp_task_run_moved(struct emu_task *t);
/* Called by a record after it set notify `slot` of another device's `ctl`, instead of
 * ringing it: true when the hand-off needs no ring (the job-wide run queue, runq.c, sets
 * it; NULL: always ring). */
extern bool (*emu_dp_task_handoff_hook)(struct emu_devctl *ctl, uint32_t slot);


/* --- dp_build.c: one task per call, after the call-specific checks ---------------------- */

/* Local copy (reduce false: n = bytes) or reduce (n = elements of dtype). */
emu_status emu_dp_build_local(const struct emu_hcomm_call *c, bool reduce, const void *dst,
                              const void *src, uint64_t n, int dtype, int op,
                              struct emu_task **out) EMU_MUST_CHECK;
/* A channel transfer of `kind` (a dp_kinds.h row with EMU_DPF_REMOTE_DST or _SRC); n = bytes,
 * or elements for EMU_DPF_REDUCE kinds; idx = remote notify for EMU_DPF_RECORD kinds. */
emu_status emu_dp_build_remote(const struct emu_hcomm_call *c, uint32_t ch, uint32_t kind,
                               const void *dst, const void *src, uint64_t n, int dtype, int op,
                               uint32_t idx, struct emu_task **out) EMU_MUST_CHECK;
/* A record of `kind` (THREAD_RECORD; DONE_RECORD for hcemu_record_done) of notify idx of
 * thread dst_thread. */
emu_status emu_dp_build_thread_record(const struct emu_hcomm_call *c, uint32_t kind,
                                      uint64_t dst_thread, uint32_t idx,
                                      struct emu_task **out) EMU_MUST_CHECK;
emu_status emu_dp_build_thread_wait(const struct emu_hcomm_call *c, uint32_t thread, uint32_t idx,
                                    uint32_t timeout_s, struct emu_task **out) EMU_MUST_CHECK;
emu_status emu_dp_build_channel_record(const struct emu_hcomm_call *c, uint32_t ch, uint32_t idx,
                                       struct emu_task **out) EMU_MUST_CHECK;
emu_status emu_dp_build_channel_wait(const struct emu_hcomm_call *c, uint32_t ch, uint32_t idx,
                                     uint32_t timeout_s, struct emu_task **out) EMU_MUST_CHECK;
/* A read (reduce false: n = bytes) or read-reduce (n = elements of dtype) through channel `ch`
 * into `dst` from the peer's memory at `off` past the address the peer writes into the 8
 * bytes at `mailbox` (this device) before the task runs. A read-reduce with `own` (this
 * device's memory, dst itself or apart from it) writes op(own, src) into dst, or op(src, own)
 * when !own_first; without, op(dst, src). */
emu_status emu_dp_build_read_published(const struct emu_hcomm_call *c, uint32_t ch, bool reduce,
                                       const void *dst, const void *own, bool own_first,
                                       const void *mailbox, uint64_t off, uint64_t n, int dtype,
                                       int op, struct emu_task **out) EMU_MUST_CHECK;
/* A reduction of my part `own` and every peer's published part, in rank order, written to
 * `mine` and to every peer's published output (hcemu_reduce_spread_published): chans[q] for
 * each peer q != me, the mailbox of rank q at mailbox + q * stride (this device), `off` past
 * both published addresses. */
emu_status emu_dp_build_reduce_spread(const struct emu_hcomm_call *c, const uint64_t *chans,
                                      uint32_t n, uint32_t me, const void *own, void *mine,
                                      const void *mailbox, uint32_t stride, uint64_t off,
                                      uint64_t count, int dtype, int op,
                                      struct emu_task **out) EMU_MUST_CHECK;
/* A write of `len` bytes from `src` (this device) through channel `ch` into the peer's memory
 * at `off` past the address the peer writes into the 8 bytes at `mailbox` (this device)
 * before the task runs. */
emu_status emu_dp_build_write_published(const struct emu_hcomm_call *c, uint32_t ch,
                                        const void *mailbox, uint64_t off, const void *src,
                                        uint64_t len, struct emu_task **out) EMU_MUST_CHECK;
/* A wait for notify idx of channel `ch`, then a local copy (reduce false: n = bytes) or
 * reduce (n = elements of dtype), as one task (hcemu_wait_copy, hcemu_wait_reduce). */
emu_status emu_dp_build_wait_move(const struct emu_hcomm_call *c, uint32_t ch, uint32_t idx,
                                  uint32_t timeout_s, bool reduce, const void *dst,
                                  const void *src, uint64_t n, int dtype, int op,
                                  struct emu_task **out) EMU_MUST_CHECK;
/* Runtime notify by aclrtGetNotifyId id: record (any device of the job) or wait (ours). */
emu_status emu_dp_build_acl(const struct emu_hcomm_call *c, uint64_t id, bool wait,
                            uint32_t timeout_s, struct emu_task **out) EMU_MUST_CHECK;

/* --- dp_submit.c: per-OS-thread state, batch mode, hand-over ----------------------------- */

/* Queue t on thread `slot` (eager: now; batch: at End or at 128 pending). Takes ownership.
 * Sets origin, callsite, from_kernel and the metadata. */
void emu_dp_submit_task(const struct emu_hcomm_call *c, uint32_t slot, struct emu_task *t);
/* The end of a call that builds one task: queue t on `slot` when the checks and the build
 * passed (`st`), and the call's HcclResult either way. */
int32_t emu_dp_submit_built(const struct emu_hcomm_call *c, uint32_t slot, emu_status st,
                            struct emu_task *t);
/* A record of notify idx of thread `dst` on thread `thread`, of `kind` (THREAD_RECORD, or
 * DONE_RECORD for hcemu_record_done): checks, build and queue, and the call's HcclResult. */
int32_t emu_dp_record_on_thread(struct emu_hcomm_call *c, uint32_t kind, uint64_t thread,
                                uint64_t dst, uint32_t idx);
/* Release this OS thread's pending tasks of thread `slot` (all threads when EMU_DP_NONE). */
void emu_dp_submit_flush(uint32_t slot);
emu_status emu_dp_submit_batch_start(const struct emu_hcomm_call *c,
                                     const char *tag) EMU_MUST_CHECK;
emu_status emu_dp_submit_batch_end(const struct emu_hcomm_call *c, const char *tag) EMU_MUST_CHECK;
bool emu_dp_submit_in_batch(void);
uint32_t emu_dp_submit_default_wait_s(void);
void emu_dp_submit_set_default_wait_s(uint32_t s);
void emu_dp_submit_set_res_timeout_s(uint32_t s);
/* At kernel exit (part of emu_dp_drain_kernel_exit): warn about a forgotten batch, submit
 * what is pending. */
void emu_dp_submit_kernel_exit(void);
/* Sees every submitted task (the task cache records them); set by dp_drain.c. */
extern void (*emu_dp_submit_note_hook)(const struct emu_task *t);

/* --- dp_cache.c: AICPU_TS task cache --------------------------------------------------- */

/* Whether tasks are being recorded on this OS thread; then emu_dp_cache_note() keeps a copy. */
bool emu_dp_cache_recording(void);
void emu_dp_cache_note(const struct emu_task *t);
/* emu_dp_cache_note() when recording (emu_dp_submit_note_hook). */
void emu_dp_cache_observe(const struct emu_task *t);
emu_status emu_dp_cache_lookup(const struct emu_hcomm_call *c, const char *tag,
                               bool *hit) EMU_MUST_CHECK;
emu_status emu_dp_cache_start(const struct emu_hcomm_call *c, const char *tag, void **addrs,
                              const uint64_t *sizes, uint64_t count) EMU_MUST_CHECK;
emu_status emu_dp_cache_end(const struct emu_hcomm_call *c, const char *tag) EMU_MUST_CHECK;
emu_status emu_dp_cache_execute(const struct emu_hcomm_call *c, const char *tag, void **addrs,
                                const uint64_t *sizes, uint64_t count) EMU_MUST_CHECK;
emu_status emu_dp_cache_clear(const struct emu_hcomm_call *c, const char *tag) EMU_MUST_CHECK;
/* Forget this OS thread's cache context (kernel exit); true when it was mid-recording a
 * kernel's tag (an own expansion being recorded is dropped without a word). */
bool emu_dp_cache_reset(void);
/* hcemu's own collectives kernel (hcemu_cache_replay): queue again the tasks recorded under
 * `key` (`len` bytes, at most HCOLL_KEY_MAX of collectives/coll_abi.h) for launches of
 * `copy_mode` (true), or start recording them on this OS thread (false: the kernel expands
 * the launch, then emu_dp_cache_own_end() keeps what it queued meanwhile). */
bool emu_dp_cache_own_replay(const struct emu_hcomm_call *c, const void *key, uint32_t len,
                             uint32_t copy_mode);
void emu_dp_cache_own_end(void);

/* --- dp_drain.c: blocking joins and drains; comm lock ---------------------------------- */

/* Flush this OS thread's pending tasks of `slot`, then wait until its queue is empty.
 * timeout_s 0 = forever. EMU_ETIMEOUT on expiry, EMU_ETASK_FAIL when the thread failed. */
emu_status emu_dp_drain_join(const struct emu_hcomm_call *c, uint32_t slot,
                             uint32_t timeout_s) EMU_MUST_CHECK;
emu_status emu_dp_drain_comm_acquire(const struct emu_hcomm_call *c,
                                     const char *name) EMU_MUST_CHECK;
/* Whether a live communicator member called `name` is on this device. */
bool emu_dp_drain_comm_exists(const char *name);
/* Release communicator `name` if this thread holds it; unknown names are no error. */
void emu_dp_drain_comm_release(const char *name);
/* emu_kernel_exit_hook: end the batch, drop an unfinished cache entry, release comm locks. */
void emu_dp_drain_kernel_exit(void);
/* Release the comm locks this OS thread still holds; returns how many. */
uint32_t emu_dp_drain_comm_release_all(void);

#endif
