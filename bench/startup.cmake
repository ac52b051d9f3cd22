# bench_startup: job start to first kernel (aclInit, devices, HcclCommInitRootInfo, a first
# HcclAllGather) for N thread ranks. Run: build/bin/bench_startup [ranks]
add_executable(bench_startup ${CMAKE_CURRENT_SOURCE_DIR}/bench_startup.c
                             ${CMAKE_CURRENT_SOURCE_DIR}/startup_floor.c)
target_link_libraries(bench_startup PRIVATE hcemu Threads::Threads)
