# bench_exchange_floor: the least a 2/4/8-rank 1 KiB allreduce costs on this machine when each
# rank is a process that runs once per call (one barrier, no kernel, no task), waiting by futex
# sleeps or by sched_yield. Run: build/bin/bench_exchange_floor [calls]
add_executable(bench_exchange_floor ${CMAKE_CURRENT_SOURCE_DIR}/bench_exchange_floor.c
                                    ${CMAKE_CURRENT_SOURCE_DIR}/startup_floor.c)
target_include_directories(bench_exchange_floor PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(bench_exchange_floor PRIVATE hcemu_common)
