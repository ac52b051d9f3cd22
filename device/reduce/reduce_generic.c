/* reduce_generic.c - the portable kernel set: the loops of reduce_loops.h compiled for the
 * build's baseline ISA. It is the only set on non-x86 hosts and the reference the x86 sets are
 * tested against. Entry point: emu_reduce_generic_fill(). */
#include "reduce_priv.h"

#define EMU_RL_PREFIX generic_
#define EMU_RL_ATTR
#include "reduce_loops.h"

void emu_reduce_generic_fill(struct emu_reduce_kernels *k)
{
    k->name = "generic";
    generic_fill_loops(k);
}
