/* hcomm.c - see hcomm.h.
 *
 * A CPU_TS thread is an ACL stream slot whose engine is CPU_TS; its tasks go through the
 * device's submission ring like any stream task (emu_stream_submit), so they run in order
 * with the user's kernel launches and copies on that stream: the host <-> kernel hand-shake
 * of docs/FLOW.md. Records go to the destination thread's notify slot (any device of the
 * job); waits park the stream on the device until the notify is set or the timeout passes,
 * and a timeout fails the stream, reported by aclrtSynchronizeStream. */
#include "hcomm.h"
#include "loader/symbolize.h"

#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/contract/hcomm_check.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "host/acl/device.h"
#include "host/acl/runtime.h"
#include "host/acl/stream.h"

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
    if (emu_os_symbol_of(pc, out, len))
        return;
    snprintf(out, len, "host program at 0x%llx", (unsigned long long)pc);
}

static struct emu_devctl *ctl_of(uint32_t dev, bool live)
{
    if (dev >= EMU_MAX_DEVICES)
        return NULL;
    if (live && (dev >= emu_rt.ndev || emu_device_check(&emu_rt.devs[dev]) != EMU_OK))
        return NULL;
    return emu_rt.devs[dev].ctl;
}

/* The host's side of the shared checks (common/contract/hcomm_check.h): CPU_TS threads of any device
 * this process opened, call sites symbolized in the host program. */
const struct emu_hcomm_side emu_hcomm_side = {
    .engine = EMU_ENGINE_CPU_TS,
    .one_device = false,
    .rule = "the host uses CPU_TS (1)",
    .channel_engine_also = EMU_HCOMM_NONE,
    .channel_rule = "the host uses CPU_TS (1)",
    .hint = " (export AICPU_TS threads with HcclThreadExportToCommEngine)",
    .hint_exported = " (export AICPU_TS threads with HcclThreadExportToCommEngine)",
    .stale = "released",
    .ctl_of = ctl_of,
    .site = callsite,
    .context = NULL,
};

emu_status emu_hcomm_not_supported(const struct emu_hcomm_call *c, const char *why)
{
    emu_hcomm_check_refuse(c, "not supported by the host library: %s", why);
    return EMU_ENOTSUP;
}

/* The CPU_TS thread that executes the call (a wrapped ACL stream); sets c->dev, c->thread. */
static emu_status own_thread(struct emu_hcomm_call *c, uint64_t h, struct emu_stream_ctl **sc)
{
    struct emu_handle dh;
    emu_status st = emu_hcomm_check_thread(c, "thread", h, &dh, sc);

    if (st != EMU_OK)
        return st;
    if (!emu_hcomm_check_own(c->side, &dh, *sc)) {
        emu_hcomm_check_refuse(c, "thread 0x%016llx is not a CPU_TS thread of this host (%s)",
                               (unsigned long long)h,
                               dh.exported ? "an exported handle is only a notify destination"
                                           : "not made by HcclThreadAcquireWithStream");
        return EMU_EHANDLE;
    }
    c->dev = dh.dev;
    c->thread = dh.index;
    return EMU_OK;
}

static emu_status submit(const struct emu_hcomm_call *c, struct emu_wire_task *w)
{
    struct emu_hdev *d = &emu_rt.devs[c->dev];
    /* emu_stream_submit() needs only the slot, its generation and the device: the thread
     * names the slot, and the stream object of the user belongs to the ACL layer. */
    struct emu_hstream s = {.dev = c->dev,
                            .slot = c->thread,
                            .gen = d->ctl->streams[c->thread].gen,
                            .d = d};

    w->callsite = c->callsite;
    return emu_stream_submit(&s, w);
}

emu_status emu_hcomm_record(struct emu_hcomm_call *c, uint64_t thread, uint64_t dst,
                            uint32_t idx)
{
    struct emu_handle dh;
    struct emu_stream_ctl *ts, *ds;
    emu_status st;

    if ((st = own_thread(c, thread, &ts)) != EMU_OK ||
        (st = emu_hcomm_check_thread(c, "dstThread", dst, &dh, &ds)) != EMU_OK)
        return st;
    if (!emu_hcomm_check_notify_dst(c->side, &dh, ds)) {
        emu_hcomm_check_refuse(c, "dstThread 0x%016llx is neither an AICPU_TS thread exported "
                               "to CPU_TS nor a CPU_TS thread", (unsigned long long)dst);
        return EMU_EHANDLE;
    }
    if ((st = emu_hcomm_check_index(c, "dstNotifyIdx", idx, ds->notify_num)) != EMU_OK)
        return st;
    struct emu_wire_task w;
    memset(&w, 0, sizeof(w));
    w.kind = EMU_TASK_NOTIFY_RECORD;
    w.u.notify.dev = dh.dev;
    w.u.notify.slot = ds->notify_base + idx;
    return submit(c, &w);
}

emu_status emu_hcomm_wait_task(struct emu_hcomm_call *c, uint64_t thread, uint32_t idx,
                               uint32_t timeout_s, struct emu_wire_task *w)
{
    struct emu_stream_ctl *ts;
    emu_status st;

    if ((st = own_thread(c, thread, &ts)) != EMU_OK ||
        (st = emu_hcomm_check_index(c, "notifyIdx", idx, ts->notify_num)) != EMU_OK)
        return st;
    memset(w, 0, sizeof(*w));
    w->kind = EMU_TASK_NOTIFY_WAIT;
    w->callsite = c->callsite;
    /* The notify's slot now: the stream's binding may pass to another communicator later. */
    w->u.wait.slot = ts->notify_base + idx;
    w->u.wait.timeout_s = timeout_s;
    return EMU_OK;
}

emu_status emu_hcomm_wait(struct emu_hcomm_call *c, uint64_t thread, uint32_t idx,
                          uint32_t timeout_s)
{
    struct emu_wire_task w;
    emu_status st = emu_hcomm_wait_task(c, thread, idx, timeout_s, &w);

    return st != EMU_OK ? st : submit(c, &w);
}

uint32_t emu_hcomm_default_wait_s(void)
{
    return wait_s;
}

emu_status emu_hcomm_set_default_wait(const struct emu_hcomm_call *c, float s)
{
    uint32_t v;
    emu_status st = emu_hcomm_check_timeout(c, s, &v);

    if (st == EMU_OK)
        wait_s = v;
    return st;
}

emu_status emu_hcomm_batch(const struct emu_hcomm_call *c, const char *tag, int start)
{
    const char *t = tag != NULL ? tag : "";

    if (start) {
        if (in_batch) {
            emu_hcomm_check_refuse(c, "already in batch mode (tag \"%s\") on this OS thread",
                                   batch_tag);
            return EMU_EINVAL;
        }
        if (strlen(t) >= sizeof(batch_tag)) {
            emu_hcomm_check_refuse(c, "batchTag is longer than %zu characters",
                                   sizeof(batch_tag) - 1);
            return EMU_EINVAL;
        }
        strcpy(batch_tag, t);
        in_batch = 1;
        return EMU_OK;
    }
    if (!in_batch) {
        emu_hcomm_check_refuse(c, "not in batch mode on this OS thread (no HcommBatchModeStart)");
        return EMU_EINVAL;
    }
    if (strcmp(t, batch_tag) != 0) {
        emu_hcomm_check_refuse(c, "batchTag \"%s\" does not match HcommBatchModeStart's \"%s\"", t,
                               batch_tag);
        return EMU_EINVAL;
    }
    in_batch = 0;
    return EMU_OK;
}
