/* devctl.h - the control memory of one emulated device (file dev<N>.ctl in the job folder).
 *
 * Mapped MAP_SHARED by the device's executor, by every host process using the device, and by
 * executors of peer devices (to record notifies remotely). Offsets and fixed-width types only,
 * no pointers. Lock order: alloc.lock before res_lock before sq.lock; no other lock is held
 * while taking one of these. All three are robust process-shared mutexes, so a process that
 * dies holding one does not wedge the others (see emu_devctl_lock()). */
#ifndef HCEMU_COMMON_DEVCTL_H
#define HCEMU_COMMON_DEVCTL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "host_id.h"
#include "common/platform/range.h"
#include "settings.h"
#include "status.h"
#include "wire.h"

#define EMU_DEVCTL_MAGIC 0x3154434d45434845ull /* "HCEMCT1" */
#define EMU_DEVCTL_VERSION 15u
#define EMU_MAX_ALLOCS 16384u
#define EMU_MAX_STREAMS 2048u /* the 950 allows 1984 streams per device */
#define EMU_MAX_NOTIFIES (1u << 18)
#define EMU_MAX_NOTIFY_RANGES 8192u
#define EMU_MAX_CHANNELS 2048u
#define EMU_MAX_CHANNEL_MEMS 16u
#define EMU_MAX_PEERS 256u
#define EMU_SQ_DEPTH 4096u
#define EMU_PATH_MAX 256u
#define EMU_MAX_COMMS 64u
#define EMU_MAX_SYMWINS 64u /* symmetric windows registered on one device */

enum emu_dev_state {
    EMU_DEV_STARTING = 0,
    EMU_DEV_READY = 1,
    EMU_DEV_FAILED = 2,  /* a kernel crashed or timed out; the executor is gone */
    EMU_DEV_STOPPED = 3, /* orderly exit */
};

enum emu_alloc_kind {
    EMU_ALLOC_USER = 1,    /* aclrtMalloc */
    EMU_ALLOC_HCCL_BUFFER, /* a communicator's HCCL buffer */
    EMU_ALLOC_ENGINE_CTX,  /* HcclEngineCtxCreate on a device engine */
    EMU_ALLOC_ARGS,        /* packed kernel arguments of one launch */
    EMU_ALLOC_STAGING,     /* bounce buffer of an async host copy */
    EMU_ALLOC_NOTIFY,      /* notify-pool ranges (in the notify table, not memory) */
    EMU_ALLOC_SYM_WIN,     /* a symmetric window's descriptor (common/contract/symwin.h) */
};

/* Written by the executor's fault handler with async-signal-safe code only. */
struct emu_fault_record {
    int32_t signo;
    int32_t code;
    uint64_t addr;
    uint64_t pc;
    uint64_t image_base; /* load base of the kernel image holding pc, 0 if none */
    uint32_t in_kernel;  /* the faulting thread was running kernel code */
    uint32_t timed_out;  /* the kernel exceeded its timeout (no signal) */
    uint32_t closed_fds; /* the kernel closed the executor's own descriptors (no signal) */
    uint32_t reserved;
    char kernel[64];
    char image[EMU_PATH_MAX];
};

struct emu_alloc_table {
    pthread_mutex_t lock;
    struct emu_range_set set;
    struct emu_range recs[EMU_MAX_ALLOCS];
};

enum emu_stream_kind {
    EMU_STREAM_FREE = 0,
    EMU_STREAM_ACL = 1,   /* a host stream (aclrtCreateStream or a device's default stream) */
    EMU_STREAM_DEVICE = 2 /* an AICPU_TS thread: fed only by kernels running on the device */
};

enum emu_park_kind {
    EMU_PARK_NONE = 0,
    EMU_PARK_NOTIFY = 1, /* a notify wait whose slot is not set */
    EMU_PARK_EVENT = 2,  /* an event wait */
    EMU_PARK_KERNEL = 3, /* a kernel task whose entry has not returned */
    EMU_PARK_DEFER = 4,  /* a remote delivery deferred by the seeded schedule (HCEMU_SEED) */
    EMU_PARK_NET = 5,    /* a transfer to another host, waiting for its acknowledgement */
};

struct emu_stream_ctl {
    /* Owned by whoever holds res_lock while the slot is created or destroyed. */
    _Atomic uint32_t kind; /* enum emu_stream_kind; FREE means unused */
    uint32_t gen;
    int32_t owner_pid;
    uint32_t notify_base; /* thread notifies: [notify_base, +notify_num) of the pool */
    uint32_t notify_num;
    int32_t engine; /* CommEngine of the thread wrapping the stream, -1 if none */
    uint32_t rank;  /* communicator rank, for reports; UINT32_MAX when none */
    uint32_t thread_index;
    /* Progress, shared by submitter and executor. */
    _Atomic uint32_t submitted; /* host tasks accepted; bumped under sq.lock */
    _Atomic uint32_t completed; /* tasks retired; futex word for stream synchronisation */
    _Atomic uint32_t waiters;   /* host threads asleep on `completed` */
    /* With waiters: the lowest `completed` one of them waits for. A retirement short of it
     * wakes nobody (emu_stream_ctl_wake_due), so a host waiting for the 4000th queued launch
     * to retire sleeps through the 3999 before it. */
    _Atomic uint32_t wake_at;
    _Atomic int32_t error;      /* first failure since the last synchronisation, emu_status */
    _Atomic uint32_t origin;    /* device threads: host stream slot of the last feeding kernel */
    /* What the stream is parked on, published by the executor for the hang watchdog. */
    _Atomic uint32_t parked;    /* enum emu_park_kind */
    uint32_t parked_slot;       /* notify-pool slot (or event slot) */
    uint64_t parked_callsite;
    uint64_t parked_since_ns;
    char label[36];
    char kernel[44]; /* the kernel run while `parked` is EMU_PARK_KERNEL, for reports */
};

struct emu_notify_slot {
    _Atomic uint32_t value;   /* 1 = recorded and not yet consumed; events: sequence */
    _Atomic uint32_t records; /* records ever made (diagnostics) */
    _Atomic uint32_t absorbed; /* records that found the slot already set */
    uint32_t last_recorder;   /* (dev << 24) | stream slot of the last recorder */
    _Atomic uint32_t lost;    /* a record of it was discarded with its failed thread: who
                               * and why (device/dp/lost_record.c); 0 = none */
    /* Job-wide run queue: 1 + the stream whose published work waits on this slot (its
     * runq[] entry), EMU_RUNQ_HOME or 0 (see there). A recorder that finds a stream takes
     * its work. */
    _Atomic uint32_t waiter;
    _Atomic uint64_t stamp_ns; /* events: wall time of the last record (elapsed times) */
};

struct emu_notify_table {
    struct emu_range_set set;
    struct emu_range recs[EMU_MAX_NOTIFY_RANGES];
};

struct emu_channel_mem {
    uint64_t addr; /* global device address on the peer */
    uint64_t size;
    char tag[48];
};

struct emu_channel_ctl {
    _Atomic uint32_t state; /* 0 free, 1 live */
    uint32_t gen;
    int32_t engine;
    int32_t protocol;
    uint32_t local_rank;
    uint32_t remote_rank;
    uint32_t peer; /* index into peers[] */
    uint32_t notify_num;
    uint32_t local_notify_base;  /* our notifies, in our pool: the peer records here */
    uint32_t remote_notify_base; /* the peer's notifies, in its pool: we record there */
    uint32_t remote_channel;     /* the peer's channel slot */
    uint32_t mem_num;
    uint64_t comm_id;
    struct emu_channel_mem mems[EMU_MAX_CHANNEL_MEMS]; /* peer memories reachable */
};

/* A communicator member on this device, so kernels can find it by name
 * (HcommAcquireComm) and reports can name ranks. */
struct emu_comm_ctl {
    _Atomic uint32_t state; /* 0 free, 1 live */
    uint32_t rank;
    uint32_t size;
    _Atomic uint32_t locked; /* HcommAcquireComm holds it */
    uint64_t comm_id;
    char name[128];
    /* The host call that holds this rank on the host while it waits for its peers (channel
     * set-up), or empty: hang reports say so instead of "it finished". Written by the
     * member's host only; `host_call_on` (0/1) is its publication word. */
    _Atomic uint32_t host_call_on;
    char host_call[44];
};

/* A symmetric window registered by a member on this device (HcclCommSymWinRegister): the
 * executor reads it to accept transfers into a peer's copy of the window. Written by the
 * member's host under res_lock, `state` (0 free, 1 live) stored with release last. */
struct emu_symwin_ctl {
    _Atomic uint32_t state;
    uint32_t rank; /* the member's rank */
    uint64_t comm_id;
    uint64_t desc; /* global address of its struct emu_symwin_desc on this device */
};

/* Another device this device exchanges with: its job folder and id locate its files. */
struct emu_peer_ref {
    uint32_t used; /* live channels naming this entry; 0 = free */
    uint32_t dev;
    char job_dir[EMU_PATH_MAX];
    uint64_t host_key; /* the peer's host (common/contract/host_id.h): another host is not mapped */
    char host[EMU_HOST_NAME_MAX]; /* its display name, for reports */
};

/* ---- Job-wide run queue (HCEMU_RUNQ; docs/ARCHITECTURE.md "One job-wide run queue") ----
 * A device thread parked on a notify wait publishes its head tasks here as pointer-free
 * descriptors: the wait, then the data-plane tasks behind it, with global addresses. A
 * worker of any executor of the job that records that notify takes the entry (CAS on
 * `state`) and runs the tasks itself through its own mappings, instead of waking this
 * device's workers: the hand-off is a memory write. The device's own scheduler keeps the
 * tasks' objects and retires them when it next looks (emu_sched, sched.c). An entry grows
 * while it is out (sched.c, extend) up to EMU_RUNQ_TASKS; a runner that reaches the end
 * wakes the device to publish the next ones. */
#define EMU_RUNQ_TASKS 256u
#define EMU_RUNQ_NODEV UINT32_MAX
/* notifies[].waiter of a slot a stream of the device waits on without publishing: a record
 * must ring the device. 0 = no stream parked on it: the record needs no ring at all (the
 * stream that reaches the wait later finds the notify set). */
#define EMU_RUNQ_HOME 0x80000000u

enum emu_runq_state {
    EMU_RUNQ_FREE = 0,      /* nothing published; the device's scheduler owns the stream */
    EMU_RUNQ_PUBLISHED = 1, /* tasks [done, n) wait for notify `wait_slot`; anyone may take */
    EMU_RUNQ_TAKEN = 2,     /* a worker (of any executor) runs them */
    EMU_RUNQ_RETURNED = 3,  /* the runner stopped: the device's scheduler takes over at `done` */
};

struct emu_runq_task {
    uint64_t dst, src, len, count; /* global addresses; bytes; elements (reductions) */
    uint64_t callsite;
    uint32_t kind;                 /* a data-plane kind (device/dp/dp_kinds.h) */
    uint32_t dst_dev, src_dev;     /* devices owning dst/src, EMU_RUNQ_NODEV when unused */
    int32_t dtype, op;
    uint32_t notify_dev, notify_slot; /* the notify recorded or waited for, or NODEV */
    uint32_t timeout_s;               /* waits: seconds, 0 = forever */
    uint32_t copy_mode;               /* moves: enum emu_copy_mode (common/platform/copy.h) */
    /* EMU_DPF_PUBLISHED (hcemu_write_published, hcemu_read_published): the 8 bytes of the
     * home device where the peer put its base, and the peer's end = base + pub_off; the
     * runner reads it when it builds the task. mailbox 0: the task has both ends. */
    uint64_t mailbox, pub_off;
};

struct emu_runq_seg {
    _Atomic uint32_t state;      /* enum emu_runq_state */
    _Atomic uint32_t wait_slot;  /* notify slot the published head waits for */
    _Atomic uint32_t n;          /* tasks published; grows while out (sched.c, extend) */
    uint32_t done;               /* tasks of them retired by runners (owner writes) */
    _Atomic uint32_t more;       /* the stream has tasks behind the published ones */
    int32_t status;              /* a runner's failure of task `done` (emu_status), 0 = none */
    uint32_t runner;             /* device whose executor ran the segment last (reports) */
    uint32_t waits_run;          /* notifies runners consumed since the device published it */
    _Atomic uint64_t deadline_ns; /* the published wait's deadline (monotonic clock) */
    char note[160];              /* the failure's detail, like emu_task.note */
    struct emu_runq_task tasks[EMU_RUNQ_TASKS];
};

struct emu_sq {
    pthread_mutex_t lock;   /* producers (host threads, any process) */
    _Atomic uint32_t head;  /* consumer position, executor only */
    _Atomic uint32_t tail;  /* producer position */
    _Atomic uint32_t space_waiters;
    uint32_t reserved;
    struct emu_wire_task ring[EMU_SQ_DEPTH];
};

struct emu_devctl {
    uint64_t magic;
    uint32_t version;
    uint32_t dev;
    _Atomic uint32_t state; /* enum emu_dev_state; futex word */
    int32_t exec_pid;
    uint64_t mem_size;
    uint64_t window_base;
    /* Bumped by everything that may make a stream runnable (submission, notify record);
     * the executor's workers sleep on it while `sleepers` is non-zero. */
    _Atomic uint32_t doorbell;
    _Atomic uint32_t sleepers;
    /* 1 while one of the executor's idle workers spins on the doorbell: a ring is then a
     * memory write the spinner sees, and needs no futex wake (common/platform/spin.h). */
    _Atomic uint32_t spinners;
    /* Idle workers of the executor polling the doorbell, yielding their core
     * between looks (HCEMU_POLL_US, common/platform/spin.h): a ring needs no futex wake either, but
     * a job-wide run queue runner still takes the device's published work itself, since the
     * poller may wait for a turn on a core. */
    _Atomic uint32_t pollers;
    _Atomic uint64_t progress; /* tasks retired on this device, for the watchdog */
    /* Streams queued to run or running a task (copies included), for the watchdog: work
     * that only needs a core is progress, however long the core takes to come. */
    _Atomic uint32_t busy;
    _Atomic uint32_t kernel_submits; /* tasks queued by kernels, for the watchdog */
    /* pid of this executor while it is reported as stopped, 0 otherwise: the first process
     * (host or peer executor) that sees it stopped claims the one report with a CAS. */
    _Atomic int32_t stop_reported;
    /* 1 + the highest streams[] slot ever taken (slots are taken lowest first): scans of
     * the streams by diagnostics stop there instead of reading all EMU_MAX_STREAMS slots,
     * which in a peer's block would fault in (and allocate) 86 pages it never used. */
    _Atomic uint32_t streams_hwm;
    /* 1 + the highest peers[] entry ever used (entries are taken lowest first, under
     * res_lock): a channel's look-up of its peer stops there. Scanning all EMU_MAX_PEERS
     * entries (86 KiB) faulted in, and so allocated, 21 pages of every device's block at its
     * first channel. */
    uint32_t peers_hwm;
    /* Threads of the executor waiting for one of its streams to go idle (kernel joins): a
     * runner of the job-wide run queue that retires a stream's last published task wakes
     * the device only then (or when host threads wait), otherwise it just rings. */
    _Atomic uint32_t idle_waiters;
    /* 1 when the executor's scheduler takes part in the job-wide run queue: it publishes
     * parked device threads and marks every notify a stream waits on (notifies[].waiter). */
    _Atomic uint32_t runq_on;
    /* Hand-offs from other hosts that the executor's network progress thread ran itself
     * (device/net/net_handoff.c): the parked thread's tasks went on without a worker's wake-up.
     * For tests and benchmarks. */
    _Atomic uint32_t net_served;
    /* Launches of the built-in collectives that queued an earlier launch's tasks again
     * (device/dp/dp_cache.c, "Own expansions"). For tests and benchmarks. */
    _Atomic uint32_t coll_replays;
    struct emu_fault_record fault;
    /* What peers' executors touch comes first (the header above, the allocation table they
     * check remote ranges against, the notify slots they record, lowest first): in every
     * peer that maps this block, those pages then share one page-table page (2 MiB) instead
     * of three. At 256 ranks each executor maps 255 peer blocks. */
    struct emu_alloc_table alloc;
    struct emu_notify_slot notifies[EMU_MAX_NOTIFIES];
    pthread_mutex_t res_lock; /* streams, channels, notify pool, peers, symwins */
    struct emu_notify_table notify_ranges;
    struct emu_stream_ctl streams[EMU_MAX_STREAMS];
    struct emu_channel_ctl channels[EMU_MAX_CHANNELS];
    struct emu_peer_ref peers[EMU_MAX_PEERS];
    struct emu_comm_ctl comms[EMU_MAX_COMMS];
    struct emu_symwin_ctl symwins[EMU_MAX_SYMWINS];
    struct emu_runq_seg runq[EMU_MAX_STREAMS]; /* per stream slot; pages touched on use */
    struct emu_sq sq;
    /* Written by the host that starts the executor, before it starts (the executor adopts
     * it and writes it back after zeroing the block); read by hosts that join later. */
    struct emu_settings_block settings;
};
_Static_assert(offsetof(struct emu_devctl, settings) % 8 == 0 &&
                   sizeof(struct emu_devctl) ==
                       offsetof(struct emu_devctl, settings) + sizeof(struct emu_settings_block),
               "the settings block ends the control block at a fixed, aligned offset");

/* Initialise a zeroed control block (executor only, before publishing READY). */
emu_status emu_devctl_init(struct emu_devctl *ctl, uint32_t dev, uint64_t mem_size) EMU_MUST_CHECK;
/* Lock one of the control block's robust mutexes; recovers it when its owner died. */
void emu_devctl_lock(pthread_mutex_t *m);
void emu_devctl_unlock(pthread_mutex_t *m);
/* Ring the device's doorbell: wake its scheduler if it sleeps. Any process may call it. */
void emu_devctl_ring(struct emu_devctl *ctl);
/* Held rings: while the calling thread holds `ctl`, its rings of `ctl` bump the doorbell
 * but wake nobody. For a thread that will serve the doorbell itself (an executor worker
 * running one of the device's tasks: it scans the doorbell before it sleeps), or that rings
 * the same device several times in a row (a host queueing a collective's start, kernel and
 * wait: one wake at the end). `ctl` NULL holds the first device the thread rings; rings of
 * other devices wake as usual. One hold per thread.
 * emu_devctl_unhold() ends the hold and says whether a ring was held back (the caller
 * serves it); emu_devctl_release() ends it and wakes the held device if it was rung: call
 * it before anything that waits for the device. */
void emu_devctl_hold(struct emu_devctl *ctl);
bool emu_devctl_unhold(void);
void emu_devctl_release(void);
/* The wake half of a ring (after a held one): wake a sleeping worker unless one spins or
 * polls. */
void emu_devctl_wake(struct emu_devctl *ctl);
/* Set notify slot `slot` of `ctl` (binary: a second record before the wait is absorbed and
 * counted in `absorbed`), then ring. Returns 1 when the record was absorbed. */
int emu_devctl_notify_record(struct emu_devctl *ctl, uint32_t slot, uint32_t recorder);
/* The set half of emu_devctl_notify_record(), without the ring (the caller rings, or takes
 * the published work waiting on the slot: device/runq.c). */
int emu_devctl_notify_set(struct emu_devctl *ctl, uint32_t slot, uint32_t recorder);
/* Record that streams[slot] is taken (under res_lock): raises `streams_hwm`. */
void emu_devctl_stream_taken(struct emu_devctl *ctl, uint32_t slot);
/* How many streams[] slots scans must visit: `streams_hwm`, at most EMU_MAX_STREAMS. */
uint32_t emu_devctl_streams_span(const struct emu_devctl *ctl);
/* Whether the executor of `ctl` is stopped (SIGSTOP, job control). The first process of the
 * job to see a stop logs the one report of it; a running executor clears the claim. */
bool emu_devctl_check_stopped(struct emu_devctl *ctl);
int emu_devctl_stream_is_live(struct emu_devctl *ctl, uint32_t slot, uint32_t gen);
/* A host thread about to sleep until `completed` reaches target: lower `wake_at` to it. Call
 * before counting in `waiters`. */
void emu_stream_ctl_want(struct emu_stream_ctl *sc, uint32_t target);
/* The executor, after raising `completed` to done with waiters counted: whether one of them
 * waits for that much; if so, `wake_at` moves out of the way until a waiter lowers it again. */
bool emu_stream_ctl_wake_due(struct emu_stream_ctl *sc, uint32_t done);

#endif
