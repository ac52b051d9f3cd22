/* model_merge.c - one graph out of this job folder's nodes and the mirrors of other folders'
 * nodes (common/model/model.h emu_model_merge, docs/MODEL.md "Across hosts").
 *
 * The simulation needs one numbering of devices and nodes. A node's fields number devices of
 * its origin folder, except those flagged as the channel peer's (a folder of their own); a
 * kernel is a node index of the origin folder. The merge sorts the mirrors by (origin, index
 * there), which keeps each thread's nodes in their queue order whatever order they arrived
 * in, and renumbers. The simulation is insensitive to the order of nodes of different
 * threads (docs/MODEL.md "Determinism"), so the times do not depend on which message
 * brought which node first. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "model.h"

#define NONE EMU_MODEL_NONE
#define MAX_FOLDERS (EMU_MODEL_MAX_ORIGINS + 1u)
#define REMOTE_SERVER 0x40000000u /* servers of other folders: this plus the folder's rank */

struct devmap {
    uint64_t folder[EMU_MAX_DEVICES];
    uint32_t dev[EMU_MAX_DEVICES];
    bool used[EMU_MAX_DEVICES];
    uint64_t folders[MAX_FOLDERS]; /* other folders in order of first appearance */
    uint32_t n_folders;
    bool overflow;
};

/* The number of device `dev` of folder `f` (own: its own number). */
static uint32_t dev_of(struct devmap *m, uint64_t own, uint64_t f, uint32_t dev,
                       struct emu_model_params *p)
{
    if (dev >= EMU_MAX_DEVICES)
        return dev; /* EMU_MODEL_NONE: no device */
    if (f == own)
        return dev;
    uint32_t free_at = NONE;
    for (uint32_t g = 0; g < EMU_MAX_DEVICES; g++) {
        if (m->used[g] && m->folder[g] == f && m->dev[g] == dev)
            return g;
        if (!m->used[g] && free_at == NONE)
            free_at = g;
    }
    if (free_at == NONE) {
        m->overflow = true;
        return NONE;
    }
    uint32_t k = 0;
    while (k < m->n_folders && m->folders[k] != f)
        k++;
    if (k == m->n_folders && k < MAX_FOLDERS)
        m->folders[m->n_folders++] = f;
    m->used[free_at] = true, m->folder[free_at] = f, m->dev[free_at] = dev;
    p->server[free_at] = REMOTE_SERVER + k;
    for (uint32_t j = 0; j < EMU_MAX_DEVICES; j++) /* a link figure names this folder's devices */
        p->pair_bw[free_at][j] = p->pair_bw[j][free_at] = 0;
    return free_at;
}

/* Sort order: this folder's nodes first in their order, then mirrors by (origin, index). */
static int cmp_node(const void *a, const void *b)
{
    const struct emu_model_node *x = a, *y = b;

    if (x->origin != y->origin)
        return x->origin < y->origin ? -1 : 1;
    return x->origin_idx < y->origin_idx ? -1 : (x->origin_idx > y->origin_idx);
}

/* Index of (origin, idx) in the sorted nodes[0..n), NONE when absent. */
static uint32_t find(const struct emu_model_node *nd, uint32_t n, uint64_t origin, uint32_t idx)
{
    uint32_t lo = 0, hi = n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const struct emu_model_node *x = &nd[mid];
        if (x->origin < origin || (x->origin == origin && x->origin_idx < idx))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && nd[lo].origin == origin && nd[lo].origin_idx == idx ? lo : NONE;
}

emu_status emu_model_merge(struct emu_model_node *nodes, uint32_t n, uint64_t own,
                           struct emu_model_params *p, char *why, size_t why_len)
{
    uint32_t own_n = 0;
    bool mixed = false;

    for (uint32_t i = 0; i < n; i++) {
        mixed |= nodes[i].origin != 0 || nodes[i].peer != 0;
        own_n += nodes[i].origin == 0;
    }
    if (!mixed)
        return EMU_OK;
    /* Own nodes are in front already when no mirror came in before one of them: move them
     * there otherwise (stable: their order is their thread order), then sort the mirrors. */
    struct emu_model_node *tmp = malloc(((size_t)n + 1) * sizeof(*tmp));
    if (tmp == NULL)
        return EMU_ENOMEM;
    uint32_t a = 0, b = own_n;
    for (uint32_t i = 0; i < n; i++) {
        struct emu_model_node *x = &tmp[nodes[i].origin == 0 ? a++ : b++];
        *x = nodes[i];
        if (nodes[i].origin == 0)
            x->origin_idx = i;
    }
    qsort(tmp + own_n, n - own_n, sizeof(*tmp), cmp_node);
    struct devmap m = {0};
    for (uint32_t i = 0; i < own_n; i++) {
        const struct emu_model_node *x = &tmp[i];
        uint32_t d[4] = {x->dev, x->src_dev, x->dst_dev, x->sync_dev};
        for (uint32_t k = 0; k < 4; k++)
            if (d[k] < EMU_MAX_DEVICES)
                m.used[d[k]] = true, m.folder[d[k]] = own, m.dev[d[k]] = d[k];
    }
    for (uint32_t i = 0; i < n; i++) {
        struct emu_model_node *x = &tmp[i];
        uint64_t from = x->origin != 0 ? x->origin : own;
        uint64_t peer = x->peer != 0 ? x->peer : from;
        x->dev = dev_of(&m, own, from, x->dev, p);
        x->src_dev = dev_of(&m, own, x->peer_fields & EMU_MODEL_PEER_SRC ? peer : from, x->src_dev, p);
        x->dst_dev = dev_of(&m, own, x->peer_fields & EMU_MODEL_PEER_DST ? peer : from, x->dst_dev, p);
        x->sync_dev =
            dev_of(&m, own, x->peer_fields & EMU_MODEL_PEER_SYNC ? peer : from, x->sync_dev, p);
        if (x->kernel != NONE) {
            /* A kernel is an index of the origin's file: own nodes carry theirs in origin_idx
             * (ascending), mirrors their index there. */
            uint32_t k = x->origin == 0 ? find(tmp, own_n, 0, x->kernel)
                                        : find(tmp + own_n, n - own_n, x->origin, x->kernel);
            x->kernel = k == NONE ? NONE : (x->origin == 0 ? k : own_n + k);
        }
        if (x->after != 0) { /* the same, plus one */
            uint32_t h = x->origin == 0 ? find(tmp, own_n, 0, x->after - 1)
                                        : find(tmp + own_n, n - own_n, x->origin, x->after - 1);
            x->after = h == NONE ? 0 : (x->origin == 0 ? h : own_n + h) + 1;
        }
    }
    if (m.overflow) {
        snprintf(why, why_len, "the job's devices over all its job folders are more than %u",
                 EMU_MAX_DEVICES);
        free(tmp);
        return EMU_EINVAL;
    }
    /* Own nodes' origin stays 0 (callers look events up among them). */
    for (uint32_t i = 0; i < own_n; i++)
        tmp[i].origin_idx = 0;
    memcpy(nodes, tmp, (size_t)n * sizeof(*tmp));
    free(tmp);
    return EMU_OK;
}
