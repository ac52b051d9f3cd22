/* inject.c - fault injection (see inject.h): the rules of HCEMU_FAULT, applied to the data
 * plane's tasks as this executor runs them, and the timed ones (kill, stall) on a thread.
 *
 * Counters are this executor's own: with rules set the job-wide run queue is off (runq.c),
 * so every task of the device runs here, in its stream's order, and "the K-th record of rank
 * R" means the same task on every run. Each injected fault logs one line saying what it did,
 * so a report that follows (a hang naming the wait that was never recorded, a failed -c 1
 * check, a device that died) can be read against it. */
#include "inject.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/contract/host_id.h"
#include "common/contract/settings.h"
#include "device/dp/dp.h"
#include "device/dp/dp_kinds.h"
#include "exec.h"
#include "report.h"

enum kind { NOTIFY_DROP, NOTIFY_DELAY, TRANSFER_DELAY, TRANSFER_CORRUPT, LINK_DOWN, KILL, STALL,
            HOST_DOWN };

static const char *const kind_names[] = {"notify-drop",      "notify-delay", "transfer-delay",
                                         "transfer-corrupt", "link-down",    "kill",
                                         "stall",            "host-down"};

#define MAX_RULES 16u
#define ANY UINT32_MAX

struct rule {
    enum kind kind;
    uint32_t rank, rank2, dev; /* ANY: not given */
    uint64_t nth, us, after, after_ms, ms;
    char host[EMU_HOST_NAME_MAX]; /* host-down: the host's name ("" = not given) */
    _Atomic uint64_t seen; /* matching tasks so far */
};

static struct rule rules[MAX_RULES];
static uint32_t n_rules;
static uint32_t my_dev;
static _Atomic uint64_t stall_until_ns;
/* When this executor first ran a transfer with another host (host-down counts from it). */
static _Atomic uint64_t first_net_ns;

/* How long a timed rule naming a rank waits, past its time, for this device to host that rank
 * (its communicator's threads may come later, or never: the rank is another device's). */
#define RANK_WAIT_NS (60ull * 1000000000ull)
/* How long host-down waits for the first transfer with another host. */
#define NET_WAIT_NS (600ull * 1000000000ull)

bool emu_inject_on(void)
{
    return n_rules > 0;
}

static bool parse_kind(const char *s, size_t len, enum kind *k)
{
    for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
        if (strlen(kind_names[i]) == len && strncmp(kind_names[i], s, len) == 0)
            return *k = (enum kind)i, true;
    return false;
}

/* One `key=value` into r; false for an unknown key or a bad number. */
static bool parse_pair(struct rule *r, const char *kv)
{
    const char *eq = strchr(kv, '=');
    char *end;

    if (eq == NULL)
        return false;
    size_t klen = (size_t)(eq - kv);
    if (klen == 4 && strncmp(kv, "host", 4) == 0) { /* a name, up to the next ',' */
        size_t n = strcspn(eq + 1, ",");
        if (n == 0 || n >= sizeof(r->host))
            return false;
        memcpy(r->host, eq + 1, n);
        r->host[n] = '\0';
        return true;
    }
    unsigned long long v = strtoull(eq + 1, &end, 10);
    if (end == eq + 1)
        return false;
#define KEY(name) (klen == sizeof(name) - 1 && strncmp(kv, name, klen) == 0)
    if (KEY("ranks")) {
        if (*end != '-')
            return false;
        r->rank = (uint32_t)v;
        r->rank2 = (uint32_t)strtoul(end + 1, &end, 10);
    } else if (KEY("rank")) {
        r->rank = (uint32_t)v;
    } else if (KEY("dev")) {
        r->dev = (uint32_t)v;
    } else if (KEY("nth")) {
        r->nth = v;
    } else if (KEY("us")) {
        r->us = v;
    } else if (KEY("after")) {
        r->after = v;
    } else if (KEY("after_ms")) {
        r->after_ms = v;
    } else if (KEY("ms")) {
        r->ms = v;
    } else {
        return false;
    }
#undef KEY
    return *end == '\0' || *end == ',';
}

static bool parse_rule(char *text, struct rule *r)
{
    char *colon = strchr(text, ':');
    size_t len = colon != NULL ? (size_t)(colon - text) : strlen(text);

    *r = (struct rule){.rank = ANY, .rank2 = ANY, .dev = ANY};
    if (!parse_kind(text, len, &r->kind))
        return false;
    for (char *kv = colon != NULL ? colon + 1 : NULL; kv != NULL && *kv != '\0';) {
        if (!parse_pair(r, kv))
            return false;
        kv = strchr(kv, ',');
        kv = kv != NULL ? kv + 1 : NULL;
    }
    switch (r->kind) {
    case NOTIFY_DROP:
    case TRANSFER_CORRUPT: return r->rank != ANY && r->nth > 0;
    case NOTIFY_DELAY:
    case TRANSFER_DELAY: return r->rank != ANY && r->us > 0;
    case LINK_DOWN: return r->rank != ANY && r->rank2 != ANY;
    case KILL: return (r->dev != ANY) != (r->rank != ANY);
    case STALL: return (r->dev != ANY) != (r->rank != ANY) && r->ms > 0;
    case HOST_DOWN: return r->host[0] != '\0';
    }
    return false;
}

/* Whether a stream of this device runs for communicator rank `rank`. */
static bool hosts_rank(uint32_t rank)
{
    const struct emu_devctl *ctl = emu_exec_ctl();

    for (uint32_t s = 0; s < EMU_MAX_STREAMS; s++)
        if (ctl->streams[s].kind != EMU_STREAM_FREE && ctl->streams[s].rank == rank)
            return true;
    return false;
}

/* Sleep until `until_ns`; then, for a rule naming a rank, until this device hosts it. False
 * when it never does (within RANK_WAIT_NS) or host-down's first transfer never comes. */
static bool wait_turn(const struct rule *r)
{
    uint64_t start = emu_os_now_ns(), t0 = start;

    while (r->kind == HOST_DOWN && (start = atomic_load(&first_net_ns)) == 0) {
        if (emu_os_now_ns() - t0 > NET_WAIT_NS)
            return false;
        usleep(2000);
    }
    uint64_t until = start + r->after_ms * 1000000ull, now;
    while ((now = emu_os_now_ns()) < until)
        usleep((useconds_t)((until - now) / 1000u < 100000u ? (until - now) / 1000u + 1 : 100000u));
    while (r->rank != ANY && !hosts_rank(r->rank)) {
        if (emu_os_now_ns() - until > RANK_WAIT_NS)
            return false;
        usleep(10000);
    }
    return true;
}

static void *timed(void *arg)
{
    const struct rule *r = arg;

    if (!wait_turn(r))
        return NULL;
    if (r->kind == HOST_DOWN) {
        EMU_LOG_ERR("fault injection (HCEMU_FAULT host-down): host %s goes down: device %u's "
                    "executor dies now", r->host, my_dev);
        raise(SIGKILL);
    }
    char whose[32] = "";
    if (r->rank != ANY)
        snprintf(whose, sizeof(whose), " (rank %u's)", r->rank);
    if (r->kind == KILL) {
        EMU_LOG_ERR("fault injection (HCEMU_FAULT %s): device %u's executor%s dies now",
                    kind_names[r->kind], my_dev, whose);
        raise(SIGKILL);
    }
    EMU_LOG_WARN("fault injection (HCEMU_FAULT %s): device %u%s runs no data-plane task for %llu "
                 "ms", kind_names[r->kind], my_dev, whose, (unsigned long long)r->ms);
    atomic_store(&stall_until_ns, emu_os_now_ns() + r->ms * 1000000ull);
    return NULL;
}

bool emu_inject_init(uint32_t dev)
{
    char text[EMU_SETTING_STR_MAX];

    my_dev = dev;
    snprintf(text, sizeof(text), "%s", emu_settings_str(EMU_SET_FAULT));
    for (char *save = NULL, *tok = strtok_r(text, ";", &save); tok != NULL;
         tok = strtok_r(NULL, ";", &save)) {
        if (n_rules == MAX_RULES || !parse_rule(tok, &rules[n_rules])) {
            if (dev == 0)
                EMU_LOG_WARN("HCEMU_FAULT: rule \"%s\" ignored: not one of notify-drop:rank=R,"
                             "nth=K notify-delay:rank=R,us=U transfer-delay:rank=R,us=U "
                             "transfer-corrupt:rank=R,nth=K link-down:ranks=A-B,after=K "
                             "kill:rank=R|dev=D,after_ms=T stall:rank=R|dev=D,after_ms=T,ms=U "
                             "host-down:host=H,after_ms=T",
                             tok);
            continue;
        }
        struct rule *r = &rules[n_rules++];
        pthread_t tid;
        /* A rule naming a rank is armed on every device: the one that hosts it acts. */
        bool mine = ((r->kind == KILL || r->kind == STALL) && (r->dev == dev || r->rank != ANY)) ||
                    (r->kind == HOST_DOWN && strcmp(r->host, emu_host_of_device(dev)->name) == 0);
        if (mine && pthread_create(&tid, NULL, timed, r) == 0)
            pthread_detach(tid);
    }
    return n_rules > 0;
}

/* The communicator rank of the stream that runs t (UINT32_MAX when none). */
static uint32_t rank_of(const struct emu_task *t)
{
    return emu_exec_ctl()->streams[t->stream].rank;
}

/* The peer rank of t's channel (ANY for thread-only tasks). */
static uint32_t peer_of(struct emu_task *t)
{
    const struct emu_dp_op *o = emu_dp_op_of(t);

    return o->channel == EMU_DP_NONE ? ANY : emu_exec_ctl()->channels[o->channel].remote_rank;
}

static void describe(struct emu_task *t, char *buf, size_t len)
{
    const struct emu_stream_ctl *s = &emu_exec_ctl()->streams[t->stream];

    snprintf(buf, len, "%s of rank %u thread %u (%.36s)", emu_report_kind_name(t->kind), s->rank,
             s->thread_index, s->label);
}

enum emu_inject_verdict emu_inject_before(struct emu_task *t, uint32_t f)
{
    uint64_t until = atomic_load(&stall_until_ns);
    char what[160];

    if (until != 0 && emu_os_now_ns() < until)
        usleep((useconds_t)((until - emu_os_now_ns()) / 1000u));
    if (emu_dp_op_of(t)->net && atomic_load_explicit(&first_net_ns, memory_order_relaxed) == 0)
        atomic_store(&first_net_ns, emu_os_now_ns());
    uint32_t rank = rank_of(t), peer = peer_of(t);
    for (uint32_t i = 0; i < n_rules; i++) {
        struct rule *r = &rules[i];
        bool mine = r->rank == rank;
        if (r->kind == NOTIFY_DELAY && mine && (f & EMU_DPF_RECORD))
            usleep((useconds_t)r->us);
        else if (r->kind == TRANSFER_DELAY && mine && (f & EMU_DPF_MOVE))
            usleep((useconds_t)r->us);
        else if (r->kind == NOTIFY_DROP && mine && (f & EMU_DPF_RECORD) &&
                 atomic_fetch_add(&r->seen, 1) + 1 == r->nth) {
            const struct emu_dp_op *o = emu_dp_op_of(t);
            describe(t, what, sizeof(what));
            EMU_LOG_ERR("fault injection (HCEMU_FAULT notify-drop): rank %u's notify record "
                        "%llu is lost: %s, notify slot %u of device %u",
                        rank, (unsigned long long)r->nth, what, o->notify_slot, o->notify_dev);
            return EMU_INJECT_SKIP_RECORD;
        } else if (r->kind == LINK_DOWN && (f & EMU_DPF_CHANNEL) && !(f & EMU_DPF_WAIT) &&
                   ((rank == r->rank && peer == r->rank2) ||
                    (rank == r->rank2 && peer == r->rank)) &&
                   atomic_fetch_add(&r->seen, 1) >= r->after) {
            snprintf(t->note, sizeof(t->note),
                     "the link between ranks %u and %u is down (HCEMU_FAULT link-down after %llu "
                     "transfers)", r->rank, r->rank2, (unsigned long long)r->after);
            t->status = EMU_EREMOTE;
            return EMU_INJECT_FAIL;
        }
    }
    return EMU_INJECT_GO;
}

void emu_inject_after_move(struct emu_task *t, uint8_t *dst, uint64_t len)
{
    char what[160];

    if (len == 0 || emu_dp_op_of(t)->channel == EMU_DP_NONE)
        return;
    uint32_t rank = rank_of(t);
    for (uint32_t i = 0; i < n_rules; i++) {
        struct rule *r = &rules[i];
        if (r->kind != TRANSFER_CORRUPT || r->rank != rank ||
            atomic_fetch_add(&r->seen, 1) + 1 != r->nth)
            continue;
        /* Which byte: a function of the seed and the rule, the same on every run. */
        uint64_t h = (emu_settings_u64(EMU_SET_SEED) + r->nth) * 0x9e3779b97f4a7c15ull;
        uint64_t at = (h ^ (h >> 29)) % len;
        dst[at] ^= 0xffu;
        describe(t, what, sizeof(what));
        EMU_LOG_ERR("fault injection (HCEMU_FAULT transfer-corrupt): byte %llu of %llu flipped at "
                    "the destination 0x%llx of rank %u's transfer %llu: %s",
                    (unsigned long long)at, (unsigned long long)len,
                    (unsigned long long)emu_dp_op_of(t)->dst + at, rank,
                    (unsigned long long)r->nth, what);
    }
}
