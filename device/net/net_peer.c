/* net_peer.c - whether a peer device is on another host (net.h), apart from the transport so
 * the data plane's checks can ask without importing it. */
#include "common/contract/host_id.h"
#include "device/exec.h"
#include "net.h"

bool emu_net_is_remote(uint32_t peer)
{
    return peer < EMU_MAX_PEERS &&
           !emu_host_is_devices(emu_exec_g.dev, emu_exec_ctl()->peers[peer].host_key);
}
