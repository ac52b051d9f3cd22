/* report.c - formatting of executor failure reports; task failures reach it through its
 * scheduler hook (the `fail` member), registered at executor start-up. */
#include "report.h"

#include <stdio.h>

#include "common/contract/devctl.h"
#include "common/platform/log.h"
#include "exec.h"
#include "device/sched/sched.h"
#include "device/kernel/symbols.h"

static const char *const host_kinds[EMU_TASK_KIND_COUNT] = {
    [EMU_TASK_NOP] = "nop",
    [EMU_TASK_COPY] = "memory copy",
    [EMU_TASK_MEMSET] = "memset",
    [EMU_TASK_NOTIFY_RECORD] = "notify record",
    [EMU_TASK_NOTIFY_WAIT] = "notify wait",
    [EMU_TASK_EVENT_RECORD] = "event record",
    [EMU_TASK_EVENT_WAIT] = "event wait",
    [EMU_TASK_KERNEL] = "kernel launch",
};

/* Data-plane kinds register their names here (see emu_report_register_kind). */
static const char *extra_kinds[256];

void emu_report_register_kind(uint32_t kind, const char *name)
{
    if (kind < 256)
        extra_kinds[kind] = name;
}

const char *emu_report_kind_name(uint32_t kind)
{
    if (kind < EMU_TASK_KIND_COUNT && host_kinds[kind] != NULL)
        return host_kinds[kind];
    if (kind < 256 && extra_kinds[kind] != NULL)
        return extra_kinds[kind];
    return "task";
}

static void task_failure(uint32_t slot, const struct emu_task *t)
{
    struct emu_stream_ctl *sc = &emu_exec_ctl()->streams[slot];
    char where[384];
    int from_host = sc->kind == EMU_STREAM_ACL;

    emu_symbols_callsite(t->callsite, slot, !from_host || t->from_kernel, where, sizeof(where));
    EMU_LOG_ERR("%s %u%s%s: %s failed: %s%s%s, submitted at %s; the rest of this stream is "
                "discarded and the error is returned by the next synchronisation",
                from_host ? "stream" : "thread", slot, sc->label[0] ? " " : "", sc->label,
                emu_report_kind_name(t->kind), emu_status_str(t->status), t->note[0] ? ": " : "",
                t->note, where);
}

static const struct emu_sched_hooks report_hooks = {.fail = task_failure};

emu_status emu_report_register(void)
{
    return emu_sched_register(&report_hooks);
}
