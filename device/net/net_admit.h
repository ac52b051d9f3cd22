/* net_admit.h - which messages from other hosts an executor accepts (net_ucx.c). UCX lets any
 * peer that knows a worker's address (an IP and port any local user can list) connect and
 * send; so every message carries its job's token (derived by the host from the job's key,
 * host/hccl/rdv/rdv_auth.h), and only tokens of the jobs this executor serves are admitted. The
 * caller serialises the calls (net_ucx.c: under its UCX lock). */
#ifndef HCEMU_DEVICE_NET_ADMIT_H
#define HCEMU_DEVICE_NET_ADMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/contract/wire.h"

#define EMU_NET_ADMIT_MAX 16u /* jobs remembered; the oldest is forgotten first */

struct emu_net_admit {
    uint8_t tokens[EMU_NET_ADMIT_MAX][EMU_NET_TOKEN_BYTES];
    uint32_t n; /* tokens ever added (distinct); the newest EMU_NET_ADMIT_MAX are kept */
};

/* Admit messages carrying `token` from now on. */
void emu_net_admit_add(struct emu_net_admit *a, const uint8_t *token);
/* Whether `token` is admitted (compared in constant time per entry). */
bool emu_net_admit_has(const struct emu_net_admit *a, const uint8_t *token);

#endif
