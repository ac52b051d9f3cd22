/* rt_external.h (hcemu compat shim) - HCCL includes the runtime header by its bare name;
 * hcemu ships it as pkg_inc/runtime/rt_external.h. */
#include <pkg_inc/runtime/rt_external.h>
