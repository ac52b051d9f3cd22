/* hccl_rdv.h - the rendezvous of one communicator: a shared file in a job folder that every
 * member maps, where ranks announce themselves (init) and post the halves of their channels
 * (HcclChannelAcquire), and a futex "bell" every poster rings.
 *
 * Only the owner's uid may use the file: it is created 0600 in a 0700 folder, and every
 * opener checks that the file belongs to it (st_uid == euid, no group/other bits). */
#ifndef HCEMU_HOST_HCCL_RDV_H
#define HCEMU_HOST_HCCL_RDV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/contract/devctl.h"
#include "common/contract/status.h"
#include "host/hccl/hccl_comm.h"

#define EMU_ROOT_INFO_MAGIC 0x544f4f524d454348ull /* "HCEMROOT" */
#define EMU_ROOT_INFO_VERSION 2u
#define EMU_RDV_KEYS 4u /* distinct (engine, protocol) channels per ordered rank pair */
/* Bytes of exchange info (HcclCommAddExchangeInfo) an offer carries: hcomm's limit. */
#define EMU_RDV_INFO_MAX 2048u

/* The first bytes of an HcclRootInfo made by HcclGetRootInfo (the rest is zero). */
struct emu_root_info {
    uint64_t magic;
    uint32_t version;
    uint32_t uid;   /* only this user may join */
    uint64_t nonce; /* names the rendezvous file; becomes the communicator id */
    int32_t pid;    /* process that made it, for messages */
    uint32_t reserved;
    char dir[EMU_PATH_MAX]; /* job folder holding the rendezvous file */
    /* Multi-host jobs: where the root's process listens (port 0: no listener, every rank
     * is on the root's machine) and the key a peer must prove it holds to be served (random
     * for a root info the program broadcasts; the job's key, HCEMU_KEY / HCEMU_KEY_FILE,
     * when every rank derives the root info). */
    uint32_t net_ip; /* IPv4, network byte order */
    uint16_t net_port;
    uint16_t reserved2;
    uint8_t key[32];
};
_Static_assert(sizeof(struct emu_root_info) <= HCCL_ROOT_INFO_BYTES, "root info fits");

struct emu_rdv_mem {
    uint64_t addr;
    uint64_t size;
    char tag[HCCL_RES_TAG_MAX_LEN + 1];
};

/* One side's half of a channel: written by its owner only, published by `seq`. */
struct emu_rdv_offer {
    _Atomic uint32_t key; /* emu_rdv_key(); 0 = unused entry */
    _Atomic uint32_t seq; /* posts made for this key; the publication word */
    _Atomic uint32_t got; /* the peer's seq this side has consumed (second half of the handshake) */
    /* For reports on this host: 1 + the rank the poster was still waiting for when its
     * acquire timed out and withdrew this offer; 0 while it has not given up. */
    _Atomic uint32_t gave_up_for;
    uint32_t notify_num;
    uint32_t notify_base; /* in the poster's device pool */
    uint32_t slot;        /* the poster's channels[] slot */
    uint32_t mem_num;
    uint32_t info_len; /* bytes of info: the poster's exchange info at post time */
    struct emu_rdv_mem mems[EMU_MAX_CHANNEL_MEMS];
    uint8_t info[EMU_RDV_INFO_MAX];
};

struct emu_rdv;
struct emu_rdvnet;

/* Fill a root info: a fresh rendezvous in this process's job folder, or - when HCEMU_RANK,
 * HCEMU_RANK_SIZE and HCEMU_JOB_PATH are set - the job's n-th rendezvous (n counts this
 * process's calls), which every rank derives alike from HCEMU_JOB_ID / HCEMU_JOB_PATH. */
emu_status emu_rootinfo_make(void *blob, const char *fn) EMU_MUST_CHECK;
/* A random nonce (never 0), for a rendezvous nobody derives. */
uint64_t emu_rootinfo_fresh_nonce(void);
/* Check a root info passed to an init call (magic, version, same user). */
emu_status emu_rootinfo_read(const void *blob, struct emu_root_info *out, const char *fn,
                             uint32_t rank) EMU_MUST_CHECK;

static inline uint32_t emu_rdv_key(int32_t engine, int32_t protocol)
{
    return 1u + (uint32_t)engine * 16u + (uint32_t)protocol;
}

/* The per-user private folder where ranks of separate processes meet (HcclCommInitClusterInfo
 * without a shared job folder): "<parent>/hcemu-<uid>-rdv" (0700, checked by fstat), or
 * "~/.hcemu-rdv" when another user planted that name. */
emu_status emu_rdv_private_dir(const char *parent, char *out, size_t len) EMU_MUST_CHECK;

/* Open (creating when first) the rendezvous file "hcemu-comm-<nonce>.rdv" in `dir` for `nranks`
 * members. EMU_EINVAL when the file was made for another rank count or by another user. A
 * file left by dead processes, or by members `me`'s process joined under an earlier start of
 * its runtime (me: the rank about to join; NULL: not a rank), is replaced by a new one.
 * The caller owns *out: emu_rdv_close() it. */
emu_status emu_rdv_open(const char *dir, uint64_t nonce, uint32_t nranks,
                        const struct emu_rank_info *me, const char *fn, uint32_t rank,
                        struct emu_rdv **out) EMU_MUST_CHECK;
/* Announce `me` as `rank` and wait until every rank has (deadline as emu_os_now_ns()).
 * EMU_ETIMEOUT names the missing ranks; the slot is withdrawn on failure. */
emu_status emu_rdv_join(struct emu_rdv *r, uint32_t rank, const struct emu_rank_info *me,
                        uint64_t deadline, const char *fn) EMU_MUST_CHECK;
/* The announcement of `rank` (valid after a successful join). */
const struct emu_rank_info *emu_rdv_info(const struct emu_rdv *r, uint32_t rank);
/* Leave: a joined member marks itself gone; the last reference removes the file. NULL ok. */
void emu_rdv_close(struct emu_rdv *r, uint32_t rank, bool joined);

/* ---- multi-host: the file of a host other than the root's, kept in step over TCP ---------- */

/* How a file keeps in step with the root's over the network: hccl_rdvnet.c's functions
 * (emu_rdvnet_link), handed in by the caller, so this file never calls up into the network
 * layer built on it. */
struct emu_rdv_link {
    void (*sync)(struct emu_rdvnet *n, struct emu_rdv *r, uint64_t nonce, uint32_t nranks,
                 uint32_t rank, bool leaving);
    bool (*broken)(const struct emu_rdvnet *n);
    void (*close)(struct emu_rdvnet *n);
};
/* Keep `r` in step with the root's file through `net` (owned by `r` from now on, reached
 * through `link`): every wait and publication exchanges rows with the root's listener. */
void emu_rdv_attach_net(struct emu_rdv *r, struct emu_rdvnet *net,
                        const struct emu_rdv_link *link, uint32_t rank);
/* The rows `rank` owns (rank == UINT32_MAX: every rank's), encoded into buf; the length (0:
 * no rows yet), or SIZE_MAX when buf is too small. */
size_t emu_rdv_encode(const struct emu_rdv *r, uint32_t rank, uint8_t *buf, size_t cap);
/* Copy the rows in buf of ranks that are not on this file's host into the file. */
void emu_rdv_apply(struct emu_rdv *r, const uint8_t *buf, size_t len);
/* The root's listener lost the connection of `rank` (a rank of another job folder): if it
 * is still a member, mark it gone, so waits on it (channel halves, and the joins still waiting
 * for every rank) end with EMU_EREMOTE in every process that reads this file or a copy of
 * it. Whether it was still a member. */
bool emu_rdv_mark_gone(struct emu_rdv *r, uint32_t rank);
/* The root's listener lost the connection of `rank` (of `host`, job folder `job_dir`) before
 * that rank posted its row: mark it lost, so the joins waiting for it fail with EMU_EREMOTE
 * and name it. Whether it was marked (false when it had joined or is of this folder). */
bool emu_rdv_mark_lost(struct emu_rdv *r, uint32_t rank, const char *host, const char *job_dir);
/* Bytes emu_rdv_encode() may need for every rank's rows of an n-rank communicator. */
size_t emu_rdv_encode_max(uint32_t nranks);
/* ... and for the rows of one rank (what one rank's request may carry). */
size_t emu_rdv_encode_rank_max(uint32_t nranks);
/* Whether no rank of this file's own job folder is joining or a live member: the root's
 * listener then forgets the file once no rank of another host is connected for it. */
bool emu_rdv_unused_here(const struct emu_rdv *r);

/* My entry for `key` in the block [me -> peer], claimed when absent (NULL when full). */
struct emu_rdv_offer *emu_rdv_my_offer(struct emu_rdv *r, uint32_t me, uint32_t peer, uint32_t key);
/* The peer's entry for `key` in [peer -> me], or NULL. */
/* The idx-th offer entry (0..EMU_RDV_KEYS-1) `from` keeps for `to`, for diagnostics: its key
 * is 0 while unused. */
const struct emu_rdv_offer *emu_rdv_offer_at(const struct emu_rdv *r, uint32_t from, uint32_t to,
                                             uint32_t idx);
const struct emu_rdv_offer *emu_rdv_peer_offer(const struct emu_rdv *r, uint32_t peer, uint32_t me,
                                               uint32_t key);
/* The call area at the end of the file, zeroed at creation, for the cross-rank collective
 * checks (host/coll/coll_check.c): a header of EMU_RDV_CALL_HDR_BYTES, a block of
 * EMU_RDV_CALL_RANK_BYTES per rank, then EMU_RDV_CALL_TABLES tables of n x n 64-bit words
 * (the V forms' counts and displacements). Its size is the rendezvous's to define, so the
 * file does not depend on the layer above that uses it. Shared by the members whose job
 * folder holds this file; never kept in step over the network. */
#define EMU_RDV_CALL_HDR_BYTES 64u
#define EMU_RDV_CALL_RANK_BYTES 128u
#define EMU_RDV_CALL_TABLES 4u
size_t emu_rdv_call_area_bytes(uint32_t nranks);
void *emu_rdv_call_area(const struct emu_rdv *r);
/* The window area after the call area, zeroed at creation: EMU_RDV_WIN_RANK_BYTES per rank,
 * where the members exchange their symmetric windows (host/hccl/hccl_sym_win_xchg.c). Shared
 * like the call area: by the members whose job folder holds this file. */
#define EMU_RDV_WIN_RANK_BYTES 64u
void *emu_rdv_win_area(const struct emu_rdv *r);
/* Whether `rank` destroyed its member, or its process (or host) died. */
bool emu_rdv_rank_gone(const struct emu_rdv *r, uint32_t rank);
/* Wake every waiter (after publishing with a release store). */
void emu_rdv_ring(struct emu_rdv *r);
/* Wait until ready(arg) is true. Returns EMU_ETIMEOUT at the deadline, EMU_EREMOTE (with
 * *gone = the rank) when a rank in watch[0..n) destroyed its member or its process died. */
emu_status emu_rdv_wait(struct emu_rdv *r, bool (*ready)(void *), void *arg, uint64_t deadline,
                        const uint32_t *watch, uint32_t n, uint32_t *gone) EMU_MUST_CHECK;

#endif
