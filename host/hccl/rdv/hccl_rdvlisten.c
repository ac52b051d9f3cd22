/* hccl_rdvlisten.c - the root's rendezvous listener (hccl_rdvnet.h, protocol in
 * rdvnet_wire.h): one thread, one poll() loop over non-blocking sockets, so no peer can hold
 * it up. Whoever connects must greet and prove the job's key within NET_HELLO_LIMIT_MS per
 * step, or is dropped; unauthenticated connections are capped per address (over it a new
 * one is turned away "busy", and a rank tries again) and in total (over it the one that got
 * least far is dropped, silent ones before a rank's between its greeting and its proof; a
 * rank whose connection closes unanswered greets again), authenticated ones too. A started request
 * must arrive, and its answer leave, within NET_IO_LIMIT_S. A communicator's file is
 * forgotten once no rank of another host is connected for it and none of this folder uses
 * it. Only authenticated ranks keep the root's process alive at exit. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/contract/settings.h"
#include "hccl_rdvnet.h"
#include "rdvnet_wire.h"

#define MAX_CONNS 1024u          /* connections at once */
#define MAX_CONNS_PER_ADDR 512u  /* ... from one address */
#define MAX_PENDING 64u          /* not yet authenticated, at once */
#define MAX_PENDING_PER_ADDR 8u  /* ... from one address */
#define MAX_FILES 64u            /* communicators served at once */
#define SWEEP_MS 500u            /* how often unused files are looked for */
#define NS_PER_MS 1000000ull

enum conn_state { CS_HELLO, CS_PROOF, CS_SERVED };

struct served_file {
    uint64_t comm;
    uint32_t nranks;
    uint32_t conns; /* connections bound to it */
    struct emu_rdv *rdv;
};

/* One connection. Greeting messages are read into `small`; requests into `in`. */
struct conn {
    int fd;
    uint32_t addr; /* the peer's IPv4 address, network order */
    char who[32];  /* "a.b.c.d:port" for messages */
    enum conn_state state;
    uint64_t born; /* ns, at accept */
    uint64_t deadline; /* ns; 0: none (an idle authenticated connection) */
    uint8_t my_nonce[EMU_RDV_NONCE_BYTES], peer_nonce[EMU_RDV_NONCE_BYTES];
    struct net_who id;        /* what the proof named (CS_SERVED) */
    struct served_file *file; /* its communicator (CS_SERVED) */
    union {
        struct net_hello hello;
        struct net_proof proof;
        struct net_req_hdr hdr;
    } small;
    size_t have; /* bytes of the message being read */
    bool have_hdr;
    struct net_req_hdr q;
    uint8_t *in;
    size_t in_cap;
    uint8_t *out; /* the answer being sent */
    size_t out_len, out_off, out_cap;
    bool close_after; /* close once `out` is sent (a refusal) */
};

static struct {
    pthread_mutex_t lock;
    bool running;
    int fd;
    uint32_t ip;
    uint16_t port;
    uint8_t key[EMU_JOB_KEY_BYTES];
    char dir[EMU_PATH_MAX];
    struct served_file files[MAX_FILES];
    struct conn *conns[MAX_CONNS];
    uint32_t n;
    uint64_t last_note;   /* when the last line about an unauthenticated peer was logged */
    uint32_t unsaid;      /* such lines not logged since */
    _Atomic uint32_t members; /* authenticated connections of ranks: the root waits for them */
} srv = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

/* A line about a peer that has not proved the key: at most one a second (a flood of
 * connections must not flood the log), saying how many were left out. */
static void note(enum emu_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(enum emu_log_level level, const char *fmt, ...)
{
    char line[400];
    uint64_t now = emu_os_now_ns();
    va_list ap;

    if (srv.last_note != 0 && now - srv.last_note < 1000 * NS_PER_MS) {
        srv.unsaid++;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (srv.unsaid != 0)
        emu_log_print(level, "rendezvous listener: %s (and %u more such events)", line,
                      srv.unsaid);
    else
        emu_log_print(level, "rendezvous listener: %s", line);
    srv.last_note = now;
    srv.unsaid = 0;
}

/* ---- communicators ----------------------------------------------------------------------- */

static void forget_unused(void)
{
    for (uint32_t i = 0; i < MAX_FILES; i++) {
        struct served_file *f = &srv.files[i];
        if (f->rdv == NULL || f->conns != 0 || !emu_rdv_unused_here(f->rdv))
            continue;
        emu_rdv_close(f->rdv, 0, false);
        *f = (struct served_file){0};
    }
}

static struct served_file *served(uint64_t comm, uint32_t nranks)
{
    struct served_file *free_slot = NULL;

    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < MAX_FILES; i++) {
            struct served_file *f = &srv.files[i];
            if (f->rdv != NULL && f->comm == comm && f->nranks == nranks)
                return f;
            if (f->rdv == NULL && free_slot == NULL)
                free_slot = f;
        }
        if (free_slot != NULL)
            break;
        forget_unused();
    }
    if (free_slot == NULL) {
        EMU_LOG_ERR("rendezvous listener: %u communicators with ranks of other hosts are in "
                    "use at once; communicator %016llx is refused", MAX_FILES,
                    (unsigned long long)comm);
        return NULL;
    }
    if (emu_rdv_open(srv.dir, comm, nranks, NULL, "rendezvous listener", 0, &free_slot->rdv) != EMU_OK)
        return NULL;
    free_slot->comm = comm;
    free_slot->nranks = nranks;
    return free_slot;
}

/* ---- connections -------------------------------------------------------------------------- */

/* The connection closed or failed while its rank was still a member, or before it joined:
 * its process or host is gone. Mark it so in the served file, so the waits on it there (and,
 * through the rows, on the other hosts) end with EMU_EREMOTE now instead of at
 * HCCL_CONNECT_TIMEOUT. A rank that destroyed its communicator has left already. */
static void rank_gone(const struct conn *c)
{
    struct emu_rdv *r = c->file->rdv;

    if (emu_rdv_mark_gone(r, c->id.rank))
        EMU_LOG_INFO("rendezvous listener: rank %u (from %s) closed its connection while still "
                     "a member of communicator %016llx: counted as gone, so waits on it fail",
                     c->id.rank, c->who, (unsigned long long)c->id.comm);
    else if (emu_rdv_mark_lost(r, c->id.rank, c->id.host, c->id.job_dir))
        EMU_LOG_INFO("rendezvous listener: rank %u (host %s, from %s) closed its connection "
                     "before it joined communicator %016llx: counted as lost, so the joins "
                     "waiting for it fail", c->id.rank, c->id.host, c->who,
                     (unsigned long long)c->id.comm);
}

static void drop(uint32_t i)
{
    struct conn *c = srv.conns[i];

    if (c->state == CS_SERVED) {
        rank_gone(c);
        c->file->conns--;
        atomic_fetch_sub(&srv.members, 1);
    }
    close(c->fd);
    free(c->in);
    free(c->out);
    free(c);
    srv.conns[i] = srv.conns[--srv.n];
}

/* Queue `len` bytes for sending (after what is queued). */
static bool queue(struct conn *c, const void *p, size_t len)
{
    if (!net_grow(&c->out, &c->out_cap, c->out_len + len))
        return false;
    memcpy(c->out + c->out_len, p, len);
    c->out_len += len;
    return true;
}

/* Send what is queued; false when the connection failed. */
static bool flush_out(struct conn *c, uint64_t now)
{
    while (c->out_off < c->out_len) {
        ssize_t k = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (c->deadline == 0)
                c->deadline = now + NET_IO_LIMIT_S * 1000 * NS_PER_MS;
            return true;
        }
        if (k <= 0)
            return false;
        c->out_off += (size_t)k;
    }
    c->out_off = c->out_len = 0;
    if (c->state == CS_SERVED)
        c->deadline = 0;
    return !c->close_after;
}

/* Read into dst until `need` bytes are there: 1 complete, 0 more to come, -1 closed/failed. */
static int read_into(struct conn *c, uint8_t *dst, size_t need)
{
    while (c->have < need) {
        ssize_t k = recv(c->fd, dst + c->have, need - c->have, MSG_DONTWAIT);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (k <= 0)
            return -1;
        c->have += (size_t)k;
    }
    c->have = 0;
    return 1;
}

static bool refuse(struct conn *c, const char *why)
{
    note(EMU_LOG_LEVEL_ERR, "refused %s: %s", c->who, why);
    return false;
}

static bool on_hello(struct conn *c, uint64_t now)
{
    const struct net_hello *h = &c->small.hello;

    if (h->magic != NET_MAGIC)
        return refuse(c, "not an hcemu rank");
    if (h->version != NET_VERSION || h->layout != net_layout_word())
        return refuse(c, "another hcemu build");
    memcpy(c->peer_nonce, h->nonce, sizeof(c->peer_nonce));
    struct net_challenge ch = {.magic = NET_MAGIC, .status = NET_CH_OK};
    if (!emu_rdv_nonce(c->my_nonce))
        return false;
    memcpy(ch.nonce, c->my_nonce, sizeof(ch.nonce));
    emu_rdv_proof(srv.key, "listener", c->peer_nonce, c->my_nonce, NULL, 0, ch.proof);
    c->state = CS_PROOF;
    c->deadline = now + NET_HELLO_LIMIT_MS * NS_PER_MS;
    return queue(c, &ch, sizeof(ch)) && flush_out(c, now);
}

/* Send `answer` and close once it is sent: a refusal the rank reads, so it does not greet
 * again as it does after a connection closed unanswered. */
static bool answer_and_close(struct conn *c, uint32_t answer, uint64_t now)
{
    c->close_after = true;
    return queue(c, &answer, sizeof(answer)) && flush_out(c, now);
}

static bool on_proof(struct conn *c, uint64_t now)
{
    struct net_proof *p = &c->small.proof;
    uint8_t want[EMU_RDV_PROOF_BYTES];
    uint32_t answer = NET_SERVED;

    emu_rdv_proof(srv.key, "rank", c->my_nonce, c->peer_nonce, &p->who, sizeof(p->who), want);
    if (!emu_rdv_proof_equal(want, p->proof)) {
        refuse(c, "it does not know the job's key (or answered another challenge)");
        return answer_and_close(c, NET_REFUSED, now);
    }
    struct net_who *w = &p->who;
    w->host[sizeof(w->host) - 1] = '\0';
    w->job_dir[sizeof(w->job_dir) - 1] = '\0';
    if (w->nranks == 0 || w->nranks > EMU_COMM_MAX_RANKS || w->rank >= w->nranks) {
        refuse(c, "it names no rank of a communicator hcemu can make");
        return answer_and_close(c, NET_REFUSED, now);
    }
    struct served_file *f = served(w->comm, w->nranks);
    if (f == NULL)
        return answer_and_close(c, NET_FULL, now);
    c->id = *w;
    c->file = f;
    f->conns++;
    c->state = CS_SERVED;
    c->deadline = 0;
    atomic_fetch_add(&srv.members, 1);
    return queue(c, &answer, sizeof(answer)) && flush_out(c, now);
}

/* A request of the rank the connection serves, of at most one rank's rows. */
static bool on_request_hdr(struct conn *c)
{
    const struct net_req_hdr *q = &c->q;

    if (q->magic != NET_MAGIC || q->comm != c->id.comm || q->nranks != c->id.nranks ||
        q->rank != c->id.rank)
        return refuse(c, "a request for another rank or communicator than it proved");
    if (q->len > emu_rdv_encode_rank_max(q->nranks))
        return refuse(c, "a request larger than one rank's rows of its communicator");
    if (!net_grow(&c->in, &c->in_cap, q->len)) {
        EMU_LOG_ERR("rendezvous listener: out of memory for a request of %s", c->who);
        return false;
    }
    return true;
}

static bool on_request(struct conn *c, uint64_t now)
{
    struct emu_rdv *r = c->file->rdv;
    struct net_req_hdr a = c->q;

    emu_rdv_apply(r, c->in, c->q.len);
    /* Every rank's rows: grow until they fit, up to what the communicator can hold. */
    size_t cap = 65536, max = emu_rdv_encode_max(c->id.nranks);
    for (;;) {
        if (!net_grow(&c->out, &c->out_cap, sizeof(a) + cap))
            return false;
        a.len = emu_rdv_encode(r, UINT32_MAX, c->out + sizeof(a), cap);
        if (a.len != SIZE_MAX)
            break;
        if (cap >= max) {
            EMU_LOG_ERR("rendezvous listener: the rows of communicator %016llx do not fit "
                        "%zu bytes", (unsigned long long)c->id.comm, max);
            return false;
        }
        cap *= 2;
    }
    memcpy(c->out, &a, sizeof(a));
    c->out_len = sizeof(a) + a.len;
    c->out_off = 0;
    c->have_hdr = false;
    c->deadline = now + NET_IO_LIMIT_S * 1000 * NS_PER_MS;
    return flush_out(c, now);
}

/* Whatever the socket has; false when the connection is to be dropped. */
static bool on_readable(struct conn *c, uint64_t now)
{
    for (;;) {
        if (c->out_len != 0) /* one exchange at a time: the answer goes first */
            return true;
        int got;
        switch (c->state) {
        case CS_HELLO:
            if ((got = read_into(c, (uint8_t *)&c->small.hello, sizeof(c->small.hello))) <= 0)
                return got == 0;
            if (!on_hello(c, now))
                return false;
            continue;
        case CS_PROOF:
            if ((got = read_into(c, (uint8_t *)&c->small.proof, sizeof(c->small.proof))) <= 0)
                return got == 0;
            if (!on_proof(c, now))
                return false;
            continue;
        case CS_SERVED:
            if (!c->have_hdr) {
                if ((got = read_into(c, (uint8_t *)&c->q, sizeof(c->q))) == 0 && c->have != 0 &&
                    c->deadline == 0)
                    c->deadline = now + NET_IO_LIMIT_S * 1000 * NS_PER_MS;
                if (got <= 0)
                    return got == 0;
                if (c->deadline == 0)
                    c->deadline = now + NET_IO_LIMIT_S * 1000 * NS_PER_MS;
                if (!on_request_hdr(c))
                    return false;
                c->have_hdr = true;
            }
            if ((got = read_into(c, c->in, c->q.len)) <= 0)
                return got == 0;
            if (!on_request(c, now))
                return false;
            continue;
        }
    }
}

/* ---- accepting ---------------------------------------------------------------------------- */

/* How far an unauthenticated connection got: nothing received, part of a greeting, or a
 * greeting answered with our challenge (a rank sends its proof at once). */
static int progress(const struct conn *c)
{
    return c->state == CS_PROOF ? 2 : c->have > 0 ? 1 : 0;
}

/* Whether unauthenticated connection a goes before b when one must be dropped: the one that
 * got least far, then the older. A flood of silent connections (reconnected as soon as they
 * are dropped) then takes its own places, not those of ranks between their greeting and
 * their proof; a rank's greeting that was dropped all the same is sent again. */
static bool drops_before(const struct conn *a, const struct conn *b)
{
    int pa = progress(a), pb = progress(b);

    return pa != pb ? pa < pb : a->born < b->born;
}

/* Connections from `addr`, those of them not authenticated yet, and the unauthenticated
 * connection to drop first when there are too many (its index, UINT32_MAX for none) with
 * their count. */
static void count_from(uint32_t addr, uint32_t *all, uint32_t *pending, uint32_t *pending_all,
                       uint32_t *drop_first)
{
    *all = *pending = *pending_all = 0;
    *drop_first = UINT32_MAX;
    for (uint32_t i = 0; i < srv.n; i++) {
        bool p = srv.conns[i]->state != CS_SERVED;
        *pending_all += p;
        if (p && (*drop_first == UINT32_MAX ||
                  drops_before(srv.conns[i], srv.conns[*drop_first])))
            *drop_first = i;
        if (srv.conns[i]->addr == addr) {
            (*all)++;
            *pending += p;
        }
    }
}

/* TCP keepalive on a rank's connection: a host that vanished without closing it (power,
 * network) is found within about 5 s of silence, not at the kernel's two hours. */
static void keep_alive(int fd)
{
    int one = 1, idle = 2, intvl = 1, cnt = 3;

    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Over a cap: say "busy" (a rank tries again) and close; one line a second at most. */
static void turn_away(int fd, const char *who, const char *why)
{
    struct net_challenge ch = {.magic = NET_MAGIC, .status = NET_CH_BUSY};
    ssize_t ignored = send(fd, &ch, sizeof(ch), MSG_NOSIGNAL | MSG_DONTWAIT);

    (void)ignored;
    close(fd);
    note(EMU_LOG_LEVEL_WARN, "turned %s away: %s (a rank tries again; a peer has %u ms per "
         "step to prove the job's key)", who, why, NET_HELLO_LIMIT_MS);
}

static void accept_some(uint64_t now)
{
    for (int k = 0; k < 64; k++) {
        struct sockaddr_in a;
        socklen_t al = sizeof(a);
        int fd = accept4(srv.fd, (struct sockaddr *)&a, &al, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        char who[32];
        snprintf(who, sizeof(who), "%s:%u", inet_ntoa(a.sin_addr), (unsigned)ntohs(a.sin_port));
        uint32_t all, pending, pending_all, drop_first;
        count_from(a.sin_addr.s_addr, &all, &pending, &pending_all, &drop_first);
        const char *why = srv.n >= MAX_CONNS                  ? "too many connections"
                          : all >= MAX_CONNS_PER_ADDR         ? "too many connections from it"
                          : pending >= MAX_PENDING_PER_ADDR   ? "too many greetings from it"
                                                              : NULL;
        if (why == NULL && pending_all >= MAX_PENDING && drop_first != UINT32_MAX) {
            note(EMU_LOG_LEVEL_WARN, "%u greetings at once: dropped the least advanced (from "
                 "%s) for a new one", MAX_PENDING, srv.conns[drop_first]->who);
            drop(drop_first);
        }
        struct conn *c = why == NULL ? calloc(1, sizeof(*c)) : NULL;
        if (c == NULL) {
            turn_away(fd, who, why != NULL ? why : "out of memory");
            continue;
        }
        keep_alive(fd);
        c->fd = fd;
        c->addr = a.sin_addr.s_addr;
        snprintf(c->who, sizeof(c->who), "%s", who);
        c->state = CS_HELLO;
        c->born = now;
        c->deadline = now + NET_HELLO_LIMIT_MS * NS_PER_MS;
        srv.conns[srv.n++] = c;
    }
}

/* ---- the loop ----------------------------------------------------------------------------- */

static void *listener_main(void *arg)
{
    static struct pollfd fds[MAX_CONNS + 1];
    uint64_t next_sweep = 0;

    (void)arg;
    for (;;) {
        uint64_t now = emu_os_now_ns(), wake = now + SWEEP_MS * NS_PER_MS;
        fds[0] = (struct pollfd){.fd = srv.fd, .events = srv.n < MAX_CONNS ? POLLIN : 0};
        for (uint32_t i = 0; i < srv.n; i++) {
            struct conn *c = srv.conns[i];
            fds[i + 1] = (struct pollfd){.fd = c->fd, .events = c->out_len ? POLLOUT : POLLIN};
            if (c->deadline != 0 && c->deadline < wake)
                wake = c->deadline;
        }
        uint32_t polled = srv.n;
        int ms = wake > now ? (int)((wake - now + NS_PER_MS - 1) / NS_PER_MS) : 0;
        if (poll(fds, polled + 1, ms) < 0 && errno != EINTR)
            return NULL;
        now = emu_os_now_ns();
        /* Backwards, so that drop()'s move of the last connection into slot i is safe. */
        for (uint32_t i = polled; i-- > 0;) {
            struct conn *c = srv.conns[i];
            bool ok = true;
            if (fds[i + 1].revents & POLLOUT)
                ok = flush_out(c, now);
            else if (fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR))
                ok = on_readable(c, now);
            if (ok && c->deadline != 0 && now >= c->deadline) {
                if (c->state == CS_SERVED)
                    EMU_LOG_WARN("rendezvous listener: dropped rank %u (from %s): a request or "
                                 "its answer stalled for %u s", c->id.rank, c->who,
                                 NET_IO_LIMIT_S);
                else
                    note(EMU_LOG_LEVEL_WARN, "dropped %s: it did not greet and prove the job's "
                         "key within %u ms", c->who, NET_HELLO_LIMIT_MS);
                ok = false;
            }
            if (!ok)
                drop(i);
        }
        if (fds[0].revents & POLLIN)
            accept_some(now);
        if (now >= next_sweep) {
            forget_unused();
            next_sweep = now + SWEEP_MS * NS_PER_MS;
        }
    }
}

static emu_status open_listener(uint32_t ip, uint16_t port, uint16_t *bound)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = ip, .sin_port = htons(port)};
    socklen_t al = sizeof(a);
    int one = 1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

    if (fd < 0)
        return EMU_ESYSCALL;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 128) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
        EMU_LOG_ERR("rendezvous: cannot listen on %s:%u: %s", inet_ntoa(a.sin_addr),
                    (unsigned)port, strerror(errno));
        close(fd);
        return EMU_ESYSCALL;
    }
    srv.fd = fd;
    *bound = ntohs(a.sin_port);
    return EMU_OK;
}

/* At exit of the root's process: ranks of other hosts may still be creating channels among
 * themselves, which goes through this listener, so it serves on until each authenticated
 * rank has closed its connection (at communicator destroy or at its own exit), within
 * HCCL_CONNECT_TIMEOUT. Connections that never proved the key do not count. */
static void linger_for_members(void)
{
    uint64_t start = emu_os_now_ns();
    uint64_t deadline = start + emu_settings_u64(EMU_SET_HCCL_CONNECT_TIMEOUT) * 1000000000ull;
    bool said = false;

    while (atomic_load(&srv.members) > 0) {
        uint64_t now = emu_os_now_ns();
        if (now >= deadline) {
            EMU_LOG_ERR("rendezvous listener: %u rank(s) of other hosts still connected after "
                        "HCCL_CONNECT_TIMEOUT; this process exits anyway",
                        atomic_load(&srv.members));
            return;
        }
        if (!said && now - start > 1000000000ull) {
            EMU_LOG_INFO("rendezvous listener: the process of the root waits for %u rank(s) "
                         "of other hosts to leave", atomic_load(&srv.members));
            said = true;
        }
        usleep(2000);
    }
}

emu_status emu_rdvnet_listen(const char *dir, uint32_t ip, uint16_t port, const uint8_t *key,
                             uint16_t *bound)
{
    pthread_t th;
    emu_status s = EMU_OK;

    pthread_mutex_lock(&srv.lock);
    if (srv.running) {
        if (srv.ip != ip || (port != 0 && srv.port != port) || strcmp(srv.dir, dir) != 0 ||
            !emu_rdv_proof_equal(srv.key, key)) {
            EMU_LOG_ERR("rendezvous: this process already listens on port %u for another job",
                        (unsigned)srv.port);
            s = EMU_EINVAL;
        }
        *bound = srv.port;
        pthread_mutex_unlock(&srv.lock);
        return s;
    }
    snprintf(srv.dir, sizeof(srv.dir), "%s", dir);
    memcpy(srv.key, key, EMU_JOB_KEY_BYTES);
    srv.ip = ip;
    if ((s = open_listener(ip, port, &srv.port)) == EMU_OK) {
        if (pthread_create(&th, NULL, listener_main, NULL) != 0) {
            close(srv.fd);
            s = EMU_ESYSCALL;
        } else {
            pthread_detach(th); /* serves until the process ends: ranks of other hosts may
                                 * still meet after this process's own ranks are done */
            srv.running = true;
            *bound = srv.port;
            atexit(linger_for_members);
        }
    }
    pthread_mutex_unlock(&srv.lock);
    return s;
}

bool emu_rdvnet_is_listener(uint32_t ip, uint16_t port)
{
    pthread_mutex_lock(&srv.lock);
    bool me = srv.running && srv.port == port && (srv.ip == ip || srv.ip == 0);
    pthread_mutex_unlock(&srv.lock);
    return me;
}
