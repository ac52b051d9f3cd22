/* Forwarder for the pkg_inc/ spelling of the vendor tree. */
#include "../../hccl/hcomm_diag.h"
