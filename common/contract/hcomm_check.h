/* hcomm_check.h - the checks every Hcomm* call makes, on the host (CPU_TS threads,
 * host/hccl/hcomm.c) and in the executor (AICPU_TS threads, device/dp/dp_check.c): thread
 * and channel handle decoding against a control block, the text that names who called
 * ("whom"), and the one refusal line "whom: fn refused: message; called from site".
 * What differs between the two sides (which engine they run, how a call site is symbolized,
 * which control blocks they reach, a few words of advice) is one emu_hcomm_side each. */
#ifndef HCEMU_COMMON_HCOMM_CHECK_H
#define HCEMU_COMMON_HCOMM_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devctl.h"
#include "handle.h"
#include "status.h"

/* CommEngine values that reach the data plane (the vendor enum lives in include/). */
#define EMU_ENGINE_CPU_TS 1u
#define EMU_ENGINE_AICPU 2u
#define EMU_ENGINE_AICPU_TS 3u
#define EMU_HCOMM_NONE UINT32_MAX

struct emu_hcomm_call;

/* One side of the data plane: fixed for the life of the process. */
struct emu_hcomm_side {
    uint32_t engine;  /* EMU_ENGINE_*: the threads this side queues tasks on */
    bool one_device;  /* handles must name the call's own device (c->dev) */
    const char *rule; /* "a kernel can use only AICPU_TS (3)": completes "...; <rule> handles" */
    /* Channels of this engine are accepted too (EMU_HCOMM_NONE: none): kernels use AICPU (2)
     * channels as AICPU_TS ones, as the vendor's P2P custom-op sample does. */
    uint32_t channel_engine_also;
    const char *channel_rule; /* like `rule`, for channels */
    const char *hint;          /* after the engine refusal of a not-exported handle */
    const char *hint_exported; /* after the engine refusal of an exported handle */
    const char *stale;         /* why a thread handle may be stale: "is stale (<stale>) or..." */
    /* The control block of device `dev` as this process maps it, NULL when none; with `live`,
     * NULL also when the device no longer works (the host may probe it then). */
    struct emu_devctl *(*ctl_of)(uint32_t dev, bool live);
    /* "function (file.c:line)" of return address `pc` (0 = unknown). */
    void (*site)(uint64_t pc, char *out, size_t len);
    /* Text appended to the caller's name (" (kernel k)"), or "" ; NULL = nothing. */
    void (*context)(char *out, size_t len);
};

/* What the boundary knows about the call being checked, for the one refusal line. */
struct emu_hcomm_call {
    const struct emu_hcomm_side *side;
    const char *fn;
    uint64_t callsite; /* return address into the caller, 0 = unknown */
    uint32_t dev;      /* device of the executing thread, EMU_HCOMM_NONE until known */
    uint32_t thread;   /* stream slot of the executing thread, EMU_HCOMM_NONE until checked */
    uint32_t channel;  /* channel slot, EMU_HCOMM_NONE until checked */
};

/* Log one refusal line: "whom: fn refused: <message>; called from <site>". */
void emu_hcomm_check_refuse(const struct emu_hcomm_call *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The caller's name as refusals print it: its thread (rank, index or label), else its
 * channel, else its device ("host" on the host). */
void emu_hcomm_check_whom(const struct emu_hcomm_call *c, char *out, size_t len);
/* Decode thread handle `h` (argument `what`) to a live stream slot of a reachable device.
 * EMU_ENULL for 0, EMU_EHANDLE for a foreign, wrong-engine, stale or non-thread value. */
emu_status emu_hcomm_check_thread(const struct emu_hcomm_call *c, const char *what, uint64_t h,
                                  struct emu_handle *dh,
                                  struct emu_stream_ctl **s) EMU_MUST_CHECK;
/* Whether a decoded thread is one the side queues tasks on (not exported, its engine). */
bool emu_hcomm_check_own(const struct emu_hcomm_side *sd, const struct emu_handle *dh,
                         const struct emu_stream_ctl *s);
/* Whether a decoded thread may receive a notify record from this side: an own thread, or a
 * thread of the other engine exported to this one. */
bool emu_hcomm_check_notify_dst(const struct emu_hcomm_side *sd, const struct emu_handle *dh,
                                const struct emu_stream_ctl *s);
/* Decode channel handle `h` to a live channel slot of the call's device (c->dev) of the
 * side's engine; sets c->channel. */
emu_status emu_hcomm_check_channel(struct emu_hcomm_call *c, uint64_t h,
                                   uint32_t *slot) EMU_MUST_CHECK;
/* idx < num, else EMU_EINVAL ("what" names the index argument). */
emu_status emu_hcomm_check_index(const struct emu_hcomm_call *c, const char *what, uint32_t idx,
                                 uint32_t num) EMU_MUST_CHECK;
/* Timeout seconds from float: NaN, negative or > UINT32_MAX refused; fraction truncated. */
emu_status emu_hcomm_check_timeout(const struct emu_hcomm_call *c, float s,
                                   uint32_t *out) EMU_MUST_CHECK;

#endif
