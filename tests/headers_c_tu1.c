/* headers_c_tu1.c - first of two C translation units that include every public header.
 * Linked with headers_c_tu2.c into test_headers: a header that defined an object (a
 * `static const` or a non-inline function body) would show up as a duplicate or as a
 * per-TU copy here. The probe also uses the inline helpers so they are instantiated. */
#include "headers_all.h"

int headers_c_tu1_probe(void)
{
    HcclChannelDesc desc;
    ThreadConfig cfg;

    if (HcclChannelDescInit(&desc, 1) != HCCL_SUCCESS || ThreadConfigInit(&cfg, 1) != 0)
        return -1;
    return desc.header.size == sizeof(HcclChannelDesc) ? 0 : -1;
}
