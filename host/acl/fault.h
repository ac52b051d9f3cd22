/* fault.h - host-side reports: host code dereferencing device memory, and devices whose
 * executor failed (kernel crash or timeout). */
#ifndef HCEMU_HOST_FAULT_H
#define HCEMU_HOST_FAULT_H

#include <stddef.h>
#include <stdint.h>

#include "hdev.h"

/* Chain a SIGSEGV/SIGBUS handler that explains dereferences of device addresses. */
void emu_fault_install_host(void);
/* Classify an address a kernel faulted on, in words ("a null pointer", ...). */
void emu_fault_classify(uint32_t dev, uint64_t addr, char *out, size_t len);

/* Print the report of a device failure (once per process). */
void emu_fault_report_device(struct emu_hdev *d);

#endif
