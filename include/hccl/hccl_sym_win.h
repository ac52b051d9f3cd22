/* hccl_sym_win.h - device-side lookup in a symmetric window (hcomm 9.2): the address, in the
 * calling device's view, of `offset` inside peer rank's copy of the window.
 * hcemu's own rendition; see docs/CONTROL_PLANE.md "HCCL 9.2 additions". */
#ifndef HCEMU_HCCL_SYM_WIN_H
#define HCEMU_HCCL_SYM_WIN_H

#include <stddef.h>
#include <stdint.h>

#include "../acl/acl_rt.h"
#include "hccl_types.h"

#ifdef __cplusplus
extern "C" {
#endif

HcclResult HcclSymWinGetPeerPointer(HcclCommSymWindow winHandle, size_t offset, uint32_t peerRank,
                                    void **ptr);

#ifdef __cplusplus
}
#endif

#endif
