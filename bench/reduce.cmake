# bench_reduce: emu_reduce() throughput against memcpy of the same bytes, measured in one run.
add_executable(bench_reduce
    ${CMAKE_CURRENT_SOURCE_DIR}/bench_reduce.c)
target_include_directories(bench_reduce PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(bench_reduce PRIVATE hcemu_reduce hcemu_common Threads::Threads)
