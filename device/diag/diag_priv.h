/* diag_priv.h - state shared by the diagnostics modules of one executor (diag.c,
 * watchdog.c, race.c, trace.c, seed.c) and the job-wide file they share.
 *
 * The job-wide state lives in `diag.shm` in the job folder, mapped by every executor of the
 * job (created by the first, O_EXCL). It is a sparse file: only the pages a feature touches
 * cost memory. Layout and bounds (all fixed, see docs/DEBUGGING.md "Costs"):
 *   header + robust mutex `lock`                                    < 4 KiB
 *   sites[EMU_DIAG_MAX_SITES]        call-site texts                 512 KiB
 *   hang[EMU_MAX_DEVICES][EMU_MAX_STREAMS]  parked-stream details    ~32 MiB (touched: parked)
 *   views[EMU_HANG_NET_VIEWS]        other folders' parked waits     ~250 KiB (several hosts)
 *   race: tids, notify entries, notify clocks, shadow rings          ~57 MiB (HCEMU_RACECHECK)
 * `lock` protects every non-atomic field; it is never held while a scheduler lock is taken. */
#ifndef HCEMU_DEVICE_DIAG_PRIV_H
#define HCEMU_DEVICE_DIAG_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/contract/devctl.h"
#include "common/contract/layout.h"
#include "device/sched/sched.h"

#define EMU_DIAG_MAGIC 0x3147414944454d48ull /* "HMEDIAG1" */
#define EMU_DIAG_MAX_SITES 4096u
#define EMU_DIAG_SITE_LEN 128u
#define EMU_DIAG_HANG_PENDING 4u    /* queued records remembered per parked stream */
#define EMU_RACE_MAX_TIDS 512u      /* (device, stream) pairs with their own clock entry */
#define EMU_RACE_MAX_NOTIFIES 4096u /* distinct notify/event slots carrying clocks */
#define EMU_RACE_SHADOW 4096u       /* recent accesses remembered per device */
#define EMU_RACE_MAX_PAIRS 256u     /* race reports deduplicated by call-site pair */
#define EMU_DIAG_NONE UINT32_MAX

/* A vector clock: one epoch per tid. */
struct emu_vclock {
    uint32_t c[EMU_RACE_MAX_TIDS];
};

/* What a parked stream waits on and which records are queued behind it (watchdog). Written
 * by the stream's own executor (symbolization must happen where the image is loaded). */
struct emu_diag_hang {
    uint64_t since_ns; /* parked_since_ns this entry describes; 0 = nothing */
    uint64_t reported_ns; /* the since_ns a printed hang report listed (hosts compare notes) */
    uint32_t site;     /* call site of the parked task (sites[]), EMU_DIAG_NONE if unknown */
    uint32_t n_pending;
    struct {
        uint32_t dev, slot, site;
    } pending[EMU_DIAG_HANG_PENDING];
};

/* A tid: a thread of this job folder (origin 0), or the mirror of a thread of another job
 * folder of the job (a host reached over the network, race_net.c), named by that folder's key
 * and its tid there. A mirror's epochs are the other folder's; this folder never ticks them. */
struct emu_race_tid {
    uint32_t dev;     /* mirrors: the device number in the other folder */
    uint32_t stream;
    uint64_t origin;  /* 0, or the other folder's key (emu_race_folder_key() there) */
    uint32_t origin_tid;
    uint32_t rank;    /* mirrors: the thread's rank, UINT32_MAX until a message names it */
    char host[EMU_HOST_NAME_MAX]; /* mirrors: the display name of the thread's host */
    char label[36];               /* mirrors: the thread's label there ("" = none) */
};

/* A notify or event slot seen by a record: the clock of the records not yet consumed
 * (clock in notify_clk[] at the same index) and the trace flow of the last record. */
struct emu_race_notify {
    uint32_t used;
    uint32_t dev;
    uint32_t slot;
    uint32_t is_event;
    uint32_t n_pub;  /* records whose clock was joined in */
    uint32_t n_done; /* of those, records whose run() has finished */
    uint64_t flow;   /* trace flow id of the last record, 0 = none */
    uint32_t flow_dev, flow_stream;
    uint64_t flow_vend; /* HCEMU_SEED: virtual end (ns) of that record */
};

/* One remembered access to device memory. */
struct emu_race_access {
    uint64_t addr;
    uint64_t len; /* 0 = free entry */
    uint64_t seq; /* task seq on its device */
    uint32_t tid;
    uint32_t epoch;
    uint32_t site;
    uint16_t stream;
    uint8_t dev; /* device owning the memory */
    uint8_t write;
    uint16_t kind;
    uint8_t tdev; /* device of the stream that made the access */
    uint8_t remote; /* made by a thread of another job folder (tid is a mirror; tdev is there) */
    uint32_t rank;
};

struct emu_race_shadow {
    uint32_t next; /* ring position */
    uint32_t reserved;
    struct emu_race_access a[EMU_RACE_SHADOW];
};

/* A parked wait of another job folder (host), as that folder's executors describe it to this
 * one (hang_net.c): the watchdog joins it into its wait-for graph. Texts are made there. */
#define EMU_HANG_NET_WAITS 64u /* waits of one folder in a view (= the watchdog's bound) */
#define EMU_HANG_NET_VIEWS 8u  /* other folders whose views are kept */
struct emu_hang_rnode {
    uint32_t rank, dev, stream, park;
    uint64_t age_ns;      /* parked for, when the view was made */
    uint64_t since_ns;    /* its parked_since_ns there: names this parking */
    uint32_t reported;    /* a hang report printed there lists it */
    uint32_t peer_rank;   /* a channel notify: the rank that records it; else UINT32_MAX */
    uint64_t peer_folder; /* and that rank's job folder (emu_folder_key) */
    uint32_t records;     /* times its notify was recorded */
    uint32_t reserved;
    uint64_t edges;       /* bit j: wait j of the same view can release it (found there) */
    char who[96];
    char what[200];
    char site[EMU_DIAG_SITE_LEN];
};
_Static_assert(EMU_HANG_NET_WAITS <= 64, "edges is a 64-bit set");

struct emu_hang_view {
    uint64_t magic;       /* EMU_HANG_NET_MAGIC */
    uint64_t folder;      /* the folder described */
    uint64_t got_ns;      /* when it arrived here (this host's clock); 0 = free entry */
    char host[EMU_HOST_NAME_MAX];
    uint32_t watchdog;    /* whether that folder's watchdog runs (so it reports its side) */
    uint32_t n;
    struct emu_hang_rnode node[EMU_HANG_NET_WAITS];
};

struct emu_diag_shm {
    uint64_t magic; /* set last by the creator (release) */
    pthread_mutex_t lock;
    /* executors of the job with diagnostics running: bit d % 64 of word d / 64, and their count */
    _Atomic uint64_t live_mask[EMU_MAX_DEVICES / 64u];
    _Atomic uint32_t live_count;
    /* watchdog, under lock */
    uint64_t reported_sum; /* progress sum at the last hang report */
    uint32_t hang_reports;
    /* trace */
    _Atomic uint32_t trace_started; /* 0, 1 the first executor empties the file, 2 */
    _Atomic uint64_t next_flow;
    /* race, under lock */
    _Atomic uint32_t race_off; /* a bound was hit: checking stopped job-wide */
    uint32_t race_reports;
    uint32_t n_tids;
    uint32_t n_pairs;
    uint32_t n_sites;
    uint32_t reserved;
    uint64_t pairs[EMU_RACE_MAX_PAIRS];
    struct emu_race_tid tids[EMU_RACE_MAX_TIDS];
    char sites[EMU_DIAG_MAX_SITES][EMU_DIAG_SITE_LEN];
    struct emu_diag_hang hang[EMU_MAX_DEVICES][EMU_MAX_STREAMS];
    struct emu_hang_view views[EMU_HANG_NET_VIEWS]; /* other folders' waits, under lock */
    struct emu_race_notify notify[EMU_RACE_MAX_NOTIFIES];
    struct emu_vclock notify_clk[EMU_RACE_MAX_NOTIFIES];
    struct emu_race_shadow shadow[EMU_MAX_DEVICES];
};

/* Settings read once by emu_diag_read_cfg() (at emu_diagnostics_start()). */
struct emu_diag_cfg {
    uint64_t hang_ms; /* 0 = watchdog off */
    bool race;
    bool trace;
    char trace_path[EMU_PATH_MAX];
    uint64_t seed; /* HCEMU_SEED, 0 = off */
};

extern struct emu_diag_cfg emu_diag_cfg;
extern struct emu_diag_shm *emu_diag_shm;

/* The sync and memory description of a task: taken from the data plane's metadata, or
 * derived from the wire record for host task kinds. */
struct emu_diag_desc {
    uint32_t n_acc;
    struct emu_access acc[2];
    uint32_t sync_op;
    uint32_t sync_dev;
    uint32_t sync_slot;
    bool event;
};
void emu_diag_describe(const struct emu_task *t, struct emu_diag_desc *d);

void emu_diag_shm_lock(void);
void emu_diag_shm_unlock(void);
/* Index of the call-site text of t in emu_diag_shm->sites (interned, cached per process),
 * EMU_DIAG_NONE when the table is full. Any thread; takes the shm lock on a miss. */
uint32_t emu_diag_site(const struct emu_task *t);
/* Same for a bare call site of a stream of this device. */
uint32_t emu_diag_site_pc(uint64_t pc, uint32_t stream, bool from_kernel);
/* The site text ("?" when unknown). */
const char *emu_diag_site_text(uint32_t site);
/* Control block of device `dev` of this job (this executor's or a peer's), or NULL. */
struct emu_devctl *emu_diag_ctl(uint32_t dev);
/* "rank 1 thread 'main' (dev 1 stream 5)" for reports. */
void emu_diag_thread_name(uint32_t dev, uint32_t stream, char *out, size_t len);
/* The other end of the channel whose notify `slot` of device `dev` is: its rank, device and
 * host, and whether its device is out of this job folder's sight (another host, or another
 * job folder of a job split over several): then `peer_dev` numbers a device there, not here.
 * False when `slot` is no channel notify. */
struct emu_diag_peer {
    uint32_t rank, dev;
    bool remote;
    char host[EMU_HOST_NAME_MAX];
    bool same_folder; /* remote only by the test aid HCEMU_HOST_SPLIT: this folder sees it */
    uint32_t peer;   /* its index in the control block's peers[] */
    uint64_t folder; /* its job folder (emu_folder_key) */
};
bool emu_diag_channel_peer(uint32_t dev, uint32_t slot, struct emu_diag_peer *out);
/* The host call (e.g. "HcclChannelAcquire") in which rank `rank` of the communicator that
 * owns channel notify `slot` of device `dev` waits for its peers, read from the rank's device
 * `rank_dev`; false when that rank is in no such call. */
bool emu_diag_host_call(uint32_t dev, uint32_t slot, uint32_t rank_dev, uint32_t rank, char *out,
                        size_t len);
/* "thread 'main' notify 2" / "channel to rank 1 notify 0" for slot `slot` of device dev. */
void emu_diag_notify_name(uint32_t dev, uint32_t slot, bool event, char *out, size_t len);

/* The job-wide entry of a notify (or event) slot, added when `add`; NULL when absent or
 * the table is full (then race checking stops job-wide). shm lock held. */
struct emu_race_notify *emu_diag_notify_entry(uint32_t dev, uint32_t slot, bool event, bool add);

/* watchdog.c: the watchdog thread (it needs no hook: it inspects parked streams). */
void emu_watchdog_start(void);
void emu_watchdog_stop(void);

/* A parked wait somewhere in the job, as the reporter sees it: of this folder (rn == NULL),
 * or of another folder's view (rn, view: index in emu_diag_shm->views, base: the index of
 * that view's first node in the reporter's array). */
struct wait_node {
    uint32_t dev, stream, slot, park;
    uint64_t since;
    const struct emu_diag_hang *h; /* NULL when its executor has not described it yet */
    uint32_t rank;
    const struct emu_hang_rnode *rn;
    uint32_t view, base;
};
/* hang_graph.c: the wait-for graph of this folder. */
/* Whether device d of this folder runs an executor with diagnostics (its block in *out). */
bool emu_hang_graph_dev_live(uint32_t d, struct emu_devctl **out);
/* This folder's parked waits parked for at least `min_age_ns` (at most `cap`). */
uint32_t emu_hang_graph_collect(struct wait_node *w, uint32_t cap, uint64_t now, uint64_t min_age_ns);
/* The device of this folder that records channel notify `slot` of `dev` (its rank in
 * *peer_rank); UINT32_MAX for a thread notify, and for a peer out of this folder's sight
 * (*remote then set). */
uint32_t emu_hang_graph_peer_dev(uint32_t dev, uint32_t slot, uint32_t *peer_rank, bool *remote);
/* Whether this folder's wait j can release wait i (both of this folder). */
bool emu_hang_graph_edge(const struct wait_node *w, uint32_t n, uint32_t i, uint32_t j);
/* Fail the parked wait of (dev, stream) with EMU_ETASK_TIMEOUT: the error is set, and seen
 * at the device's next doorbell (`ring`: now). */
void emu_hang_graph_fail(uint32_t dev, uint32_t stream, bool ring);

/* watchdog_net.c: the watchdog across job folders (hosts); the reporting watchdog's thread
 * only, except emu_watchdog_net_ask (every executor's watchdog thread). */
/* Ask the folders that record this device's long-parked waits for their views. */
void emu_watchdog_net_ask(uint64_t now);
/* Append the waits of the fresh views of the folders that w[0..n) wait on; the new count. */
uint32_t emu_watchdog_net_join(struct wait_node *w, uint32_t n, uint32_t cap, uint64_t now);
/* Whether wait j can release wait i, for waits of any folder. */
bool emu_watchdog_net_edge(const struct wait_node *w, uint32_t n, uint32_t i, uint32_t j);
/* For this folder's wait i on a rank of another folder whose view is joined: print who there
 * would record it; false (nothing printed) without a view. */
bool emu_watchdog_net_peer_line(const struct wait_node *w, uint32_t n, uint32_t i);
/* Print another folder's wait i and who would release it. */
void emu_watchdog_net_report(const struct wait_node *w, uint32_t n, uint32_t i, uint64_t now);
/* Print the cycle w[cyc[0..len)] by rank and host when it crosses folders; false otherwise. */
bool emu_watchdog_net_cycle(const struct wait_node *w, const uint32_t *cyc, uint32_t len);
/* Hold the failing of this folder's waits w[0..n_local) until the other folders' waits of
 * the cycle are reported there (emu_watchdog_net_held). */
void emu_watchdog_net_hold(const struct wait_node *w, uint32_t n_local, const uint32_t *cyc,
                           uint32_t len, uint64_t now);
/* Whether a hold is on: true while it waits; when it ends, fails the held waits (and returns
 * true once more). false when no hold is on. */
bool emu_watchdog_net_held(uint64_t now);

/* race.c: register the race detector's hooks; false when the scheduler refused them. */
bool emu_race_start(void);

/* race.c, for race_net.c (accesses and records of messages from other job folders). */
/* A task's clock copy: at submission (launch or stream-sync edge) until its start; from its
 * start on, for a task of a channel to another job folder, its clock at start (at_start). */
struct emu_race_snap {
    uint32_t n;
    uint32_t tid; /* at_start: the task's own tid (EMU_DIAG_NONE: none) */
    uint32_t at_start;
    uint32_t c[];
};
/* Check access x (made with clock clk, EMU_RACE_MAX_TIDS entries) against its device's
 * shadow, remember it, and report a race found. Takes the shm lock. */
void emu_race_check_one(const struct emu_race_access *x, const uint32_t *clk);
/* A record of notify (dev, slot) with clock clk: joined before the notify is set (published),
 * counted done after. Take the shm lock. */
void emu_race_record_publish(uint32_t dev, uint32_t slot, const uint32_t *clk);
void emu_race_record_done(uint32_t dev, uint32_t slot);
/* Stop race checking job-wide (this folder) with one warning line naming `why`. */
void emu_race_stop(const char *why);
/* The site index of call-site text `text` (interned), EMU_DIAG_NONE when the table is full. */
uint32_t emu_diag_site_intern(const char *text);

/* seed.c: register the seeded `pick` and `draw` hooks (serial schedule). */
bool emu_seed_start(uint64_t seed);

/* model_rec.c: HCEMU_TIME=model: record the task graph (submit and start hooks); false
 * when model.shm or the hooks are unavailable. */
bool emu_model_rec_start(void);
/* The graph it records into (NULL when the model is off). */
struct emu_model_shm *emu_model_rec_graph(void);
/* The next free node of that graph (its fields to fill, then `ready`), or NULL, after one
 * warning per job, when the job has more tasks than the graph holds. Lock-free. */
struct emu_model_node *emu_model_rec_reserve(void);

/* trace.c: register the timeline's hooks and open the file. With HCEMU_SEED the trace uses
 * virtual time, ids derived from (device, stream, index in the stream), and is sorted at job
 * end. false when the scheduler refused the hooks. */
bool emu_trace_init(void);
/* HCEMU_SEED: the last executor of the job left; rewrite the file in a canonical order. */
void emu_trace_sort(void);
/* Append buffered events to the trace file (any thread). */
void emu_trace_flush(void);
void emu_trace_fini(void);

/* Read the diagnostics settings into emu_diag_cfg. */
void emu_diag_read_cfg(void);
/* Create or join the job-wide diagnostics file (diag.shm) and map it at emu_diag_shm. */
emu_status emu_diag_open_shm(void) EMU_MUST_CHECK;

#endif
