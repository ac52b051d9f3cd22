# slowed: 8 rank processes of the hccl_test allgather and allreduce loops with every executor
# under valgrind --tool=none, whose slow, coarse thread switching widens the job-wide run
# queue's races (tests/slowed/run_slowed.sh says which one it caught). Skipped without
# valgrind; not in the sanitizer build (valgrind cannot run ASan binaries).
foreach(tool all_gather_test all_reduce_test)
    add_test(NAME slowed_${tool} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/slowed/run_slowed.sh
             ${CMAKE_BINARY_DIR}/bin ${tool} 6 3000)
    set_tests_properties(slowed_${tool} PROPERTIES LABELS "no-asan" TIMEOUT 600
                         SKIP_RETURN_CODE 77 PROCESSORS 2)
endforeach()
