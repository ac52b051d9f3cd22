/* symwin.h - the descriptor of a symmetric window (HcclCommSymWinRegister) as it lies in the
 * registering rank's device memory: what the host writes once at registration and the
 * executor reads to answer HcclSymWinGetPeerPointer and to accept a transfer into a peer's
 * copy of the window. The window handle a program holds is the descriptor's global device
 * address, so a kernel can hand it to the device functions as an opaque pointer. Fixed-width
 * fields, global device addresses, no pointers. */
#ifndef HCEMU_COMMON_SYMWIN_H
#define HCEMU_COMMON_SYMWIN_H

#include <stddef.h>
#include <stdint.h>

#define EMU_SYMWIN_MAGIC 0x314e495759534345ull /* "ECSYWIN1" */

struct emu_symwin_desc {
    uint64_t magic;   /* EMU_SYMWIN_MAGIC while registered; 0 once deregistered */
    uint64_t comm_id; /* the communicator's id (its rendezvous nonce) */
    uint32_t rank;    /* the registering rank */
    uint32_t rank_size;
    uint64_t size;   /* bytes of the window, the same on every rank */
    uint64_t base[]; /* [rank_size]: each rank's window start, a global device address */
};
_Static_assert(offsetof(struct emu_symwin_desc, base) == 32, "descriptor header is 32 bytes");

/* Bytes of the descriptor of an n-rank window. */
static inline uint64_t emu_symwin_desc_bytes(uint32_t n)
{
    return sizeof(struct emu_symwin_desc) + (uint64_t)n * sizeof(uint64_t);
}

#endif
