# Fault injection (device/inject.c, HCEMU_FAULT): each rule against all_reduce_test -c 1 at
# 2 and 8 ranks, as rank threads and as rank processes (hcemu-run), each in a private job
# parent; what the program sees and what hcemu reports (tests/support/fault_inject.sh: every
# expected line, the exit status, and no folder or executor left once the job ended).
#   fault_case(name ITERS WANT RULE2 RULE8 EXPECT...)   RULE2/RULE8: the rule at 2/8 ranks;
#   ITERS the calls, or ITERS2/ITERS8 for each rank count
function(fault_case name iters want rule2 rule8)
    string(REPLACE "/" ";" counts "${iters}")
    list(LENGTH counts n_counts)
    foreach(n 2 8)
        if(n_counts EQUAL 2 AND n EQUAL 8)
            list(GET counts 1 iters)
        else()
            list(GET counts 0 iters)
        endif()
        foreach(mode threads procs)
            # A device that dies with collectives queued for it: a surviving rank thread's
            # stream then drains one hang period per queued kernel (minutes; a limit of the
            # executor, not of the injection). As processes hcemu-run stops the survivors.
            if(name MATCHES "^kill" AND mode STREQUAL "threads")
                continue()
            endif()
            add_test(NAME fault_${name}_${mode}_n${n} COMMAND
                     ${CMAKE_CURRENT_SOURCE_DIR}/support/fault_inject.sh
                     $<TARGET_FILE_DIR:hcemu-run> ${mode} ${n} ${iters} ${want} ${rule${n}}
                     ${ARGN})
            set_tests_properties(fault_${name}_${mode}_n${n} PROPERTIES TIMEOUT 180
                                 LABELS "e2e;fault" ENVIRONMENT "HCEMU_LOG_LEVEL=warn")
        endforeach()
    endforeach()
endfunction()
fault_case(notify_drop 1 fail "notify-drop:rank=1,nth=3" "notify-drop:rank=1,nth=3"
           "rank 1's notify record 3 is lost" "hang: no task of the job made progress"
           "it was never recorded|is parked itself")
fault_case(notify_delay 3 0 "notify-delay:rank=0,us=2000" "notify-delay:rank=0,us=2000"
           "4096 .*success")
fault_case(transfer_delay 3 0 "transfer-delay:rank=1,us=2000" "transfer-delay:rank=1,us=2000"
           "4096 .*success")
# The transfer's size is the algorithm's (a whole 4 KiB buffer by mesh, halves and quarters by
# halving-doubling, which the wall-clock choice takes at 8 ranks): any size, one byte flipped.
fault_case(transfer_corrupt 1 fail "transfer-corrupt:rank=1,nth=2" "transfer-corrupt:rank=1,nth=9"
           "transfer-corrupt\\): byte [0-9]+ of [0-9]+ flipped" "failed|exited with status 1")
fault_case(link_down 1 fail "link-down:ranks=0-1,after=2" "link-down:ranks=0-1,after=2"
           "the link between ranks 0 and 1 is down" "failed: 507018")
fault_case(kill 100000 fail "kill:dev=1,after_ms=300" "kill:dev=1,after_ms=300"
           "device 1's executor dies now" "device 1 failed: its executor .* was killed by signal 9")
# The same by rank: under hcemu-run rank R uses device R of the folder.
fault_case(kill_rank 100000 fail "kill:rank=1,after_ms=300" "kill:rank=1,after_ms=300"
           "device 1's executor \\(rank 1's\\) dies now"
           "device 1 failed: its executor .* was killed by signal 9")
# The stall starts 5 ms after the executor does, well inside the shortest run (20000 calls of
# 4 KiB take 150 ms at 2 ranks on a fast machine, 3000 at 8 ranks about 1 s; 3000 at 2 ranks
# took 25-40 ms, and once, on a loaded machine, the job ended before the stall's thread
# woke), so it always meets the job.
fault_case(stall 20000/3000 0 "stall:dev=1,after_ms=5,ms=500" "stall:dev=1,after_ms=5,ms=500"
           "device 1 runs no data-plane task for 500 ms" "4096 .*success")
fault_case(stall_rank 20000/3000 0 "stall:rank=1,after_ms=5,ms=500" "stall:rank=1,after_ms=5,ms=500"
           "device 1 \\(rank 1's\\) runs no data-plane task for 500 ms" "4096 .*success")
fault_case(bad_rule 1 0 "drop-everything:rank=1" "drop-everything:rank=1"
           "rule \"drop-everything:rank=1\" ignored" "4096 .*success")
