/* rdv_attack.c - what a hostile peer does to the root's rendezvous listener
 * (host/hccl/rdv/hccl_rdvlisten.c), for tests/multihost/attack.sh. Every mode is bounded in
 * connections and time.
 *
 *   rdv_attack slow   HOST:PORT SECONDS        20 greetings dribbled one byte per 400 ms,
 *                                              reconnected when dropped
 *   rdv_attack idle   HOST:PORT SECONDS        300 silent connections from 40 loopback
 *                                              addresses, reconnected when dropped
 *   rdv_attack replay HOST:PORT KEYFILE        a proper greeting, then its hello and proof
 *                                              replayed on a second connection
 *   rdv_attack bigreq HOST:PORT KEYFILE        a proper greeting, then a request announcing
 *                                              256 MiB
 *
 * slow and idle end early on SIGTERM, print what happened and exit 0 (the job beside them is
 * the test); replay and bigreq exit 0 when the listener refused (closed) and 1 when it went
 * along. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/contract/job_key.h"
#include "host/hccl/rdv/rdvnet_wire.h"

#define SLOW_CONNS 20
#define IDLE_CONNS 300
#define IDLE_ADDRS 40

static struct sockaddr_in target;
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A non-blocking connection from 127.0.0.<src> (0: any source), or -1. */
static int dial(unsigned src, bool nonblock)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);

    if (fd < 0)
        return -1;
    if (src != 0) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000000u | src)};
        if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
            close(fd);
            return -1;
        }
    }
    if (connect(fd, (struct sockaddr *)&target, sizeof(target)) != 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Whether the listener closed `fd` (reads 0 or fails); drains what it sent. */
static bool closed_by_peer(int fd)
{
    char buf[256];
    ssize_t k = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    return k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/* Hold `n` connections for `seconds`, each sending one byte of a hello every `dribble_ms`
 * (0: nothing), reconnecting any the listener closes. */
static int hold(unsigned n, unsigned addrs, unsigned dribble_ms, double seconds)
{
    int fds[IDLE_CONNS];
    size_t sent[IDLE_CONNS] = {0};
    double born[IDLE_CONNS], longest = 0, end = now_s() + seconds, next = 0;
    unsigned dropped = 0;
    struct net_hello h = {.magic = NET_MAGIC, .version = NET_VERSION, .layout = net_layout_word()};

    for (unsigned i = 0; i < n; i++) {
        fds[i] = dial(addrs != 0 ? 2 + i % addrs : 0, true);
        born[i] = now_s();
    }
    signal(SIGTERM, on_term);
    while (now_s() < end && !stop) {
        bool dribble = dribble_ms != 0 && now_s() >= next;
        if (dribble)
            next = now_s() + dribble_ms / 1000.0;
        for (unsigned i = 0; i < n; i++) {
            if (fds[i] >= 0 && !closed_by_peer(fds[i])) {
                if (dribble && sent[i] < sizeof(h) &&
                    send(fds[i], (char *)&h + sent[i], 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1)
                    sent[i]++;
                continue;
            }
            if (fds[i] >= 0) {
                dropped++;
                if (now_s() - born[i] > longest)
                    longest = now_s() - born[i];
                close(fds[i]);
            }
            fds[i] = dial(addrs != 0 ? 2 + i % addrs : 0, true);
            born[i] = now_s();
            sent[i] = 0;
        }
        usleep(20000);
    }
    for (unsigned i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    printf("rdv_attack: %u connections held%s: the listener closed %u, the longest after "
           "%.1f s\n", n, stop ? " until the job ended" : "", dropped, longest);
    return 0;
}

static bool io(int fd, void *p, size_t n, bool out)
{
    for (uint8_t *b = p; n > 0;) {
        ssize_t k = out ? send(fd, b, n, MSG_NOSIGNAL) : recv(fd, b, n, 0);
        if (k <= 0)
            return false;
        b += k;
        n -= (size_t)k;
    }
    return true;
}

/* A greeting with `key` as rank 1 of a made-up two-rank communicator; its hello and proof
 * in *hp / *pp. The answer, or -1 when the connection failed. */
static int greet(int fd, const uint8_t *key, struct net_hello *hp, struct net_proof *pp,
                 bool replay)
{
    struct net_challenge ch;
    uint32_t answer = NET_REFUSED;

    if (!replay) {
        *hp = (struct net_hello){.magic = NET_MAGIC, .version = NET_VERSION,
                                 .layout = net_layout_word()};
        if (!emu_rdv_nonce(hp->nonce))
            return -1;
    }
    if (!io(fd, hp, sizeof(*hp), true) || !io(fd, &ch, sizeof(ch), false))
        return -1;
    if (!replay) {
        *pp = (struct net_proof){.who = {.comm = 0x5eed5eed5eedull, .nranks = 2, .rank = 1}};
        snprintf(pp->who.host, sizeof(pp->who.host), "attacker");
        snprintf(pp->who.job_dir, sizeof(pp->who.job_dir), "/nonexistent");
        emu_rdv_proof(key, "rank", ch.nonce, hp->nonce, &pp->who, sizeof(pp->who), pp->proof);
    }
    if (!io(fd, pp, sizeof(*pp), true) || !io(fd, &answer, sizeof(answer), false))
        return -1;
    return (int)answer;
}

static int replay(const uint8_t *key)
{
    struct net_hello h;
    struct net_proof p;
    int a = dial(0, false), b = dial(0, false);

    if (a < 0 || b < 0 || greet(a, key, &h, &p, false) != NET_SERVED) {
        printf("rdv_attack: the proper greeting was not served\n");
        return 2;
    }
    int got = greet(b, key, &h, &p, true);
    close(a);
    close(b);
    printf("rdv_attack: the replayed greeting was %s\n", got == NET_SERVED ? "SERVED" : "refused");
    return got == NET_SERVED;
}

static int bigreq(const uint8_t *key)
{
    struct net_hello h;
    struct net_proof p;
    int fd = dial(0, false);

    if (fd < 0 || greet(fd, key, &h, &p, false) != NET_SERVED) {
        printf("rdv_attack: the proper greeting was not served\n");
        return 2;
    }
    struct net_req_hdr q = {.magic = NET_MAGIC, .comm = p.who.comm, .nranks = 2, .rank = 1,
                            .len = 256ull << 20};
    struct timeval tv = {.tv_sec = 20};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char c;
    bool dropped = io(fd, &q, sizeof(q), true) && recv(fd, &c, 1, 0) == 0;
    close(fd);
    printf("rdv_attack: a request announcing 256 MiB was %s\n",
           dropped ? "refused (connection closed)" : "NOT refused");
    return !dropped;
}

int main(int argc, char **argv)
{
    char host[64];
    uint8_t key[EMU_JOB_KEY_BYTES];
    char why[200];

    if (argc != 4 || strchr(argv[2], ':') == NULL) {
        fprintf(stderr, "usage: rdv_attack slow|idle HOST:PORT SECONDS | replay|bigreq "
                        "HOST:PORT KEYFILE\n");
        return 2;
    }
    snprintf(host, sizeof(host), "%.*s", (int)(strchr(argv[2], ':') - argv[2]), argv[2]);
    target = (struct sockaddr_in){.sin_family = AF_INET,
                                  .sin_port = htons((uint16_t)atoi(strchr(argv[2], ':') + 1))};
    if (inet_pton(AF_INET, host, &target.sin_addr) != 1)
        return 2;
    if (strcmp(argv[1], "slow") == 0)
        return hold(SLOW_CONNS, 0, 400, atof(argv[3]));
    if (strcmp(argv[1], "idle") == 0)
        return hold(IDLE_CONNS, IDLE_ADDRS, 0, atof(argv[3]));
    if (emu_job_key_read_file(argv[3], key, why, sizeof(why)) != EMU_OK) {
        fprintf(stderr, "rdv_attack: %s: %s\n", argv[3], why);
        return 2;
    }
    if (strcmp(argv[1], "replay") == 0)
        return replay(key);
    if (strcmp(argv[1], "bigreq") == 0)
        return bigreq(key);
    return 2;
}
