/* model_graphs.h - task graphs of known shape for the modelled clock (common/model/model.h): the
 * shapes of AICPU_TS collectives (ring AllReduce, mesh AllGather: per step a write with notify
 * and a wait), built node by node, and their closed-form alpha-beta times (tests/test_model.c). */
#ifndef HCEMU_TESTS_MODEL_GRAPHS_H
#define HCEMU_TESTS_MODEL_GRAPHS_H

#include <stdint.h>

#include "common/model/model.h"

struct mg {
    struct emu_model_node *nd;
    uint32_t n, cap;
};

/* Append a node; returns its index (aborts when out of memory: test and bench use only). */
uint32_t mg_write(struct mg *g, uint32_t dev, uint32_t stream, uint32_t dst_dev, uint64_t bytes,
                  uint32_t notify_slot);
uint32_t mg_record(struct mg *g, uint32_t dev, uint32_t stream, uint32_t dst_dev, uint32_t slot);
uint32_t mg_wait(struct mg *g, uint32_t dev, uint32_t stream, uint32_t slot);
uint32_t mg_copy(struct mg *g, uint32_t dev, uint32_t stream, uint64_t bytes, int reduce);
void mg_free(struct mg *g);

/* Ring AllReduce of `bytes` per rank on n ranks: 2(n-1) steps of write-reduce (then write)
 * with notify of bytes/n to the next rank, each followed by a wait for the previous rank's. */
void mg_ring_allreduce(struct mg *g, uint32_t n, uint64_t bytes);
/* Mesh AllGather: on every rank one thread per peer writes `bytes` with notify to its peer,
 * then waits for the peer's. */
void mg_mesh_allgather(struct mg *g, uint32_t n, uint64_t bytes);
/* Ring AllGather: n-1 steps of a write with notify of `bytes` to the next rank. */
void mg_ring_allgather(struct mg *g, uint32_t n, uint64_t bytes);
/* Mesh AllReduce: a mesh reduce-scatter (write-reduce of bytes/n to every peer at once),
 * then a mesh AllGather of bytes/n. */
void mg_mesh_allreduce(struct mg *g, uint32_t n, uint64_t bytes);

/* The alpha of one step: dispatch, link latency, then the wait's own dispatch or the notify
 * latency, whichever is longer. */
double mg_alpha(const struct emu_model_params *p);
/* Closed forms: 2(n-1)(alpha + bytes/(n B)) and alpha + bytes/B. */
double mg_ring_allreduce_ab(const struct emu_model_params *p, uint32_t n, uint64_t bytes);
double mg_mesh_allgather_ab(const struct emu_model_params *p, uint32_t n, uint64_t bytes);
/* (n-1)(alpha + bytes/B) and 2(alpha + bytes/(n B)). */
double mg_ring_allgather_ab(const struct emu_model_params *p, uint32_t n, uint64_t bytes);
double mg_mesh_allreduce_ab(const struct emu_model_params *p, uint32_t n, uint64_t bytes);

/* Simulated end of the graph (largest end); negative when the simulation failed. */
double mg_simulate(const struct mg *g, const struct emu_model_params *p);

#endif
