# The SoC matrix: hcemu's built-in collectives at each product family it emulates (HCEMU_SOC,
# common/contract/product.c): Atlas 350 (Ascend950PR_9599), Atlas A3 (Ascend910_9391) and Atlas A2
# (Ascend910B1). The default SoC is the 950, which the other collectives tests cover; here
# test_collectives (every operator, data type and reduce op, bad arguments, real bytes) runs
# as threads and as processes on A3 and A2, and every hccl_test tool with its result check
# (-c 1) as 3 rank processes on all three. A product rule meant for a user's call must never
# refuse hcemu's own work ("does not support" fails the tool tests), and the kernel image uses
# only the data-plane calls the product has (write with notify is the 950's).
foreach(fam a3:Ascend910_9391 a2:Ascend910B1)
    string(REPLACE ":" ";" f ${fam})
    list(GET f 0 tag)
    list(GET f 1 soc)
    add_test(NAME collectives_soc_${tag} COMMAND test_collectives)
    set_tests_properties(collectives_soc_${tag} PROPERTIES TIMEOUT 300 ENVIRONMENT
        "TEST_COLL_SOC=${soc};HCEMU_HANG_MS=30000;HCEMU_LOG_LEVEL=warn")
    add_test(NAME collectives_procs_soc_${tag} COMMAND $<TARGET_FILE:hcemu-run> -n 3 --
             $<TARGET_FILE:test_collectives>)
    set_tests_properties(collectives_procs_soc_${tag} PROPERTIES TIMEOUT 300 ENVIRONMENT
        "TEST_COLL_QUICK=1;HCCL_BUFFSIZE=1;HCEMU_SOC=${soc};HCEMU_HANG_MS=30000;HCEMU_LOG_LEVEL=warn")
endforeach()
foreach(fam 950:Ascend950PR_9599 a3:Ascend910_9391 a2:Ascend910B1)
    string(REPLACE ":" ";" f ${fam})
    list(GET f 0 tag)
    list(GET f 1 soc)
    foreach(tool all_reduce_test all_gather_test reduce_scatter_test broadcast_test reduce_test
                 alltoall_test alltoallv_test scatter_test send_recv_test)
        add_test(NAME hccl_test_soc_${tag}_${tool} COMMAND $<TARGET_FILE:hcemu-run> -n 3 --
                 $<TARGET_FILE:${tool}> -b 8 -e 1M -f 32 -n 1 -w 1 -d int32 -o max -r 1 -c 1)
        set_tests_properties(hccl_test_soc_${tag}_${tool} PROPERTIES TIMEOUT 300
            ENVIRONMENT "HCCL_BUFFSIZE=1;HCEMU_SOC=${soc};HCEMU_HANG_MS=30000"
            FAIL_REGULAR_EXPRESSION "failed|does not support|not supported"
            PASS_REGULAR_EXPRESSION "success")
    endforeach()
endforeach()
