/* net_admit.c - the tokens of the jobs an executor serves (net_admit.h). */
#include "net_admit.h"

#include <string.h>

static bool same(const uint8_t *a, const uint8_t *b)
{
    uint8_t d = 0;

    for (uint32_t k = 0; k < EMU_NET_TOKEN_BYTES; k++)
        d |= (uint8_t)(a[k] ^ b[k]);
    return d == 0;
}

bool emu_net_admit_has(const struct emu_net_admit *a, const uint8_t *token)
{
    bool found = false;

    for (uint32_t i = 0; i < a->n && i < EMU_NET_ADMIT_MAX; i++)
        found |= same(a->tokens[i], token);
    return found;
}

void emu_net_admit_add(struct emu_net_admit *a, const uint8_t *token)
{
    if (emu_net_admit_has(a, token))
        return;
    memcpy(a->tokens[a->n % EMU_NET_ADMIT_MAX], token, EMU_NET_TOKEN_BYTES);
    a->n++;
}
