/* hccl_exchange.c - exchange info: what this rank attaches to its next channel set-up, and
 * what peers attached to theirs (hccl_exchange.h). The bytes travel in the channel offers of
 * the rendezvous file, so they reach ranks of other processes and, through the copied rows,
 * of other hosts without a transport of their own. */
#include "hccl_exchange.h"

#include <stdlib.h>
#include <string.h>

#include "hccl.h"

emu_status emu_xinfo_add(struct emu_comm *c, const void *data, uint32_t len, const char *fn)
{
    if (len == 0 || len > EMU_RDV_INFO_MAX)
        return emu_hccl_bad(c, fn, "length %u is not in 1..%u", len, EMU_RDV_INFO_MAX);
    uint8_t *copy = malloc(len);
    if (copy == NULL)
        return EMU_ENOMEM;
    memcpy(copy, data, len);
    pthread_mutex_lock(&c->lock);
    free(c->xinfo_out);
    c->xinfo_out = copy;
    c->xinfo_out_len = len;
    pthread_mutex_unlock(&c->lock);
    return EMU_OK;
}

emu_status emu_xinfo_get(struct emu_comm *c, uint32_t remote, uint32_t len, void *data,
                         uint32_t *actual, const char *fn)
{
    emu_status s = EMU_OK;

    pthread_mutex_lock(&c->lock);
    struct emu_xinfo *x =
        c->xinfo_in != NULL && remote < c->size && c->xinfo_in[remote].len > 0
            ? &c->xinfo_in[remote]
            : NULL;
    *actual = x != NULL ? x->len : 0;
    if (x != NULL && len != x->len) {
        s = emu_hccl_bad(c, fn, "rank %u sent %u bytes but length is %u (they must be equal)",
                         remote, x->len, len);
    } else if (x != NULL) {
        /* Read once, as hcomm does: the next set-up brings fresh bytes or nothing. */
        memcpy(data, x->data, x->len);
        free(x->data);
        *x = (struct emu_xinfo){0};
    }
    pthread_mutex_unlock(&c->lock);
    return s;
}

void emu_xinfo_reset(struct emu_comm *c)
{
    pthread_mutex_lock(&c->lock);
    emu_xinfo_sent(c);
    pthread_mutex_unlock(&c->lock);
}

void emu_xinfo_post(const struct emu_comm *c, struct emu_rdv_offer *o)
{
    o->info_len = c->xinfo_out_len;
    if (c->xinfo_out_len > 0)
        memcpy(o->info, c->xinfo_out, c->xinfo_out_len);
}

emu_status emu_xinfo_store(struct emu_comm *c, uint32_t peer, const struct emu_rdv_offer *o)
{
    /* The offer lies in a file other processes write: trust no length in it. */
    uint32_t len = o->info_len <= EMU_RDV_INFO_MAX ? o->info_len : 0;

    if (len == 0 || peer >= c->size)
        return EMU_OK;
    if (c->xinfo_in == NULL && (c->xinfo_in = calloc(c->size, sizeof(*c->xinfo_in))) == NULL)
        return EMU_ENOMEM;
    uint8_t *copy = malloc(len);
    if (copy == NULL)
        return EMU_ENOMEM;
    memcpy(copy, o->info, len);
    free(c->xinfo_in[peer].data);
    c->xinfo_in[peer] = (struct emu_xinfo){.len = len, .data = copy};
    return EMU_OK;
}

void emu_xinfo_sent(struct emu_comm *c)
{
    free(c->xinfo_out);
    c->xinfo_out = NULL;
    c->xinfo_out_len = 0;
}

void emu_xinfo_free(struct emu_comm *c)
{
    emu_xinfo_sent(c);
    if (c->xinfo_in != NULL)
        for (uint32_t r = 0; r < c->size; r++)
            free(c->xinfo_in[r].data);
    free(c->xinfo_in);
    c->xinfo_in = NULL;
}
