/* hcomm_channel.h - HCOMM base-layer channel definitions.
 *
 * The vendor header declares the base-layer HcommChannelDesc (ABI magic 0x0fcf0f0f,
 * version 4), which only HCOMM's own channel layer fills. Its field layout is not
 * documented (layout unconfirmed), so the type is declared incomplete: code can pass
 * pointers around but cannot depend on a guessed size. User code builds HcclChannelDesc
 * (hccl_channel.h) instead. */
#ifndef HCEMU_HCOMM_CHANNEL_H
#define HCEMU_HCOMM_CHANNEL_H

#include "hcomm_res_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct HcommChannelDesc HcommChannelDesc;

#ifdef __cplusplus
}
#endif

#endif
