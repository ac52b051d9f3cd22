/* report.h - failure reports of the executor: one message per failure that says what
 * happened, where (device, stream, task, call site) and what to do. */
#ifndef HCEMU_DEVICE_REPORT_H
#define HCEMU_DEVICE_REPORT_H

#include <stddef.h>
#include <stdint.h>

struct emu_task;

/* Log why task t of stream `slot` failed (t->status). Called with the scheduler lock held. */
void emu_report_task_failure(uint32_t slot, const struct emu_task *t);
/* Describe a call site: "function (file.c:line)" inside a kernel image with debug info,
 * "symbol+0xoff (image)" without, "host 0x..." for host-submitted tasks. */
void emu_report_callsite(uint64_t pc, int from_host, char *out, size_t len);
/* Name a task kind of another module (data plane) for reports. */
void emu_report_register_kind(uint32_t kind, const char *name);
/* A short name for a task kind ("notify wait", "channel write", ...). */
const char *emu_report_kind_name(uint32_t kind);

#endif
