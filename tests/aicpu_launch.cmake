# aicpu_launch: HcclAicpuKernelLaunch (host/coll/api_aicpu_launch.c), the way HCCL's library
# launches its Send and Recv: a kernel of a loaded image run on an AICPU_TS thread from a
# stream of its own, ordered by the user's stream on both sides, and its refusals.
hcemu_add_kernel(aicpu_launch_copy SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/aicpu_launch_copy.c
                 ENTRIES aicpu_launch_copy)
emu_add_test(aicpu_launch SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_aicpu_launch.c
             ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_util.c
             LIBS hcemu hcemu_common TIMEOUT 120)
add_dependencies(test_aicpu_launch aicpu_launch_copy hcemu-device)
target_compile_definitions(test_aicpu_launch PRIVATE KERNEL_DIR="${CMAKE_BINARY_DIR}/kernels")
