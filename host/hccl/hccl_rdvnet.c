/* hccl_rdvnet.c - rendezvous rows over TCP between the root's process and ranks of other hosts
 * (see hccl_rdvnet.h).
 *
 * Wire: the client opens with {magic, version, secret}; the server answers 1 (served) or
 * closes after one log line (refused). Then every exchange is one request {magic, nonce,
 * nranks, rank, length, rows of `rank`} answered by {magic, length, every rank's rows}; rows
 * are emu_rdv_encode()'s. The server is one thread polling every connection; every read and
 * write has a 10 s limit, so a silent peer costs a bounded wait, never a hang. */
#include "hccl_rdvnet.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"
#include "common/os.h"
#include "common/settings.h"
#include "hccl_rdv.h"

#define NET_MAGIC 0x3154454e4d454348ull /* "HCEMNET1" */
#define NET_VERSION 2u
#define IO_LIMIT_S 10
#define MAX_CLIENTS 256
#define MAX_FILES 64
#define MAX_MSG (256u << 20) /* rows of the largest communicator, with room */

/* The greeting names the rank the connection serves, so the listener can name a rank that
 * dies before its first row arrives (hccl_rdv.h, emu_rdv_mark_lost). */
struct hello {
    uint64_t magic;
    uint32_t version;
    uint32_t layout; /* sizeof of the shared records: both ends must be the same build */
    uint8_t secret[EMU_ROOT_SECRET_BYTES];
    uint64_t nonce;
    uint32_t nranks, rank;
    char host[EMU_HOST_NAME_MAX];
    char job_dir[EMU_PATH_MAX];
};

struct req_hdr {
    uint64_t magic;
    uint64_t nonce;
    uint32_t nranks, rank;
    uint64_t len;
};

struct emu_rdvnet {
    pthread_mutex_t lock; /* one exchange at a time on the connection */
    int fd;
    _Atomic bool broken; /* read by waits without the lock */
    uint8_t *buf;
    size_t cap;
};

static uint32_t layout_word(void)
{
    return (uint32_t)(sizeof(struct emu_rank_info) * 7u + sizeof(struct emu_rdv_offer));
}

/* ---- bounded socket I/O ------------------------------------------------------------------ */

static void limit_io(int fd)
{
    struct timeval tv = {.tv_sec = IO_LIMIT_S};
    int one = 1;

    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static bool io_all(int fd, void *p, size_t n, bool out)
{
    uint8_t *b = p;

    while (n > 0) {
        ssize_t k = out ? send(fd, b, n, MSG_NOSIGNAL) : recv(fd, b, n, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        b += k;
        n -= (size_t)k;
    }
    return true;
}

static bool grow(uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return true;
    size_t n = *cap != 0 ? *cap : 65536;
    while (n < need)
        n *= 2;
    uint8_t *p = realloc(*buf, n);
    if (p == NULL)
        return false;
    *buf = p;
    *cap = n;
    return true;
}

/* Rows of `rank` (UINT32_MAX: all) of `r` into *buf, growing it; the length (0 = none). */
static size_t encode(struct emu_rdv *r, uint32_t rank, uint8_t **buf, size_t *cap)
{
    for (;;) {
        if (!grow(buf, cap, 65536))
            return 0;
        size_t n = emu_rdv_encode(r, rank, *buf, *cap);
        if (n != 0 || *cap >= emu_rdv_encode_max(1024))
            return n;
        if (!grow(buf, cap, *cap * 2))
            return 0;
    }
}

static bool secret_equal(const uint8_t *a, const uint8_t *b)
{
    uint8_t d = 0;

    for (uint32_t i = 0; i < EMU_ROOT_SECRET_BYTES; i++)
        d |= (uint8_t)(a[i] ^ b[i]);
    return d == 0;
}

/* ---- the root's listener ----------------------------------------------------------------- */

struct served_file {
    uint64_t nonce;
    uint32_t nranks;
    struct emu_rdv *rdv;
};

static struct {
    pthread_mutex_t lock;
    bool running;
    int fd;
    uint32_t ip;
    uint16_t port;
    uint8_t secret[EMU_ROOT_SECRET_BYTES];
    char dir[EMU_PATH_MAX];
    struct served_file files[MAX_FILES];
    uint8_t *buf;
    size_t cap;
    _Atomic uint32_t clients; /* connections of other hosts' ranks still open */
} srv = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

static struct emu_rdv *served_now(uint64_t nonce, uint32_t nranks)
{
    for (uint32_t i = 0; i < MAX_FILES; i++)
        if (srv.files[i].rdv != NULL && srv.files[i].nonce == nonce &&
            srv.files[i].nranks == nranks)
            return srv.files[i].rdv;
    return NULL;
}

static struct emu_rdv *served(uint64_t nonce, uint32_t nranks)
{
    struct emu_rdv *r = served_now(nonce, nranks);

    if (r != NULL)
        return r;
    for (uint32_t i = 0; i < MAX_FILES; i++) {
        if (srv.files[i].rdv != NULL)
            continue;
        if (emu_rdv_open(srv.dir, nonce, nranks, NULL, "rendezvous listener", 0, &srv.files[i].rdv) !=
            EMU_OK)
            return NULL;
        srv.files[i].nonce = nonce;
        srv.files[i].nranks = nranks;
        return srv.files[i].rdv;
    }
    EMU_LOG_ERR("rendezvous listener: more than %u communicators at once", MAX_FILES);
    return NULL;
}

static void peer_name(int fd, char *out, size_t len)
{
    struct sockaddr_in a;
    socklen_t al = sizeof(a);

    if (getpeername(fd, (struct sockaddr *)&a, &al) == 0)
        snprintf(out, len, "%s:%u", inet_ntoa(a.sin_addr), (unsigned)ntohs(a.sin_port));
    else
        snprintf(out, len, "?");
}

/* What the listener knows of one connection: which rank of which communicator it serves
 * (each rank of another host has one connection per communicator). */
struct client {
    bool greeted;
    bool known; /* the greeting named the rank below */
    uint64_t nonce;
    uint32_t nranks, rank;
    char who[64];
    char host[EMU_HOST_NAME_MAX];
    char job_dir[EMU_PATH_MAX];
};

/* The first message of a connection; false (after one line) when the peer is refused. */
static bool serve_hello(int fd, struct client *cl)
{
    struct hello h;
    char who[64];
    uint32_t ok = 1;

    if (!io_all(fd, &h, sizeof(h), false))
        return false;
    if (h.magic != NET_MAGIC || h.version != NET_VERSION || h.layout != layout_word() ||
        !secret_equal(h.secret, srv.secret)) {
        peer_name(fd, who, sizeof(who));
        EMU_LOG_ERR("rendezvous listener: refused %s: %s", who,
                    h.magic != NET_MAGIC ? "not an hcemu rank"
                    : h.version != NET_VERSION || h.layout != layout_word()
                        ? "another hcemu build"
                        : "it does not know the root info's secret");
        return false;
    }
    if (h.nranks != 0 && h.rank < h.nranks) {
        cl->known = true;
        cl->nonce = h.nonce;
        cl->nranks = h.nranks;
        cl->rank = h.rank;
        snprintf(cl->host, sizeof(cl->host), "%.*s", (int)sizeof(h.host) - 1, h.host);
        snprintf(cl->job_dir, sizeof(cl->job_dir), "%.*s", (int)sizeof(h.job_dir) - 1, h.job_dir);
        peer_name(fd, cl->who, sizeof(cl->who));
    }
    return io_all(fd, &ok, sizeof(ok), true);
}

static bool serve_request(int fd, struct client *cl)
{
    struct req_hdr q;

    if (!io_all(fd, &q, sizeof(q), false) || q.magic != NET_MAGIC || q.len > MAX_MSG ||
        q.nranks == 0 || q.rank >= q.nranks || !grow(&srv.buf, &srv.cap, q.len) ||
        !io_all(fd, srv.buf, q.len, false))
        return false;
    struct emu_rdv *r = served(q.nonce, q.nranks);
    if (r == NULL)
        return false;
    cl->known = true;
    cl->nonce = q.nonce;
    cl->nranks = q.nranks;
    cl->rank = q.rank;
    emu_rdv_apply(r, srv.buf, q.len);
    struct req_hdr a = {.magic = NET_MAGIC, .nonce = q.nonce, .nranks = q.nranks, .rank = q.rank};
    a.len = encode(r, UINT32_MAX, &srv.buf, &srv.cap);
    return io_all(fd, &a, sizeof(a), true) && io_all(fd, srv.buf, a.len, true);
}

/* A connection closed (or failed) while its rank was still a member, or before it joined:
 * its process or host is gone. Mark it so in the served file, so the waits on it there (and,
 * through the rows, on the other hosts) end with EMU_EREMOTE now instead of at
 * HCCL_CONNECT_TIMEOUT: channel waits, and the joins still waiting for every rank. A rank
 * that destroyed its communicator has left already and is not named. */
static void client_gone(const struct client *cl)
{
    struct emu_rdv *r = cl->known ? served(cl->nonce, cl->nranks) : NULL;

    if (r != NULL && emu_rdv_mark_gone(r, cl->rank))
        EMU_LOG_INFO("rendezvous listener: rank %u (from %s) closed its connection while still "
                     "a member of communicator %016llx: counted as gone, so waits on it fail",
                     cl->rank, cl->who, (unsigned long long)cl->nonce);
    else if (r != NULL && emu_rdv_mark_lost(r, cl->rank, cl->host, cl->job_dir))
        EMU_LOG_INFO("rendezvous listener: rank %u (host %s, from %s) closed its connection "
                     "before it joined communicator %016llx: counted as lost, so the joins "
                     "waiting for it fail", cl->rank, cl->host, cl->who,
                     (unsigned long long)cl->nonce);
}

/* TCP keepalive on a client's connection: a host that vanished without closing it (power,
 * network) is found within about 5 s of silence, not at the kernel's two hours. */
static void keep_alive(int fd)
{
    int one = 1, idle = 2, intvl = 1, cnt = 3;

    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
}

static void *listener_main(void *arg)
{
    struct pollfd fds[MAX_CLIENTS + 1];
    static struct client cls[MAX_CLIENTS + 1];
    nfds_t n = 1;

    (void)arg;
    fds[0] = (struct pollfd){.fd = srv.fd, .events = POLLIN};
    for (;;) {
        if (poll(fds, n, -1) < 0 && errno != EINTR)
            return NULL;
        for (nfds_t i = 1; i < n; i++) {
            if (fds[i].revents == 0)
                continue;
            bool ok = (fds[i].revents & POLLIN) != 0 &&
                      (cls[i].greeted ? serve_request(fds[i].fd, &cls[i])
                                      : serve_hello(fds[i].fd, &cls[i]));
            cls[i].greeted = true;
            if (!ok) { /* done, refused or gone: drop it, moving the last one here */
                client_gone(&cls[i]);
                close(fds[i].fd);
                atomic_fetch_sub(&srv.clients, 1);
                fds[i] = fds[n - 1];
                cls[i] = cls[n - 1];
                n--;
                i--;
            }
        }
        if (fds[0].revents & POLLIN) {
            int c = accept4(srv.fd, NULL, NULL, SOCK_CLOEXEC);
            if (c >= 0 && n <= MAX_CLIENTS) {
                limit_io(c);
                keep_alive(c);
                atomic_fetch_add(&srv.clients, 1);
                fds[n] = (struct pollfd){.fd = c, .events = POLLIN};
                cls[n++] = (struct client){0};
            } else if (c >= 0) {
                EMU_LOG_ERR("rendezvous listener: more than %u ranks of other hosts", MAX_CLIENTS);
                close(c);
            }
        }
    }
}

static emu_status open_listener(uint32_t ip, uint16_t port, uint16_t *bound)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = ip, .sin_port = htons(port)};
    socklen_t al = sizeof(a);
    int one = 1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

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
 * themselves, which goes through this listener, so it serves on until each has closed its
 * connection (at communicator destroy or at its own exit), within HCCL_CONNECT_TIMEOUT. */
static void linger_for_clients(void)
{
    uint64_t start = emu_os_now_ns();
    uint64_t deadline = start + emu_settings_u64(EMU_SET_HCCL_CONNECT_TIMEOUT) * 1000000000ull;
    bool said = false;

    while (atomic_load(&srv.clients) > 0) {
        uint64_t now = emu_os_now_ns();
        if (now >= deadline) {
            EMU_LOG_ERR("rendezvous listener: %u rank(s) of other hosts still connected after "
                        "HCCL_CONNECT_TIMEOUT; this process exits anyway",
                        atomic_load(&srv.clients));
            return;
        }
        if (!said && now - start > 1000000000ull) {
            EMU_LOG_INFO("rendezvous listener: the process of the root waits for %u rank(s) "
                         "of other hosts to leave", atomic_load(&srv.clients));
            said = true;
        }
        usleep(2000);
    }
}

emu_status emu_rdvnet_listen(const char *dir, uint32_t ip, uint16_t port, const uint8_t *secret,
                             uint16_t *bound)
{
    pthread_t th;
    emu_status s = EMU_OK;

    pthread_mutex_lock(&srv.lock);
    if (srv.running) {
        if (srv.ip != ip || (port != 0 && srv.port != port) || strcmp(srv.dir, dir) != 0 ||
            !secret_equal(srv.secret, secret)) {
            EMU_LOG_ERR("rendezvous: this process already listens on port %u for another job",
                        (unsigned)srv.port);
            s = EMU_EINVAL;
        }
        *bound = srv.port;
        pthread_mutex_unlock(&srv.lock);
        return s;
    }
    snprintf(srv.dir, sizeof(srv.dir), "%s", dir);
    memcpy(srv.secret, secret, EMU_ROOT_SECRET_BYTES);
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
            atexit(linger_for_clients);
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

/* ---- a rank of another host ------------------------------------------------------------- */

static int try_connect(uint32_t ip, uint16_t port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = ip, .sin_port = htons(port)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    limit_io(fd);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

emu_status emu_rdvnet_connect(uint32_t ip, uint16_t port, const uint8_t *secret, uint64_t deadline,
                              const struct emu_rdvnet_who *me, struct emu_rdvnet **out)
{
    struct hello h = {.magic = NET_MAGIC, .version = NET_VERSION, .layout = layout_word(),
                      .nonce = me->nonce, .nranks = me->nranks, .rank = me->rank};
    const char *fn = me->fn;
    uint32_t rank = me->rank;
    struct in_addr ia = {.s_addr = ip};
    uint32_t ok = 0;
    int fd;

    memcpy(h.secret, secret, EMU_ROOT_SECRET_BYTES);
    snprintf(h.host, sizeof(h.host), "%s", me->host);
    snprintf(h.job_dir, sizeof(h.job_dir), "%s", me->job_dir);
    /* The root's process may not listen yet: it starts when rank 0 asks for the root info. */
    while ((fd = try_connect(ip, port)) < 0) {
        if (emu_os_now_ns() >= deadline) {
            EMU_LOG_ERR("%s: rank %u: nobody listens at the root's address %s:%u "
                        "(HCCL_CONNECT_TIMEOUT)", fn, rank, inet_ntoa(ia), (unsigned)port);
            return EMU_ETIMEOUT;
        }
        usleep(20000);
    }
    if (!io_all(fd, &h, sizeof(h), true) || !io_all(fd, &ok, sizeof(ok), false) || ok != 1) {
        EMU_LOG_ERR("%s: rank %u: the root's listener at %s:%u refused us (another job, or "
                    "another secret)", fn, rank, inet_ntoa(ia), (unsigned)port);
        close(fd);
        return EMU_EREMOTE;
    }
    struct emu_rdvnet *n = calloc(1, sizeof(*n));
    if (n == NULL) {
        close(fd);
        return EMU_ENOMEM;
    }
    EMU_LOG_INFO("%s: rank %u: connected to the root's rendezvous listener at %s:%u", fn, rank,
                 inet_ntoa(ia), (unsigned)port);
    pthread_mutex_init(&n->lock, NULL);
    n->fd = fd;
    *out = n;
    return EMU_OK;
}

static void exchange(struct emu_rdvnet *n, struct emu_rdv *r, const struct req_hdr *qp, bool leaving);

void emu_rdvnet_sync(struct emu_rdvnet *n, struct emu_rdv *r, uint64_t nonce, uint32_t nranks,
                     uint32_t rank, bool leaving)
{
    struct req_hdr q = {.magic = NET_MAGIC, .nonce = nonce, .nranks = nranks, .rank = rank};

    pthread_mutex_lock(&n->lock);
    exchange(n, r, &q, leaving);
    pthread_mutex_unlock(&n->lock);
}

static void exchange(struct emu_rdvnet *n, struct emu_rdv *r, const struct req_hdr *qp, bool leaving)
{
    struct req_hdr q = *qp;
    uint32_t rank = q.rank;

    if (n->broken)
        return;
    q.len = encode(r, rank, &n->buf, &n->cap);
    bool ok = io_all(n->fd, &q, sizeof(q), true) && io_all(n->fd, n->buf, q.len, true) &&
              io_all(n->fd, &q, sizeof(q), false) && q.magic == NET_MAGIC && q.len <= MAX_MSG &&
              grow(&n->buf, &n->cap, q.len) && io_all(n->fd, n->buf, q.len, false);
    if (!ok) {
        n->broken = true;
        if (!leaving) /* at the end the root's process may rightly be gone already */
            EMU_LOG_ERR("rank %u: the connection to the root's rendezvous listener failed (its "
                        "process ended or stopped answering); waits on ranks of other hosts "
                        "fail", rank);
        return;
    }
    emu_rdv_apply(r, n->buf, q.len);
}

bool emu_rdvnet_broken(const struct emu_rdvnet *n)
{
    return n->broken;
}

void emu_rdvnet_close(struct emu_rdvnet *n)
{
    if (n == NULL)
        return;
    close(n->fd);
    pthread_mutex_destroy(&n->lock);
    free(n->buf);
    free(n);
}

/* ---- addresses ---------------------------------------------------------------------------- */

emu_status emu_rdvnet_parse_addr(const char *text, uint32_t *ip, uint16_t *port)
{
    char host[256];
    const char *colon = strrchr(text, ':');
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
    char *end;

    if (colon == NULL || (size_t)(colon - text) >= sizeof(host)) {
        EMU_LOG_ERR("HCEMU_ROOT=%s: expected HOST:PORT", text);
        return EMU_EINVAL;
    }
    unsigned long p = strtoul(colon + 1, &end, 10);
    if (*end != '\0' || p == 0 || p > 65535) {
        EMU_LOG_ERR("HCEMU_ROOT=%s: the port must be 1..65535", text);
        return EMU_EINVAL;
    }
    snprintf(host, sizeof(host), "%.*s", (int)(colon - text), text);
    if (getaddrinfo(host, NULL, &hints, &res) != 0 || res == NULL) {
        EMU_LOG_ERR("HCEMU_ROOT=%s: cannot resolve %s to an IPv4 address", text, host);
        return EMU_EINVAL;
    }
    *ip = ((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr;
    *port = (uint16_t)p;
    freeaddrinfo(res);
    return EMU_OK;
}

emu_status emu_rdvnet_local_addr(uint32_t *ip)
{
    struct ifaddrs *ifs = NULL;
    const char *want = emu_settings_str(EMU_SET_HCCL_SOCKET_IFNAME);
    struct in_addr a;

    if (emu_settings_is_set(EMU_SET_HCCL_IF_IP)) {
        if (inet_pton(AF_INET, emu_settings_str(EMU_SET_HCCL_IF_IP), &a) != 1) {
            EMU_LOG_ERR("HCCL_IF_IP=%s is not an IPv4 address", emu_settings_str(EMU_SET_HCCL_IF_IP));
            return EMU_EINVAL;
        }
        *ip = a.s_addr;
        return EMU_OK;
    }
    if (*want == '\0')
        return EMU_ENOTFOUND;
    if (getifaddrs(&ifs) == 0) {
        for (struct ifaddrs *i = ifs; i != NULL; i = i->ifa_next) {
            if (i->ifa_addr != NULL && i->ifa_addr->sa_family == AF_INET &&
                strcmp(i->ifa_name, want) == 0) {
                *ip = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
                freeifaddrs(ifs);
                return EMU_OK;
            }
        }
        freeifaddrs(ifs);
    }
    EMU_LOG_ERR("HCCL_SOCKET_IFNAME=%s: no interface of that name has an IPv4 address", want);
    return EMU_EINVAL;
}
