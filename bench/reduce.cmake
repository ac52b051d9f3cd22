# bench_reduce: emu_reduce() throughput against memcpy of the same bytes, measured in one run.
add_executable(bench_reduce
    ${CMAKE_CURRENT_SOURCE_DIR}/bench_reduce.c
    ${CMAKE_SOURCE_DIR}/device/reduce.c
    ${CMAKE_SOURCE_DIR}/device/reduce_generic.c
    ${CMAKE_SOURCE_DIR}/device/reduce_sse2.c
    ${CMAKE_SOURCE_DIR}/device/reduce_avx2.c
    ${CMAKE_SOURCE_DIR}/device/reduce_avx512.c)
target_include_directories(bench_reduce PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(bench_reduce PRIVATE hcemu_common Threads::Threads)
