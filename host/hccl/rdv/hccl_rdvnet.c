/* hccl_rdvnet.c - a rank of another host: its connection to the root's rendezvous listener
 * (hccl_rdvlisten.c; protocol in rdvnet_wire.h), and the addresses (see hccl_rdvnet.h).
 *
 * The rank greets with a fresh nonce, checks the listener's proof of the job's key (so its
 * rows never go to an impostor), proves the key itself, then exchanges rows. Every read and
 * write has a NET_IO_LIMIT_S limit, so a silent peer costs a bounded wait, never a hang. A
 * listener that is busy (or not up yet) is tried again until the deadline. */
#include "hccl_rdvnet.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/contract/settings.h"
#include "hccl_rdv.h"
#include "rdvnet_wire.h"

struct emu_rdvnet {
    pthread_mutex_t lock; /* one exchange at a time on the connection */
    int fd;
    _Atomic bool broken; /* read by waits without the lock */
    uint8_t *buf;
    size_t cap;
};

/* ---- bounded socket I/O ------------------------------------------------------------------ */

static void limit_io(int fd)
{
    struct timeval tv = {.tv_sec = NET_IO_LIMIT_S};
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

/* Rows of `rank` of `r` into *buf, growing it up to what one rank of an n-rank communicator
 * may have; the length (0 = none, or no memory). */
static size_t encode(struct emu_rdv *r, uint32_t rank, uint32_t nranks, uint8_t **buf,
                     size_t *cap)
{
    size_t want = 65536;

    for (;;) {
        if (!net_grow(buf, cap, want))
            return 0;
        size_t n = emu_rdv_encode(r, rank, *buf, *cap);
        if (n != SIZE_MAX)
            return n;
        if (*cap >= emu_rdv_encode_rank_max(nranks))
            return 0;
        want = *cap * 2;
    }
}

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

/* One attempt of the greeting on a connected socket. EMU_EAGAIN: the listener is busy or
 * closed the connection before its answer (try again: under a flood of greetings it drops
 * some unanswered); EMU_EREMOTE (after one line): it refused us or could not prove the
 * key. */
static emu_status greet(int fd, const uint8_t *key, const struct emu_rdvnet_who *me,
                        const char *where)
{
    struct net_hello h = {.magic = NET_MAGIC, .version = NET_VERSION, .layout = net_layout_word()};
    struct net_challenge ch;
    struct net_proof p = {.who = {.comm = me->nonce, .nranks = me->nranks, .rank = me->rank}};
    uint8_t want[EMU_RDV_PROOF_BYTES];
    uint32_t answer = NET_REFUSED;

    if (!emu_rdv_nonce(h.nonce))
        return EMU_ESYSCALL;
    if (!io_all(fd, &h, sizeof(h), true) || !io_all(fd, &ch, sizeof(ch), false) ||
        ch.magic != NET_MAGIC || ch.status == NET_CH_BUSY)
        return EMU_EAGAIN;
    emu_rdv_proof(key, "listener", h.nonce, ch.nonce, NULL, 0, want);
    if (!emu_rdv_proof_equal(want, ch.proof)) {
        EMU_LOG_ERR("%s: rank %u: the listener at %s does not prove the job's key: another "
                    "job listens there (or the hosts were given different keys); nothing was "
                    "sent to it", me->fn, me->rank, where);
        return EMU_EREMOTE;
    }
    snprintf(p.who.host, sizeof(p.who.host), "%s", me->host);
    snprintf(p.who.job_dir, sizeof(p.who.job_dir), "%s", me->job_dir);
    emu_rdv_proof(key, "rank", ch.nonce, h.nonce, &p.who, sizeof(p.who), p.proof);
    if (!io_all(fd, &p, sizeof(p), true) || !io_all(fd, &answer, sizeof(answer), false))
        return EMU_EAGAIN;
    if (answer != NET_SERVED) {
        EMU_LOG_ERR("%s: rank %u: the root's listener at %s %s", me->fn, me->rank, where,
                    answer == NET_FULL ? "serves too many communicators at once (see its log)"
                                       : "refused our proof of the job's key");
        return EMU_EREMOTE;
    }
    return EMU_OK;
}

emu_status emu_rdvnet_connect(uint32_t ip, uint16_t port, const uint8_t *key, uint64_t deadline,
                              const struct emu_rdvnet_who *me, struct emu_rdvnet **out)
{
    struct in_addr ia = {.s_addr = ip};
    char where[32];
    bool reached = false;
    int fd = -1;
    emu_status s = EMU_EAGAIN;

    snprintf(where, sizeof(where), "%s:%u", inet_ntoa(ia), (unsigned)port);
    /* The root's process may not listen yet (it starts when rank 0 asks for the root info),
     * or may turn greetings away for a moment while it is busy. */
    while (s == EMU_EAGAIN) {
        if ((fd = try_connect(ip, port)) >= 0) {
            reached = true;
            if ((s = greet(fd, key, me, where)) == EMU_OK)
                break;
            close(fd);
            fd = -1;
        }
        if (s != EMU_EAGAIN)
            return s;
        if (emu_os_now_ns() >= deadline) {
            EMU_LOG_ERR("%s: rank %u: %s at the root's address %s (HCCL_CONNECT_TIMEOUT)",
                        me->fn, me->rank,
                        reached ? "no greeting was answered (a listener of another hcemu "
                                  "build, or one too busy)"
                                : "nobody listens",
                        where);
            return EMU_ETIMEOUT;
        }
        usleep(20000);
    }
    struct emu_rdvnet *n = calloc(1, sizeof(*n));
    if (n == NULL) {
        close(fd);
        return EMU_ENOMEM;
    }
    EMU_LOG_INFO("%s: rank %u: connected to the root's rendezvous listener at %s", me->fn,
                 me->rank, where);
    pthread_mutex_init(&n->lock, NULL);
    n->fd = fd;
    *out = n;
    return EMU_OK;
}

static void exchange(struct emu_rdvnet *n, struct emu_rdv *r, const struct net_req_hdr *qp,
                     bool leaving);

void emu_rdvnet_sync(struct emu_rdvnet *n, struct emu_rdv *r, uint64_t nonce, uint32_t nranks,
                     uint32_t rank, bool leaving)
{
    struct net_req_hdr q = {.magic = NET_MAGIC, .comm = nonce, .nranks = nranks, .rank = rank};

    pthread_mutex_lock(&n->lock);
    exchange(n, r, &q, leaving);
    pthread_mutex_unlock(&n->lock);
}

static void exchange(struct emu_rdvnet *n, struct emu_rdv *r, const struct net_req_hdr *qp,
                     bool leaving)
{
    struct net_req_hdr q = *qp;
    uint32_t rank = q.rank, nranks = q.nranks;

    if (n->broken)
        return;
    q.len = encode(r, rank, nranks, &n->buf, &n->cap);
    bool ok = io_all(n->fd, &q, sizeof(q), true) && io_all(n->fd, n->buf, q.len, true) &&
              io_all(n->fd, &q, sizeof(q), false) && q.magic == NET_MAGIC &&
              q.len <= emu_rdv_encode_max(nranks) && net_grow(&n->buf, &n->cap, q.len) &&
              io_all(n->fd, n->buf, q.len, false);
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

const struct emu_rdv_link emu_rdvnet_link = {
    .sync = emu_rdvnet_sync, .broken = emu_rdvnet_broken, .close = emu_rdvnet_close};

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

void emu_rdvnet_ifname(uint32_t ip, uint16_t port, char *out, size_t len)
{
    const char *want = emu_settings_str(EMU_SET_HCCL_SOCKET_IFNAME);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = ip, .sin_port = htons(port)};
    struct sockaddr_in me;
    socklen_t ml = sizeof(me);
    struct ifaddrs *ifs = NULL;

    out[0] = '\0';
    if (*want != '\0') {
        snprintf(out, len, "%s", want);
        return;
    }
    /* A UDP socket "connected" to the root sends nothing: it only asks the kernel's routing
     * which local address (and so which interface) leads there. */
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    bool ok = fd >= 0 && connect(fd, (struct sockaddr *)&to, sizeof(to)) == 0 &&
              getsockname(fd, (struct sockaddr *)&me, &ml) == 0;
    if (fd >= 0)
        close(fd);
    if (!ok || getifaddrs(&ifs) != 0)
        return;
    for (struct ifaddrs *i = ifs; i != NULL; i = i->ifa_next)
        if (i->ifa_addr != NULL && i->ifa_addr->sa_family == AF_INET &&
            ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == me.sin_addr.s_addr) {
            snprintf(out, len, "%s", i->ifa_name);
            break;
        }
    freeifaddrs(ifs);
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
