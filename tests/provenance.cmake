# provenance (issue 35): hcemuProvenanceFill/Poison/Check and HCEMU_PROVENANCE. test_provenance
# checks the API's answers on host memory, runs test_prov_host (examples' boilerplate + the
# kernels of kernels/prov_bugs.c, two with a planted bug) as rank threads and as processes,
# and the hccl_test tools with -c 2, clean and under HCEMU_FAULT=transfer-corrupt.
include(${CMAKE_SOURCE_DIR}/cmake/HcemuKernel.cmake)
hcemu_add_kernel(prov_bugs SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/kernels/prov_bugs.c
                 ENTRIES prov_gather_ok prov_wrong_slot prov_reduce_ok prov_double_reduce
                 OUTPUT_DIR ${CMAKE_BINARY_DIR}/bin)
target_include_directories(prov_bugs PRIVATE ${CMAKE_SOURCE_DIR}/examples/common)
target_compile_options(prov_bugs PRIVATE -O0) # reports name exact kernel lines

add_executable(test_prov_host ${CMAKE_CURRENT_SOURCE_DIR}/test_prov_host.c)
target_link_libraries(test_prov_host PRIVATE hcemu_examples_common)
add_dependencies(test_prov_host prov_bugs hcemu-device)

emu_add_test(provenance SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_provenance.c
                                ${CMAKE_CURRENT_SOURCE_DIR}/support/rt_support.c
             LIBS hcemu TIMEOUT 900 LABELS "e2e")
add_dependencies(test_provenance test_prov_host hcemu-run all_reduce_test all_gather_test
                 reduce_scatter_test broadcast_test reduce_test alltoall_test alltoallv_test
                 scatter_test send_recv_test)
target_compile_definitions(test_provenance PRIVATE
    PROV_HOST="$<TARGET_FILE:test_prov_host>"
    PROV_BIN_DIR="$<TARGET_FILE_DIR:all_reduce_test>"
    PROV_KERNEL_SRC="${CMAKE_CURRENT_SOURCE_DIR}/kernels/prov_bugs.c")
