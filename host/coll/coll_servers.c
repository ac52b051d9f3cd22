/* coll_servers.c - the servers of a communicator for the hierarchical forms (coll_hier.c):
 * which instance of layer 0 of the rank graph holds each rank, and its index there. */
#include "coll.h"

#include <string.h>

#include "common/platform/log.h"
#include "host/hccl/hccl_comm.h"
#include "host/hccl/hccl_topo.h"

/* Layer 0 of the rank graph, asked as a user's operator would (HcclRankGraphGetTopoInstsByLayer,
 * HcclRankGraphGetRanksByTopoInst), through the graph itself. */
emu_status emu_coll_servers_init(struct emu_comm *c, const char *fn, struct emu_coll_servers *sv)
{
    uint32_t *insts = NULL, ni = 0, size = c->size;
    emu_status st;

    memset(sv, 0, sizeof(*sv));
    sv->n = 1;
    if ((st = emu_graph_insts(c->graph, 0, &insts, &ni, fn)) != EMU_OK)
        return st;
    if (ni == 0 || ni > HCOLL_MAX_RANKS) {
        EMU_LOG_ERR("%s: rank %u: layer 0 of the rank graph has %u instances (1..%u)", fn,
                    c->rank, ni, HCOLL_MAX_RANKS);
        return EMU_EINTERNAL;
    }
    uint32_t ids[HCOLL_MAX_RANKS], per = 0;
    memcpy(ids, insts, ni * sizeof(ids[0])); /* the next query may reuse the graph's array */
    sv->n = ni;
    for (uint32_t s = 0; s < ni; s++) {
        uint32_t *ranks = NULL, nr = 0;
        if ((st = emu_graph_inst_ranks(c->graph, 0, ids[s], &ranks, &nr, fn)) != EMU_OK)
            return st;
        per = s == 0 ? nr : (per == nr ? per : 0);
        for (uint32_t l = 0; l < nr; l++) {
            if (ranks[l] >= size) {
                EMU_LOG_ERR("%s: rank %u: layer 0 lists rank %u of %u", fn, c->rank, ranks[l],
                            size);
                return EMU_EINTERNAL;
            }
            sv->server[ranks[l]] = s;
            sv->local[ranks[l]] = l;
        }
    }
    sv->per = per;
    if (per != 0)
        for (uint32_t r = 0; r < size; r++)
            sv->rank_at[sv->server[r] * per + sv->local[r]] = r;
    return EMU_OK;
}
