/* Forwarder: the declarations live in hcomm/hcomm_res.h. */
#include "hcomm/hcomm_res.h"
