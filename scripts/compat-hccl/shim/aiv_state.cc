// aiv_state.cc - the AIV engine is not emulated (hcemu runs the AICPU_TS engine), so HCCL's
// AIV helper file is not built; this defines the few names of it the op framework refers to:
// the per-thread AIV recording state (never set here: no AIV template is built) and kernel
// registration, which answers "not supported".
#include <memory>
#include <vector>
#include <hccl/hccl_types.h>

namespace ops_hccl {
struct AivInstruction;
thread_local std::shared_ptr<std::vector<AivInstruction>> g_recordingQueue = nullptr;
thread_local unsigned long long g_baseInputAddr = 0;
thread_local unsigned long long g_baseOutputAddr = 0;

HcclResult RegisterKernel()
{
    return HCCL_E_NOT_SUPPORT;
}
} // namespace ops_hccl
