/* Forwarder so bare "hcomm_channel.h" resolves from inside hccl/. */
#include "../hcomm/hcomm_channel.h"
