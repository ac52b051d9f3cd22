/* ge_error_codes.h - placeholder for the graph-engine (GE) error codes.
 *
 * No GE call is emulated, so no GE code can be returned; the file exists so vendor include
 * chains resolve. */
#ifndef HCEMU_ACL_GE_ERROR_CODES_H
#define HCEMU_ACL_GE_ERROR_CODES_H

#endif
