# bench_task_floor: the fastest this machine passes small tasks from a building thread to a
# running one (no scheduler, no checks), on two cores and on one, for bench_dataplane's
# small-task rate to be read against. Run: build/bin/bench_task_floor [tasks]
add_executable(bench_task_floor ${CMAKE_CURRENT_SOURCE_DIR}/bench_task_floor.c)
target_include_directories(bench_task_floor PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(bench_task_floor PRIVATE hcemu_common Threads::Threads)
