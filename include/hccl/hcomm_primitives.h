/* Forwarder for the <hccl/hcomm_primitives.h> spelling used by the HCCL samples. */
#include "../hcomm/hcomm_primitives.h"
