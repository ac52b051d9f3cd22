/* hcomm_check.c - see hcomm_check.h.
 *
 * Shared by libhcemu and hcemu-device so that a handle is judged, and a refusal worded, the
 * same way on both sides of the data plane; the side-specific parts come in through the
 * call's emu_hcomm_side. Every check passes silently or logs exactly one line. */
#include "hcomm_check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"

void emu_hcomm_check_refuse(const struct emu_hcomm_call *c, const char *fmt, ...)
{
    char msg[320];
    char site[384];
    char whom[192];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    emu_hcomm_check_whom(c, whom, sizeof(whom));
    c->side->site(c->callsite, site, sizeof(site));
    EMU_LOG_ERR("%s: %s refused: %s; called from %s", whom, c->fn, msg, site);
}

/* A thread: a host CPU_TS thread is an ACL stream, named with the device and stream that
 * carry it; an AICPU_TS thread by its label ("rank R thread T"), rank, or slot. */
static void thread_name(const struct emu_hcomm_call *c, const struct emu_stream_ctl *s,
                        const char *ctx, char *out, size_t len)
{
    if (c->side->engine == EMU_ENGINE_CPU_TS) {
        if (s->rank != UINT32_MAX)
            snprintf(out, len, "rank %u CPU_TS thread %u (device %u stream %u)%s", s->rank,
                     s->thread_index, c->dev, c->thread, ctx);
        else
            snprintf(out, len, "device %u stream %u%s", c->dev, c->thread, ctx);
    } else if (s->label[0] != '\0') {
        snprintf(out, len, "%.36s%s", s->label, ctx);
    } else if (s->rank != UINT32_MAX) {
        snprintf(out, len, "rank %u thread %u%s", s->rank, s->thread_index, ctx);
    } else {
        snprintf(out, len, "thread slot %u%s", c->thread, ctx);
    }
}

void emu_hcomm_check_whom(const struct emu_hcomm_call *c, char *out, size_t len)
{
    struct emu_devctl *ctl = c->dev != EMU_HCOMM_NONE ? c->side->ctl_of(c->dev, false) : NULL;
    char ctx[96] = "";

    if (c->side->context != NULL)
        c->side->context(ctx, sizeof(ctx));
    if (ctl != NULL && c->thread != EMU_HCOMM_NONE && c->thread < EMU_MAX_STREAMS) {
        thread_name(c, &ctl->streams[c->thread], ctx, out, len);
    } else if (ctl != NULL && c->channel != EMU_HCOMM_NONE && c->channel < EMU_MAX_CHANNELS) {
        snprintf(out, len, "rank %u channel to rank %u%s", ctl->channels[c->channel].local_rank,
                 ctl->channels[c->channel].remote_rank, ctx);
    } else if (c->side->one_device && c->dev != EMU_HCOMM_NONE) {
        snprintf(out, len, "device %u%s", c->dev, ctx);
    } else {
        snprintf(out, len, "host%s", ctx);
    }
}

/* The control block of the device a handle names, refused when the side cannot use it. */
static struct emu_devctl *device_of(const struct emu_hcomm_call *c, const char *what, uint64_t h,
                                    uint32_t dev)
{
    struct emu_devctl *ctl;

    if (c->side->one_device && dev != c->dev) {
        emu_hcomm_check_refuse(c, "%s 0x%016llx belongs to device %u, this kernel runs on "
                               "device %u", what, (unsigned long long)h, dev, c->dev);
        return NULL;
    }
    if ((ctl = c->side->ctl_of(dev, true)) == NULL)
        emu_hcomm_check_refuse(c, "%s 0x%016llx names device %u, which this process has not "
                               "opened", what, (unsigned long long)h, dev);
    return ctl;
}

emu_status emu_hcomm_check_thread(const struct emu_hcomm_call *c, const char *what, uint64_t h,
                                  struct emu_handle *dh, struct emu_stream_ctl **s)
{
    const struct emu_hcomm_side *sd = c->side;
    struct emu_devctl *ctl;

    if (h == 0) {
        emu_hcomm_check_refuse(c, "%s is 0 (no thread)", what);
        return EMU_ENULL;
    }
    if (!emu_handle_decode(h, EMU_HANDLE_THREAD, dh)) {
        emu_hcomm_check_refuse(c, "%s 0x%016llx is not a thread handle", what,
                               (unsigned long long)h);
        return EMU_EHANDLE;
    }
    if ((ctl = device_of(c, what, h, dh->dev)) == NULL)
        return EMU_EHANDLE;
    if (dh->engine != sd->engine) {
        emu_hcomm_check_refuse(c, "%s 0x%016llx is a handle of engine %u; %s handles%s", what,
                               (unsigned long long)h, dh->engine, sd->rule,
                               dh->exported ? sd->hint_exported : sd->hint);
        return EMU_EHANDLE;
    }
    *s = &ctl->streams[dh->index % EMU_MAX_STREAMS];
    if (dh->index >= EMU_MAX_STREAMS || emu_load_acquire(&(*s)->kind) == EMU_STREAM_FREE ||
        ((*s)->gen & EMU_HANDLE_GEN_MASK) != dh->gen) {
        emu_hcomm_check_refuse(c, "%s 0x%016llx is stale (%s) or was never acquired", what,
                               (unsigned long long)h, sd->stale);
        return EMU_EHANDLE;
    }
    return EMU_OK;
}

/* The stream kind that carries threads of `engine`. */
static uint32_t stream_kind(uint32_t engine)
{
    return engine == EMU_ENGINE_CPU_TS ? EMU_STREAM_ACL : EMU_STREAM_DEVICE;
}

static bool is_thread_of(const struct emu_stream_ctl *s, uint32_t engine)
{
    return s->kind == stream_kind(engine) && s->engine == (int32_t)engine;
}

bool emu_hcomm_check_own(const struct emu_hcomm_side *sd, const struct emu_handle *dh,
                         const struct emu_stream_ctl *s)
{
    return !dh->exported && is_thread_of(s, sd->engine);
}

bool emu_hcomm_check_notify_dst(const struct emu_hcomm_side *sd, const struct emu_handle *dh,
                                const struct emu_stream_ctl *s)
{
    uint32_t other = sd->engine == EMU_ENGINE_CPU_TS ? EMU_ENGINE_AICPU_TS : EMU_ENGINE_CPU_TS;

    return emu_hcomm_check_own(sd, dh, s) || (dh->exported && is_thread_of(s, other));
}

static bool channel_engine_ok(const struct emu_hcomm_side *sd, uint32_t engine)
{
    return engine == sd->engine || engine == sd->channel_engine_also;
}

emu_status emu_hcomm_check_channel(struct emu_hcomm_call *c, uint64_t h, uint32_t *slot)
{
    const struct emu_hcomm_side *sd = c->side;
    struct emu_handle dh;
    struct emu_devctl *ctl;

    if (h == 0) {
        emu_hcomm_check_refuse(c, "channel is 0 (no channel)");
        return EMU_ENULL;
    }
    if (!emu_handle_decode(h, EMU_HANDLE_CHANNEL, &dh)) {
        emu_hcomm_check_refuse(c, "channel 0x%016llx is not a channel handle",
                               (unsigned long long)h);
        return EMU_EHANDLE;
    }
    if ((ctl = device_of(c, "channel", h, dh.dev)) == NULL)
        return EMU_EHANDLE;
    if (!channel_engine_ok(sd, dh.engine) || dh.exported) {
        emu_hcomm_check_refuse(c, "channel 0x%016llx was acquired for engine %u; %s channels",
                               (unsigned long long)h, dh.engine, sd->channel_rule);
        return EMU_EHANDLE;
    }
    const struct emu_channel_ctl *ch = &ctl->channels[dh.index % EMU_MAX_CHANNELS];
    if (dh.index >= EMU_MAX_CHANNELS || emu_load_acquire(&ch->state) != 1 ||
        (ch->gen & EMU_HANDLE_GEN_MASK) != dh.gen || ch->engine != (int32_t)dh.engine ||
        ch->peer >= EMU_MAX_PEERS) {
        emu_hcomm_check_refuse(c, "channel 0x%016llx is stale (released) or was never acquired",
                               (unsigned long long)h);
        return EMU_EHANDLE;
    }
    c->channel = dh.index;
    *slot = dh.index;
    return EMU_OK;
}

emu_status emu_hcomm_check_index(const struct emu_hcomm_call *c, const char *what, uint32_t idx,
                                 uint32_t num)
{
    if (idx < num)
        return EMU_OK;
    if (num == 0)
        emu_hcomm_check_refuse(c, "%s %u: the target has no notifies (notifyNum 0)", what, idx);
    else
        emu_hcomm_check_refuse(c, "%s %u is out of range [0, %u)", what, idx, num);
    return EMU_EINVAL;
}

emu_status emu_hcomm_check_timeout(const struct emu_hcomm_call *c, float s, uint32_t *out)
{
    if (isnan(s) || s < 0.0f || (double)s > (double)UINT32_MAX) {
        emu_hcomm_check_refuse(c, "timeout %g s: must be a number in [0, %u] (0 = forever)",
                               (double)s, UINT32_MAX);
        return EMU_EINVAL;
    }
    *out = (uint32_t)s;
    return EMU_OK;
}
