# collectives: the copy limit used by bench/collectives.sh (the collective table of
# `make bench`: the hccl_test tools at 2, 4, 8 ranks beside OpenMPI when it is installed).
add_executable(coll_copy_bound ${CMAKE_CURRENT_SOURCE_DIR}/copy_bound.c)
target_link_libraries(coll_copy_bound PRIVATE hcemu_common Threads::Threads)
