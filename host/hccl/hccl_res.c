/* hccl_res.c - see hccl_res.h. */
#include "hccl_res.h"

#include "hccl_link.h"
#include "hccl_mem.h"
#include "hccl_topo.h"

emu_status emu_res_buffer(struct emu_comm *c, bool clear, void **addr, uint64_t *size,
                          const char *fn)
{
    pthread_mutex_lock(&c->lock);
    emu_status s = emu_hccl_mem_buffer_get(c, clear, addr, size, fn);
    pthread_mutex_unlock(&c->lock);
    return s;
}

emu_status emu_res_ctx_create(struct emu_comm *c, const char *tag, int32_t engine, uint64_t size,
                              void **out, const char *fn)
{
    pthread_mutex_lock(&c->lock);
    emu_status s = emu_hccl_mem_ctx_create(c, tag, engine, size, out, fn);
    pthread_mutex_unlock(&c->lock);
    return s;
}

emu_status emu_res_ctx_get(struct emu_comm *c, const char *tag, int32_t engine, void **out,
                           uint64_t *size)
{
    pthread_mutex_lock(&c->lock);
    emu_status s = emu_hccl_mem_ctx_get(c, tag, engine, out, size);
    pthread_mutex_unlock(&c->lock);
    return s;
}

emu_status emu_res_ctx_copy(struct emu_comm *c, const char *tag, int32_t engine, const void *src,
                            uint64_t size, uint64_t offset, const char *fn)
{
    pthread_mutex_lock(&c->lock);
    emu_status s = emu_hccl_mem_ctx_copy(c, tag, engine, src, size, offset, fn);
    pthread_mutex_unlock(&c->lock);
    return s;
}

emu_status emu_res_links(struct emu_comm *c, uint32_t layer, uint32_t src, uint32_t dst,
                         CommLink **links, uint32_t *n, const char *fn)
{
    /* The links live in the graph's scratch buffer, shared by the comm's callers. */
    pthread_mutex_lock(&c->lock);
    emu_status s = emu_graph_links(c->graph, layer, src, dst, links, n, fn);
    pthread_mutex_unlock(&c->lock);
    return s;
}

emu_status emu_res_channel_buffer(struct emu_comm *c, ChannelHandle h, void **addr,
                                  uint64_t *size, const char *fn)
{
    struct emu_chan_rec *ch;

    pthread_mutex_lock(&c->lock);
    emu_status s = emu_link_find(c, h, &ch, fn);
    if (s == EMU_OK) {
        *addr = ch->mems[0].addr; /* mems[0] is always the peer's HCCL buffer */
        *size = ch->mems[0].size;
    }
    pthread_mutex_unlock(&c->lock);
    return s;
}
