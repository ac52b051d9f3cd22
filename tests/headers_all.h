/* headers_all.h - includes every public header under include/, each spelling, twice where a
 * forwarder exists, for the translation-unit tests of test_headers. Test-only. */
#ifndef HCEMU_TESTS_HEADERS_ALL_H
#define HCEMU_TESTS_HEADERS_ALL_H

#include "acl/acl.h"
#include "acl/acl_rt.h"
#include "acl/acl_base.h"
#include "acl/acl_base_rt.h"
#include "acl/acl_base_mdl.h"
#include "acl/acl_rt_allocator.h"
#include "acl/error_codes/rt_error_codes.h"
#include "acl/error_codes/ge_error_codes.h"
#include "hccl/hccl.h"
#include "hccl/hccl_types.h"
#include "hccl/hccl_comm.h"
#include "hccl/hccl_res.h"
#include "hccl/hccl_res_expt.h"
#include "hccl/hccl_channel.h"
#include "hccl/hccl_rank_graph.h"
#include "hccl/hccl_launch.h"
#include "hccl/hccl_sym_win.h"
#include "hccl/hcomm_diag.h"
#include "hccl/hccl_diag.h"
#include "hccl/hccl_inner.h"
#include "hccl/hcom.h"
#include "pkg_inc/hccl/hccl_inner.h"
#include "pkg_inc/hccl/hcom.h"
#include "pkg_inc/runtime/rt_external.h"
#include "pkg_inc/hccl/hcomm_diag.h"
#include "pkg_inc/hccl/hccl_diag.h"
#include "hccl/hcomm_primitives.h"
#include "hccl/hcomm_res_defs.h"
#include "hccl/hcomm_channel.h"
#include "hcomm_primitives.h"
#include "hcomm_res_defs.h"
#include "hcomm_channel.h"
#include "hcomm/hcomm_primitives.h"
#include "hcomm/hcomm_res_defs.h"
#include "hcomm/hcomm_channel.h"
#include "hcomm/hcomm_primitives_expt.h"
#include "pkg_inc/hccl/hccl_res_expt.h"
#include "pkg_inc/hcomm/hcomm_primitives_expt.h"
#include "hcemu_provenance.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Each returns 0 when the helpers behave in that translation unit. */
int headers_c_tu1_probe(void);
int headers_c_tu2_probe(void);
int headers_cxx_probe(void);
/* The bytes the C++ build of each inline initialiser produces, for comparison with C. */
void headers_cxx_init_bytes(HcclChannelDesc *desc, CommLink *link, ThreadConfig *cfg,
                            EndpointDesc *ep, HcclCommConfig *config);

#ifdef __cplusplus
}
#endif

#endif
