# hccl92: the hcomm 9.2 level HCCL's own library needs - device functions called from a kernel
# (directly and through dlopen("libccl_kernel.so")), launches with host arguments, and the
# host answers (expansion mode, communicator status, group state, versions, ids).
hcemu_add_kernel(hccl92_probe SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/hccl92_probe.c
                 ENTRIES hccl92_probe)
target_link_libraries(hccl92_probe PRIVATE ${CMAKE_DL_LIBS})
emu_add_test(hccl92 SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_hccl92.c
             ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_util.c
             LIBS hcemu hcemu_common TIMEOUT 120)
add_dependencies(test_hccl92 hccl92_probe hcemu-device)
target_compile_definitions(test_hccl92 PRIVATE KERNEL_DIR="${CMAKE_BINARY_DIR}/kernels")
