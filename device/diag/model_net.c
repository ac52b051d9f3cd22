/* model_net.c - mirror this folder's task graph to the folders it sends messages to
 * (model_net.h). A node travels as it is in the file, with its origin and index there set
 * (a node of this folder: this folder's key and its index); the receiver keeps one bit per
 * (origin, index) so a node shipped by several executors, or again after it was skipped as
 * not yet ready, is appended once. */
#include "model_net.h"

#include <string.h>

#include "common/platform/atomic.h"
#include "common/contract/host_id.h"
#include "common/platform/log.h"
#include "common/model/model.h"
#include "device/exec.h"
#include "diag_priv.h"

typedef struct emu_model_node node_t;

static uint64_t own_key(void)
{
    return emu_folder_key(emu_host_self()->key, emu_exec_g.job_dir);
}

bool emu_model_net_on(void)
{
    return emu_model_rec_graph() != NULL;
}

uint32_t emu_model_net_count(void)
{
    struct emu_model_shm *g = emu_model_rec_graph();
    uint32_t n = g != NULL ? emu_load_acquire(&g->n_nodes) : 0;

    return n < EMU_MODEL_MAX_NODES ? n : EMU_MODEL_MAX_NODES;
}

_Static_assert(sizeof(node_t) == EMU_MODEL_NET_NODE, "a node on the wire");

size_t emu_model_net_pack(uint32_t *sent, uint32_t upto, uint64_t peer, uint8_t *out, size_t cap,
                          bool *whole)
{
    struct emu_model_shm *g = emu_model_rec_graph();
    uint32_t next = *sent;
    bool waiting = false;
    size_t at = 0;
    uint64_t me = own_key();

    *whole = true;
    for (uint32_t i = *sent; g != NULL && i < upto && i < EMU_MODEL_MAX_NODES; i++) {
        const node_t *x = &g->nodes[i];
        /* Not ready: being written by a task's submission now, so no part of what this
         * message orders; sent by a later message (the cursor stays here). */
        if (emu_load_acquire(&x->ready) == 0) {
            waiting = true;
            continue;
        }
        if (x->origin != peer) {
            if (at + sizeof(node_t) > cap) {
                *whole = false;
                break;
            }
            node_t y;
            memcpy(&y, x, sizeof(y));
            if (y.origin == 0)
                y.origin = me, y.origin_idx = i;
            emu_store_relaxed(&y.ready, 0);
            memcpy(out + at, &y, sizeof(y));
            at += sizeof(y);
        }
        if (!waiting)
            next = i + 1;
    }
    *sent = next;
    return at;
}

/* Stop modelled times here: another folder's graph cannot be mirrored whole. */
static void partial(struct emu_model_shm *g, const char *why, uint32_t src_dev)
{
    if (atomic_exchange(&g->partial, 1) == 0)
        EMU_LOG_WARN("modelled time: %s (a message from device %u of another host); modelled "
                     "times are unavailable from now on",
                     why, src_dev);
}

/* The slot of origin `key`, claimed when new; NULL when the table is full. */
static struct emu_model_origin *origin_of(struct emu_model_shm *g, uint64_t key)
{
    for (uint32_t k = 0; k < EMU_MODEL_MAX_ORIGINS; k++) {
        uint64_t cur = atomic_load(&g->origins[k].key);
        if (cur == 0 && atomic_compare_exchange_strong(&g->origins[k].key, &cur, key))
            return &g->origins[k];
        if (cur == key)
            return &g->origins[k];
    }
    return NULL;
}

void emu_model_net_unpack(const void *buf, size_t len, bool whole, bool sender_on,
                          uint32_t src_dev)
{
    struct emu_model_shm *g = emu_model_rec_graph();
    uint64_t me = own_key();

    if (g == NULL)
        return;
    if (!sender_on) {
        partial(g, "the sender's model is off (set HCEMU_TIME=model on every host)", src_dev);
        return;
    }
    if (!whole)
        partial(g, "the sender's new nodes did not fit in one message header", src_dev);
    for (size_t at = 0; at + sizeof(node_t) <= len; at += sizeof(node_t)) {
        node_t y;
        memcpy(&y, (const uint8_t *)buf + at, sizeof(y));
        if (y.origin == me || y.origin == 0)
            continue;
        struct emu_model_origin *o = origin_of(g, y.origin);
        if (o == NULL || y.origin_idx >= EMU_MODEL_MAX_NODES) {
            partial(g, "more job folders in the job than the mirrors' table holds", src_dev);
            return;
        }
        uint8_t bit = (uint8_t)(1u << (y.origin_idx % 8));
        if (atomic_fetch_or(&o->got[y.origin_idx / 8], bit) & bit)
            continue;
        node_t *x = emu_model_rec_reserve();
        if (x == NULL)
            return;
        memcpy(x, &y, offsetof(node_t, ready));
        x->after = y.after;
        emu_store_release(&x->ready, 1);
    }
}
