/* model_table.c - hcemu-model-table: for AllGather and AllReduce at 8 ranks, ring and mesh,
 * the modelled time per size (the discrete-event simulation of common/model.c over the task
 * graph those algorithms queue, bench/model_graphs.c) beside its alpha-beta closed form and
 * the vendor cost model's estimate for the same algorithm (bandwidth term at 56 GB/s per
 * port plus 2 us per AICPU task, counted on rank 0's busiest thread), default figures
 * (docs/MODEL.md). Usage:
 *   hcemu-model-table [--ranks N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_graphs.h"

struct algo {
    const char *name;
    void (*build)(struct mg *g, uint32_t n, uint64_t bytes);
    double (*ab)(const struct emu_model_params *p, uint32_t n, uint64_t bytes);
    /* bytes each rank moves over its busiest port, in units of `bytes` */
    double (*wire)(uint32_t n);
};

static double wire_mesh_ag(uint32_t n)
{
    (void)n;
    return 1.0;
}

static double wire_ring_ag(uint32_t n)
{
    return n - 1.0;
}

static double wire_ring_ar(uint32_t n)
{
    return 2.0 * (n - 1) / n;
}

static double wire_mesh_ar(uint32_t n)
{
    return 2.0 / n;
}

static const struct algo algos[] = {
    {"allgather mesh", mg_mesh_allgather, mg_mesh_allgather_ab, wire_mesh_ag},
    {"allgather ring", mg_ring_allgather, mg_ring_allgather_ab, wire_ring_ag},
    {"allreduce ring", mg_ring_allreduce, mg_ring_allreduce_ab, wire_ring_ar},
    {"allreduce mesh", mg_mesh_allreduce, mg_mesh_allreduce_ab, wire_mesh_ar},
};

/* Tasks of rank 0's thread with the most tasks (the graphs use streams 1..n-1). */
static uint32_t busiest_thread(const struct mg *g)
{
    uint32_t count[64u] = {0}, best = 0;

    for (uint32_t i = 0; i < g->n; i++)
        if (g->nd[i].dev == 0 && g->nd[i].stream < 64u && ++count[g->nd[i].stream] > best)
            best = count[g->nd[i].stream];
    return best;
}

int main(int argc, char **argv)
{
    struct emu_model_params p;
    uint32_t n = 8;

    if (argc == 3 && strcmp(argv[1], "--ranks") == 0)
        n = (uint32_t)strtoul(argv[2], NULL, 10);
    if (n < 2 || n > 64) {
        fprintf(stderr, "usage: hcemu-model-table [--ranks 2..64]\n");
        return 2;
    }
    emu_model_params_default(&p);
    printf("modelled Atlas 350 time, %u ranks (us); default figures (docs/MODEL.md)\n", n);
    printf("%-16s %10s %12s %12s %12s %8s\n", "algorithm", "bytes", "modelled", "alpha-beta",
           "vendor est.", "mod/vnd");
    for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++)
        for (uint64_t bytes = 1024; bytes <= (256ull << 20); bytes *= 16) {
            struct mg g = {0};
            algos[a].build(&g, n, bytes);
            double t = mg_simulate(&g, &p), ab = algos[a].ab(&p, n, bytes);
            double vendor =
                algos[a].wire(n) * (double)bytes / p.link_bw + p.task_s * busiest_thread(&g);
            printf("%-16s %10llu %12.2f %12.2f %12.2f %8.3f\n", algos[a].name,
                   (unsigned long long)bytes, t * 1e6, ab * 1e6, vendor * 1e6, t / vendor);
            mg_free(&g);
        }
    return 0;
}
