/* Forwarder for the pkg_inc/ spelling of the vendor tree. */
#include "../../hccl/hccl_inner.h"
