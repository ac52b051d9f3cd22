/* headers_c_tu2.c - second C translation unit including every public header; see
 * headers_c_tu1.c for why there are two. */
#include "headers_all.h"

int headers_c_tu2_probe(void)
{
    CommLink link;
    HcclCommConfig config;
    EndpointDesc ep;

    HcclCommConfigInit(&config);
    if (CommLinkInit(&link, 1) != HCCL_SUCCESS || EndpointDescInit(&ep, 1) != 0)
        return -1;
    return config.hcclSymWinMaxMemSizePerRank == 16 ? 0 : -1;
}
