/* symbols.c - source lines of kernel addresses for host-side reports. */
#include "fault.h"
#include "loader/symbolize.h"

void emu_fault_symbolize(const char *image, uint64_t offset, char *out, size_t len)
{
    /* On failure emu_symbolize still writes "0xaddr (image)". */
    emu_status ignored = emu_symbolize(image, offset, out, len);
    (void)ignored;
}
