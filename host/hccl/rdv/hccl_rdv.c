/* hccl_rdv.c - the rendezvous file of a communicator (see hccl_rdv.h).
 *
 * The file is created complete: a temporary file is sized and stamped, then link()ed to its
 * final name, so an opener never sees a half-made header; the loser of a creation race uses
 * the winner's file. Layout: header page, members[nranks], a key index (one word per
 * offer), for every ordered pair (from, to) EMU_RDV_KEYS offers written by `from` only, then
 * the call area of the cross-rank collective checks (host/coll/coll_check.c). */
#include "hccl_rdv.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/platform/secure_dir.h"

#define RDV_MAGIC 0x5644524d45434845ull /* "HCEMRDV" */
#define RDV_VERSION 3u
#define RDV_HDR_BYTES 4096u
#define WAIT_SLICE_NS 50000000ull /* liveness checks while waiting */
#define NET_SLICE_NS 1000000ull   /* polls of the root's file over the network */

/* GAVE_UP: joined, then timed out waiting for the others - it did come, so the ranks still
 * waiting do not name it as missing, and it may try again. LOST: a rank of another host whose
 * connection to the root's listener closed before it posted its row (the listener learned
 * its rank and host from the connection's greeting): it will never join. GONE: a rank of
 * another host whose connection closed while it was JOINED (it did not leave): its process
 * or host died. LEFT is no failure: a rank of another host may see every rank arrive, finish
 * and leave before the root's file has the last row. */
enum {
    MEMBER_EMPTY = 0,
    MEMBER_CLAIMING = 1,
    MEMBER_JOINED = 2,
    MEMBER_LEFT = 3,
    MEMBER_GAVE_UP = 4,
    MEMBER_LOST = 5,
    MEMBER_GONE = 6,
};

struct rdv_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t nranks;
    uint64_t nonce;
    _Atomic uint32_t arrived; /* members in state JOINED */
    _Atomic uint32_t refs;    /* members that joined and have not left */
    _Atomic uint32_t bell;    /* bumped by every publication; futex word */
};

struct rdv_member {
    _Atomic uint32_t state;
    uint32_t reserved;
    struct emu_rank_info info;
};

struct emu_rdv {
    uint8_t *base;
    size_t len;
    uint32_t nranks;
    struct rdv_hdr *hdr;
    struct rdv_member *members;
    _Atomic uint32_t *keys; /* keys[i] mirrors offers[i].key */
    struct emu_rdv_offer *offers;
    char path[EMU_PATH_MAX + 64];
    dev_t dev; /* the file mapped: `path` may name a newer one after a stale file's removal */
    ino_t ino;
    char dir[EMU_PATH_MAX];
    bool own_dir; /* a per-user rendezvous folder: removed with its last file */
    struct emu_rdvnet *net; /* multi-host: in step with the root's file through it; or NULL */
    const struct emu_rdv_link *link; /* net's functions */
    uint32_t net_rank;      /* the rank whose rows this handle pushes */
    bool leaving;           /* closing: the root's process may be gone already */
    uint64_t pids_checked_ns; /* join: when the members' processes were last looked at */
};

#define RDV_HOME_FOLDER ".hcemu-rdv"

static size_t block(const struct emu_rdv *r, uint32_t from, uint32_t to);

/* The per-user folder (not a job folder) that emu_rdv_private_dir() hands out. */
static bool is_rdv_folder(const char *dir)
{
    const char *base = strrchr(dir, '/');
    char name[40];

    base = base != NULL ? base + 1 : dir;
    snprintf(name, sizeof(name), "hcemu-%u-rdv", (unsigned)geteuid());
    return strcmp(base, name) == 0 || strcmp(base, RDV_HOME_FOLDER) == 0;
}

emu_status emu_rdv_private_dir(const char *parent, char *out, size_t len)
{
    struct passwd pw, *res = NULL;
    char buf[4096];

    if (snprintf(out, len, "%s/hcemu-%u-rdv", parent, (unsigned)geteuid()) < (int)len &&
        emu_secure_dir_check_parent(parent) == EMU_OK && emu_secure_dir_ensure(out) == EMU_OK)
        return EMU_OK;
    /* Taken by another user (or not private): meet in our home folder, which nobody else can
     * write, so a planted folder cannot block the rendezvous. */
    if (getpwuid_r(geteuid(), &pw, buf, sizeof(buf), &res) == 0 && res != NULL &&
        snprintf(out, len, "%s/" RDV_HOME_FOLDER, pw.pw_dir) < (int)len &&
        emu_secure_dir_ensure(out) == EMU_OK) {
        EMU_LOG_WARN("meeting in %s instead", out);
        return EMU_OK;
    }
    EMU_LOG_ERR("no private folder for the rendezvous file of this user");
    return EMU_EFILE;
}

/* The key index starts on a 64-byte boundary: member records have an odd size for some
 * rank counts. */
static size_t keys_offset(uint32_t nranks)
{
    return (RDV_HDR_BYTES + (size_t)nranks * sizeof(struct rdv_member) + 63) & ~(size_t)63;
}

/* Offers follow the key index (one word per offer), on a 64-byte boundary too: they hold
 * 64-bit atomics. Finding an offer scans the compact index, not the 4 KiB offers: a read
 * of a tmpfs page allocates it, and at 256 ranks scanning every key of every pair made
 * the file take 1 GiB instead of the pages of the offers actually posted. */
static size_t offers_offset(uint32_t nranks)
{
    size_t keys = (size_t)nranks * nranks * EMU_RDV_KEYS * sizeof(uint32_t);
    return (keys_offset(nranks) + keys + 63) & ~(size_t)63;
}

/* The call area follows the offers on a 64-byte boundary (emu_rdv_call_area). */
size_t emu_rdv_call_area_bytes(uint32_t nranks)
{
    return EMU_RDV_CALL_HDR_BYTES + (size_t)nranks * EMU_RDV_CALL_RANK_BYTES +
           EMU_RDV_CALL_TABLES * (size_t)nranks * nranks * sizeof(uint64_t);
}

static size_t check_offset(uint32_t nranks)
{
    return offers_offset(nranks) +
           (size_t)nranks * nranks * EMU_RDV_KEYS * sizeof(struct emu_rdv_offer);
}

/* The window area follows the call area, on an 8-byte boundary like everything in it. */
static size_t win_offset(uint32_t nranks)
{
    return check_offset(nranks) + emu_rdv_call_area_bytes(nranks);
}

static size_t file_bytes(uint32_t nranks)
{
    return win_offset(nranks) + (size_t)nranks * EMU_RDV_WIN_RANK_BYTES;
}

/* The file must be ours and private: another user must not be able to steer a join. */
static emu_status check_owner(int fd, const char *path, const char *fn, uint32_t rank)
{
    struct stat st;

    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 077) != 0) {
        EMU_LOG_ERR("%s: rank %u: rendezvous file %s is not a private file of this user "
                    "(uid %u); refusing to join",
                    fn, rank, path, (unsigned)geteuid());
        return EMU_EINVAL;
    }
    return EMU_OK;
}

/* Make the complete file under a temporary name and link it into place; EEXIST when another
 * rank was faster (then use its file). */
static int create_file(const char *path, uint32_t nranks, uint64_t nonce)
{
    char tmp[sizeof(((struct emu_rdv *)0)->path) + 48];
    void *p;

    snprintf(tmp, sizeof(tmp), "%s.%d.%d.tmp", path, (int)getpid(), emu_os_gettid());
    int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -errno;
    int err = 0;
    if (ftruncate(fd, (off_t)file_bytes(nranks)) != 0 ||
        emu_os_map_shared(fd, 0, RDV_HDR_BYTES, NULL, 0, &p) != EMU_OK) {
        err = errno != 0 ? errno : EIO;
    } else {
        struct rdv_hdr *h = p;
        h->magic = RDV_MAGIC;
        h->version = RDV_VERSION;
        h->nranks = nranks;
        h->nonce = nonce;
        emu_os_unmap(p, RDV_HDR_BYTES);
        if (link(tmp, path) != 0)
            err = errno;
    }
    unlink(tmp);
    if (err != 0) {
        close(fd);
        return -err;
    }
    return fd;
}

/* Dead, or a zombie its parent has not reaped yet (it will never post again). */
static bool pid_gone(int32_t pid)
{
    char path[64], stat[256];

    /* Ranks as threads of this process are its members too: this process is alive, and
     * asking /proc for each of them cost every member's open of the file a read per rank. */
    if (pid <= 0 || pid == (int32_t)getpid())
        return false;
    if (kill(pid, 0) != 0)
        return errno == ESRCH;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, stat, sizeof(stat) - 1);
    close(fd);
    stat[n > 0 ? n : 0] = '\0';
    const char *rp = strrchr(stat, ')');
    return rp != NULL && rp[1] == ' ' && rp[2] == 'Z';
}

/* A rank of another host (its record came over the network): its pid means nothing here. */
static bool foreign(const struct emu_rdv *r, const struct rdv_member *m)
{
    return strncmp(m->info.job_dir, r->dir, sizeof(m->info.job_dir)) != 0;
}

/* A member that joined from this very process under an earlier start of its runtime: a
 * communicator not destroyed before aclFinalize. It will never post or leave, and the same
 * rank table joined again after aclInit must not find its rank taken. Only JOINED members:
 * their info is written before the state is published. */
static bool earlier_start(const struct rdv_member *m, uint32_t st, const struct emu_rank_info *me)
{
    return me != NULL && st == MEMBER_JOINED && m->info.pid == me->pid &&
           m->info.proc_key == me->proc_key && m->info.runtime_gen != me->runtime_gen;
}

enum stale_kind { NOT_STALE, STALE_EXITED, STALE_EARLIER_START };

/* A file whose members' processes are dead is left over from a crashed run, and one with a
 * member of an earlier start of this process's runtime is left over from before aclFinalize:
 * either is removed and made anew. */
static enum stale_kind is_stale(const struct emu_rdv *r, const struct emu_rank_info *me)
{
    for (uint32_t i = 0; i < r->nranks; i++) {
        const struct rdv_member *m = &r->members[i];
        uint32_t st = emu_load_acquire(&m->state);
        if (earlier_start(m, st, me))
            return STALE_EARLIER_START;
        if ((st == MEMBER_JOINED || st == MEMBER_CLAIMING) && !foreign(r, m) &&
            pid_gone(m->info.pid))
            return STALE_EXITED;
    }
    return NOT_STALE;
}

/* Unlink the file's name if it still names the file `r` mapped. The ranks that found a file
 * stale all try; an exclusive lock on it makes them take turns, so the first removes it and
 * the others see its name taken by the new file (which they must not remove). The last
 * member of a stale file removes nothing either. Whether this call removed it. */
static bool remove_if_same(const struct emu_rdv *r)
{
    struct stat held, named;
    bool removed = false;
    int fd = open(r->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

    if (fd < 0)
        return false;
    if (flock(fd, LOCK_EX) == 0 && fstat(fd, &held) == 0 && held.st_dev == r->dev &&
        held.st_ino == r->ino && lstat(r->path, &named) == 0 && named.st_dev == held.st_dev &&
        named.st_ino == held.st_ino)
        removed = unlink(r->path) == 0;
    close(fd); /* and the lock */
    return removed;
}

/* One mapping of a rendezvous file per process, shared by the members it holds (ranks as
 * threads): a member writes its row of offers and reads the column of offers made to it,
 * one page in each row, so each mapping of it costs a page-table page per rank. With 256
 * members in one process and a mapping each, that was 256 x 256 page-table pages (256 MiB);
 * one shared mapping costs one per 2 MiB of the file. */
#define MAX_SHARED_MAPS 64u

struct shared_map {
    dev_t dev;
    ino_t ino;
    uint8_t *base;
    size_t len;
    uint32_t refs;
};

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shared_map shared[MAX_SHARED_MAPS];

/* Map `len` bytes of the file open as `fd`, or take another reference to this process's
 * mapping of it. While mapped, the file's inode cannot be reused, so (dev, ino) names it. */
static emu_status map_shared_file(int fd, const struct stat *st, size_t len, void **out)
{
    struct shared_map *free_slot = NULL;
    emu_status s = EMU_OK;

    pthread_mutex_lock(&shared_lock);
    for (uint32_t i = 0; i < MAX_SHARED_MAPS; i++) {
        struct shared_map *m = &shared[i];
        if (m->refs != 0 && m->dev == st->st_dev && m->ino == st->st_ino && m->len == len) {
            m->refs++;
            *out = m->base;
            goto out;
        }
        if (m->refs == 0 && free_slot == NULL)
            free_slot = m;
    }
    s = emu_os_map_shared(fd, 0, len, NULL, 0, out);
    if (s == EMU_OK && free_slot != NULL)
        *free_slot = (struct shared_map){st->st_dev, st->st_ino, *out, len, 1};
out:
    pthread_mutex_unlock(&shared_lock);
    return s;
}

/* Drop a reference taken by map_shared_file(); the last one unmaps. A mapping the table had
 * no room for is not in it and is unmapped at once. */
static void unmap_shared_file(void *base, size_t len)
{
    bool last = true;

    pthread_mutex_lock(&shared_lock);
    for (uint32_t i = 0; i < MAX_SHARED_MAPS; i++) {
        if (shared[i].refs != 0 && shared[i].base == base) {
            last = --shared[i].refs == 0;
            break;
        }
    }
    pthread_mutex_unlock(&shared_lock);
    if (last)
        emu_os_unmap(base, len);
}

static emu_status map_file(struct emu_rdv *r, int fd, uint32_t nranks, const char *fn,
                           uint32_t rank)
{
    struct stat st;
    void *p;

    if (emu_os_map_shared(fd, 0, RDV_HDR_BYTES, NULL, 0, &p) != EMU_OK)
        return EMU_ESYSCALL;
    struct rdv_hdr h = *(struct rdv_hdr *)p;
    emu_os_unmap(p, RDV_HDR_BYTES);
    if (h.magic != RDV_MAGIC || h.version != RDV_VERSION) {
        EMU_LOG_ERR("%s: rank %u: %s is not an hcemu rendezvous file", fn, rank, r->path);
        return EMU_EINVAL;
    }
    if (h.nranks != nranks) {
        EMU_LOG_ERR("%s: rank %u: nRanks is %u here but %u for the ranks that joined first", fn,
                    rank, nranks, h.nranks);
        return EMU_EINVAL;
    }
    if (fstat(fd, &st) != 0 || (size_t)st.st_size != file_bytes(nranks)) {
        EMU_LOG_ERR("%s: rank %u: rendezvous file %s has the wrong size", fn, rank, r->path);
        return EMU_EINVAL;
    }
    r->len = file_bytes(nranks);
    if (map_shared_file(fd, &st, r->len, &p) != EMU_OK)
        return EMU_ESYSCALL;
    r->dev = st.st_dev;
    r->ino = st.st_ino;
    r->base = p;
    r->nranks = nranks;
    r->hdr = p;
    r->members = (struct rdv_member *)(r->base + RDV_HDR_BYTES);
    r->keys = (_Atomic uint32_t *)(r->base + keys_offset(nranks));
    r->offers = (struct emu_rdv_offer *)(r->base + offers_offset(nranks));
    return EMU_OK;
}

static emu_status open_once(struct emu_rdv *r, uint64_t nonce, uint32_t nranks,
                            const struct emu_rank_info *me, const char *fn, uint32_t rank,
                            bool *stale)
{
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(r->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0 && errno == ENOENT) {
            fd = create_file(r->path, nranks, nonce);
            if (fd == -EEXIST)
                continue;
            /* The last member of an earlier communicator removed the per-user folder. */
            if (fd == -ENOENT && r->own_dir && emu_secure_dir_ensure(r->dir) == EMU_OK)
                continue;
            if (fd < 0) {
                EMU_LOG_ERR("%s: rank %u: cannot create the rendezvous file %s: %s", fn, rank,
                            r->path, strerror(-fd));
                return EMU_EFILE;
            }
        } else if (fd < 0) {
            EMU_LOG_ERR("%s: rank %u: cannot open the rendezvous file %s: %s", fn, rank, r->path,
                        strerror(errno));
            return EMU_EFILE;
        }
        emu_status s = check_owner(fd, r->path, fn, rank);
        if (s == EMU_OK)
            s = map_file(r, fd, nranks, fn, rank);
        close(fd);
        enum stale_kind why = s == EMU_OK ? is_stale(r, me) : NOT_STALE;
        if (why != NOT_STALE) {
            *stale = true;
            if (remove_if_same(r))
                EMU_LOG_WARN("%s: rank %u: removed %s, left by %s", fn, rank, r->path,
                             why == STALE_EXITED
                                 ? "a run whose processes have exited"
                                 : "communicators this process did not destroy before "
                                   "aclFinalize");
            unmap_shared_file(r->base, r->len);
            r->base = NULL;
        }
        return s;
    }
    EMU_LOG_ERR("%s: rank %u: cannot create or open %s", fn, rank, r->path);
    return EMU_EFILE;
}

emu_status emu_rdv_open(const char *dir, uint64_t nonce, uint32_t nranks,
                        const struct emu_rank_info *me, const char *fn, uint32_t rank,
                        struct emu_rdv **out)
{
    struct emu_rdv *r = calloc(1, sizeof(*r));

    if (r == NULL)
        return EMU_ENOMEM;
    int n = snprintf(r->path, sizeof(r->path), "%s/hcemu-comm-%016llx.rdv", dir,
                     (unsigned long long)nonce);
    if (n < 0 || (size_t)n >= sizeof(r->path)) {
        EMU_LOG_ERR("%s: rank %u: rendezvous folder %s is too long", fn, rank, dir);
        free(r);
        return EMU_EINVAL;
    }
    snprintf(r->dir, sizeof(r->dir), "%s", dir);
    r->own_dir = is_rdv_folder(dir);
    bool stale = false;
    emu_status s = open_once(r, nonce, nranks, me, fn, rank, &stale);
    if (s == EMU_OK && stale) {
        stale = false;
        s = open_once(r, nonce, nranks, me, fn, rank, &stale);
    }
    if (s != EMU_OK || stale) {
        if (r->base != NULL)
            unmap_shared_file(r->base, r->len);
        free(r);
        return s != EMU_OK ? s : EMU_EINTERNAL;
    }
    *out = r;
    return EMU_OK;
}

static void net_sync(struct emu_rdv *r)
{
    if (r->net != NULL)
        r->link->sync(r->net, r, r->hdr->nonce, r->nranks, r->net_rank, r->leaving);
}

void emu_rdv_ring(struct emu_rdv *r)
{
    emu_fetch_add_release(&r->hdr->bell, 1);
    emu_os_futex_wake(&r->hdr->bell, INT32_MAX);
    net_sync(r); /* the root's file learns of the publication now */
}

void *emu_rdv_call_area(const struct emu_rdv *r)
{
    return r->base + check_offset(r->nranks);
}

void *emu_rdv_win_area(const struct emu_rdv *r)
{
    return r->base + win_offset(r->nranks);
}

bool emu_rdv_rank_gone(const struct emu_rdv *r, uint32_t rank)
{
    const struct rdv_member *m = &r->members[rank];
    uint32_t st = emu_load_acquire(&m->state);

    if (st == MEMBER_LEFT || st == MEMBER_LOST || st == MEMBER_GONE)
        return true;
    if (st == MEMBER_JOINED && !foreign(r, m))
        return pid_gone(m->info.pid);
    /* Another host: gone when our line to the root's listener is. */
    return r->net != NULL && r->link->broken(r->net);
}

emu_status emu_rdv_wait(struct emu_rdv *r, bool (*ready)(void *), void *arg, uint64_t deadline,
                        const uint32_t *watch, uint32_t n, uint32_t *gone)
{
    for (;;) {
        /* Pairs with the release add in emu_rdv_ring(): a publication made before the bell
         * moved is visible to ready(). Loading the bell first means a ring between the
         * check and the sleep changes the word, so the futex does not sleep through it. */
        net_sync(r);
        uint32_t seen = emu_load_acquire(&r->hdr->bell);
        if (ready(arg))
            return EMU_OK;
        for (uint32_t i = 0; i < n; i++) {
            if (emu_rdv_rank_gone(r, watch[i])) {
                *gone = watch[i];
                return EMU_EREMOTE;
            }
        }
        uint64_t now = emu_os_now_ns();
        if (now >= deadline)
            return EMU_ETIMEOUT;
        /* Over the network nobody rings our bell: ask the root again soon. */
        uint64_t slice = now + (r->net != NULL ? NET_SLICE_NS : WAIT_SLICE_NS);
        (void)emu_os_futex_wait(&r->hdr->bell, seen, slice < deadline ? slice : deadline);
    }
}

static bool all_arrived(void *arg)
{
    struct emu_rdv *r = arg;

    uint32_t n = 0;

    /* Counted from the members (not the `arrived` word), so ranks of other hosts, copied in
     * over the network, count too. A member that left had arrived. */
    for (uint32_t i = 0; i < r->nranks; i++) {
        uint32_t st = emu_load_acquire(&r->members[i].state);
        n += st == MEMBER_JOINED || st == MEMBER_LEFT;
    }
    return n >= r->nranks;
}

static void report_missing(const struct emu_rdv *r, uint32_t rank, uint64_t waited_ms,
                           const char *fn)
{
    char list[512];
    size_t used = 0;
    uint32_t missing = 0;

    list[0] = '\0';
    for (uint32_t i = 0; i < r->nranks; i++) {
        uint32_t st = emu_load_acquire(&r->members[i].state);
        if (st == MEMBER_JOINED || st == MEMBER_GAVE_UP)
            continue;
        missing++;
        if (used + 16 < sizeof(list))
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%u",
                                     missing > 1 ? ", " : "", i);
    }
    EMU_LOG_ERR("%s: rank %u: rank%s %s of %u did not join within %llu ms "
                "(HCCL_CONNECT_TIMEOUT)",
                fn, rank, missing > 1 ? "s" : "", list, r->nranks, (unsigned long long)waited_ms);
}

/* A member that can no longer complete the join: one that joined and is gone (its process
 * died, or the root's listener lost its connection and marked it GONE), or one the listener
 * marked LOST before it joined. */
static bool member_broken(const struct emu_rdv *r, const struct rdv_member *m, bool pids)
{
    uint32_t st = emu_load_acquire(&m->state);

    return st == MEMBER_GONE || st == MEMBER_LOST ||
           (pids && st == MEMBER_JOINED && !foreign(r, m) && pid_gone(m->info.pid));
}

static bool join_broken(void *arg)
{
    struct emu_rdv *r = arg;
    uint64_t now = emu_os_now_ns();
    /* The processes only every WAIT_SLICE_NS: over the network this is polled every 1 ms. */
    bool pids = now - r->pids_checked_ns >= WAIT_SLICE_NS;

    if (pids)
        r->pids_checked_ns = now;
    for (uint32_t i = 0; i < r->nranks; i++)
        if (member_broken(r, &r->members[i], pids))
            return true;
    return false;
}

/* Ready when every rank has arrived, or when one never will (join_broken). */
static bool join_settled(void *arg)
{
    return all_arrived(arg) || join_broken(arg);
}

/* One line naming the rank that broke the join and its host. */
static void report_broken(const struct emu_rdv *r, uint32_t rank, const char *fn)
{
    uint32_t arrived = 0;

    for (uint32_t i = 0; i < r->nranks; i++)
        arrived += emu_load_acquire(&r->members[i].state) == MEMBER_JOINED;
    for (uint32_t i = 0; i < r->nranks; i++) {
        const struct rdv_member *m = &r->members[i];
        uint32_t st = emu_load_acquire(&m->state);
        if (!member_broken(r, m, true))
            continue;
        EMU_LOG_ERR("%s: rank %u: rank %u (host %s) is gone before every rank had joined "
                    "(%u of %u are in): %s; the communicator cannot be made",
                    fn, rank, i, m->info.host[0] != '\0' ? m->info.host : "?", arrived,
                    r->nranks,
                    st == MEMBER_LOST ? "its connection to the root's listener closed before "
                                        "it joined: its init failed, or its process or host "
                                        "died"
                    : st == MEMBER_GONE ? "it had joined, then its connection to the root's "
                                          "listener closed: its process or host died"
                                        : "it had joined, then its process exited");
        return;
    }
}

emu_status emu_rdv_join(struct emu_rdv *r, uint32_t rank, const struct emu_rank_info *me,
                        uint64_t deadline, const char *fn)
{
    struct rdv_member *m = &r->members[rank];
    uint32_t expect = MEMBER_EMPTY;
    uint64_t start = emu_os_now_ns();

    bool claimed = emu_cas_acq_rel(&m->state, &expect, MEMBER_CLAIMING);
    if (!claimed && expect == MEMBER_GAVE_UP)
        claimed = emu_cas_acq_rel(&m->state, &expect, MEMBER_CLAIMING);
    if (!claimed) {
        EMU_LOG_ERR("%s: rank %u: rank %u has already joined this communicator (pid %d); "
                    "each rank joins once",
                    fn, rank, rank, (int)m->info.pid);
        return EMU_EINVAL;
    }
    m->info = *me;
    emu_fetch_add_acq_rel(&r->hdr->refs, 1);
    /* Pairs with the acquire loads of `state` by the other members. */
    emu_store_release(&m->state, MEMBER_JOINED);
    emu_fetch_add_acq_rel(&r->hdr->arrived, 1);
    emu_rdv_ring(r);
    uint32_t gone;
    emu_status s = emu_rdv_wait(r, join_settled, r, deadline, NULL, 0, &gone);
    if (s == EMU_OK && all_arrived(r))
        return EMU_OK;
    if (s == EMU_OK) {
        report_broken(r, rank, fn);
        s = EMU_EREMOTE;
    } else {
        report_missing(r, rank, (emu_os_now_ns() - start) / 1000000u, fn);
    }
    /* Withdraw, so the ranks still waiting see an honest count. */
    emu_fetch_sub_acq_rel(&r->hdr->arrived, 1);
    emu_fetch_sub_acq_rel(&r->hdr->refs, 1);
    emu_store_release(&m->state, MEMBER_GAVE_UP);
    emu_rdv_ring(r);
    return s;
}

const struct emu_rank_info *emu_rdv_info(const struct emu_rdv *r, uint32_t rank)
{
    return &r->members[rank].info;
}

void emu_rdv_close(struct emu_rdv *r, uint32_t rank, bool joined)
{
    if (r == NULL)
        return;
    uint32_t left = 1;
    r->leaving = true;
    if (joined) {
        emu_store_release(&r->members[rank].state, MEMBER_LEFT);
        left = emu_fetch_sub_acq_rel(&r->hdr->refs, 1);
        emu_rdv_ring(r);
    } else if (r->net != NULL) {
        net_sync(r); /* a withdrawal the root must see */
        left = emu_load_acquire(&r->hdr->refs) == 0 ? 1 : 2;
    } else {
        left = emu_load_acquire(&r->hdr->refs) == 0 ? 1 : 2;
    }
    /* The last member out removes the file; a mapping outlives the name. */
    if (left == 1) {
        (void)remove_if_same(r);
        if (r->own_dir)
            rmdir(r->dir); /* fails while other communicators' files are in it */
    }
    if (r->net != NULL)
        r->link->close(r->net);
    unmap_shared_file(r->base, r->len);
    free(r);
}

/* ---- multi-host rows ------------------------------------------------------------------- */

enum { ROW_MEMBER = 1, ROW_OFFER = 2 };

struct row_member {
    uint32_t tag, rank, state, reserved;
    struct emu_rank_info info;
};

struct row_offer {
    uint32_t tag, from, to, idx;
    uint32_t key, seq, got, notify_num, notify_base, slot, mem_num, info_len;
};

void emu_rdv_attach_net(struct emu_rdv *r, struct emu_rdvnet *net,
                        const struct emu_rdv_link *link, uint32_t rank)
{
    r->net = net;
    r->link = link;
    r->net_rank = rank;
}

size_t emu_rdv_encode_max(uint32_t nranks)
{
    return (size_t)nranks * (sizeof(struct row_member) +
                             nranks * EMU_RDV_KEYS *
                                 (sizeof(struct row_offer) +
                                  EMU_MAX_CHANNEL_MEMS * sizeof(struct emu_rdv_mem) +
                                  EMU_RDV_INFO_MAX));
}

size_t emu_rdv_encode_rank_max(uint32_t nranks)
{
    return nranks != 0 ? emu_rdv_encode_max(nranks) / nranks : 0;
}

bool emu_rdv_unused_here(const struct emu_rdv *r)
{
    for (uint32_t i = 0; i < r->nranks; i++) {
        uint32_t st = emu_load_acquire(&r->members[i].state);
        if ((st == MEMBER_JOINED || st == MEMBER_CLAIMING) && !foreign(r, &r->members[i]) &&
            !pid_gone(r->members[i].info.pid))
            return false;
    }
    return true;
}

static size_t put(uint8_t *buf, size_t at, size_t cap, const void *p, size_t n)
{
    if (at == SIZE_MAX || at + n > cap)
        return SIZE_MAX;
    memcpy(buf + at, p, n);
    return at + n;
}

static size_t encode_rank(const struct emu_rdv *r, uint32_t i, uint8_t *buf, size_t at, size_t cap)
{
    const struct rdv_member *m = &r->members[i];
    struct row_member rm = {.tag = ROW_MEMBER, .rank = i, .state = emu_load_acquire(&m->state)};

    if (rm.state != MEMBER_JOINED && rm.state != MEMBER_LEFT && rm.state != MEMBER_GAVE_UP &&
        rm.state != MEMBER_LOST && rm.state != MEMBER_GONE)
        return at;
    rm.info = m->info;
    at = put(buf, at, cap, &rm, sizeof(rm));
    for (uint32_t to = 0; to < r->nranks; to++) {
        const struct emu_rdv_offer *b = &r->offers[block(r, i, to)];
        for (uint32_t k = 0; k < EMU_RDV_KEYS; k++) {
            struct emu_rdv_offer *o = (struct emu_rdv_offer *)&b[k];
            struct row_offer ro = {.tag = ROW_OFFER, .from = i, .to = to, .idx = k,
                                   .key = emu_load_acquire(&o->key)};
            if (ro.key == 0)
                continue;
            ro.seq = emu_load_acquire(&o->seq);
            ro.got = emu_load_acquire(&o->got);
            ro.notify_num = o->notify_num;
            ro.notify_base = o->notify_base;
            ro.slot = o->slot;
            ro.mem_num = o->mem_num < EMU_MAX_CHANNEL_MEMS ? o->mem_num : EMU_MAX_CHANNEL_MEMS;
            ro.info_len = o->info_len < EMU_RDV_INFO_MAX ? o->info_len : EMU_RDV_INFO_MAX;
            at = put(buf, at, cap, &ro, sizeof(ro));
            at = put(buf, at, cap, o->mems, ro.mem_num * sizeof(o->mems[0]));
            at = put(buf, at, cap, o->info, ro.info_len);
        }
    }
    return at;
}

size_t emu_rdv_encode(const struct emu_rdv *r, uint32_t rank, uint8_t *buf, size_t cap)
{
    size_t at = 0;

    for (uint32_t i = 0; i < r->nranks; i++)
        if (rank == UINT32_MAX || rank == i)
            at = encode_rank(r, i, buf, at, cap);
    return at;
}

static void apply_offer(struct emu_rdv *r, const struct row_offer *ro, const struct emu_rdv_mem *mems,
                        const uint8_t *info)
{
    size_t at = block(r, ro->from, ro->to) + ro->idx;
    struct emu_rdv_offer *o = &r->offers[at];

    o->notify_num = ro->notify_num;
    o->notify_base = ro->notify_base;
    o->slot = ro->slot;
    o->mem_num = ro->mem_num;
    memcpy(o->mems, mems, ro->mem_num * sizeof(*mems));
    o->info_len = ro->info_len;
    memcpy(o->info, info, ro->info_len);
    /* Published like the owner does: the key, then got, then seq last. */
    emu_store_release(&o->key, ro->key);
    emu_store_release(&r->keys[at], ro->key);
    emu_store_release(&o->got, ro->got);
    emu_store_release(&o->seq, ro->seq);
}

void emu_rdv_apply(struct emu_rdv *r, const uint8_t *buf, size_t len)
{
    bool take = false; /* whether the rows that follow belong to a rank of another host */
    bool changed = false;
    size_t at = 0;

    while (at + 4 <= len) {
        uint32_t tag;
        memcpy(&tag, buf + at, 4);
        if (tag == ROW_MEMBER && at + sizeof(struct row_member) <= len) {
            struct row_member rm;
            memcpy(&rm, buf + at, sizeof(rm));
            at += sizeof(rm);
            rm.info.job_dir[sizeof(rm.info.job_dir) - 1] = '\0';
            struct rdv_member *m = rm.rank < r->nranks ? &r->members[rm.rank] : NULL;
            uint32_t st = m != NULL ? emu_load_acquire(&m->state) : 0;
            take = m != NULL && strcmp(rm.info.job_dir, r->dir) != 0 &&
                   (st == MEMBER_EMPTY || foreign(r, m));
            /* Only forward, for the same reason: a member joins, and leaves or gives up. */
            bool newer = st == MEMBER_EMPTY || (rm.state == MEMBER_LEFT && st != MEMBER_LEFT) ||
                         (rm.state == MEMBER_JOINED && st == MEMBER_GAVE_UP) ||
                         (rm.state == MEMBER_JOINED && st == MEMBER_LOST) ||
                         (rm.state == MEMBER_GONE && st == MEMBER_JOINED) ||
                         (rm.state == MEMBER_GAVE_UP && st == MEMBER_JOINED);
            if (take && st != rm.state && newer) {
                m->info = rm.info;
                emu_store_release(&m->state, rm.state);
                changed = true;
            }
        } else if (tag == ROW_OFFER && at + sizeof(struct row_offer) <= len) {
            struct row_offer ro;
            memcpy(&ro, buf + at, sizeof(ro));
            at += sizeof(ro);
            size_t mb = (size_t)ro.mem_num * sizeof(struct emu_rdv_mem);
            if (ro.mem_num > EMU_MAX_CHANNEL_MEMS || ro.info_len > EMU_RDV_INFO_MAX ||
                at + mb + ro.info_len > len || ro.from >= r->nranks || ro.to >= r->nranks ||
                ro.idx >= EMU_RDV_KEYS)
                return;
            struct emu_rdv_offer *o = &r->offers[block(r, ro.from, ro.to) + ro.idx];
            /* Only forward: seq and got only grow, and a copy that left the root before
             * a newer post must not undo it. */
            uint32_t seq = emu_load_acquire(&o->seq), got = emu_load_acquire(&o->got);
            if (take && (emu_load_acquire(&o->key) == 0 || ro.seq > seq ||
                         (ro.seq == seq && ro.got > got))) {
                apply_offer(r, &ro, (const struct emu_rdv_mem *)(buf + at), buf + at + mb);
                changed = true;
            }
            at += mb + ro.info_len;
        } else {
            return; /* malformed: keep what was applied */
        }
    }
    if (changed) {
        emu_fetch_add_release(&r->hdr->bell, 1);
        emu_os_futex_wake(&r->hdr->bell, INT32_MAX);
    }
}

bool emu_rdv_mark_gone(struct emu_rdv *r, uint32_t rank)
{
    if (rank >= r->nranks)
        return false;
    struct rdv_member *m = &r->members[rank];
    uint32_t joined = MEMBER_JOINED;

    /* Only a member copied in from another job folder: the root's own ranks have pids. */
    if (!foreign(r, m) || !emu_cas_acq_rel(&m->state, &joined, MEMBER_GONE))
        return false;
    emu_fetch_add_release(&r->hdr->bell, 1);
    emu_os_futex_wake(&r->hdr->bell, INT32_MAX);
    return true;
}

bool emu_rdv_mark_lost(struct emu_rdv *r, uint32_t rank, const char *host, const char *job_dir)
{
    if (rank >= r->nranks || strcmp(job_dir, r->dir) == 0)
        return false;
    struct rdv_member *m = &r->members[rank];
    uint32_t empty = MEMBER_EMPTY;

    if (!emu_cas_acq_rel(&m->state, &empty, MEMBER_CLAIMING))
        return false;
    memset(&m->info, 0, sizeof(m->info));
    snprintf(m->info.host, sizeof(m->info.host), "%s", host);
    snprintf(m->info.job_dir, sizeof(m->info.job_dir), "%s", job_dir);
    /* Pairs with the acquire loads of `state` by the members waiting in their join. */
    emu_store_release(&m->state, MEMBER_LOST);
    emu_fetch_add_release(&r->hdr->bell, 1);
    emu_os_futex_wake(&r->hdr->bell, INT32_MAX);
    return true;
}

static size_t block(const struct emu_rdv *r, uint32_t from, uint32_t to)
{
    return ((size_t)from * r->nranks + to) * EMU_RDV_KEYS;
}

struct emu_rdv_offer *emu_rdv_my_offer(struct emu_rdv *r, uint32_t me, uint32_t peer, uint32_t key)
{
    size_t b = block(r, me, peer);

    for (uint32_t i = 0; i < EMU_RDV_KEYS; i++)
        if (emu_load_relaxed(&r->keys[b + i]) == key)
            return &r->offers[b + i];
    for (uint32_t i = 0; i < EMU_RDV_KEYS; i++) {
        if (emu_load_relaxed(&r->keys[b + i]) == 0) {
            /* Only `me` writes this block; the key is published before any seq. */
            emu_store_release(&r->offers[b + i].key, key);
            emu_store_release(&r->keys[b + i], key);
            return &r->offers[b + i];
        }
    }
    return NULL;
}

const struct emu_rdv_offer *emu_rdv_offer_at(const struct emu_rdv *r, uint32_t from, uint32_t to,
                                             uint32_t idx)
{
    if (from >= r->nranks || to >= r->nranks || idx >= EMU_RDV_KEYS)
        return NULL;
    return &r->offers[block(r, from, to) + idx];
}

const struct emu_rdv_offer *emu_rdv_peer_offer(const struct emu_rdv *r, uint32_t peer, uint32_t me,
                                               uint32_t key)
{
    size_t b = block(r, peer, me);

    for (uint32_t i = 0; i < EMU_RDV_KEYS; i++)
        if (emu_load_acquire(&r->keys[b + i]) == key)
            return &r->offers[b + i];
    return NULL;
}
