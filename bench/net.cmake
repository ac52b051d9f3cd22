# bench_net: the data plane between two "hosts" (HCEMU_HOST_SPLIT, UCX) without a collective
# around it: write-only and write-with-notify bandwidth, notify hand-off latency (bench/net.sh
# prints them beside ucx_perftest). Uses the dp_exec program kernel (tests/dataplane_comm.cmake).
add_executable(bench_net ${CMAKE_CURRENT_SOURCE_DIR}/bench_net.c
               ${CMAKE_SOURCE_DIR}/tests/test_comm_util.c)
target_include_directories(bench_net PRIVATE ${CMAKE_SOURCE_DIR} ${CMAKE_SOURCE_DIR}/include
                           ${CMAKE_SOURCE_DIR}/tests)
target_link_libraries(bench_net PRIVATE hcemu hcemu_common PkgConfig::CMOCKA Threads::Threads)
target_compile_definitions(bench_net PRIVATE
    DPC_KERNELS_JSON="${CMAKE_BINARY_DIR}/kernels/dpc_kernels.json")
if(TARGET dpc_kernels)
    add_dependencies(bench_net dpc_kernels hcemu-device)
endif()
