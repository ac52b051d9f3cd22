/* reduce.h - the reduction engine: dst[i] = op(dst[i], src[i]), or op(a[i], b[i]) into a third
 * buffer, for every HcommDataType and HcommReduceOp the data plane can name, vectorised for
 * the CPU it runs on.
 *
 * Entry points: emu_reduce_check() at the call (validation), emu_reduce() when the task runs.
 * The kernel set (generic C, SSE2, AVX2+F16C, AVX-512) is picked once, at first use, from the
 * CPU features; HCEMU_REDUCE_ISA=generic|sse2|avx2|avx512 forces one (tests and benchmarks use
 * it to exercise every path). A forced set the CPU lacks falls back to the best one, with a
 * warning. */
#ifndef HCEMU_DEVICE_REDUCE_H
#define HCEMU_DEVICE_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/contract/status.h"

#include "reduce_types.h"

/* Which call validates: HcommLocalReduceOnThread, a remote reduce (write/read reduce, their
 * WithNotify form, batch reduce entries) on Atlas 350 (950), or a remote reduce on A2/A3. */
enum emu_reduce_site {
    EMU_REDUCE_LOCAL,
    EMU_REDUCE_REMOTE_950,
    EMU_REDUCE_REMOTE_A2A3,
};

/* Whether the (data_type, reduce_op) pair is accepted by the call at `site`, per the docs:
 *   LOCAL        INT8 INT16 INT32 FP16 FP32 BFP16
 *   REMOTE_950   the above + UINT8 UINT16 UINT32
 *   REMOTE_A2A3  INT8 INT16 INT32 FP16 FP32 BFP16
 * and ops SUM, MAX, MIN at every site.
 * PROD: the docs allow only SUM/MAX/MIN, while the A5 library also maps PROD and nobody knows
 * whether the hardware honours it. We follow the docs: PROD is refused here (EMU_EINVAL, i.e.
 * HCCL_E_PARA), so a kernel that uses it fails on hcemu as the docs say it may on hardware.
 * emu_reduce() still computes PROD correctly, for callers that decide otherwise.
 * Any value, including negative and out-of-range ones, is safe to pass.
 * Returns EMU_OK or EMU_EINVAL (bad type, op or site). Does not log: the caller knows the
 * rank, thread and call, and logs the refusal once. */
emu_status emu_reduce_check(int data_type, int reduce_op, enum emu_reduce_site site)
    EMU_MUST_CHECK;

/* Element size in bytes (docs/DATA_PLANE.md §3; unassigned 13 is 2, as in the library), or 0
 * for a value that is no data type. */
size_t emu_reduce_dtype_size(int data_type);
/* "INT8", "FP16", "BFP16", ...; "RESERVED" for 255, "INVALID" otherwise. Never NULL. */
const char *emu_reduce_dtype_name(int data_type);
/* "SUM", "PROD", "MAX", "MIN"; "RESERVED" for 255, "INVALID" otherwise. Never NULL. */
const char *emu_reduce_op_name(int reduce_op);

/* dst[i] = op(dst[i], src[i]) for i < count, element type data_type.
 * pre: data_type < EMU_REDUCE_DTYPE_COUNT and reduce_op < EMU_REDUCE_OP_COUNT (anything else
 *      is logged as an error and leaves dst untouched); dst and src hold `count` elements;
 *      dst == src is allowed, any other overlap is not (the caller checks). Pointers need no
 *      alignment.
 * Semantics, identical on every kernel set:
 *   - integers wrap (two's complement) on SUM and PROD;
 *   - FP16 (IEEE binary16) and BFP16 are computed in fp32 and rounded to nearest even, which
 *     for SUM/PROD equals the correctly rounded result (fp32 has more than 2p+2 bits);
 *     subnormals are kept (no flush to zero); a NaN result stays NaN (its payload is not
 *     specified), overflow gives inf;
 *   - MAX/MIN on floats: if either operand is NaN the result is NaN; otherwise the larger
 *     (smaller) value, and when the two compare equal (+0 and -0) the src element.
 * Thread-safe; never blocks except for the one-time kernel selection. */
void emu_reduce(void *dst, const void *src, uint64_t count, int data_type, int reduce_op);

/* dst[i] = op(a[i], b[i]) for i < count: emu_reduce() with `a` as the destination operand,
 * the result written to a third buffer. It saves a pass over memory where a reduction would
 * otherwise follow a copy of its first operand into place (hcemu's allreduce: its own part
 * and a peer's into the output). dst may be a or b, or a and b the same buffer; no other
 * overlap. Same semantics and preconditions as emu_reduce(). */
void emu_reduce_into(void *dst, const void *a, const void *b, uint64_t count, int data_type,
                     int reduce_op);

/* One kernel of the set in use (emu_reduce_kernel_fn, reduce_types.h), for a loop that
 * reduces many small pieces of one (type, op), as a reduce-spread task does: each call of
 * emu_reduce*() validates its pair and loads the set again, which at a few hundred bytes a
 * piece costs as much as the arithmetic. `streamed`: the kernel for operands that stream from
 * memory, as a task's inputs past the cache do: the same bytes, from the kernels that run
 * fastest there, which need not be those that run fastest on cached data (reduce.c,
 * `streamed`). NULL, logged, for a pair emu_reduce() cannot compute. The caller keeps the set
 * of the call should emu_reduce_select_isa() change it. */
emu_reduce_kernel_fn emu_reduce_kernel(int data_type, int reduce_op, bool streamed);

/* Force a kernel set: "generic", "sse2", "avx2", "avx512", or "auto" (the best the CPU has).
 * NULL re-reads HCEMU_REDUCE_ISA (auto when unset). Meant for tests and benchmarks; call it
 * while no emu_reduce() runs. Returns EMU_OK, EMU_EINVAL for an unknown name (the selection is
 * unchanged), EMU_ENOTSUP when this CPU or build lacks the set (unchanged too). */
emu_status emu_reduce_select_isa(const char *name) EMU_MUST_CHECK;
/* Name of the kernel set in use ("avx2", ...); selects it first if nothing is selected yet. */
const char *emu_reduce_isa_name(void);

#endif
