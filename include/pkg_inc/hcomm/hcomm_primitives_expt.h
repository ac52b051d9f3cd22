/* Forwarder for the pkg_inc/ spelling of the vendor tree. */
#include "../../hcomm/hcomm_primitives_expt.h"
