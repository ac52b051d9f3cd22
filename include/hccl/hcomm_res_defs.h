/* Forwarder so bare "hcomm_res_defs.h" resolves from inside hccl/. */
#include "../hcomm/hcomm_res_defs.h"
