/* Forwarder: the definitions live in hcomm/hcomm_primitives.h. */
#include "hcomm/hcomm_primitives.h"
