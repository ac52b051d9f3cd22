# hccl_test-compatible tools: one driver (hccl_test.c), one executable per operator, built
# to bin/ under hccl_test's names; plus end-to-end runs with -c 1 (ranks as threads and as
# processes under hcemu-run) registered as tests.
set(HT_TOOLS all_reduce_test=0 all_gather_test=1 reduce_scatter_test=2 broadcast_test=3
             reduce_test=4 alltoall_test=5 alltoallv_test=6 scatter_test=7 send_recv_test=8)
foreach(t ${HT_TOOLS})
    string(REPLACE "=" ";" parts ${t})
    list(GET parts 0 name)
    list(GET parts 1 op)
    add_executable(${name} ${CMAKE_CURRENT_SOURCE_DIR}/hccl_test/hccl_test.c)
    target_compile_definitions(${name} PRIVATE HT_OP=${op})
    target_link_libraries(${name} PRIVATE hcemu Threads::Threads m)
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/examples/common)
    set_target_properties(${name} PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
    install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endforeach()
