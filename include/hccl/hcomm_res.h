/* Forwarder so bare "hcomm_res.h" resolves from inside hccl/. */
#include "../hcomm/hcomm_res.h"
