/* hcomm.c - see hcomm.h.
 *
 * A CPU_TS thread is an ACL stream slot whose engine is CPU_TS; its tasks go through the
 * device's submission ring like any stream task (emu_stream_submit), so they run in order
 * with the user's kernel launches and copies on that stream: the host <-> kernel hand-shake
 * of spec/flow.md. Records go to the destination thread's notify slot (any device of the
 * job); waits park the stream on the device until the notify is set or the timeout passes,
 * and a timeout fails the stream, reported by aclrtSynchronizeStream. */
#include "hcomm.h"
#include "loader/symbolize.h"

#include <dlfcn.h>
#include <link.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/atomic.h"
#include "common/handle.h"
#include "common/log.h"
#include "common/os.h"
#include "host/acl/runtime.h"
#include "host/acl/stream.h"

#define ENGINE_CPU_TS 1u
#define ENGINE_AICPU_TS 3u

static _Thread_local uint32_t wait_s = EMU_HCOMM_HOST_DEFAULT_WAIT_S;
static _Thread_local int in_batch;
static _Thread_local char batch_tag[128];

static void callsite(uint64_t pc, char *out, size_t len)
{
    Dl_info info;

    /* With debug info: "function (file.c:line)" of the call (pc - 1 lies inside it). The
     * main program appears in dladdr with an empty name: read it through /proc/self/exe. */
    struct link_map *lm = NULL;
    if (pc != 0 && dladdr1((void *)(uintptr_t)pc, &info, (void **)&lm, RTLD_DL_LINKMAP) != 0 &&
        lm != NULL) {
        const char *path =
            info.dli_fname != NULL && info.dli_fname[0] != '\0' ? info.dli_fname : "/proc/self/exe";
        char line[256];
        /* l_addr is the load bias: pc - l_addr is the ELF address, PIE or not. */
        if (emu_symbolize(path, pc - 1 - (uint64_t)lm->l_addr, line, sizeof(line)) == EMU_OK &&
            strchr(line, ':') != NULL) {
            snprintf(out, len, "%s", line);
            return;
        }
    }
    if (emu_symbol_of(pc, out, len))
        return;
    snprintf(out, len, "host program at 0x%llx", (unsigned long long)pc);
}

void emu_hcomm_refuse(const struct emu_hcomm_call *c, const char *fmt, ...)
{
    char msg[320], site[256], whom[96];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    callsite(c->callsite, site, sizeof(site));
    snprintf(whom, sizeof(whom), "host");
    if (c->dev < EMU_MAX_DEVICES && emu_rt.devs[c->dev].ctl != NULL) {
        const struct emu_stream_ctl *s = &emu_rt.devs[c->dev].ctl->streams[c->slot];
        if (s->rank != UINT32_MAX)
            snprintf(whom, sizeof(whom), "rank %u CPU_TS thread %u (device %u stream %u)",
                     s->rank, s->thread_index, c->dev, c->slot);
        else
            snprintf(whom, sizeof(whom), "device %u stream %u", c->dev, c->slot);
    }
    EMU_LOG_ERR("%s: %s refused: %s; called from %s", whom, c->fn, msg, site);
}

emu_status emu_hcomm_not_supported(const struct emu_hcomm_call *c, const char *why)
{
    emu_hcomm_refuse(c, "not supported by the host library: %s", why);
    return EMU_ENOTSUP;
}

/* Decode a thread handle of engine `engine` naming a live slot of an open device. */
static emu_status decode(const struct emu_hcomm_call *c, const char *what, uint64_t h,
                         struct emu_handle *dh, struct emu_stream_ctl **sc)
{
    if (h == 0) {
        emu_hcomm_refuse(c, "%s is 0 (no thread)", what);
        return EMU_ENULL;
    }
    if (!emu_handle_decode(h, EMU_HANDLE_THREAD, dh)) {
        emu_hcomm_refuse(c, "%s 0x%016llx is not a thread handle", what, (unsigned long long)h);
        return EMU_EHANDLE;
    }
    struct emu_hdev *d = &emu_rt.devs[dh->dev];
    if (dh->dev >= emu_rt.ndev || emu_device_check(d) != EMU_OK) {
        emu_hcomm_refuse(c, "%s 0x%016llx names device %u, which this process has not opened",
                         what, (unsigned long long)h, dh->dev);
        return EMU_EHANDLE;
    }
    if (dh->engine != ENGINE_CPU_TS) {
        emu_hcomm_refuse(c, "%s 0x%016llx is a handle of engine %u; the host uses CPU_TS (1) "
                         "handles (export AICPU_TS threads with HcclThreadExportToCommEngine)",
                         what, (unsigned long long)h, dh->engine);
        return EMU_EHANDLE;
    }
    *sc = &d->ctl->streams[dh->index % EMU_MAX_STREAMS];
    if (dh->index >= EMU_MAX_STREAMS || emu_load_acquire(&(*sc)->kind) == EMU_STREAM_FREE ||
        ((*sc)->gen & EMU_HANDLE_GEN_MASK) != dh->gen) {
        emu_hcomm_refuse(c, "%s 0x%016llx is stale (released) or was never acquired", what,
                         (unsigned long long)h);
        return EMU_EHANDLE;
    }
    return EMU_OK;
}

/* The CPU_TS thread that executes the call (a wrapped ACL stream). */
static emu_status own_thread(struct emu_hcomm_call *c, uint64_t h, struct emu_handle *dh,
                             struct emu_stream_ctl **sc)
{
    emu_status st = decode(c, "thread", h, dh, sc);

    if (st != EMU_OK)
        return st;
    if (dh->exported || (*sc)->kind != EMU_STREAM_ACL ||
        (*sc)->engine != (int32_t)ENGINE_CPU_TS) {
        emu_hcomm_refuse(c, "thread 0x%016llx is not a CPU_TS thread of this host (%s)",
                         (unsigned long long)h,
                         dh->exported ? "an exported handle is only a notify destination"
                                      : "not made by HcclThreadAcquireWithStream");
        return EMU_EHANDLE;
    }
    c->dev = dh->dev;
    c->slot = dh->index;
    return EMU_OK;
}

static emu_status check_index(const struct emu_hcomm_call *c, const char *what, uint32_t idx,
                              uint32_t num)
{
    if (idx < num)
        return EMU_OK;
    emu_hcomm_refuse(c, "%s %u is out of range [0, %u)", what, idx, num);
    return EMU_EINVAL;
}

static emu_status submit(const struct emu_hcomm_call *c, struct emu_wire_task *w)
{
    struct emu_hdev *d = &emu_rt.devs[c->dev];
    /* emu_stream_submit() needs only the slot, its generation and the device: the thread
     * names the slot, and the stream object of the user belongs to the ACL layer. */
    struct emu_hstream s = {.dev = c->dev,
                            .slot = c->slot,
                            .gen = d->ctl->streams[c->slot].gen,
                            .d = d};

    w->callsite = c->callsite;
    return emu_stream_submit(&s, w);
}

emu_status emu_hcomm_record(struct emu_hcomm_call *c, uint64_t thread, uint64_t dst,
                            uint32_t idx)
{
    struct emu_handle th, dh;
    struct emu_stream_ctl *ts, *ds;
    emu_status st;

    if ((st = own_thread(c, thread, &th, &ts)) != EMU_OK ||
        (st = decode(c, "dstThread", dst, &dh, &ds)) != EMU_OK)
        return st;
    bool exported_aicpu = dh.exported && ds->kind == EMU_STREAM_DEVICE &&
                          ds->engine == (int32_t)ENGINE_AICPU_TS;
    bool cpu_ts = !dh.exported && ds->kind == EMU_STREAM_ACL &&
                  ds->engine == (int32_t)ENGINE_CPU_TS;
    if (!exported_aicpu && !cpu_ts) {
        emu_hcomm_refuse(c, "dstThread 0x%016llx is neither an AICPU_TS thread exported to "
                         "CPU_TS nor a CPU_TS thread", (unsigned long long)dst);
        return EMU_EHANDLE;
    }
    if ((st = check_index(c, "dstNotifyIdx", idx, ds->notify_num)) != EMU_OK)
        return st;
    struct emu_wire_task w;
    memset(&w, 0, sizeof(w));
    w.kind = EMU_TASK_NOTIFY_RECORD;
    w.u.notify.dev = dh.dev;
    w.u.notify.slot = ds->notify_base + idx;
    return submit(c, &w);
}

emu_status emu_hcomm_wait(struct emu_hcomm_call *c, uint64_t thread, uint32_t idx,
                          uint32_t timeout_s)
{
    struct emu_handle th;
    struct emu_stream_ctl *ts;
    emu_status st;

    if ((st = own_thread(c, thread, &th, &ts)) != EMU_OK ||
        (st = check_index(c, "notifyIdx", idx, ts->notify_num)) != EMU_OK)
        return st;
    struct emu_wire_task w;
    memset(&w, 0, sizeof(w));
    w.kind = EMU_TASK_NOTIFY_WAIT;
    w.u.wait.slot = ts->notify_base + idx;
    w.u.wait.timeout_s = timeout_s;
    return submit(c, &w);
}

uint32_t emu_hcomm_default_wait_s(void)
{
    return wait_s;
}

emu_status emu_hcomm_set_default_wait(const struct emu_hcomm_call *c, float s)
{
    if (isnan(s) || s < 0.0f || (double)s > (double)UINT32_MAX) {
        emu_hcomm_refuse(c, "timeout %g s: must be a number in [0, %u] (0 = forever)", (double)s,
                         UINT32_MAX);
        return EMU_EINVAL;
    }
    wait_s = (uint32_t)s;
    return EMU_OK;
}

emu_status emu_hcomm_batch(const struct emu_hcomm_call *c, const char *tag, int start)
{
    const char *t = tag != NULL ? tag : "";

    if (start) {
        if (in_batch) {
            emu_hcomm_refuse(c, "already in batch mode (tag \"%s\") on this OS thread",
                             batch_tag);
            return EMU_EINVAL;
        }
        if (strlen(t) >= sizeof(batch_tag)) {
            emu_hcomm_refuse(c, "batchTag is longer than %zu characters", sizeof(batch_tag) - 1);
            return EMU_EINVAL;
        }
        strcpy(batch_tag, t);
        in_batch = 1;
        return EMU_OK;
    }
    if (!in_batch) {
        emu_hcomm_refuse(c, "not in batch mode on this OS thread (no HcommBatchModeStart)");
        return EMU_EINVAL;
    }
    if (strcmp(t, batch_tag) != 0) {
        emu_hcomm_refuse(c, "batchTag \"%s\" does not match HcommBatchModeStart's \"%s\"", t,
                         batch_tag);
        return EMU_EINVAL;
    }
    in_batch = 0;
    return EMU_OK;
}
