/* Forwarder: the definitions live in hcomm/hcomm_res_defs.h. */
#include "hcomm/hcomm_res_defs.h"
