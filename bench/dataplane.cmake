# bench_dataplane: the HCOMM data plane (copies, writes, reductions, notify hand-offs, small
# task throughput) against memcpy and process ping-pongs measured in the same run. Uses the
# data-plane test fixture and the dp_exec kernel (tests/dataplane.cmake).
add_executable(bench_dataplane ${CMAKE_CURRENT_SOURCE_DIR}/bench_dataplane.c
               ${CMAKE_SOURCE_DIR}/tests/test_dataplane_fixture.c)
target_include_directories(bench_dataplane PRIVATE ${CMAKE_SOURCE_DIR} ${CMAKE_SOURCE_DIR}/include
                           ${CMAKE_SOURCE_DIR}/tests)
target_link_libraries(bench_dataplane PRIVATE hcemu hcemu_common Threads::Threads)
target_compile_definitions(bench_dataplane PRIVATE
    DP_KERNELS_JSON="${CMAKE_BINARY_DIR}/kernels/dp_kernels.json")
if(TARGET dp_kernels)
    add_dependencies(bench_dataplane dp_kernels hcemu-device)
endif()
