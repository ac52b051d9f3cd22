/* symbols.c - source lines of kernel addresses for host-side reports. */
#include <stdio.h>
#include <string.h>

#include "fault.h"

void emu_fault_symbolize(const char *image, uint64_t offset, char *out, size_t len)
{
    const char *base = strrchr(image, '/');

    snprintf(out, len, "0x%llx (%s)", (unsigned long long)offset, base ? base + 1 : image);
}
