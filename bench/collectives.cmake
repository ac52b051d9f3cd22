# collectives: the copy limit used by bench/collectives.sh (the collective table of
# `make bench`: the hccl_test tools at 2, 4, 8 ranks beside OpenMPI when it is installed).
add_executable(coll_copy_bound ${CMAKE_CURRENT_SOURCE_DIR}/copy_bound.c)
target_link_libraries(coll_copy_bound PRIVATE hcemu_common Threads::Threads)

# Its arguments, not its figures: a size per line, and a bad option refused with status 2.
add_test(NAME bench_copy_bound_gather COMMAND coll_copy_bound -s -g 3 65536 131072)
set_tests_properties(bench_copy_bound_gather PROPERTIES
    PASS_REGULAR_EXPRESSION "^65536 [0-9.]+\n131072 [0-9.]+\n$")
add_test(NAME bench_copy_bound_reduce COMMAND coll_copy_bound -r 3 65536 131072)
# Streamed, 3 ranks take pieces of 85 floats, which no constant-count loop covers.
add_test(NAME bench_copy_bound_reduce_streamed COMMAND coll_copy_bound -s -r 3 65536 131072)
set_tests_properties(bench_copy_bound_reduce bench_copy_bound_reduce_streamed PROPERTIES
    PASS_REGULAR_EXPRESSION "^65536 [0-9.]+\n131072 [0-9.]+\n$")
add_test(NAME bench_copy_bound_refuses COMMAND coll_copy_bound -g 0 65536)
set_tests_properties(bench_copy_bound_refuses PROPERTIES PASS_REGULAR_EXPRESSION "^usage: coll_copy_bound")
add_test(NAME bench_copy_bound_refuses_mixed COMMAND coll_copy_bound -g 2 -r 2 65536)
set_tests_properties(bench_copy_bound_refuses_mixed PROPERTIES
    PASS_REGULAR_EXPRESSION "^usage: coll_copy_bound")
