/* acl_base.h - the ACL base include chain: basic types, error codes of both layers. */
#ifndef HCEMU_ACL_BASE_H
#define HCEMU_ACL_BASE_H

#include "acl_base_rt.h"
#include "acl_base_mdl.h"
#include "error_codes/rt_error_codes.h"
#include "error_codes/ge_error_codes.h"
#include "acl_rt_allocator.h"

#endif
