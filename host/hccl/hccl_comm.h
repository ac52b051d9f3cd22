/* hccl_comm.h - the host's communicator object (one member of an HCCL communicator, i.e. one
 * rank on one device) and the process registry that validates HcclComm values. Creating and
 * destroying a member: hccl_comm_life.h.
 *
 * Lock order: registry lock, then a comm's `lock`, then the device locks of runtime.h. The
 * resource modules (hccl_thread.c, hccl_link.c, hccl_mem.c) run with the comm's lock held;
 * the vendor forbids concurrent channel calls on one communicator, the lock makes any other
 * overlap harmless. */
#ifndef HCEMU_HOST_HCCL_COMM_H
#define HCEMU_HOST_HCCL_COMM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/contract/devctl.h"
#include "common/contract/host_id.h"
#include "common/contract/status.h"
#include "hccl/hccl.h"
#include "host/acl/runtime.h"

#define EMU_COMM_MAGIC 0x4d4d4f43u /* "COMM" */
#define EMU_COMM_MAX_RANKS EMU_MAX_DEVICES /* one rank per emulated device at most */

struct emu_rdv;
struct emu_graph;
struct emu_hstream;
struct emu_symwin;

/* What every member knows about one rank after the rendezvous. */
struct emu_rank_info {
    uint32_t dev;    /* emulated device id, inside `job_dir` */
    uint32_t server; /* server index: the rank's layer-0 instance */
    uint32_t phy_id; /* device id shown in endpoints (rank table device_id, else dev) */
    uint32_t ip;     /* device NIC IPv4, network byte order */
    uint32_t super_pod; /* super-pod index from the rank table; 0 otherwise */
    uint32_t super_dev; /* rank table super_device_id; UINT32_MAX: the emulated device id */
    int32_t pid;
    uint32_t runtime_gen; /* emu_rt.generation when it joined */
    uint64_t proc_key;    /* emu_rt.proc_key of its process */
    char job_dir[EMU_PATH_MAX];
    uint64_t host_key;                /* emu_host_of_device() of the rank (host_id.h) */
    char host[EMU_HOST_NAME_MAX];     /* its display name */
    uint32_t net_len;                 /* bytes of net_addr; 0 = not reachable from other hosts */
    uint8_t net_addr[EMU_HOST_ADDR_MAX]; /* its executor's network (UCX worker) address */
};

enum emu_thread_kind {
    EMU_THREAD_DEVICE = 1,  /* AICPU_TS: a DEVICE slot of streams[] owned by the comm */
    EMU_THREAD_WRAPPED = 2, /* CPU_TS around the user's stream (not ours to destroy) */
    EMU_THREAD_OWNED = 3,   /* CPU_TS around a stream the comm created */
};

struct emu_thread_rec {
    uint32_t kind; /* enum emu_thread_kind */
    uint32_t slot; /* streams[] slot on the comm's device */
    uint32_t gen;
    int32_t engine; /* the CommEngine encoded in the handle */
    uint32_t notify_base;
    uint32_t notify_num;        /* 0: no range */
    uint32_t index;             /* index within its acquire call, for reports */
    struct emu_hstream *stream; /* WRAPPED and OWNED */
};

/* This side of one channel. The devctl slot holds what the data plane reads; the host copy
 * keeps the full memory tags (the slot's tag field is shorter). */
struct emu_chan_rec {
    uint32_t slot;
    uint32_t gen;
    int32_t engine;
    int32_t protocol;
    uint32_t remote_rank;
    uint32_t notify_base; /* local_notify_base */
    uint32_t notify_num;
    uint32_t mem_num;
    CommMem mems[EMU_MAX_CHANNEL_MEMS];
    char *tags[EMU_MAX_CHANNEL_MEMS]; /* owned strings */
};

struct emu_ctx_rec {
    struct emu_ctx_rec *next;
    char tag[HCCL_RES_TAG_MAX_LEN + 1];
    int32_t engine;
    uint64_t size;
    void *addr; /* device address (device engines) or host memory */
    bool device;
};

/* Exchange info one peer sent (len 0: none waiting). */
struct emu_xinfo {
    uint32_t len;
    uint8_t *data;
};

struct emu_memreg {
    uint32_t magic;
    struct emu_memreg *next;
    char tag[HCCL_RES_TAG_MAX_LEN + 1];
    CommMem mem;
};

struct emu_comm {
    uint32_t magic;
    struct emu_comm *next; /* registry, under the registry lock */
    uint32_t users;        /* calls in progress (emu_comm_get), under the registry lock */
    /* Fixed after creation. */
    struct emu_hdev *d;
    uint32_t rank;
    uint32_t size;
    uint64_t id;
    char name[COMM_NAME_MAX_LENGTH];
    uint32_t ctl_slot; /* our entry of d->ctl->comms[] */
    uint64_t buf_bytes;
    int32_t exec_timeout_s;
    uint64_t connect_timeout_ms;
    uint8_t net_token[16]; /* what this job's messages between executors carry (rdv_auth.h) */
    struct emu_rdv *rdv;
    struct emu_rank_info *ranks; /* [size] */
    struct emu_graph *graph;
    /* Protected by `lock`. */
    pthread_mutex_t lock;
    uint32_t busy; /* blocking calls in progress; destroy answers EAGAIN meanwhile */
    void *buf;     /* HCCL buffer, allocated on first use */
    struct emu_thread_rec *threads;
    uint32_t n_threads, cap_threads;
    uint32_t threads_made; /* threads ever acquired: the next one's index in reports */
    uint32_t *spare_notifies; /* ranges replaced when a wrapped stream grew; freed at destroy */
    uint32_t n_spare, cap_spare;
    uint64_t dedicated[6];       /* cached HcclDedicatedThreadAcquire handles, by type */
    struct emu_chan_rec **chans; /* one allocation each: GetRemoteMems hands out pointers */
    uint32_t n_chans, cap_chans;
    bool peer_mapped[EMU_COMM_MAX_RANKS]; /* EMU_RPC_MAP_PEER sent for that rank's device */
    struct emu_ctx_rec *ctxs;
    struct emu_memreg *regs;
    struct emu_symwin *wins; /* symmetric windows (hccl_sym_win.c), newest first */
    /* Exchange info (hccl_exchange.c): what the next channel set-up sends, and what each
     * peer sent, kept until read. */
    uint8_t *xinfo_out; /* [xinfo_out_len], NULL when nothing is added */
    uint32_t xinfo_out_len;
    struct emu_xinfo *xinfo_in; /* [size], allocated on the first arrival */
};

/* How a member joins: where to meet, and what this rank brings. */
struct emu_comm_args {
    const char *fn; /* vendor call, for messages */
    struct emu_hdev *d;
    uint32_t rank;
    uint32_t size;
    char rdv_dir[EMU_PATH_MAX];   /* folder of the rendezvous file */
    uint64_t nonce;               /* names the rendezvous file; becomes the comm id */
    /* Multi-host: the root's listener when this rank meets through it (net_port != 0). */
    uint32_t net_ip;
    uint16_t net_port;
    uint8_t key[32]; /* the job's key (rdv_auth.h) */
    bool multi_host; /* the root info has a TCP listener: ranks may be on other hosts */
    uint32_t root_ip; /* ... at this address (network order) and port */
    uint16_t root_port;
    const HcclCommConfig *config; /* NULL = defaults */
    /* From a rank table (cluster info); has_table = false for root info. */
    bool has_table;
    uint32_t server;
    uint32_t phy_id;
    uint32_t ip;
    uint32_t super_pod;
    uint32_t super_dev;
};

/* The live comm behind a user's HcclComm with one use taken, or NULL (logged: "fn: comm %p
 * is not a live communicator"). Pair with emu_comm_put(). */
struct emu_comm *emu_comm_get(const void *user, const char *fn);
void emu_comm_put(struct emu_comm *c);
/* emu_comm_get without the line: NULL, silently, when `user` is no live member. */
struct emu_comm *emu_comm_try_get(const void *user);
/* Walk the live members of this process: the first (prev NULL) or the one after prev, each
 * taken as by emu_comm_get; prev is put. NULL at the end (nothing left taken). */
struct emu_comm *emu_comm_next(struct emu_comm *prev);
/* The live comm named `name`; with several (ranks as threads), the one on the calling
 * thread's device, else the first. */
struct emu_comm *emu_comm_find_name(const char *name);
/* Make a created member findable by emu_comm_get; withdraw it again: false (nothing done)
 * while another call holds a use and `force` is not set. */
void emu_comm_register(struct emu_comm *c);
bool emu_comm_unregister(struct emu_comm *c, bool force);
/* Settings from the environment. */
uint64_t emu_comm_connect_timeout_ms(void);
/* The display name of the host of rank r of c ("?" for a rank out of range). */
const char *emu_comm_host_of(const struct emu_comm *c, uint32_t r);
/* Whether rank r of c is on this process's host (shared memory reaches its device). */
bool emu_comm_same_host(const struct emu_comm *c, uint32_t r);
/* Whether every rank of c is on this host in this job folder, so all map the same rendezvous
 * file (its shared areas beyond the channel offers are not kept in step over the network).
 * Every rank computes the same answer from the same rank table. */
bool emu_comm_one_folder(const struct emu_comm *c);
uint64_t emu_comm_default_buf_bytes(void);
/* Validate an HcclCommConfig (fn/rank for the message). */
emu_status emu_comm_config_check(const HcclCommConfig *cfg, const char *fn,
                                 uint32_t rank) EMU_MUST_CHECK;

/* Log one error line "fn: rank r: ...". */
#define EMU_COMM_ERR(c, fn, fmt, ...) EMU_LOG_ERR("%s: rank %u: " fmt, fn, (c)->rank, ##__VA_ARGS__)

#endif
