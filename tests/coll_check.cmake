# Cross-rank checks of the collectives (host/hccl/coll_check.c, HCEMU_COLL_CHECK): every
# mismatch kind, a late rank and a rank that leaves, at 2 and 8 rank threads, then the same
# scenarios as 2 and 8 rank processes under hcemu-run (each rank checks its own line).
emu_add_test(coll_check SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_coll_check.c
             ${CMAKE_CURRENT_SOURCE_DIR}/test_comm_util.c
             LIBS hcemu hcemu_common TIMEOUT 120 ENV "HCEMU_LOG_LEVEL=warn")
foreach(n 2 8)
    add_test(NAME coll_check_procs_n${n} COMMAND $<TARGET_FILE:hcemu-run> -n ${n} --
             $<TARGET_FILE:test_coll_check>)
    set_tests_properties(coll_check_procs_n${n} PROPERTIES TIMEOUT 120
        ENVIRONMENT "HCCL_BUFFSIZE=1;HCEMU_LOG_LEVEL=warn")
endforeach()
