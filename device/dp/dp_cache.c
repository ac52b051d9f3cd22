/* dp_cache.c - AICPU_TS task cache (DATA_PLANE.md §10): record the tasks an operator expansion
 * builds under a tag, replay them later with new base addresses for the user regions.
 *
 * Protocol per OS thread: Lookup(tag) -> miss: Start(tag, regions) ... tasks ... End(tag);
 * hit: Execute(tag, regions) replaces the expansion. The entries are shared by every kernel
 * on this device and guarded by `lock`; the per-OS-thread context (which step we are at) is
 * _Thread_local. Recording keeps a copy of each task as emu_dp_submit_task() queues it; replay
 * patches addresses inside the recorded regions, re-validates every task (threads, channels,
 * ranges) before queuing any, and queues them in the original order.
 *
 * hcemu's own collectives kernel keeps its expansions here too, in a table of its own keyed
 * by its launch (hcemu_cache_replay, api_hcemu.c): see "Own expansions" below. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/atomic.h"
#include "common/contract/handle.h"
#include "common/platform/log.h"
#include "dp.h"

#define MAX_ENTRIES 64u
#define MAX_REGIONS 64u
#define MAX_TASKS (1u << 20)
#define TAG_MAX 128u

struct rec {
    struct emu_task t;
    uint32_t thread_gen;
    uint32_t channel_gen;
};

struct entry {
    bool used;
    bool ready;
    char tag[TAG_MAX];
    uint8_t *key; /* own entries: the launch's key, `key_len` bytes, and its copy mode */
    uint32_t key_len, copy_mode;
    uint64_t n_regions;
    uint64_t addr[MAX_REGIONS];
    uint64_t size[MAX_REGIONS];
    struct rec *recs;
    uint32_t n, cap;
};

enum phase { P_NONE = 0, P_MISS, P_HIT, P_RECORDING };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry entries[MAX_ENTRIES];

static _Thread_local enum phase phase;
static _Thread_local char cur_tag[TAG_MAX];
static _Thread_local int cur_entry = -1; /* entry being recorded, -1 when uncached */

static int find_locked(const char *tag)
{
    for (uint32_t i = 0; i < MAX_ENTRIES; i++)
        if (entries[i].used && strcmp(entries[i].tag, tag) == 0)
            return (int)i;
    return -1;
}

static void drop_locked(int i)
{
    free(entries[i].recs);
    memset(&entries[i], 0, sizeof(entries[i]));
}

static emu_status check_tag(const struct emu_hcomm_call *c, const char *tag)
{
    if (tag == NULL) {
        emu_hcomm_check_refuse(c, "tag is NULL");
        return EMU_ENULL;
    }
    if (strlen(tag) >= TAG_MAX) {
        emu_hcomm_check_refuse(c, "tag is longer than %u characters", TAG_MAX - 1);
        return EMU_EINVAL;
    }
    return EMU_OK;
}

static emu_status check_regions(const struct emu_hcomm_call *c, void **addrs, const uint64_t *sizes,
                                uint64_t count)
{
    if (count > MAX_REGIONS) {
        emu_hcomm_check_refuse(c, "count %llu: at most %u regions", (unsigned long long)count,
                               MAX_REGIONS);
        return EMU_EINVAL;
    }
    if (count > 0 && (addrs == NULL || sizes == NULL)) {
        emu_hcomm_check_refuse(c, "%s is NULL with count %llu", addrs == NULL ? "addrs" : "sizes",
                               (unsigned long long)count);
        return EMU_ENULL;
    }
    return EMU_OK;
}

/* The context must be at `want` with the same tag. */
static emu_status check_phase(const struct emu_hcomm_call *c, const char *tag, enum phase want)
{
    static const char *const names[] = {"no lookup", "a miss", "a hit", "recording"};

    if (phase != want) {
        emu_hcomm_check_refuse(c, "tag \"%s\": expected %s at this point, this OS thread is at %s "
                               "(order: Lookup, then Start..End on a miss or Execute on a hit)",
                               tag, names[want], names[phase]);
        return EMU_EINVAL;
    }
    if (strcmp(cur_tag, tag) != 0) {
        emu_hcomm_check_refuse(c, "tag \"%s\" differs from the tag \"%s\" of "
                               "HcommAicpuTsTaskCacheLookup", tag, cur_tag);
        return EMU_EINVAL;
    }
    return EMU_OK;
}

emu_status emu_dp_cache_lookup(const struct emu_hcomm_call *c, const char *tag, bool *hit)
{
    emu_status st = check_tag(c, tag);

    if (st != EMU_OK)
        return st;
    if (phase == P_RECORDING) {
        emu_hcomm_check_refuse(c, "tag \"%s\": recording of tag \"%s\" is still open (call "
                               "HcommAicpuTsTaskCacheEnd first)", tag, cur_tag);
        return EMU_EINVAL;
    }
    pthread_mutex_lock(&lock);
    int i = find_locked(tag);
    *hit = i >= 0 && entries[i].ready;
    pthread_mutex_unlock(&lock);
    phase = *hit ? P_HIT : P_MISS;
    strcpy(cur_tag, tag);
    return EMU_OK;
}

emu_status emu_dp_cache_start(const struct emu_hcomm_call *c, const char *tag, void **addrs,
                              const uint64_t *sizes, uint64_t count)
{
    emu_status st;

    if ((st = check_tag(c, tag)) != EMU_OK || (st = check_regions(c, addrs, sizes, count)) != EMU_OK ||
        (st = check_phase(c, tag, P_MISS)) != EMU_OK)
        return st;
    cur_entry = -1;
    pthread_mutex_lock(&lock);
    int busy = find_locked(tag);
    for (uint32_t i = 0; i < MAX_ENTRIES && busy < 0 && cur_entry < 0; i++) {
        if (entries[i].used)
            continue;
        struct entry *e = &entries[i];
        e->used = true;
        strcpy(e->tag, tag);
        e->n_regions = count;
        for (uint64_t r = 0; r < count; r++) {
            e->addr[r] = (uint64_t)(uintptr_t)addrs[r];
            e->size[r] = sizes[r];
        }
        cur_entry = (int)i;
    }
    pthread_mutex_unlock(&lock);
    if (busy >= 0)
        EMU_LOG_WARN("task cache tag \"%s\" is being recorded elsewhere; this expansion runs "
                     "uncached", tag);
    else if (cur_entry < 0)
        EMU_LOG_INFO("task cache full (%u tags); tag \"%s\" runs uncached", MAX_ENTRIES, tag);
    phase = P_RECORDING;
    return EMU_OK;
}

bool emu_dp_cache_recording(void)
{
    return phase == P_RECORDING && cur_entry >= 0;
}

static uint32_t gen_of_channel(uint32_t ch)
{
    return ch == EMU_DP_NONE ? 0 : emu_exec_ctl()->channels[ch].gen;
}

/* Keep a copy of t in e, with the generations of its thread and channel; false when e is
 * full (`max` tasks) or out of memory. Under `lock`. */
static bool keep_locked(struct entry *e, const struct emu_task *t, uint32_t max)
{
    if (e->n == e->cap) {
        uint32_t cap = e->cap ? e->cap * 2 : 64;
        struct rec *r = cap <= max ? realloc(e->recs, cap * sizeof(*r)) : NULL;
        if (r == NULL)
            return false;
        e->recs = r;
        e->cap = cap;
    }
    struct rec *r = &e->recs[e->n++];
    r->t = *t;
    r->t.next = NULL;
    r->t.priv = NULL;
    r->t.diag = NULL;
    r->thread_gen = emu_exec_ctl()->streams[t->stream].gen;
    r->channel_gen = gen_of_channel(emu_dp_op_of((struct emu_task *)&r->t)->channel);
    return true;
}

void emu_dp_cache_note(const struct emu_task *t)
{
    pthread_mutex_lock(&lock);
    struct entry *e = &entries[cur_entry];
    if (!keep_locked(e, t, MAX_TASKS)) {
        EMU_LOG_WARN("task cache tag \"%s\": more than %u tasks or out of memory; the tag "
                     "runs uncached", e->tag, e->cap);
        drop_locked(cur_entry);
        cur_entry = -1;
    }
    pthread_mutex_unlock(&lock);
}

emu_status emu_dp_cache_end(const struct emu_hcomm_call *c, const char *tag)
{
    emu_status st;

    if ((st = check_tag(c, tag)) != EMU_OK || (st = check_phase(c, tag, P_RECORDING)) != EMU_OK)
        return st;
    if (cur_entry >= 0) {
        pthread_mutex_lock(&lock);
        entries[cur_entry].ready = true;
        pthread_mutex_unlock(&lock);
    }
    phase = P_NONE;
    cur_entry = -1;
    return EMU_OK;
}

static void patch(const struct entry *e, void **addrs, struct emu_dp_op *o)
{
    for (uint64_t r = 0; r < e->n_regions; r++) {
        uint64_t lo = e->addr[r], hi = lo + e->size[r];
        uint64_t nb = (uint64_t)(uintptr_t)addrs[r];
        if (o->dst_map == &emu_exec_g.self && o->dst >= lo && o->dst < hi)
            o->dst = nb + (o->dst - lo);
        if (o->src_map == &emu_exec_g.self && o->src >= lo && o->src < hi)
            o->src = nb + (o->src - lo);
    }
}

/* Why a recorded task may not be queued again: its thread or channel was released since
 * recording, or a range it moves is no longer live memory. */
enum staleness { FRESH, STALE_THREAD, STALE_CHANNEL, STALE_SRC, STALE_DST };

static bool range_stale(const struct emu_devmap *m, uint64_t addr, uint64_t len, bool self_too)
{
    return m != NULL && (self_too || m != &emu_exec_g.self) &&
           !emu_dp_check_range_alive(m, addr, len);
}

/* `self_too`: check ranges of this device too (own expansions leave them to the host). */
static enum staleness stale(const struct rec *r, const struct emu_task *t, bool self_too)
{
    const struct emu_dp_op *o = emu_dp_op_of((struct emu_task *)t);
    struct emu_devctl *ctl = emu_exec_ctl();
    const struct emu_stream_ctl *s = &ctl->streams[t->stream];

    if (emu_load_acquire(&s->kind) != EMU_STREAM_DEVICE || s->gen != r->thread_gen)
        return STALE_THREAD;
    if (o->channel != EMU_DP_NONE && (emu_load_acquire(&ctl->channels[o->channel].state) != 1 ||
                                      ctl->channels[o->channel].gen != r->channel_gen))
        return STALE_CHANNEL;
    if (range_stale(o->src_map, o->src, o->len, self_too))
        return STALE_SRC;
    if (range_stale(o->dst_map, o->dst, o->len, self_too))
        return STALE_DST;
    return FRESH;
}

/* Whether a patched, recorded task is still valid to queue; logs the refusal. */
static emu_status revalidate(const struct emu_hcomm_call *c, const struct rec *r,
                             const struct emu_task *t, uint32_t index)
{
    const struct emu_dp_op *o = emu_dp_op_of((struct emu_task *)t);
    enum staleness why = stale(r, t, true);

    if (why == STALE_THREAD || why == STALE_CHANNEL) {
        emu_hcomm_check_refuse(c, "recorded task %u: its %s (slot %u) was released since "
                               "recording", index, why == STALE_THREAD ? "thread" : "channel",
                               why == STALE_THREAD ? t->stream : o->channel);
        return EMU_EHANDLE;
    }
    if (why == STALE_SRC || why == STALE_DST) {
        bool src = why == STALE_SRC;
        emu_hcomm_check_refuse(c, "recorded task %u: %s [0x%llx, +%llu) is not live memory after "
                               "patching (regions or sizes do not match the recording?)", index,
                               src ? "src" : "dst", (unsigned long long)(src ? o->src : o->dst),
                               (unsigned long long)o->len);
        return EMU_EINVAL;
    }
    return EMU_OK;
}

static void chain_add(struct emu_task **head, struct emu_task **tail, struct emu_task *t)
{
    if (*tail == NULL)
        *head = t;
    else
        (*tail)->next = t;
    *tail = t;
}

static void free_chain(struct emu_task *head)
{
    while (head != NULL) {
        struct emu_task *next = head->next;
        emu_task_destroy(head);
        head = next;
    }
}

/* Copy, patch and re-validate the entry's tasks into a chain; NULL chain on refusal. */
static emu_status build_replay(const struct emu_hcomm_call *c, const struct entry *e, void **addrs,
                               struct emu_task **out)
{
    struct emu_task *head = NULL, *tail = NULL;

    for (uint32_t i = 0; i < e->n; i++) {
        struct emu_task *t = emu_task_create();
        if (t == NULL) {
            free_chain(head);
            emu_hcomm_check_refuse(c, "out of memory replaying %u tasks", e->n);
            return EMU_ENOMEM;
        }
        *t = e->recs[i].t;
        t->next = NULL;
        t->diag = NULL;
        patch(e, addrs, emu_dp_op_of(t));
        emu_status st = revalidate(c, &e->recs[i], t, i);
        if (st != EMU_OK) {
            emu_task_destroy(t);
            free_chain(head);
            return st;
        }
        chain_add(&head, &tail, t);
    }
    *out = head;
    return EMU_OK;
}

emu_status emu_dp_cache_execute(const struct emu_hcomm_call *c, const char *tag, void **addrs,
                                const uint64_t *sizes, uint64_t count)
{
    struct emu_task *chain = NULL;
    emu_status st;

    if ((st = check_tag(c, tag)) != EMU_OK || (st = check_regions(c, addrs, sizes, count)) != EMU_OK ||
        (st = check_phase(c, tag, P_HIT)) != EMU_OK)
        return st;
    pthread_mutex_lock(&lock);
    int i = find_locked(tag);
    if (i < 0 || !entries[i].ready) {
        pthread_mutex_unlock(&lock);
        emu_hcomm_check_refuse(c, "tag \"%s\" has no cache entry any more (cleared since the "
                               "lookup)", tag);
        phase = P_NONE;
        return EMU_EINVAL;
    }
    const struct entry *e = &entries[i];
    if (e->n_regions != count) {
        st = EMU_EINVAL;
        emu_hcomm_check_refuse(c, "tag \"%s\": count %llu differs from the %llu regions recorded",
                               tag, (unsigned long long)count, (unsigned long long)e->n_regions);
    }
    for (uint64_t r = 0; st == EMU_OK && r < count; r++) {
        if (sizes[r] != e->size[r]) {
            st = EMU_EINVAL;
            emu_hcomm_check_refuse(c, "tag \"%s\": sizes[%llu] = %llu differs from the recorded "
                                   "%llu", tag, (unsigned long long)r, (unsigned long long)sizes[r],
                                   (unsigned long long)e->size[r]);
        }
    }
    if (st == EMU_OK)
        st = build_replay(c, e, addrs, &chain);
    pthread_mutex_unlock(&lock);
    phase = P_NONE;
    if (st != EMU_OK)
        return st;
    while (chain != NULL) {
        struct emu_task *t = chain;
        chain = t->next;
        struct emu_hcomm_call rc = *c;
        rc.callsite = t->callsite; /* failures name the recorded call, not Execute */
        emu_dp_submit_task(&rc, t->stream, t);
    }
    return EMU_OK;
}

emu_status emu_dp_cache_clear(const struct emu_hcomm_call *c, const char *tag)
{
    emu_status st = check_tag(c, tag);

    if (st != EMU_OK)
        return st;
    pthread_mutex_lock(&lock);
    int i = find_locked(tag);
    if (i >= 0 && entries[i].ready)
        drop_locked(i);
    pthread_mutex_unlock(&lock);
    return EMU_OK;
}

/* ---- Own expansions ------------------------------------------------------------------------
 * The built-in collectives kernel expands a launch into the same tasks whenever the launch is
 * the same (its arguments and the communicator's resources; a loop's calls differ only in
 * the "done" notify, which the kernel queues outside the recording). Checking and building
 * those tasks was a third of an executor's instructions in an 8-rank 1 KiB allgather loop; a
 * replay copies them and queues them. Own entries live apart from the tags kernels record, so
 * they never take a kernel's room; the oldest gives way to a new one.
 *
 * What a replay checks again: that each task's thread and channel are the ones recorded (a
 * communicator destroyed and built again in the same place has new ones), and the ranges it
 * moves on other devices. Not the ranges on this device: the host checked the user's buffers
 * at this very call (host/coll/coll_args.c), and the HCCL buffer lives as long as the
 * communicator's threads. A stale task makes the kernel expand the launch afresh, without a
 * word: a communicator rebuilt in the same place is no error. */
#define OWN_ENTRIES 64u
#define OWN_MAX_TASKS 64u /* a larger expansion is not kept: few launches of it, much to keep */

static struct entry own[OWN_ENTRIES];
static uint32_t own_next; /* the entry the next recording takes (round robin) */
static _Thread_local struct entry *own_rec; /* being recorded by this OS thread */

/* A launch is recorded the second time it comes, not the first: recording copies every task
 * (about 1,700 instructions at 8 ranks), which a program whose calls never repeat (new
 * buffers each call, more distinct calls than entries) would pay on every call for nothing.
 * `seen` holds digests of the keys that missed lately, one per slot; a collision only makes
 * a launch recorded one sighting early or late. */
#define SEEN_SLOTS 256u
static uint64_t seen[SEEN_SLOTS];

/* A cheap digest of a key: its length and its first 128 bytes (the arguments' head: engine,
 * type, counts, buffers, resources), then every 64th byte, which reaches the parities. */
static uint64_t digest(const uint8_t *key, uint32_t len, uint32_t copy_mode)
{
    uint64_t h = (uint64_t)len * 0x9e3779b97f4a7c15ull ^ copy_mode, w;

    for (uint32_t i = 0; i + 8 <= len; i += i < 128 ? 8 : 64) {
        memcpy(&w, key + i, 8);
        h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    return h | 1; /* 0 marks an empty slot */
}

/* Whether a key that missed came before (see `seen`); marks it seen. Under `lock`. */
static bool seen_before_locked(const void *key, uint32_t len, uint32_t copy_mode)
{
    uint64_t h = digest(key, len, copy_mode);
    uint64_t *slot = &seen[h % SEEN_SLOTS];
    bool again = *slot == h;

    *slot = h;
    return again;
}

static void drop_own_locked(struct entry *e)
{
    free(e->recs);
    free(e->key);
    memset(e, 0, sizeof(*e));
}

static bool own_is(const struct entry *e, const void *key, uint32_t len, uint32_t copy_mode)
{
    return e->used && e->key_len == len && e->copy_mode == copy_mode &&
           memcmp(e->key, key, len) == 0;
}

/* Start recording `key` in the next free or oldest entry; none while another thread records
 * the same key, or every entry is being recorded, or out of memory. Under `lock`. */
static void record_own_locked(const void *key, uint32_t len, uint32_t copy_mode)
{
    for (uint32_t i = 0; i < OWN_ENTRIES; i++)
        if (!own[i].ready && own_is(&own[i], key, len, copy_mode))
            return;
    for (uint32_t i = 0; i < OWN_ENTRIES; i++) {
        struct entry *e = &own[own_next];
        own_next = (own_next + 1) % OWN_ENTRIES;
        if (e->used && !e->ready)
            continue;
        drop_own_locked(e);
        if ((e->key = malloc(len)) == NULL)
            return;
        memcpy(e->key, key, len);
        e->key_len = len;
        e->copy_mode = copy_mode;
        e->used = true;
        own_rec = e;
        return;
    }
}

/* The entry's tasks copied into a chain, or NULL when one of them is stale. Under `lock`. */
static struct emu_task *own_chain_locked(const struct entry *e)
{
    struct emu_task *head = NULL, *tail = NULL;

    for (uint32_t i = 0; i < e->n; i++) {
        struct emu_task *t = emu_task_create();
        if (t == NULL) {
            free_chain(head);
            return NULL;
        }
        memcpy(t, &e->recs[i].t, EMU_TASK_HOT_BYTES); /* the note is empty */
        if (stale(&e->recs[i], t, false) != FRESH) { /* "What a replay checks again" */
            emu_task_destroy(t);
            free_chain(head);
            return NULL;
        }
        chain_add(&head, &tail, t);
    }
    return head;
}

bool emu_dp_cache_own_replay(const struct emu_hcomm_call *c, const void *key, uint32_t len,
                             uint32_t copy_mode)
{
    struct emu_task *chain = NULL;
    struct entry *hit = NULL;

    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < OWN_ENTRIES && hit == NULL; i++)
        if (own[i].ready && own_is(&own[i], key, len, copy_mode))
            hit = &own[i];
    if (hit != NULL && (chain = own_chain_locked(hit)) == NULL)
        drop_own_locked(hit);
    if (chain == NULL && seen_before_locked(key, len, copy_mode))
        record_own_locked(key, len, copy_mode);
    pthread_mutex_unlock(&lock);
    if (chain == NULL)
        return false;
    emu_fetch_add_relaxed(&emu_exec_ctl()->coll_replays, 1);
    while (chain != NULL) {
        struct emu_task *t = chain;
        chain = t->next;
        struct emu_hcomm_call rc = *c;
        rc.callsite = t->callsite; /* failures name the recorded call */
        emu_dp_submit_task(&rc, t->stream, t);
    }
    return true;
}

void emu_dp_cache_own_end(void)
{
    if (own_rec == NULL)
        return;
    pthread_mutex_lock(&lock);
    own_rec->ready = true;
    pthread_mutex_unlock(&lock);
    own_rec = NULL;
}

/* Keep t in the own entry being recorded; a task to another host, or one too many, drops
 * the entry (the launch then expands each time). */
static void own_note(const struct emu_task *t)
{
    pthread_mutex_lock(&lock);
    if (emu_dp_op_of((struct emu_task *)t)->net || !keep_locked(own_rec, t, OWN_MAX_TASKS)) {
        drop_own_locked(own_rec);
        own_rec = NULL;
    }
    pthread_mutex_unlock(&lock);
}

void emu_dp_cache_observe(const struct emu_task *t)
{
    if (emu_dp_cache_recording())
        emu_dp_cache_note(t);
    if (own_rec != NULL)
        own_note(t);
}

bool emu_dp_cache_reset(void)
{
    bool was = phase == P_RECORDING;

    if (own_rec != NULL) { /* the kernel failed before its end: its own failure is reported */
        pthread_mutex_lock(&lock);
        drop_own_locked(own_rec);
        pthread_mutex_unlock(&lock);
        own_rec = NULL;
    }

    if (was && cur_entry >= 0) {
        pthread_mutex_lock(&lock);
        drop_locked(cur_entry);
        pthread_mutex_unlock(&lock);
    }
    phase = P_NONE;
    cur_entry = -1;
    return was;
}
