# dataplane_comm: the HCOMM data plane driven through the real control plane (HcclGetRootInfo,
# HcclCommInitRootInfo, thread/channel acquisition, exports, memory registration, engine
# contexts) on 2, 3 and 8 ranks as threads and 3 ranks as processes. Kernels: the dp_exec
# program interpreter and the docs/FLOW.md AllGather (dpc_flow.c).
hcemu_add_kernel(dpc_kernels SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/dp_exec.c
                 ${CMAKE_CURRENT_SOURCE_DIR}/kernels/dpc_flow.c ENTRIES dp_exec dpc_flow)
target_include_directories(dpc_kernels PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR})

emu_add_test(dataplane_comm SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_dataplane_comm.c
             ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_util.c
             LIBS hcemu hcemu_common TIMEOUT 180 LABELS dataplane)
target_compile_definitions(test_dataplane_comm PRIVATE
    DPC_KERNELS_JSON="${CMAKE_BINARY_DIR}/kernels/dpc_kernels.json")
add_dependencies(test_dataplane_comm dpc_kernels hcemu-device)

# The same tests with the job-wide run queue off (HCEMU_RUNQ=0): a record for a parked
# thread of another device rings that device, whose own workers run every task.
add_test(NAME dataplane_comm_norunq COMMAND test_dataplane_comm)
set_tests_properties(dataplane_comm_norunq PROPERTIES TIMEOUT 180 LABELS dataplane
                     ENVIRONMENT "HCEMU_RUNQ=0")

# The same tests with devices 1 and above on a second "host" (HCEMU_HOST_SPLIT): every
# primitive, its bytes and its refusals through the network (UCX) path.
if(UCX_FOUND)
    add_test(NAME dataplane_comm_net COMMAND test_dataplane_comm)
    set_tests_properties(dataplane_comm_net PROPERTIES TIMEOUT 180 LABELS "dataplane;multihost"
                         ENVIRONMENT "HCEMU_HOST_SPLIT=1" PROCESSORS 2)
endif()
