/* model_graphs.c - task graphs of known shape and their alpha-beta closed forms (see
 * model_graphs.h). */
#include "model_graphs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t add(struct mg *g, uint32_t dev, uint32_t stream, uint8_t role)
{
    if (g->n == g->cap) {
        g->cap = g->cap * 2 + 64;
        g->nd = realloc(g->nd, g->cap * sizeof(*g->nd));
        if (g->nd == NULL) {
            fprintf(stderr, "model_graphs: out of memory\n");
            abort();
        }
    }
    struct emu_model_node *x = &g->nd[g->n];
    memset(x, 0, sizeof(*x));
    x->dev = dev, x->stream = stream, x->role = role, x->aicpu = 1;
    x->kernel = x->src_dev = x->dst_dev = EMU_MODEL_NONE;
    x->ready = 1;
    return g->n++;
}

uint32_t mg_write(struct mg *g, uint32_t dev, uint32_t stream, uint32_t dst_dev, uint64_t bytes,
                  uint32_t notify_slot)
{
    uint32_t i = add(g, dev, stream, EMU_MODEL_FLOW);
    struct emu_model_node *x = &g->nd[i];

    x->src_dev = dev, x->dst_dev = dst_dev, x->bytes = bytes;
    if (notify_slot != EMU_MODEL_NONE)
        x->sync_op = EMU_MODEL_RECORD, x->sync_dev = dst_dev, x->sync_slot = notify_slot;
    return i;
}

uint32_t mg_record(struct mg *g, uint32_t dev, uint32_t stream, uint32_t dst_dev, uint32_t slot)
{
    uint32_t i = add(g, dev, stream, EMU_MODEL_FIXED);

    g->nd[i].sync_op = EMU_MODEL_RECORD, g->nd[i].sync_dev = dst_dev, g->nd[i].sync_slot = slot;
    return i;
}

uint32_t mg_wait(struct mg *g, uint32_t dev, uint32_t stream, uint32_t slot)
{
    uint32_t i = add(g, dev, stream, EMU_MODEL_FIXED);

    g->nd[i].sync_op = EMU_MODEL_WAIT, g->nd[i].sync_dev = dev, g->nd[i].sync_slot = slot;
    return i;
}

uint32_t mg_copy(struct mg *g, uint32_t dev, uint32_t stream, uint64_t bytes, int reduce)
{
    uint32_t i = add(g, dev, stream, EMU_MODEL_LOCAL);

    g->nd[i].bytes = bytes, g->nd[i].reduce = (uint8_t)(reduce != 0);
    return i;
}

void mg_free(struct mg *g)
{
    free(g->nd);
    memset(g, 0, sizeof(*g));
}

void mg_ring_allreduce(struct mg *g, uint32_t n, uint64_t bytes)
{
    for (uint32_t s = 0; s < 2 * (n - 1); s++)
        for (uint32_t r = 0; r < n; r++) {
            uint32_t w = mg_write(g, r, 1, (r + 1) % n, bytes / n, 0);
            g->nd[w].reduce = s < n - 1; /* reduce-scatter, then allgather */
            mg_wait(g, r, 1, 0);
        }
}

void mg_mesh_allgather(struct mg *g, uint32_t n, uint64_t bytes)
{
    for (uint32_t r = 0; r < n; r++)
        for (uint32_t j = 0; j + 1 < n; j++) {
            uint32_t peer = (r + 1 + j) % n;
            mg_write(g, r, 1 + j, peer, bytes, r);
            mg_wait(g, r, 1 + j, peer);
        }
}

void mg_ring_allgather(struct mg *g, uint32_t n, uint64_t bytes)
{
    for (uint32_t s = 0; s + 1 < n; s++)
        for (uint32_t r = 0; r < n; r++) {
            mg_write(g, r, 1, (r + 1) % n, bytes, 0);
            mg_wait(g, r, 1, 0);
        }
}

void mg_mesh_allreduce(struct mg *g, uint32_t n, uint64_t bytes)
{
    for (uint32_t phase = 0; phase < 2; phase++)
        for (uint32_t r = 0; r < n; r++)
            for (uint32_t j = 0; j + 1 < n; j++) {
                uint32_t peer = (r + 1 + j) % n;
                uint32_t w = mg_write(g, r, 1 + j, peer, bytes / n, r);
                g->nd[w].reduce = phase == 0;
                mg_wait(g, r, 1 + j, peer);
            }
}

double mg_alpha(const struct emu_model_params *p)
{
    return p->task_s + p->link_lat_s + (p->task_s > p->notify_s ? p->task_s : p->notify_s);
}

double mg_ring_allreduce_ab(const struct emu_model_params *p, uint32_t n, uint64_t bytes)
{
    return 2.0 * (n - 1) * (mg_alpha(p) + (double)(bytes / n) / p->link_bw);
}

double mg_mesh_allgather_ab(const struct emu_model_params *p, uint32_t n, uint64_t bytes)
{
    (void)n;
    return mg_alpha(p) + (double)bytes / p->link_bw;
}

double mg_ring_allgather_ab(const struct emu_model_params *p, uint32_t n, uint64_t bytes)
{
    return (n - 1) * (mg_alpha(p) + (double)bytes / p->link_bw);
}

double mg_mesh_allreduce_ab(const struct emu_model_params *p, uint32_t n, uint64_t bytes)
{
    return 2 * (mg_alpha(p) + (double)(bytes / n) / p->link_bw);
}

double mg_simulate(const struct mg *g, const struct emu_model_params *p)
{
    struct emu_model_times *t = malloc((g->n + 1) * sizeof(*t));
    uint32_t unmatched = 0;
    double end = -1;

    if (t != NULL && emu_model_simulate(g->nd, g->n, p, t, &unmatched) == EMU_OK &&
        unmatched == 0) {
        end = 0;
        for (uint32_t i = 0; i < g->n; i++)
            end = t[i].end > end ? t[i].end : end;
    }
    free(t);
    return end;
}
