/* acl_rt_allocator.h - placeholder for the vendor's external-allocator hooks.
 *
 * User-supplied allocators are not emulated; the file exists so vendor include chains
 * resolve. */
#ifndef HCEMU_ACL_RT_ALLOCATOR_H
#define HCEMU_ACL_RT_ALLOCATOR_H

#include "acl_base_rt.h"

#endif
