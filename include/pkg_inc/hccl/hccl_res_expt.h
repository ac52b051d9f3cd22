/* Forwarder for the pkg_inc/ spelling used by the HCCL samples. */
#include "../../hccl/hccl_res_expt.h"
