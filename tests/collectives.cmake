# The built-in collectives (host/hccl/api_coll.c, coll_*.c, collectives/): every operator,
# data type and reduce op at 1, 2, 3, 5 and 8 rank threads, bad arguments; then the
# algorithm-sensitive operators once per HCEMU_ALGO setting; ranks as processes through the
# hccl_test tools under hcemu-run (tools/hccl_test/hccl_test.cmake).
emu_add_test(collectives SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_collectives.c
             ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_util.c
             LIBS hcemu hcemu_common TIMEOUT 300 ENV "HCEMU_LOG_LEVEL=warn")
foreach(algo mesh ring rhd twoshot)
    add_test(NAME collectives_${algo} COMMAND test_collectives)
    set_tests_properties(collectives_${algo} PROPERTIES TIMEOUT 300 ENVIRONMENT
        "TEST_COLL_QUICK=1;HCEMU_ALGO=allreduce:${algo},allgather:${algo},broadcast:${algo}")
endforeach()
