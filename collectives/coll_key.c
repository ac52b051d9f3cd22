/* coll_key.c - see coll_key.h. The key is the launch's bytes themselves, compared whole by
 * the executor: a digest that collided would replay another launch's tasks. At 8 ranks it is
 * ~650 bytes. */
#include "coll_key.h"

#include <stddef.h>
#include <string.h>

#define KEY_MAX_RANKS 64u

_Static_assert(offsetof(struct hcoll_args, pairs) + KEY_MAX_RANKS * sizeof(struct hcoll_pair) +
                       offsetof(struct hcoll_res, threads) +
                       HCOLL_MAX_RANKS * sizeof(ThreadHandle) +
                       KEY_MAX_RANKS * (sizeof(ChannelHandle) + sizeof(void *)) <=
                   HCOLL_KEY_MAX,
               "a key fits HCOLL_KEY_MAX");

struct key_writer {
    uint8_t *p;
    uint32_t len;
};

static void put(struct key_writer *w, const void *src, size_t len)
{
    memcpy(w->p + w->len, src, len);
    w->len += (uint32_t)len;
}

static int any_bit(const uint8_t *bits, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (bits[i] != 0)
            return 1;
    return 0;
}

uint32_t hcoll_launch_key(const struct hcoll_args *a, const struct hcoll_res *r, uint32_t n,
                          uint8_t *key)
{
    struct key_writer w = {key, 0};
    uint32_t threads = r->thread_num < HCOLL_MAX_RANKS ? r->thread_num : HCOLL_MAX_RANKS;

    /* Direct pairs and pushed steps store their outboxes when the kernel runs, which a replay
     * skips: a launch of another kind between two repeats may have stored another address
     * there, and the peer would read from it, or write into it. */
    if (a->fused_waits == 0 || n > KEY_MAX_RANKS ||
        any_bit(a->direct_mask, sizeof(a->direct_mask)) ||
        any_bit(a->pushed_mask, sizeof(a->pushed_mask)))
        return 0;
    /* The arguments but done_idx, which the kernel queues outside the replayed part; the
     * pairs only where the engine reads them. */
    put(&w, a, offsetof(struct hcoll_args, done_idx));
    put(&w, &a->fused_waits, offsetof(struct hcoll_args, pairs) -
                                 offsetof(struct hcoll_args, fused_waits));
    if (a->engine == HCOLL_ENGINE_PAIRS || a->engine == HCOLL_ENGINE_STAGED)
        put(&w, a->pairs, n * sizeof(a->pairs[0]));
    /* The resources' entries the expansion reads. */
    put(&w, r, offsetof(struct hcoll_res, threads));
    put(&w, r->threads, threads * sizeof(r->threads[0]));
    put(&w, r->chans, n * sizeof(r->chans[0]));
    put(&w, r->peer_buf, n * sizeof(r->peer_buf[0]));
    return w.len;
}
