/* Forwarder: the definitions live in hcomm/hcomm_channel.h. */
#include "hcomm/hcomm_channel.h"
