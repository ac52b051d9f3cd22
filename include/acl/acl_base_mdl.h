/* acl_base_mdl.h - placeholder for the vendor's model-inference base types.
 *
 * Model loading is outside the communication-kernel flow hcemu emulates, so nothing is
 * declared; the file exists because acl_base.h includes it in the vendor tree. */
#ifndef HCEMU_ACL_BASE_MDL_H
#define HCEMU_ACL_BASE_MDL_H

#include "acl_base_rt.h"

#endif
