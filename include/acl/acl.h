/* acl.h - umbrella ACL header. In CANN 1.15 aclInit/aclFinalize were declared here; 1.17
 * moved them to acl_rt.h, which this file includes, so both spellings keep working. */
#ifndef HCEMU_ACL_H
#define HCEMU_ACL_H

#include "acl_rt.h"

#endif
