/* fault.h - host-side reports: host code dereferencing device memory, and devices whose
 * executor failed (kernel crash or timeout). */
#ifndef HCEMU_HOST_FAULT_H
#define HCEMU_HOST_FAULT_H

#include <stddef.h>
#include <stdint.h>

/* Chain a SIGSEGV/SIGBUS handler that explains dereferences of device addresses. */
void emu_fault_install_host(void);
/* Classify an address a kernel faulted on, in words ("a null pointer", ...). */
void emu_fault_classify(uint32_t dev, uint64_t addr, char *out, size_t len);
/* Source line of an address inside a kernel image (libdw through the loader). */
void emu_fault_symbolize(const char *image, uint64_t offset, char *out, size_t len);

#endif
